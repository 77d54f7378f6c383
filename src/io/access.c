/*
 * access.c -- moving data between a user buffer and the file through the
 * view: the one engine under every read and write (explicit offset,
 * individual and shared pointer, blocking, nonblocking, collective).
 *
 * The buffer side is packed or unpacked in pieces of at most CHUNK bytes
 * (core/datatype.h, cm_dt_pack_range), or used in place when contiguous
 * in the native representation; "external32" swaps each packed piece,
 * whole elements at a time (its sizes are the native ones here);
 * the file side is the view's runs (view.c, cm_io_view_map), adjacent
 * runs merged into one pread/pwrite.  In atomic mode each call holds an
 * open-file-description write lock on the whole file (shared for a read),
 * so that concurrent accesses of the group see each other whole (14.6.1).
 */
#include "io/io.h"
#include "core/error.h"
#include "core/status.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK ((size_t)4 << 20)

int cm_io_check_access(struct cm_file *f, const char *call, int write, MPI_Count count, MPI_Datatype dt)
{
    if (write && (f->amode & MPI_MODE_RDONLY))
        return cm_io_error(f, MPI_ERR_READ_ONLY, call, "the file was opened MPI_MODE_RDONLY");
    if (!write && (f->amode & MPI_MODE_WRONLY))
        return cm_io_error(f, MPI_ERR_ACCESS, call, "the file was opened MPI_MODE_WRONLY");
    if (count < 0)
        return cm_io_error(f, MPI_ERR_COUNT, call, "negative count %lld", (long long)count);
    const struct cm_datatype *t = cm_dt_lookup(dt);
    if (!t || !t->committed)
        return cm_io_error(f, MPI_ERR_TYPE, call, "datatype %s", !t ? "is invalid" : "is not committed");
    if (f->urep)
        return cm_io_urep_check(f, call, count, t);
    if (t->size % (size_t)f->esize)
        return cm_io_error(f, MPI_ERR_TYPE, call, "the datatype (%zu bytes) is no multiple of the etype (%lld bytes)",
                           t->size, (long long)f->esize);
    if (count > INT_MAX && (!t->contig || f->ext32))
        return cm_io_error(f, MPI_ERR_COUNT, call, "count %lld of a datatype that must be packed is beyond INT_MAX",
                           (long long)count);
    if (t->size && count > INT64_MAX / (MPI_Count)t->size)
        return cm_io_error(f, MPI_ERR_COUNT, call, "count %lld is too large", (long long)count);
    return MPI_SUCCESS;
}

/* Move len bytes of the data stream from stream byte v between mem and
 * the file.  Returns the bytes moved (fewer for a read at the end of the
 * file), or -1 with errno set. */
static MPI_Offset view_io(struct cm_file *f, int write, char *mem, MPI_Offset v, MPI_Offset len)
{
    MPI_Offset done = 0;
    while (done < len) {
        MPI_Offset avail, off = cm_io_view_map(f, v + done, &avail);
        MPI_Offset n = avail < len - done ? avail : len - done;
        /* Merge the runs that follow in the file. */
        while (done + n < len && n < ((MPI_Offset)1 << 30)) {
            MPI_Offset a2, o2 = cm_io_view_map(f, v + done + n, &a2);
            if (o2 != off + n)
                break;
            n += a2 < len - done - n ? a2 : len - done - n;
        }
        MPI_Offset k = 0;
        while (k < n) {
            ssize_t r = write ? pwrite(f->fd, mem + done + k, (size_t)(n - k), off + k)
                              : pread(f->fd, mem + done + k, (size_t)(n - k), off + k);
            if (r < 0 && errno == EINTR)
                continue;
            if (r < 0)
                return -1;
            if (r == 0)     /* end of file (reads only) */
                return done + k;
            k += r;
        }
        done += n;
    }
    return done;
}

static int lock_file(struct cm_file *f, int write, int on)
{
    struct flock l = { .l_type = on ? (write ? F_WRLCK : F_RDLCK) : F_UNLCK, .l_whence = SEEK_SET };
    while (fcntl(f->fd, F_OFD_SETLKW, &l) && errno == EINTR)
        ;
    return 0;
}

int cm_io_access(struct cm_file *f, const char *call, int write, MPI_Offset epos, void *buf, MPI_Count count,
                 MPI_Datatype dt, MPI_Status *st, MPI_Offset *ndone)
{
    if (f->urep)
        return cm_io_urep_access(f, call, write, epos, buf, count, dt, st, ndone);
    int rc = cm_io_check_access(f, call, write, count, dt);
    if (rc)
        return rc;
    if (epos < 0)
        return cm_io_error(f, MPI_ERR_ARG, call, "negative offset %lld", (long long)epos);
    const struct cm_datatype *t = cm_dt_lookup(dt);
    MPI_Offset total = (MPI_Offset)t->size * count, done = 0, v = epos * f->esize;
    if (f->atomic)
        lock_file(f, write, 1);
    int err = 0;
    if (t->contig && !f->ext32) {
        done = view_io(f, write, (char *)buf + t->true_lb, v, total);
        err = done < 0 ? errno : 0;
    } else {
        /* Whole elements per piece, so that external32 swaps whole values. */
        size_t el = t->size ? t->size : 1;
        size_t cap = CHUNK < el ? el : CHUNK - CHUNK % el;
        if (total < (MPI_Offset)cap)
            cap = (size_t)total;
        char *tmp = cap ? malloc(cap) : NULL;
        if (cap && !tmp) {
            if (f->atomic)
                lock_file(f, write, 0);
            return cm_io_error(f, MPI_ERR_NO_MEM, call, "no memory for a %zu-byte staging buffer", cap);
        }
        while (done < total) {
            size_t n = total - done < (MPI_Offset)cap ? (size_t)(total - done) : cap;
            if (write)
                cm_dt_pack_range(buf, (int)count, t, (size_t)done, tmp, n);
            if (write && f->ext32)
                cm_dt_external32_swap(t, tmp, n, 1);
            MPI_Offset r = view_io(f, write, tmp, v + done, (MPI_Offset)n);
            if (r < 0) {
                err = errno;
                break;
            }
            if (!write && f->ext32)
                cm_dt_external32_swap(t, tmp, (size_t)r, 0);
            if (!write)
                cm_dt_unpack_range(tmp, (size_t)r, buf, (int)count, t, (size_t)done);
            done += r;
            if (r < (MPI_Offset)n)
                break;
        }
        free(tmp);
    }
    if (f->atomic)
        lock_file(f, write, 0);
    if (err)
        return cm_io_error(f, cm_io_errno_class(err), call, "%s at stream offset %lld: %s", write ? "pwrite" : "pread",
                           (long long)v, strerror(err));
    /* Whole etypes only count (a read that ends inside one). */
    done -= done % f->esize;
    if (st != MPI_STATUS_IGNORE) {
        st->MPI_SOURCE = MPI_ANY_SOURCE;
        st->MPI_TAG = MPI_ANY_TAG;
        cm_status_set_private(st, done, 0);
    }
    if (ndone)
        *ndone = done;
    return MPI_SUCCESS;
}

/* The run mover and the lock for user representations (datarep_conv.c). */
MPI_Offset cm_io_view_io(struct cm_file *f, int write, char *mem, MPI_Offset v, MPI_Offset len)
{
    return view_io(f, write, mem, v, len);
}

void cm_io_lock(struct cm_file *f, int write, int on)
{
    lock_file(f, write, on);
}
