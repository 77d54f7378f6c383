/*
 * reduce_scatter_block.c -- reduce-scatter with equal blocks: the
 * reduce_scatter algorithm with all counts equal.
 */
#include "coll/coll.h"

#include <stdlib.h>

int cm_coll_reduce_scatter_block_reduce_scatter(const void *sbuf, void *rbuf, int rcount,
                                                MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    int p;
    PMPI_Comm_size(comm, &p);
    int *counts = malloc(sizeof(int) * (size_t)p);
    if (!counts)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < p; i++)
        counts[i] = rcount;
    int rc = cm_coll_reduce_scatter_reduce_scatterv(sbuf, rbuf, counts, dt, op, comm);
    free(counts);
    return rc;
}
