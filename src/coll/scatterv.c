/*
 * scatterv.c -- scatter with per-rank counts and displacements: linear.
 */
#include "coll/coll.h"

#include <stdlib.h>

#define TAG CM_TAG_SCATTERV

int cm_coll_scatterv_linear(const void *sbuf, const int *scounts, const int *displs, MPI_Datatype stype,
                            void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
    int rank, p, rc = MPI_SUCCESS, n = 0;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &p);
    if (rank != root)
        return cm_coll_recv(rbuf, rcount, rtype, root, TAG, comm, MPI_STATUS_IGNORE);
    struct cm_dt d;
    cm_coll_dt(stype, &d);
    MPI_Request few[CM_COLL_FEW_REQS], *req = cm_coll_reqs(few, p);
    if (!req)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < p && rc == MPI_SUCCESS; i++)
        if (i != root)
            rc = cm_coll_isend(cm_coll_at(sbuf, displs[i], &d), scounts[i], stype, i, TAG, comm, &req[n++]);
    if (rc == MPI_SUCCESS && rbuf != MPI_IN_PLACE)
        rc = cm_coll_copy(cm_coll_at(sbuf, displs[root], &d), scounts[root], stype, rbuf, rcount, rtype, comm);
    int rc2 = cm_coll_waitall(n, req, MPI_STATUSES_IGNORE);
    cm_coll_reqs_free(req, few);
    return rc != MPI_SUCCESS ? rc : rc2;
}
