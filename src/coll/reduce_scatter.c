/*
 * reduce_scatter.c -- reduce-scatter with per-rank counts:
 *  - reduce_scatterv: binomial reduce of the whole vector to rank 0 (rank
 *    ordered), then a linear scatterv;
 *  - allreduce: the tuned allreduce of the whole vector, each rank keeping
 *    its part;
 *  - equal: equal counts (every rank sees all counts, so all agree) take the
 *    tuned reduce_scatter_block, other counts the allreduce route.
 */
#include "coll/coll.h"

#include <stdlib.h>

int cm_coll_reduce_scatter_reduce_scatterv(const void *sbuf, void *rbuf, const int *rcounts,
                                           MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    int rank, p, rc;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &p);
    int *displs = malloc(sizeof(int) * (size_t)p);
    if (!displs)
        return MPI_ERR_NO_MEM;
    int total = 0;
    for (int i = 0; i < p; i++) {
        displs[i] = total;
        total += rcounts[i];
    }
    void *block = NULL, *full = NULL;
    if (rank == 0 && !(full = cm_coll_tmp(dt, total, &block))) {
        free(displs);
        return MPI_ERR_NO_MEM;
    }
    rc = cm_coll_reduce_binomial(sbuf, full, total, dt, op, 0, comm);
    if (rc == MPI_SUCCESS)
        rc = cm_coll_scatterv_linear(full, rcounts, displs, dt, rbuf, rcounts[rank], dt, 0, comm);
    cm_coll_tmp_free(block);
    free(displs);
    return rc;
}

int cm_coll_reduce_scatter_allreduce(const void *sbuf, void *rbuf, const int *rcounts, MPI_Datatype dt, MPI_Op op,
                                     MPI_Comm comm)
{
    int rank, p;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &p);
    int total = 0, off = 0;
    for (int i = 0; i < p; i++) {
        if (i == rank)
            off = total;
        total += rcounts[i];
    }
    return cm_coll_allreduce_part(sbuf, rbuf, total, off, rcounts[rank], dt, op, comm);
}

int cm_coll_reduce_scatter_equal(const void *sbuf, void *rbuf, const int *rcounts, MPI_Datatype dt, MPI_Op op,
                                 MPI_Comm comm)
{
    int p;
    PMPI_Comm_size(comm, &p);
    for (int i = 1; i < p; i++)
        if (rcounts[i] != rcounts[0])
            return cm_coll_reduce_scatter_allreduce(sbuf, rbuf, rcounts, dt, op, comm);
    struct cm_coll_query q = cm_coll_query_of(p, rcounts[0], dt, cm_coll_is_commutative(op));
    const struct cm_coll_algo *a = cm_coll_select(CM_COLL_REDUCE_SCATTER_BLOCK, comm, &q);
    return ((cm_reduce_scatter_block_fn)a->fn)(sbuf, rbuf, rcounts[0], dt, op, comm);
}
