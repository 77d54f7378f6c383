/*
 * allgatherv.c -- all-gather with per-rank counts: a ring (p-1 rounds, one
 * block per round), which needs no assumption on the counts.
 */
#include "coll/coll.h"

#define TAG CM_TAG_ALLGATHERV

int cm_coll_allgatherv_ring(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                            const int *rcounts, const int *displs, MPI_Datatype rtype, MPI_Comm comm)
{
    int rank, p, rc = MPI_SUCCESS;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &p);
    struct cm_dt d;
    cm_coll_dt(rtype, &d);
    if (sbuf != MPI_IN_PLACE)
        rc = cm_coll_copy(sbuf, scount, stype, cm_coll_at(rbuf, displs[rank], &d), rcounts[rank], rtype, comm);
    int right = (rank + 1) % p, left = (rank - 1 + p) % p;
    for (int s = 0; s < p - 1 && rc == MPI_SUCCESS; s++) {
        int sb = (rank - s + p) % p, rb = (rank - s - 1 + p) % p;
        rc = PMPI_Sendrecv(cm_coll_at(rbuf, displs[sb], &d), rcounts[sb], rtype, right, TAG,
                           cm_coll_at(rbuf, displs[rb], &d), rcounts[rb], rtype, left, TAG, comm,
                           MPI_STATUS_IGNORE);
    }
    return rc;
}
