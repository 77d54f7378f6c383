/*
 * allgatherv.c -- all-gather with per-rank counts:
 *  - ring: p-1 rounds, one block per round, which needs no assumption on the
 *    counts;
 *  - regular: equal counts (every rank sees all counts, so all agree) take
 *    the tuned allgather, through a scratch buffer when this rank's
 *    displacements are not 0, n, 2n, ...; anything else the ring.
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
        rc = cm_coll_sendrecv(cm_coll_at(rbuf, displs[sb], &d), rcounts[sb], rtype, right, TAG,
                           cm_coll_at(rbuf, displs[rb], &d), rcounts[rb], rtype, left, TAG, comm,
                           MPI_STATUS_IGNORE);
    }
    return rc;
}

/* The choice may depend on the counts only: MPI makes them the same at every
 * rank, but each rank lays out its own displacements, and ranks that chose
 * differently (ring here, allgather there) would wait for each other forever.
 * Equal counts at other displacements gather into a scratch buffer laid out
 * 0, n, 2n, ... and move each block to its place. */
int cm_coll_allgatherv_regular(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                               const int *rcounts, const int *displs, MPI_Datatype rtype, MPI_Comm comm)
{
    int p, rank, n = rcounts[0], laid_out = 1;
    PMPI_Comm_size(comm, &p);
    PMPI_Comm_rank(comm, &rank);
    for (int i = 0; i < p; i++) {
        if (rcounts[i] != n)
            return cm_coll_allgatherv_ring(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm);
        laid_out &= displs[i] == i * n;
    }
    /* All counts 0 still meet in the allgather: a rank whose counts say 0
     * where the others' do not must not leave them waiting, and the syncs
     * compare the ranks' words (api_all.c, allgatherv_sizes). */
    laid_out |= n == 0;
    struct cm_coll_query q = cm_coll_query_of(p, n, rtype, 1);
    const struct cm_coll_algo *a = cm_coll_select(CM_COLL_ALLGATHER, comm, &q);
    if (laid_out)
        return ((cm_allgather_fn)a->fn)(sbuf, scount, stype, rbuf, n, rtype, comm);
    struct cm_dt d;
    cm_coll_dt(rtype, &d);
    void *block, *tmp = cm_coll_tmp(rtype, p * n, &block);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    if (sbuf == MPI_IN_PLACE) {
        sbuf = cm_coll_at(rbuf, displs[rank], &d);
        scount = n;
        stype = rtype;
    }
    int rc = ((cm_allgather_fn)a->fn)(sbuf, scount, stype, tmp, n, rtype, comm);
    for (int i = 0; i < p && rc == MPI_SUCCESS; i++)
        rc = cm_coll_copy(cm_coll_at(tmp, (MPI_Aint)i * n, &d), n, rtype, cm_coll_at(rbuf, displs[i], &d), n,
                          rtype, comm);
    cm_coll_tmp_free(block);
    return rc;
}
