/*
 * gather.c -- gather and gatherv: linear (the root posts one receive per
 * rank straight into its block; the others send once).
 */
#include "coll/coll.h"

/* The root's blocks are rb (in rtype); tag tells the two calls apart. */
static int gather_linear(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                         const struct cm_coll_blocks *rb, MPI_Datatype rtype, int root, MPI_Comm comm, int tag)
{
    int rank, p, rc = MPI_SUCCESS, n = 0;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &p);
    if (rank != root)
        return cm_coll_send(sbuf, scount, stype, root, tag, comm);
    struct cm_dt d;
    cm_coll_dt(rtype, &d);
    if (sbuf != MPI_IN_PLACE)
        rc = cm_coll_copy(sbuf, scount, stype, cm_coll_at(rbuf, cm_coll_block_at(rb, root), &d),
                          cm_coll_block_count(rb, root), rtype, comm);
    if (p == 2) /* one block to receive: a blocking receive needs no request */
        return rc != MPI_SUCCESS ? rc
                                 : cm_coll_recv(cm_coll_at(rbuf, cm_coll_block_at(rb, 1 - root), &d),
                                                cm_coll_block_count(rb, 1 - root), rtype, 1 - root, tag, comm,
                                                MPI_STATUS_IGNORE);
    MPI_Request few[CM_COLL_FEW_REQS], *req = cm_coll_reqs(few, p);
    if (!req)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < p && rc == MPI_SUCCESS; i++)
        if (i != root)
            rc = cm_coll_irecv(cm_coll_at(rbuf, cm_coll_block_at(rb, i), &d), cm_coll_block_count(rb, i), rtype, i,
                               tag, comm, &req[n++]);
    if (rc == MPI_SUCCESS)
        rc = cm_coll_waitall(n, req, MPI_STATUSES_IGNORE);
    cm_coll_reqs_free(req, few);
    return rc;
}

int cm_coll_gather_linear(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                          MPI_Datatype rtype, int root, MPI_Comm comm)
{
    struct cm_coll_blocks rb = { rcount, NULL, NULL };
    return gather_linear(sbuf, scount, stype, rbuf, &rb, rtype, root, comm, CM_TAG_GATHER);
}

int cm_coll_gatherv_linear(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                           const int *rcounts, const int *displs, MPI_Datatype rtype, int root, MPI_Comm comm)
{
    struct cm_coll_blocks rb = { 0, rcounts, displs };
    return gather_linear(sbuf, scount, stype, rbuf, &rb, rtype, root, comm, CM_TAG_GATHERV);
}
