/*
 * shared.c -- what the ranks of a file share in memory: a shared-memory
 * window of the file's group, on rank 0 (all ranks are processes of one
 * node, so its memory is mapped in each), that holds
 *
 * - the shared file pointer (MPI-4.1 14.4.4), one MPI_Offset every rank
 *   moves with an atomic fetch-and-add.  Collective changes (seek_shared,
 *   set_view, ordered access) bracket rank 0's store with the group's
 *   collectives;
 * - the lock of atomic mode (14.6.1): a readers-writer lock word, taken
 *   for every access while the file is atomic (shared by reads), sleeping
 *   on the futex of the word; no lock file and no fcntl.
 */
#include "io/io.h"
#include "core/error.h"
#include "fe_io.h"
#include "shm/futex.h"

#include <stdint.h>

struct cm_io_shared {
    MPI_Offset pointer;
    uint32_t lock;              /* WRITER, or the number of readers */
};
#define WRITER 0x80000000u

void cm_io_atomic_lock(struct cm_file *f, int write)
{
    uint32_t *w = &f->sh->lock;
    for (;;) {
        uint32_t v = __atomic_load_n(w, __ATOMIC_ACQUIRE);
        uint32_t want = write ? WRITER : v + 1;
        if ((write ? v == 0 : !(v & WRITER)) &&
            __atomic_compare_exchange_n(w, &v, want, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return;
        cm_futex_wait(w, v, NULL);
    }
}

void cm_io_atomic_unlock(struct cm_file *f, int write)
{
    uint32_t *w = &f->sh->lock;
    uint32_t left = 0;
    if (write)
        __atomic_store_n(w, 0, __ATOMIC_RELEASE);
    else
        left = __atomic_sub_fetch(w, 1, __ATOMIC_RELEASE);
    if (!left)    /* the lock is free: wake whoever sleeps on it */
        cm_futex_wake(w, INT32_MAX);
}

int cm_io_shared_open(struct cm_file *f, const char *call)
{
    MPI_Aint size = f->rank == 0 ? (MPI_Aint)sizeof(struct cm_io_shared) : 0, qsize;
    int unit;
    void *base;
    int rc = PMPI_Win_allocate_shared(size, 1, MPI_INFO_NULL, f->comm, &base, &f->shwin);
    if (!rc)
        rc = PMPI_Win_shared_query(f->shwin, 0, &qsize, &unit, &f->sh);
    if (rc) {
        f->shwin = MPI_WIN_NULL;
        (void)call;
        return rc;
    }
    f->shared = &f->sh->pointer;
    if (f->rank == 0) {
        __atomic_store_n(f->shared, 0, __ATOMIC_SEQ_CST);
        __atomic_store_n(&f->sh->lock, 0, __ATOMIC_SEQ_CST);
    }
    PMPI_Barrier(f->comm);
    return MPI_SUCCESS;
}

void cm_io_shared_close(struct cm_file *f)
{
    if (f->shwin != MPI_WIN_NULL)
        PMPI_Win_free(&f->shwin);
    f->shared = NULL;
    f->sh = NULL;
}

/* Collective, with the same offset and whence everywhere (checked). */
int cm_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence)
{
    static const char call[] = "MPI_File_seek_shared";
    CM_IO_FILE(f, fh, call, rc);
    long long mine[4] = { offset, -offset, whence, -whence }, all[4];
    PMPI_Allreduce(mine, all, 4, MPI_LONG_LONG, MPI_MAX, f->comm);
    if (all[0] != -all[1] || all[2] != -all[3])
        return cm_io_error(f, MPI_ERR_ARG, call, "the ranks passed different offsets or whence values");
    MPI_Offset to = 0;
    rc = cm_io_seek_target(f, call, offset, whence, __atomic_load_n(f->shared, __ATOMIC_SEQ_CST), &to);
    if (rc)
        return rc;
    if (f->rank == 0)
        __atomic_store_n(f->shared, to, __ATOMIC_SEQ_CST);
    PMPI_Barrier(f->comm);
    return MPI_SUCCESS;
}
