/*
 * reduce_scatter.c -- reduce-scatter with per-rank counts: binomial reduce
 * of the whole vector to rank 0 (rank ordered), then a linear scatterv.
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
