/*
 * barrier_knomial.c -- barrier on a k-nomial tree (k = 4), zero-byte
 * messages.
 *
 * Rank r's children are r + i * t for i = 1..k-1 at every stride t = k^j
 * below the stride of r's lowest non-zero digit in base k (all strides for
 * rank 0); its parent is r minus that digit times its stride.  Everyone
 * checks in with its parent once its children did, and the release goes
 * back down largest subtree first.  log_k p levels instead of the binomial
 * tree's log_2 p, at the price of k - 1 receives per level.
 */
#include "coll/coll.h"

#define RADIX 4
#define TAG CM_TAG_BARRIER

int cm_coll_barrier_knomial(MPI_Comm comm)
{
    int p, rank, rc = MPI_SUCCESS;
    PMPI_Comm_size(comm, &p);
    PMPI_Comm_rank(comm, &rank);
    long s = 1; /* the stride of my lowest non-zero digit (>= p for rank 0) */
    while (s < p && rank % (s * RADIX) == 0)
        s *= RADIX;
    for (long t = 1; t < s && rc == MPI_SUCCESS; t *= RADIX)
        for (long c = rank + t; c < rank + RADIX * t && c < p && rc == MPI_SUCCESS; c += t)
            rc = cm_coll_recv(NULL, 0, MPI_BYTE, (int)c, TAG, comm, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS && rank != 0) {
        int parent = (int)(rank - rank / s % RADIX * s);
        rc = cm_coll_send(NULL, 0, MPI_BYTE, parent, TAG, comm);
        if (rc == MPI_SUCCESS)
            rc = cm_coll_recv(NULL, 0, MPI_BYTE, parent, TAG, comm, MPI_STATUS_IGNORE);
    }
    for (long t = s / RADIX; t >= 1 && rc == MPI_SUCCESS; t /= RADIX)
        for (long c = rank + t; c < rank + RADIX * t && c < p && rc == MPI_SUCCESS; c += t)
            rc = cm_coll_send(NULL, 0, MPI_BYTE, (int)c, TAG, comm);
    return rc;
}
