/*
 * file.c -- the table of open files, their error handlers, and the error
 * texts of MPI-IO.
 *
 * A file handle is kind CM_H_FILE of core/handle.h: index i >= 1 of the
 * table below (0 is MPI_FILE_NULL).  MPI_FILE_NULL has an error handler of
 * its own, MPI_ERRORS_RETURN until the program sets another (MPI-4.1
 * 9.3.4): open and delete raise their errors on it, and a file takes it at
 * open.
 *
 * Under MPI_THREAD_MULTIPLE threads may open, close and use files at once:
 * open and close change the table under table_lock; lookups take no lock
 * (a file is looked up after its open returned, and the table grows by
 * cm_table_grow, core/thread.h, so an old array stays readable).
 */
#include "io/io.h"
#include "core/error.h"
#include "core/handle.h"
#include "core/state.h"
#include "fe_io.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static struct cm_file **table;
static int table_len;
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static MPI_Errhandler null_errh = MPI_ERRORS_RETURN;

MPI_Errhandler cm_io_null_errh(void)
{
    return null_errh;
}

MPI_File cm_io_register(struct cm_file *f)
{
    cm_mt_lock(&table_lock);
    int i = 1;
    while (i < table_len && table[i])
        i++;
    if (i >= table_len) {
        int n = table_len ? 2 * table_len : 16;
        struct cm_file **t = cm_table_grow(table, (size_t)table_len * sizeof *t, (size_t)n * sizeof *t);
        if (!t) {
            cm_mt_unlock(&table_lock);
            return MPI_FILE_NULL;
        }
        __atomic_store_n(&table, t, __ATOMIC_RELEASE);
        __atomic_store_n(&table_len, n, __ATOMIC_RELEASE);
    }
    f->handle = cm_file_handle(i);
    __atomic_store_n(&table[i], f, __ATOMIC_RELEASE);
    cm_mt_unlock(&table_lock);
    return f->handle;
}

void cm_io_unregister(struct cm_file *f)
{
    cm_mt_lock(&table_lock);
    int i = cm_file_index(f->handle);
    if (i > 0 && i < table_len && table[i] == f)
        __atomic_store_n(&table[i], NULL, __ATOMIC_RELEASE);
    cm_mt_unlock(&table_lock);
}

struct cm_file *cm_io_lookup(MPI_File fh, const char *call, int *rc)
{
    *rc = cm_check_initialized(call);
    if (*rc)
        return NULL;
    int i = cm_file_index(fh), len = CM_RACY_LOAD(table_len);
    struct cm_file **t = CM_RACY_LOAD(table), *f = i > 0 && i < len ? CM_RACY_LOAD(t[i]) : NULL;
    if (f)
        return f;
    if (fh == MPI_FILE_NULL)
        *rc = cm_io_error_null(MPI_ERR_FILE, call, "file handle is MPI_FILE_NULL");
    else
        *rc = cm_io_error_null(MPI_ERR_FILE, call, "invalid file handle %ld", (long)(intptr_t)fh);
    return NULL;
}

static int raise_v(MPI_Errhandler e, MPI_File *obj, int errclass, const char *call, const char *file,
                   const char *fmt, va_list ap)
{
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (file)
        return cm_error_on(e, obj, errclass, call, "file \"%s\": %s", file, msg);
    return cm_error_on(e, obj, errclass, call, "%s", msg);
}

int cm_io_error(struct cm_file *f, int errclass, const char *call, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    MPI_File h = f->handle;
    int rc = raise_v(f->errh, &h, errclass, call, f->name, fmt, ap);
    va_end(ap);
    return rc;
}

int cm_io_error_null(int errclass, const char *call, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    MPI_File h = MPI_FILE_NULL;
    int rc = raise_v(null_errh, &h, errclass, call, NULL, fmt, ap);
    va_end(ap);
    return rc;
}

int cm_io_errno_class(int err)
{
    switch (err) {
    case ENOENT: return MPI_ERR_NO_SUCH_FILE;
    case EACCES: case EPERM: return MPI_ERR_ACCESS;
    case EEXIST: return MPI_ERR_FILE_EXISTS;
    case ENOSPC: return MPI_ERR_NO_SPACE;
    case EDQUOT: return MPI_ERR_QUOTA;
    case EROFS: return MPI_ERR_READ_ONLY;
    case EBUSY: case ETXTBSY: return MPI_ERR_FILE_IN_USE;
    case EISDIR: case ENOTDIR: case ENAMETOOLONG: case ELOOP: case EINVAL: return MPI_ERR_BAD_FILE;
    default: return MPI_ERR_IO;
    }
}

int cm_io_agree(struct cm_file *f, const char *call, int rc0)
{
    int rc = rc0;
    int mpi = PMPI_Bcast(&rc, 1, MPI_INT, 0, f->comm);
    if (mpi)
        return cm_io_error(f, mpi, call, "the ranks could not agree on the result");
    if (rc && f->rank != 0)
        return cm_io_error(f, rc, call, "failed on rank 0 of the file's group");
    return rc;
}

/* ---- error handlers ---------------------------------------------------- */

/* A file handler is called with an MPI_File * where a communicator's gets
 * an MPI_Comm *: the same calling convention, one table (core/error.c). */
int cm_File_create_errhandler(MPI_File_errhandler_function *file_errhandler_fn, MPI_Errhandler *errhandler)
{
    static const char call[] = "MPI_File_create_errhandler";
    int rc = cm_check_initialized(call);
    if (rc)
        return rc;
    if (!file_errhandler_fn || !errhandler)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "%s is NULL",
                        !file_errhandler_fn ? "file_errhandler_fn" : "errhandler");
    return PMPI_Comm_create_errhandler((MPI_Comm_errhandler_function *)file_errhandler_fn, errhandler);
}

/* MPI_FILE_NULL is a valid argument here: its handler is the default. */
static MPI_Errhandler *slot_of(MPI_File fh, const char *call, int *rc)
{
    if (fh == MPI_FILE_NULL) {
        *rc = cm_check_initialized(call);
        return *rc ? NULL : &null_errh;
    }
    struct cm_file *f = cm_io_lookup(fh, call, rc);
    return f ? &f->errh : NULL;
}

/* The prologue of the handler calls: rc, and slot, the handler fh uses;
 * returns rc when there is none. */
#define SLOT_OF(slot, fh, call, rc)                                                                    \
    int rc;                                                                                            \
    MPI_Errhandler *slot = slot_of(fh, call, &rc);                                                     \
    if (!slot)                                                                                         \
        return rc

int cm_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler)
{
    static const char call[] = "MPI_File_set_errhandler";
    SLOT_OF(slot, file, call, rc);
    if (!cm_errh_valid(errhandler) || errhandler == MPI_ERRHANDLER_NULL)
        return cm_error_on(*slot, &file, MPI_ERR_ARG, call, "invalid error handler %ld",
                           (long)(intptr_t)errhandler);
    cm_errh_replace(slot, errhandler);
    return MPI_SUCCESS;
}

int cm_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler)
{
    static const char call[] = "MPI_File_get_errhandler";
    SLOT_OF(slot, file, call, rc);
    if (!errhandler)
        return cm_error_on(*slot, &file, MPI_ERR_ARG, call, "errhandler is NULL");
    cm_errh_retain(*slot);   /* the caller frees the returned handle */
    *errhandler = *slot;
    return MPI_SUCCESS;
}

int cm_File_call_errhandler(MPI_File fh, int errorcode)
{
    static const char call[] = "MPI_File_call_errhandler";
    SLOT_OF(slot, fh, call, rc);
    cm_error_on(*slot, &fh, errorcode, call, "error code %d raised by the program", errorcode);
    return MPI_SUCCESS;
}
