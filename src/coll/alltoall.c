/*
 * alltoall.c -- all-to-all: pairwise exchange (round s: send to rank + s,
 * receive from rank - s), p rounds of one Sendrecv; MPI_IN_PLACE works on a
 * copy of the receive buffer.
 */
#include "coll/coll.h"

#include <stdlib.h>

#define TAG CM_TAG_ALLTOALL

int cm_coll_alltoall_pairwise(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                              MPI_Datatype rtype, MPI_Comm comm)
{
    int rank, p, rc = MPI_SUCCESS;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &p);
    void *block = NULL;
    if (sbuf == MPI_IN_PLACE) {
        void *tmp = cm_coll_tmp(rtype, p * rcount, &block);
        if (!tmp)
            return MPI_ERR_NO_MEM;
        rc = cm_coll_copy(rbuf, p * rcount, rtype, tmp, p * rcount, rtype, comm);
        sbuf = tmp;
        scount = rcount;
        stype = rtype;
    }
    struct cm_dt sd, rd;
    cm_coll_dt(stype, &sd);
    cm_coll_dt(rtype, &rd);
    for (int s = 0; s < p && rc == MPI_SUCCESS; s++) {
        int dst = (rank + s) % p, src = (rank - s + p) % p;
        const void *out = cm_coll_at(sbuf, (MPI_Aint)dst * scount, &sd);
        void *in = cm_coll_at(rbuf, (MPI_Aint)src * rcount, &rd);
        if (s == 0)
            rc = cm_coll_copy(out, scount, stype, in, rcount, rtype, comm);
        else
            rc = cm_coll_sendrecv(out, scount, stype, dst, TAG, in, rcount, rtype, src, TAG, comm, MPI_STATUS_IGNORE);
    }
    cm_coll_tmp_free(block);
    return rc;
}
