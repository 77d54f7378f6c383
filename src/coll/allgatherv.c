/*
 * allgatherv.c -- all-gather with per-rank counts:
 *  - ring: p-1 rounds, one block per round, which needs no assumption on the
 *    counts;
 *  - regular: equal counts at displacements 0, n, 2n, ... (every rank sees
 *    all counts and displacements, so all agree) take the tuned allgather,
 *    anything else the ring.
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

int cm_coll_allgatherv_regular(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                               const int *rcounts, const int *displs, MPI_Datatype rtype, MPI_Comm comm)
{
    int p;
    PMPI_Comm_size(comm, &p);
    for (int i = 0; i < p; i++)
        if (rcounts[i] != rcounts[0] || displs[i] != i * rcounts[0])
            return cm_coll_allgatherv_ring(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm);
    struct cm_coll_query q = cm_coll_query_of(p, rcounts[0], rtype, 1);
    const struct cm_coll_algo *a = cm_coll_select(CM_COLL_ALLGATHER, comm, &q);
    return ((cm_allgather_fn)a->fn)(sbuf, scount, stype, rbuf, rcounts[0], rtype, comm);
}
