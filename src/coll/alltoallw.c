/*
 * alltoallw.c -- all-to-all with per-peer counts, byte displacements and
 * types: pairwise exchange.  MPI_IN_PLACE copies the bytes the receive
 * blocks span and sends from that copy.
 */
#include "coll/coll.h"

#include <stdlib.h>
#include <string.h>

#define TAG CM_TAG_ALLTOALLW

int cm_coll_alltoallw_pairwise(const void *sbuf, const int *scounts, const int *sdispls,
                               const MPI_Datatype *stypes, void *rbuf, const int *rcounts,
                               const int *rdispls, const MPI_Datatype *rtypes, MPI_Comm comm)
{
    int rank, p, rc = MPI_SUCCESS;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &p);
    char *block = NULL;
    if (sbuf == MPI_IN_PLACE) {
        MPI_Aint lo = 0, hi = 0;
        int any = 0;
        for (int i = 0; i < p; i++) {
            if (rcounts[i] <= 0)
                continue;
            struct cm_dt d;
            cm_coll_dt(rtypes[i], &d);
            MPI_Aint a = rdispls[i] + d.true_lb;
            MPI_Aint b = a + d.true_extent + (MPI_Aint)(rcounts[i] - 1) * d.extent;
            if (!any || a < lo) lo = a;
            if (!any || b > hi) hi = b;
            any = 1;
        }
        block = malloc(hi > lo ? (size_t)(hi - lo) : 1);
        if (!block)
            return MPI_ERR_NO_MEM;
        if (hi > lo)
            memcpy(block, (char *)rbuf + lo, (size_t)(hi - lo));
        sbuf = block - lo;
        scounts = rcounts;
        sdispls = rdispls;
        stypes = rtypes;
    }
    for (int s = 0; s < p && rc == MPI_SUCCESS; s++) {
        int dst = (rank + s) % p, src = (rank - s + p) % p;
        const void *out = (const char *)sbuf + sdispls[dst];
        void *in = (char *)rbuf + rdispls[src];
        if (s == 0)
            rc = cm_coll_copy(out, scounts[dst], stypes[dst], in, rcounts[src], rtypes[src], comm);
        else {
            int stag, rtag;
            cm_coll_block_tags(TAG, stypes[dst], scounts[dst], rtypes[src], rcounts[src], &stag, &rtag);
            rc = cm_coll_sendrecv(out, scounts[dst], stypes[dst], dst, stag, in, rcounts[src], rtypes[src], src,
                                  rtag, comm, MPI_STATUS_IGNORE);
        }
    }
    free(block);
    return rc;
}
