/*
 * alltoall.c -- all-to-all and alltoallv: pairwise exchange (round s: send
 * to rank + s, receive from rank - s), p rounds of one Sendrecv;
 * MPI_IN_PLACE works on a copy of the receive buffer.
 */
#include "coll/coll.h"

/* sb, rb: the blocks per peer; tag tells the calls apart, and the v form's
 * blocks carry their own sizes' tags (cm_coll_block_tags). */
static int alltoall_pairwise(const void *sbuf, const struct cm_coll_blocks *sb, MPI_Datatype stype, void *rbuf,
                             const struct cm_coll_blocks *rb, MPI_Datatype rtype, MPI_Comm comm, int tag)
{
    int rank, p, rc = MPI_SUCCESS;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &p);
    void *block = NULL;
    if (sbuf == MPI_IN_PLACE) {
        /* Work on a copy of the receive buffer: everything up to the end of the last block. */
        int span = 0;
        for (int i = 0; i < p; i++)
            if (cm_coll_block_count(rb, i) > 0 && cm_coll_block_at(rb, i) + cm_coll_block_count(rb, i) > span)
                span = (int)cm_coll_block_at(rb, i) + cm_coll_block_count(rb, i);
        void *tmp = cm_coll_tmp(rtype, span, &block);
        if (!tmp)
            return MPI_ERR_NO_MEM;
        rc = cm_coll_copy(rbuf, span, rtype, tmp, span, rtype, comm);
        sbuf = tmp;
        sb = rb;
        stype = rtype;
    }
    struct cm_dt sd, rd;
    cm_coll_dt(stype, &sd);
    cm_coll_dt(rtype, &rd);
    for (int s = 0; s < p && rc == MPI_SUCCESS; s++) {
        int dst = (rank + s) % p, src = (rank - s + p) % p;
        int sn = cm_coll_block_count(sb, dst), rn = cm_coll_block_count(rb, src);
        const void *out = cm_coll_at(sbuf, cm_coll_block_at(sb, dst), &sd);
        void *in = cm_coll_at(rbuf, cm_coll_block_at(rb, src), &rd);
        if (s == 0) {
            rc = cm_coll_copy(out, sn, stype, in, rn, rtype, comm);
            continue;
        }
        int stag = tag, rtag = tag;
        if (rb->counts)
            cm_coll_block_tags(tag, stype, sn, rtype, rn, &stag, &rtag);
        rc = cm_coll_sendrecv(out, sn, stype, dst, stag, in, rn, rtype, src, rtag, comm, MPI_STATUS_IGNORE);
    }
    cm_coll_tmp_free(block);
    return rc;
}

int cm_coll_alltoall_pairwise(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                              MPI_Datatype rtype, MPI_Comm comm)
{
    struct cm_coll_blocks sb = { scount, NULL, NULL }, rb = { rcount, NULL, NULL };
    return alltoall_pairwise(sbuf, &sb, stype, rbuf, &rb, rtype, comm, CM_TAG_ALLTOALL);
}

int cm_coll_alltoallv_pairwise(const void *sbuf, const int *scounts, const int *sdispls, MPI_Datatype stype,
                               void *rbuf, const int *rcounts, const int *rdispls, MPI_Datatype rtype,
                               MPI_Comm comm)
{
    struct cm_coll_blocks sb = { 0, scounts, sdispls }, rb = { 0, rcounts, rdispls };
    return alltoall_pairwise(sbuf, &sb, stype, rbuf, &rb, rtype, comm, CM_TAG_ALLTOALLV);
}
