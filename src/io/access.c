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
 * runs merged into one pread/pwrite.  In atomic mode each call holds the
 * group's lock in the shared segment (shared.c; shared for a read), so
 * that concurrent accesses of the group see each other whole (14.6.1).
 * Independent non-contiguous runs may be sieved (romio_ds_read/write);
 * docs/io.md argues why the byte-range locks keep writes whole.
 */
#include "io/io.h"
#include "core/error.h"
#include "core/status.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
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

/* A byte-range open-file-description lock, taken (type F_RDLCK/F_WRLCK) or dropped (F_UNLCK). */
static void lock_range(struct cm_file *f, short type, MPI_Offset off, MPI_Offset len)
{
    struct flock l = { .l_type = type, .l_whence = SEEK_SET, .l_start = off, .l_len = len };
    while (fcntl(f->fd, F_OFD_SETLKW, &l) && errno == EINTR)
        ;
}

/* Independent writes lock their range whenever a rank of the group may
 * sieve writes (the hint is agreed): a sieving read-modify-write then
 * never writes back stale bytes over another rank's write.  Atomic mode
 * already holds the whole file. */
static int write_locks(const struct cm_file *f)
{
    return f->hints.ds_write != CM_IO_DISABLE && !f->atomic;
}

#define DIRECT_MIN ((MPI_Offset)1 << 20)
#define DIRECT_ALIGN 4096

/* One pread/pwrite of n bytes at off, to the end (or a read's end of
 * file): the bytes moved, or -1 with errno.  With direct_io, the aligned
 * head of a large request goes through the O_DIRECT descriptor. */
static MPI_Offset run_io(struct cm_file *f, int write, char *mem, MPI_Offset off, MPI_Offset n)
{
    MPI_Offset k = 0;
    while (k < n) {
        int fd = f->fd;
        size_t want = (size_t)(n - k);
        if (f->dfd >= 0 && n - k >= DIRECT_MIN && !(((uintptr_t)(mem + k) | (uintptr_t)(off + k)) % DIRECT_ALIGN)) {
            fd = f->dfd;
            want -= want % DIRECT_ALIGN;
        }
        ssize_t r = write ? pwrite(fd, mem + k, want, off + k) : pread(fd, mem + k, want, off + k);
        if (r < 0 && errno == EINVAL && fd == f->dfd) {
            f->dfd = -1;    /* the file system refused O_DIRECT after all */
            continue;
        }
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)     /* end of file (reads only) */
            break;
        k += r;
    }
    return k;
}

/* The run at stream byte v (at most len bytes), with the runs that follow
 * it in the file merged: its file offset, and its length. */
static MPI_Offset next_run(const struct cm_file *f, MPI_Offset v, MPI_Offset len, MPI_Offset *n)
{
    MPI_Offset avail, off = cm_io_view_map(f, v, &avail);
    *n = avail < len ? avail : len;
    while (*n < len && *n < ((MPI_Offset)1 << 30)) {
        MPI_Offset a2, o2 = cm_io_view_map(f, v + *n, &a2);
        if (o2 != off + *n)
            break;
        *n += a2 < len - *n ? a2 : len - *n;
    }
    return off;
}

/* Data sieving (romio_ds_read/write): the runs from stream byte v that
 * fit in one extent of the sieve buffer, when moving the extent whole
 * beats a call per run.  Automatic: the runs are short (a system call
 * costs more than copying the gaps) and the gaps are short too.  Returns
 * the stream bytes covered (0: do not sieve), *xend the extent's end. */
#define SIEVE_RUN ((MPI_Offset)64 << 10)
#define SIEVE_GAP ((MPI_Offset)32 << 10)
static MPI_Offset sieve_plan(const struct cm_file *f, int write, MPI_Offset v, MPI_Offset len, MPI_Offset off,
                             MPI_Offset n, MPI_Offset *xend)
{
    int mode = write ? f->hints.ds_write : f->hints.ds_read;
    MPI_Offset cap = write ? f->hints.ind_wr_buffer_size : f->hints.ind_rd_buffer_size;
    if (mode == CM_IO_DISABLE || n >= cap || (mode == CM_IO_AUTO && n >= SIEVE_RUN) ||
        (write && (f->amode & MPI_MODE_WRONLY)))    /* no read for the read-modify-write */
        return 0;
    MPI_Offset u = v + n, data = n, runs = 1, n2;
    *xend = off + n;
    while (u < v + len) {
        MPI_Offset o2 = next_run(f, u, v + len - u, &n2);
        if (o2 + n2 - off > cap)
            break;
        *xend = o2 + n2;
        data += n2, u += n2, runs++;
    }
    if (runs < 2)
        return 0;
    if (mode == CM_IO_AUTO && (data / runs >= SIEVE_RUN || (*xend - off - data) / (runs - 1) > SIEVE_GAP))
        return 0;
    return u - v;
}

/* Sieve the stream bytes [v, v + sl) (extent [off, xend) of the file):
 * read the extent, copy the runs out, or (write) copy them in and write
 * the extent back under a write lock of it.  Returns the stream bytes
 * moved (fewer at a read's end of file), or -1 with errno. */
static MPI_Offset sieve(struct cm_file *f, int write, char *mem, MPI_Offset v, MPI_Offset sl, MPI_Offset off,
                        MPI_Offset xend)
{
    MPI_Offset x = xend - off, done = 0, n;
    char *tmp = malloc((size_t)x);
    if (!tmp) {
        errno = ENOMEM;
        return -1;
    }
    if (write && !f->atomic)
        lock_range(f, F_WRLCK, off, x);
    MPI_Offset got = run_io(f, 0, tmp, off, x);
    if (got >= 0 && got < x)
        memset(tmp + got, 0, (size_t)(x - got));
    while (got >= 0 && done < sl) {
        MPI_Offset o = next_run(f, v + done, sl - done, &n) - off;
        if (!write && o + n > got) {
            if (got > o)
                memcpy(mem + done, tmp + o, (size_t)(got - o)), done += got - o;
            break;
        }
        if (write)
            memcpy(tmp + o, mem + done, (size_t)n);
        else
            memcpy(mem + done, tmp + o, (size_t)n);
        done += n;
    }
    if (got >= 0 && write && run_io(f, 1, tmp, off, x) < x)
        got = -1;
    int e = errno;
    if (write && !f->atomic)
        lock_range(f, F_UNLCK, off, x);
    free(tmp);
    errno = e;
    return got < 0 ? -1 : done;
}

MPI_Offset cm_io_view_io(struct cm_file *f, int write, char *mem, MPI_Offset v, MPI_Offset len)
{
    MPI_Offset done = 0;
    while (done < len) {
        MPI_Offset n, xend, off = next_run(f, v + done, len - done, &n), r;
        MPI_Offset sl = sieve_plan(f, write, v + done, len - done, off, n, &xend);
        if (sl) {
            n = sl;
            r = sieve(f, write, mem + done, v + done, sl, off, xend);
        } else {
            if (write && write_locks(f))
                lock_range(f, F_WRLCK, off, n);
            r = run_io(f, write, mem + done, off, n);
            int e = errno;
            if (write && write_locks(f))
                lock_range(f, F_UNLCK, off, n);
            errno = e;
        }
        if (r < 0)
            return -1;
        done += r;
        if (r < n)
            break;
    }
    return done;
}

void cm_io_set_done(struct cm_file *f, MPI_Offset done, MPI_Status *st, MPI_Offset *ndone)
{
    /* Whole etypes only count (a read that ends inside one). */
    done -= done % f->esize;
    if (st != MPI_STATUS_IGNORE) {
        st->MPI_SOURCE = MPI_ANY_SOURCE;
        st->MPI_TAG = MPI_ANY_TAG;
        cm_status_set_private(st, done, 0);
    }
    if (ndone)
        *ndone = done;
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
        cm_io_atomic_lock(f, write);
    int err = 0;
    if (t->contig && !f->ext32) {
        done = cm_io_view_io(f, write, (char *)buf + t->true_lb, v, total);
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
                cm_io_atomic_unlock(f, write);
            return cm_io_error(f, MPI_ERR_NO_MEM, call, "no memory for a %zu-byte staging buffer", cap);
        }
        while (done < total) {
            size_t n = total - done < (MPI_Offset)cap ? (size_t)(total - done) : cap;
            if (write)
                cm_dt_pack_range(buf, (int)count, t, (size_t)done, tmp, n);
            if (write && f->ext32)
                cm_dt_external32_swap(t, tmp, n, 1);
            MPI_Offset r = cm_io_view_io(f, write, tmp, v + done, (MPI_Offset)n);
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
        cm_io_atomic_unlock(f, write);
    if (err)
        return cm_io_error(f, cm_io_errno_class(err), call, "%s at stream offset %lld: %s", write ? "pwrite" : "pread",
                           (long long)v, strerror(err));
    cm_io_set_done(f, done, st, ndone);
    return MPI_SUCCESS;
}
