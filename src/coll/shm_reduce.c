/*
 * shm_reduce.c -- reduce on the shared area.  Small vectors: everyone copies
 * into its slot, one sync, the root folds the slots in rank order.  Large
 * vectors: the single-copy slice reduction of shm_allreduce.c, each rank
 * keeping its finished slice in a private buffer that the root reads as the
 * owner's message counter announces chunks.
 */
#include <mpi.h>
#ifdef COREMPI  /* corempi only: the host-MPI harness compiles every src/coll file */
#include "coll/shm_fold.h"

#include <stdlib.h>
#include <string.h>

int cm_coll_reduce_shm(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                       MPI_Comm comm)
{
    MPI_Aint tlb, ext;
    size_t bytes = cm_shm_bytes(count, dt, NULL, &tlb, &ext);
    int size, rank;
    PMPI_Comm_size(comm, &size);
    PMPI_Comm_rank(comm, &rank);
    if (size == 1 || count == 0) {
        if (sbuf != rbuf && bytes)
            memcpy((char *)rbuf + tlb, (const char *)sbuf + tlb, bytes);
        return MPI_SUCCESS;
    }
    struct cm_shm *s = cm_shm_get(comm, "MPI_Reduce");
    if (!s || (bytes > s->slot_bytes && !s->cma))
        return cm_coll_reduce_binomial(sbuf, rbuf, count, dt, op, root, comm);
    int p = cm_shm_parity(s);
    const char *sb = (const char *)sbuf + tlb;
    if (bytes <= s->slot_bytes && bytes < cm_shm_cma_min()) {
        memcpy(cm_shm_data(s, rank, p, bytes), sb, bytes);
        cm_shm_sync(s, NULL, NULL);
        if (rank != root)
            return MPI_SUCCESS;
        return cm_shm_fold_slots(s, p, bytes, (char *)rbuf + tlb, count, dt, op, 0);
    }
    /* Single copy: my slice goes to the root's buffer if I am the root, else
     * to a private one published at the slice's origin minus its offset. */
    int lo, hi;
    cm_shm_slice(count, size, rank, &lo, &hi);
    char *mine = NULL, *out;
    if (rank == root) {
        out = (char *)rbuf + tlb;
    } else {
        mine = malloc(hi > lo ? (size_t)(hi - lo) * (size_t)ext : 1);
        if (!mine)
            return MPI_ERR_NO_MEM;
        out = mine - (size_t)lo * (size_t)ext;   /* only [lo, hi) is touched */
    }
    struct cm_shm_flag *f = cm_shm_flag(s, rank, p);
    f->addr[0] = (uint64_t)(uintptr_t)sb;
    f->addr[1] = (uint64_t)(uintptr_t)mine - (uint64_t)lo * (uint64_t)ext;
    if (rank == root)
        f->addr[1] = (uint64_t)(uintptr_t)out;
    f->base = s->progress_mine;
    cm_shm_sync(s, NULL, NULL);
    int rc = cm_shm_reduce_my_slice(s, p, count, dt, op, out);
    if (rank == root)
        for (int i = 1; i < size; i++)
            cm_shm_fetch_slice(s, p, (rank + i) % size, count, (size_t)ext, out);
    cm_shm_sync(s, NULL, NULL);
    free(mine);
    return rc;
}
#endif
