/*
 * scatter.c -- scatter: linear (the root starts one send per rank; each
 * rank receives once).
 */
#include "coll/coll.h"

#include <stdlib.h>

#define TAG CM_TAG_SCATTER

int cm_coll_scatter_linear(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                           MPI_Datatype rtype, int root, MPI_Comm comm)
{
    int rank, p, rc = MPI_SUCCESS, n = 0;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &p);
    if (rank != root)
        return cm_coll_recv(rbuf, rcount, rtype, root, TAG, comm, MPI_STATUS_IGNORE);
    struct cm_dt d;
    cm_coll_dt(stype, &d);
    if (p == 2) { /* one block to send: a blocking send needs no request */
        rc = cm_coll_send(cm_coll_at(sbuf, (MPI_Aint)(1 - root) * scount, &d), scount, stype, 1 - root, TAG, comm);
        if (rc == MPI_SUCCESS && rbuf != MPI_IN_PLACE)
            rc = cm_coll_copy(cm_coll_at(sbuf, (MPI_Aint)root * scount, &d), scount, stype, rbuf, rcount, rtype,
                              comm);
        return rc;
    }
    MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)p);
    if (!req)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < p && rc == MPI_SUCCESS; i++)
        if (i != root)
            rc = cm_coll_isend(cm_coll_at(sbuf, (MPI_Aint)i * scount, &d), scount, stype, i, TAG, comm, &req[n++]);
    if (rc == MPI_SUCCESS && rbuf != MPI_IN_PLACE)
        rc = cm_coll_copy(cm_coll_at(sbuf, (MPI_Aint)root * scount, &d), scount, stype, rbuf, rcount, rtype, comm);
    int rc2 = cm_coll_waitall(n, req, MPI_STATUSES_IGNORE);
    free(req);
    return rc != MPI_SUCCESS ? rc : rc2;
}
