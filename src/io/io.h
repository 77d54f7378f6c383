/*
 * io.h -- MPI-IO (MPI-4.1 chapter 14): the file object and what the files
 * of src/io share (docs/io.md has the design).
 *
 * A file is one POSIX descriptor per rank on the same path, a private
 * duplicate of the communicator for the collective steps, and a view:
 * displacement, etype, filetype.  Data moves by pread/pwrite on the runs
 * the view maps the data stream to (access.c); positions handed to the
 * user are in etype units.  The shared file pointer is one MPI_Offset in
 * memory shared by the ranks (a shared window, shared.c), moved by atomic
 * fetch-and-add; atomic mode's lock is a word beside it.
 *
 * Invariants: f->esize > 0 and f->tsize is a positive multiple of it;
 * f->etype and f->filetype are retained (core/datatype.h) while the view
 * holds them; every error of a call on a file goes to f->errh (default:
 * the handler of MPI_FILE_NULL, MPI_ERRORS_RETURN at start).
 */
#ifndef CM_IO_IO_H
#define CM_IO_IO_H

#include "mpi.h"
#include "core/datatype.h"
#include "core/thread.h"

#include <pthread.h>
#include <stddef.h>

/* Hints in effect (hints.c); modes of romio_cb_* and romio_ds_*. */
enum { CM_IO_AUTO, CM_IO_ENABLE, CM_IO_DISABLE };
struct cm_io_hints {
    int cb_read, cb_write;      /* two-phase collective buffering */
    int cb_nodes;               /* asked for; 0: one per L3 group / NUMA node */
    MPI_Offset cb_buffer_size;  /* bytes each aggregator moves per round */
    MPI_Offset striping_unit;   /* file domains aligned to it; 0: to pages */
    int ds_read, ds_write;      /* data sieving of independent access */
    MPI_Offset ind_rd_buffer_size, ind_wr_buffer_size;
    int direct_io;              /* O_DIRECT for large aligned contiguous runs */
    int naggs, *aggs;           /* aggregators in effect: ranks of comm */
};

/* The shared segment of a file's collective I/O (twophase.c). */
struct cm_io_cb;

struct cm_file {
    MPI_File handle;
    int fd;
    int dfd;                    /* O_DIRECT descriptor, -1: none */
    MPI_Comm comm;              /* private duplicate of the user's */
    int rank, size;
    int amode;
    int atomic;                 /* MPI_File_set_atomicity */
    char *name;
    MPI_Info info;              /* hints given (open, set_view, set_info) */
    MPI_Errhandler errh;

    /* The view. */
    MPI_Offset disp;
    MPI_Datatype etype, filetype;
    const struct cm_datatype *ft;   /* lookup of filetype */
    MPI_Offset esize;           /* bytes of one etype */
    MPI_Offset tsize, textent;  /* data bytes and extent of one filetype tile */
    char datarep[MPI_MAX_DATAREP_STRING];
    int ext32;                  /* datarep "external32": big-endian in the file */
    /* A user data representation (datarep_conv.c), NULL otherwise.  The data
     * stream is then in the file's representation: esize, tsize, textent and
     * ft are the file's, from the extent callback; file_etype/file_filetype
     * are the view's types rebuilt in that layout (0 when it is the native
     * one), owned by the view. */
    struct cm_io_datarep *urep;
    MPI_Datatype file_etype, file_filetype;

    MPI_Offset pos;             /* individual file pointer, etype units */
    /* Under MPI_THREAD_MULTIPLE, held (cm_mt_lock) from reading pos to
     * updating it: by an access with the individual pointer (rw.c), seek
     * and get_position (pointer.c).  Taken before any other lock. */
    pthread_mutex_t pos_lock;

    MPI_Win shwin;              /* holds *shared, on rank 0 of comm */
    struct cm_io_shared *sh;    /* in shwin: pointer and atomic-mode lock */
    MPI_Offset *shared;         /* shared file pointer, etype units (in sh) */

    struct cm_io_hints hints;
    struct cm_io_cb *cb;        /* NULL until the first two-phase access */
    MPI_Win cbwin;

    /* A split collective between its _begin and its _end. */
    const char *split_call;     /* NULL: none pending */
    MPI_Status split_status;
};

/* Table (file.c).  cm_io_lookup: the file of fh, or NULL after raising
 * MPI_ERR_FILE on MPI_FILE_NULL's handler (rc gets the class). */
struct cm_file *cm_io_lookup(MPI_File fh, const char *call, int *rc);
/* The prologue of every call on an open file: declares rc and f, the file
 * of fh, and returns rc (the class cm_io_lookup raised) when fh names none. */
#define CM_IO_FILE(f, fh, call, rc)                                                                    \
    int rc;                                                                                            \
    struct cm_file *f = cm_io_lookup(fh, call, &rc);                                                   \
    if (!f)                                                                                            \
        return rc
MPI_File cm_io_register(struct cm_file *f);
void cm_io_unregister(struct cm_file *f);

/* Raise errclass on f's handler; the text names the call, rank (core/error.c)
 * and file. */
int cm_io_error(struct cm_file *f, int errclass, const char *call, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Raise on MPI_FILE_NULL's handler (open, delete: no file yet). */
int cm_io_error_null(int errclass, const char *call, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
MPI_Errhandler cm_io_null_errh(void);
/* The MPI error class of a failed system call's errno. */
int cm_io_errno_class(int err);

/* The view (view.c): set the default (0, MPI_BYTE, MPI_BYTE, "native"),
 * release what a view holds; map a position of the data stream (bytes)
 * to a file offset, with the bytes the run there still has. */
int cm_io_view_default(struct cm_file *f);
void cm_io_view_release(struct cm_file *f);
MPI_Offset cm_io_view_map(const struct cm_file *f, MPI_Offset vbyte, MPI_Offset *avail);

/* Data access (access.c).  Moves count elements of dt between buf and the
 * data stream at etype position epos; fills st (bytes done) and *ndone
 * (bytes done).  Checks the arguments and the access mode; write: 1. */
int cm_io_access(struct cm_file *f, const char *call, int write, MPI_Offset epos, void *buf,
                 MPI_Count count, MPI_Datatype dt, MPI_Status *st, MPI_Offset *ndone);
/* Checks done before any data moves, shared by every access form. */
int cm_io_check_access(struct cm_file *f, const char *call, int write, MPI_Count count, MPI_Datatype dt);

/* Seeking (pointer.c): the position (etypes) that offset and whence name
 * from position cur; MPI_ERR_ARG raised on a bad whence or a negative
 * result. */
int cm_io_seek_target(struct cm_file *f, const char *call, MPI_Offset offset, int whence, MPI_Offset cur,
                      MPI_Offset *to);

/* Shared file pointer (shared.c). */
int cm_io_shared_open(struct cm_file *f, const char *call);
void cm_io_shared_close(struct cm_file *f);
/* Atomic mode's readers-writer lock of the group (write: exclusive). */
void cm_io_atomic_lock(struct cm_file *f, int write);
void cm_io_atomic_unlock(struct cm_file *f, int write);

/* Hints (hints.c).  apply is collective: parses info over the hints in
 * effect, agrees on rank 0's collective ones, chooses the aggregators. */
void cm_io_hints_default(struct cm_file *f);
int cm_io_hints_apply(struct cm_file *f, MPI_Info info);
void cm_io_hints_free(struct cm_file *f);
int cm_io_hints_report(const struct cm_file *f, MPI_Info *out);

/* Two-phase collective access (twophase.c).  Collective over f's group:
 * every rank calls it with its own access; it moves the data when the
 * group chose two-phase (*done set, returns 1) and returns 0 when each
 * rank must access independently instead. */
int cm_io_twophase(struct cm_file *f, const char *call, int write, MPI_Offset epos, void *buf, MPI_Count count,
                   MPI_Datatype dt, MPI_Status *st, MPI_Offset *ndone, int *rc);
void cm_io_twophase_free(struct cm_file *f);

/* Move len bytes of the data stream from stream byte v between mem and
 * the file, through the view (access.c): the bytes moved, or -1 (errno). */
MPI_Offset cm_io_view_io(struct cm_file *f, int write, char *mem, MPI_Offset v, MPI_Offset len);
/* Fill st and *ndone for done bytes (whole etypes only count). */
void cm_io_set_done(struct cm_file *f, MPI_Offset done, MPI_Status *st, MPI_Offset *ndone);

/* A request already complete, whose Wait/Test returns st (request.c). */
int cm_io_done_request(struct cm_file *f, const char *call, const MPI_Status *st, MPI_Request *request);

/* User data representations (datarep.c: the table; datarep_conv.c: what
 * their callbacks do to views and data).  fext caches the extent callback's
 * answer per predefined type (-1: not asked yet). */
struct cm_io_datarep {
    struct cm_io_datarep *next;
    char name[MPI_MAX_DATAREP_STRING];
    MPI_Datarep_conversion_function *read, *write;         /* MPI_Register_datarep */
    MPI_Datarep_conversion_function_c *read_c, *write_c;   /* MPI_Register_datarep_c */
    int large;                  /* registered by the _c form */
    MPI_Datarep_extent_function *extent;
    void *extra;
    MPI_Aint fext[CM_DT_NUM_PREDEFINED];
};
struct cm_io_datarep *cm_io_datarep_find(const char *name);
/* The view's types in the file layout of rep: *fetype and *fftype are new
 * committed types, or 0 when the layout is the native one.  Errors (a
 * callback's, a type that cannot be rebuilt) raised on f.  cm_io_type_drop
 * frees such a type (nothing for 0) and sets it to 0. */
int cm_io_urep_layout(struct cm_file *f, const char *call, struct cm_io_datarep *rep, MPI_Datatype etype,
                      MPI_Datatype filetype, MPI_Datatype *fetype, MPI_Datatype *fftype);
void cm_io_type_drop(MPI_Datatype *t);
/* MPI_File_get_type_extent in a user representation. */
int cm_io_urep_type_extent(struct cm_file *f, const char *call, MPI_Datatype dt, MPI_Count *extent);
/* For a file whose view has a user representation: the size checks of
 * cm_io_check_access (after its checks of mode, count and type), and
 * cm_io_access (the hook at its top). */
int cm_io_urep_check(struct cm_file *f, const char *call, MPI_Count count, const struct cm_datatype *t);
int cm_io_urep_access(struct cm_file *f, const char *call, int write, MPI_Offset epos, void *buf,
                      MPI_Count count, MPI_Datatype dt, MPI_Status *st, MPI_Offset *ndone);
/* Bytes that one element of dt takes in the data stream: its size, or in a
 * user representation its size in the file (after cm_io_check_access). */
MPI_Offset cm_io_stream_size(const struct cm_file *f, MPI_Datatype dt);


/* A collective step whose work rank 0 does: every rank returns rank 0's
 * class (errors raised on f's handler, with rank 0's text on rank 0). */
int cm_io_agree(struct cm_file *f, const char *call, int rc0);

#endif
