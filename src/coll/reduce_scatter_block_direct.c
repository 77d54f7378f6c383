/*
 * reduce_scatter_block_direct.c -- two reduce-scatters (equal blocks) that do
 * not funnel the whole vector through rank 0 as reduce_scatter.c does:
 *
 *  - pairwise: in step i a rank sends block rank+i of its vector to rank+i
 *    and receives its own block from rank-i; then it folds the p copies of
 *    its block in rank order (non-commutative ops are fine).  Every byte
 *    crosses once and the folding is spread over all ranks: for large
 *    blocks.
 *  - allreduce: the tuned allreduce of the whole vector into a scratch
 *    buffer, then a copy of the rank's block.  For tiny blocks, where the
 *    shared-memory allreduce moves one line per rank and p messages would
 *    cost more than they carry.
 */
#include "coll/coll.h"

#include <stdlib.h>

#define SMALL_VECTOR 256

int cm_coll_reduce_scatter_block_pairwise(const void *sbuf, void *rbuf, int rcount, MPI_Datatype dt,
                                          MPI_Op op, MPI_Comm comm)
{
    int rank, p, rc = MPI_SUCCESS;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &p);
    struct cm_dt d;
    cm_coll_dt(dt, &d);
    size_t blk = (size_t)rcount * (size_t)d.extent;
    void *block = NULL;
    char *copies = cm_coll_tmp(dt, rcount * p, &block); /* copies + j*blk: rank j's copy of my block */
    if (!copies)
        return MPI_ERR_NO_MEM;
    const char *in = sbuf;
    rc = cm_coll_copy(in + (size_t)rank * blk, rcount, dt, copies + (size_t)rank * blk, rcount, dt, comm);
    for (int i = 1; i < p && rc == MPI_SUCCESS; i++) {
        int to = (rank + i) % p, from = (rank - i + p) % p;
        rc = cm_coll_sendrecv(in + (size_t)to * blk, rcount, dt, to, CM_TAG_REDUCE_SCATTER_BLOCK,
                           copies + (size_t)from * blk, rcount, dt, from, CM_TAG_REDUCE_SCATTER_BLOCK, comm,
                           MPI_STATUS_IGNORE);
    }
    /* In place the input is rbuf itself: it is read only above, so the
     * result may now overwrite its first block. */
    if (rc == MPI_SUCCESS)
        rc = cm_coll_copy(copies + (size_t)(p - 1) * blk, rcount, dt, rbuf, rcount, dt, comm);
    for (int j = p - 2; j >= 0 && rc == MPI_SUCCESS; j--)
        rc = PMPI_Reduce_local(copies + (size_t)j * blk, rbuf, rcount, dt, op);
    cm_coll_tmp_free(block);
    return rc;
}

/* The tuned allreduce of all total elements into scratch, then elements
 * [off, off + count) to rbuf: any split of the vector, since every rank
 * reduces all of it. */
int cm_coll_allreduce_part(const void *sbuf, void *rbuf, int total, int off, int count, MPI_Datatype dt, MPI_Op op,
                           MPI_Comm comm)
{
    int p, rc;
    PMPI_Comm_size(comm, &p);
    struct cm_dt d;
    cm_coll_dt(dt, &d);
    void *block = NULL;
    /* The tuning table sends only tiny blocks here: their vector goes on
     * the stack. */
    _Alignas(16) unsigned char small[SMALL_VECTOR];
    char *all = cm_coll_tmp_in(dt, total, small, SMALL_VECTOR, &block);
    if (!all)
        return MPI_ERR_NO_MEM;
    struct cm_coll_query q = cm_coll_query_of(p, total, dt, cm_coll_is_commutative(op));
    const struct cm_coll_algo *a = cm_coll_select(CM_COLL_ALLREDUCE, comm, &q);
    rc = ((cm_allreduce_fn)a->fn)(sbuf, all, total, dt, op, comm);
    if (rc == MPI_SUCCESS)
        rc = cm_coll_copy(all + (size_t)off * (size_t)d.extent, count, dt, rbuf, count, dt, comm);
    cm_coll_tmp_free(block);
    return rc;
}

int cm_coll_reduce_scatter_block_allreduce(const void *sbuf, void *rbuf, int rcount, MPI_Datatype dt,
                                           MPI_Op op, MPI_Comm comm)
{
    int rank, p;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &p);
    return cm_coll_allreduce_part(sbuf, rbuf, rcount * p, rank * rcount, rcount, dt, op, comm);
}
