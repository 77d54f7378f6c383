/*
 * scatter.c -- scatter and scatterv: linear (the root starts one send per
 * rank; each rank receives once).
 */
#include "coll/coll.h"

/* The root's blocks are sb (in stype); tag tells the two calls apart. */
static int scatter_linear(const void *sbuf, const struct cm_coll_blocks *sb, MPI_Datatype stype, void *rbuf,
                          int rcount, MPI_Datatype rtype, int root, MPI_Comm comm, int tag)
{
    int rank, p, rc = MPI_SUCCESS, n = 0;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &p);
    if (rank != root)
        return cm_coll_recv(rbuf, rcount, rtype, root, tag, comm, MPI_STATUS_IGNORE);
    struct cm_dt d;
    cm_coll_dt(stype, &d);
    MPI_Request few[CM_COLL_FEW_REQS], *req = p == 2 ? NULL : cm_coll_reqs(few, p);
    if (p != 2 && !req)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < p && rc == MPI_SUCCESS; i++) {
        if (i == root)
            continue;
        const void *out = cm_coll_at(sbuf, cm_coll_block_at(sb, i), &d);
        if (req)
            rc = cm_coll_isend(out, cm_coll_block_count(sb, i), stype, i, tag, comm, &req[n++]);
        else /* one block to send: a blocking send needs no request */
            rc = cm_coll_send(out, cm_coll_block_count(sb, i), stype, i, tag, comm);
    }
    if (rc == MPI_SUCCESS && rbuf != MPI_IN_PLACE)
        rc = cm_coll_copy(cm_coll_at(sbuf, cm_coll_block_at(sb, root), &d), cm_coll_block_count(sb, root), stype,
                          rbuf, rcount, rtype, comm);
    if (!req)
        return rc;
    int rc2 = cm_coll_waitall(n, req, MPI_STATUSES_IGNORE);
    cm_coll_reqs_free(req, few);
    return rc != MPI_SUCCESS ? rc : rc2;
}

int cm_coll_scatter_linear(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                           MPI_Datatype rtype, int root, MPI_Comm comm)
{
    struct cm_coll_blocks sb = { scount, NULL, NULL };
    return scatter_linear(sbuf, &sb, stype, rbuf, rcount, rtype, root, comm, CM_TAG_SCATTER);
}

int cm_coll_scatterv_linear(const void *sbuf, const int *scounts, const int *displs, MPI_Datatype stype,
                            void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
    struct cm_coll_blocks sb = { 0, scounts, displs };
    return scatter_linear(sbuf, &sb, stype, rbuf, rcount, rtype, root, comm, CM_TAG_SCATTERV);
}
