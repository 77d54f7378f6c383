/*
 * open.c -- MPI_File_open, MPI_File_close, MPI_File_delete.
 *
 * Open is collective: rank 0 opens first with the creating flags (so that
 * MPI_MODE_EXCL means one creation in the group, not one per rank), the
 * others open the same path without them once rank 0 succeeded, and one
 * all-reduce makes every rank return an error when any rank failed or the
 * ranks gave different access modes.
 */
#include "io/io.h"
#include "core/comm.h"
#include "core/error.h"
#include "core/state.h"
#include "fe_io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ACCESS_BITS (MPI_MODE_RDONLY | MPI_MODE_RDWR | MPI_MODE_WRONLY)
#define KNOWN_BITS (ACCESS_BITS | MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_DELETE_ON_CLOSE | \
                    MPI_MODE_UNIQUE_OPEN | MPI_MODE_SEQUENTIAL | MPI_MODE_APPEND)

/* MPI-4.1 14.2.1: exactly one of RDONLY, RDWR, WRONLY; no CREATE or EXCL
 * with RDONLY; no SEQUENTIAL with RDWR.  NULL when amode is fine. */
static const char *amode_fault(int amode)
{
    int acc = amode & ACCESS_BITS;
    if (amode & ~KNOWN_BITS)
        return "unknown bits in amode";
    if (acc != MPI_MODE_RDONLY && acc != MPI_MODE_RDWR && acc != MPI_MODE_WRONLY)
        return "amode must hold exactly one of MPI_MODE_RDONLY, MPI_MODE_RDWR, MPI_MODE_WRONLY";
    if (acc == MPI_MODE_RDONLY && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)))
        return "MPI_MODE_CREATE or MPI_MODE_EXCL with MPI_MODE_RDONLY";
    if (acc == MPI_MODE_RDWR && (amode & MPI_MODE_SEQUENTIAL))
        return "MPI_MODE_SEQUENTIAL with MPI_MODE_RDWR";
    return NULL;
}

static int open_flags(int amode, int creating)
{
    int fl = O_CLOEXEC;
    fl |= (amode & MPI_MODE_RDONLY) ? O_RDONLY : (amode & MPI_MODE_WRONLY) ? O_WRONLY : O_RDWR;
    if (creating && (amode & MPI_MODE_CREATE))
        fl |= O_CREAT;
    if (creating && (amode & MPI_MODE_EXCL))
        fl |= O_EXCL | O_CREAT;
    return fl;
}

/* Open on this rank: the descriptor, or -1 with *cls and *err set. */
static int open_here(const char *path, int amode, int creating, int *cls, int *err)
{
    int fd = open(path, open_flags(amode, creating), 0666);
    if (fd < 0) {
        *err = errno;
        *cls = cm_io_errno_class(errno);
        return -1;
    }
    struct stat sb;
    if (fstat(fd, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        close(fd);
        *err = EISDIR;
        *cls = MPI_ERR_BAD_FILE;
        return -1;
    }
    return fd;
}

static void file_free(struct cm_file *f)
{
    cm_io_view_release(f);
    cm_io_twophase_free(f);
    cm_io_hints_free(f);
    cm_io_shared_close(f);
    if (f->info != MPI_INFO_NULL)
        PMPI_Info_free(&f->info);
    if (f->comm != MPI_COMM_NULL)
        PMPI_Comm_free(&f->comm);
    cm_errh_release(f->errh);
    pthread_mutex_destroy(&f->pos_lock);
    free(f->name);
    free(f);
}

int cm_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh)
{
    static const char call[] = "MPI_File_open";
    int rc = cm_check_initialized(call);
    if (rc)
        return rc;
    int inter = 0;
    if (comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
        return cm_io_error_null(MPI_ERR_COMM, call, "invalid communicator");
    if (inter)
        return cm_io_error_null(MPI_ERR_COMM, call, "an inter-communicator cannot open a file");
    if (!filename || !fh)
        return cm_io_error_null(MPI_ERR_ARG, call, "%s is NULL", !filename ? "filename" : "fh");

    struct cm_file *f = calloc(1, sizeof *f);
    if (!f || !(f->name = strdup(filename))) {
        free(f);
        return cm_io_error_null(MPI_ERR_NO_MEM, call, "out of memory");
    }
    f->fd = -1;
    pthread_mutex_init(&f->pos_lock, NULL);
    f->amode = amode;
    f->info = MPI_INFO_NULL;
    f->shwin = MPI_WIN_NULL;
    f->cbwin = MPI_WIN_NULL;
    cm_io_hints_default(f);
    f->errh = cm_io_null_errh();
    cm_errh_retain(f->errh);
    int mpi = PMPI_Comm_dup(comm, &f->comm);
    if (mpi) {
        f->comm = MPI_COMM_NULL;
        file_free(f);
        return cm_io_error_null(mpi, call, "could not duplicate the communicator");
    }
    PMPI_Comm_rank(f->comm, &f->rank);
    PMPI_Comm_size(f->comm, &f->size);

    /* Rank 0 creates, then the others open what it made. */
    const char *fault = amode_fault(amode);
    int cls = fault ? MPI_ERR_AMODE : MPI_SUCCESS, err = 0;
    if (f->rank == 0 && !cls)
        f->fd = open_here(filename, amode, 1, &cls, &err);
    int cls0 = cls;
    PMPI_Bcast(&cls0, 1, MPI_INT, 0, f->comm);
    if (f->rank != 0 && !cls && !cls0)
        f->fd = open_here(filename, amode, 0, &cls, &err);

    /* Any failure, and the same amode everywhere (max of amode and -amode). */
    int mine[3] = { cls, amode, -amode }, all[3];
    PMPI_Allreduce(mine, all, 3, MPI_INT, MPI_MAX, f->comm);
    if (!cls && all[1] != -all[2]) {
        cls = MPI_ERR_AMODE;
        fault = "the ranks passed different access modes";
    }
    if (!cls && all[0])
        cls = -1;
    if (!cls)
        cls = cm_io_view_default(f);
    if (!cls)
        cls = cm_io_shared_open(f, call);
    if (!cls && PMPI_Info_create(&f->info))
        cls = MPI_ERR_INFO;
    if (!cls)
        cls = cm_io_hints_apply(f, info);
    if (!cls && cm_io_register(f) == MPI_FILE_NULL)
        cls = MPI_ERR_NO_MEM;
    if (cls) {
        int rank = f->rank;
        if (f->fd >= 0)
            close(f->fd);
        file_free(f);
        *fh = MPI_FILE_NULL;
        if (cls == -1)
            return cm_io_error_null(all[0], call, "file \"%s\": the open failed on another rank", filename);
        if (fault)
            return cm_io_error_null(cls, call, "file \"%s\": amode %d: %s", filename, amode, fault);
        if (err)
            return cm_io_error_null(cls, call, "file \"%s\": %s", filename, strerror(err));
        if (cls0 && rank != 0)
            return cm_io_error_null(cls0, call, "file \"%s\": the open failed on rank 0", filename);
        return cm_io_error_null(cls, call, "file \"%s\": could not set the file up", filename);
    }
    if (amode & MPI_MODE_APPEND) {
        /* Both pointers start at the end (MPI-4.1 14.2.1), in bytes: the
         * default view's etype is MPI_BYTE. */
        struct stat sb;
        f->pos = fstat(f->fd, &sb) == 0 ? sb.st_size : 0;
        if (f->rank == 0)
            *f->shared = f->pos;
        PMPI_Barrier(f->comm);
    }
    *fh = f->handle;
    return MPI_SUCCESS;
}

int cm_File_close(MPI_File *fh)
{
    static const char call[] = "MPI_File_close";
    if (!fh)
        return cm_io_error_null(MPI_ERR_ARG, call, "fh is NULL");
    CM_IO_FILE(f, *fh, call, rc);
    /* Every rank has closed before rank 0 deletes. */
    int cls = close(f->fd) ? cm_io_errno_class(errno) : MPI_SUCCESS;
    int err = errno;
    PMPI_Barrier(f->comm);
    if (f->rank == 0 && (f->amode & MPI_MODE_DELETE_ON_CLOSE) && unlink(f->name) && !cls) {
        cls = cm_io_errno_class(errno);
        err = errno;
    }
    if (cls)
        cls = cm_io_error(f, cls, call, "%s", strerror(err));
    cm_io_unregister(f);
    file_free(f);
    *fh = MPI_FILE_NULL;
    return cls;
}

int cm_File_delete(const char *filename, MPI_Info info)
{
    static const char call[] = "MPI_File_delete";
    (void)info;
    int rc = cm_check_initialized(call);
    if (rc)
        return rc;
    if (!filename)
        return cm_io_error_null(MPI_ERR_ARG, call, "filename is NULL");
    if (unlink(filename))
        return cm_io_error_null(cm_io_errno_class(errno), call, "file \"%s\": %s", filename, strerror(errno));
    return MPI_SUCCESS;
}
