/*
 * alltoallv.c -- all-to-all with per-peer counts: pairwise exchange.
 */
#include "coll/coll.h"

#include <stdlib.h>

#define TAG CM_TAG_ALLTOALLV

int cm_coll_alltoallv_pairwise(const void *sbuf, const int *scounts, const int *sdispls, MPI_Datatype stype,
                               void *rbuf, const int *rcounts, const int *rdispls, MPI_Datatype rtype,
                               MPI_Comm comm)
{
    int rank, p, rc = MPI_SUCCESS;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &p);
    void *block = NULL;
    if (sbuf == MPI_IN_PLACE) {
        /* Work on a copy of the receive buffer: everything up to the end of the last block. */
        int span = 0;
        for (int i = 0; i < p; i++)
            if (rcounts[i] > 0 && rdispls[i] + rcounts[i] > span)
                span = rdispls[i] + rcounts[i];
        void *tmp = cm_coll_tmp(rtype, span, &block);
        if (!tmp)
            return MPI_ERR_NO_MEM;
        rc = cm_coll_copy(rbuf, span, rtype, tmp, span, rtype, comm);
        sbuf = tmp;
        scounts = rcounts;
        sdispls = rdispls;
        stype = rtype;
    }
    struct cm_dt sd, rd;
    cm_coll_dt(stype, &sd);
    cm_coll_dt(rtype, &rd);
    for (int s = 0; s < p && rc == MPI_SUCCESS; s++) {
        int dst = (rank + s) % p, src = (rank - s + p) % p;
        const void *out = cm_coll_at(sbuf, sdispls[dst], &sd);
        void *in = cm_coll_at(rbuf, rdispls[src], &rd);
        if (s == 0)
            rc = cm_coll_copy(out, scounts[dst], stype, in, rcounts[src], rtype, comm);
        else {
            int stag, rtag;
            cm_coll_block_tags(TAG, stype, scounts[dst], rtype, rcounts[src], &stag, &rtag);
            rc = cm_coll_sendrecv(out, scounts[dst], stype, dst, stag, in, rcounts[src], rtype, src, rtag, comm,
                                  MPI_STATUS_IGNORE);
        }
    }
    cm_coll_tmp_free(block);
    return rc;
}
