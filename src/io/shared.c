/*
 * shared.c -- the shared file pointer (MPI-4.1 14.4.4): one MPI_Offset in
 * a shared-memory window of the file's group, on rank 0, that every rank
 * moves with an atomic fetch-and-add (all ranks are processes of one
 * node, so the window's memory is mapped in each).  Collective changes
 * (seek_shared, set_view, ordered access) bracket rank 0's store with the
 * group's collectives.
 */
#include "io/io.h"
#include "core/error.h"
#include "fe_io.h"

int cm_io_shared_open(struct cm_file *f, const char *call)
{
    MPI_Aint size = f->rank == 0 ? (MPI_Aint)sizeof(MPI_Offset) : 0, qsize;
    int unit;
    void *base;
    int rc = PMPI_Win_allocate_shared(size, 1, MPI_INFO_NULL, f->comm, &base, &f->shwin);
    if (!rc)
        rc = PMPI_Win_shared_query(f->shwin, 0, &qsize, &unit, &f->shared);
    if (rc) {
        f->shwin = MPI_WIN_NULL;
        (void)call;
        return rc;
    }
    if (f->rank == 0)
        __atomic_store_n(f->shared, 0, __ATOMIC_SEQ_CST);
    PMPI_Barrier(f->comm);
    return MPI_SUCCESS;
}

void cm_io_shared_close(struct cm_file *f)
{
    if (f->shwin != MPI_WIN_NULL)
        PMPI_Win_free(&f->shwin);
    f->shared = NULL;
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
