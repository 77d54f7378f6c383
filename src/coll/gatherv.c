/*
 * gatherv.c -- gather with per-rank counts and displacements: linear.
 */
#include "coll/coll.h"

#include <stdlib.h>

#define TAG CM_TAG_GATHERV

int cm_coll_gatherv_linear(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                           const int *rcounts, const int *displs, MPI_Datatype rtype, int root, MPI_Comm comm)
{
    int rank, p, rc = MPI_SUCCESS, n = 0;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &p);
    if (rank != root)
        return cm_coll_send(sbuf, scount, stype, root, TAG, comm);
    struct cm_dt d;
    cm_coll_dt(rtype, &d);
    if (sbuf != MPI_IN_PLACE)
        rc = cm_coll_copy(sbuf, scount, stype, cm_coll_at(rbuf, displs[root], &d), rcounts[root], rtype, comm);
    MPI_Request few[CM_COLL_FEW_REQS], *req = cm_coll_reqs(few, p);
    if (!req)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < p && rc == MPI_SUCCESS; i++)
        if (i != root)
            rc = cm_coll_irecv(cm_coll_at(rbuf, displs[i], &d), rcounts[i], rtype, i, TAG, comm, &req[n++]);
    if (rc == MPI_SUCCESS)
        rc = cm_coll_waitall(n, req, MPI_STATUSES_IGNORE);
    cm_coll_reqs_free(req, few);
    return rc;
}
