/*
 * gather.c -- gather: linear (the root posts one receive per rank straight
 * into its slot; the others send once).
 */
#include "coll/coll.h"

#include <stdlib.h>

#define TAG CM_TAG_GATHER

int cm_coll_gather_linear(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                          MPI_Datatype rtype, int root, MPI_Comm comm)
{
    int rank, p, rc = MPI_SUCCESS, n = 0;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &p);
    if (rank != root)
        return cm_coll_send(sbuf, scount, stype, root, TAG, comm);
    struct cm_dt d;
    cm_coll_dt(rtype, &d);
    if (sbuf != MPI_IN_PLACE)
        rc = cm_coll_copy(sbuf, scount, stype, cm_coll_at(rbuf, (MPI_Aint)root * rcount, &d), rcount, rtype, comm);
    if (p == 2) /* one block to receive: a blocking receive needs no request */
        return rc != MPI_SUCCESS ? rc
                                 : cm_coll_recv(cm_coll_at(rbuf, (MPI_Aint)(1 - root) * rcount, &d), rcount, rtype,
                                             1 - root, TAG, comm, MPI_STATUS_IGNORE);
    MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)p);
    if (!req)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < p && rc == MPI_SUCCESS; i++)
        if (i != root)
            rc = cm_coll_irecv(cm_coll_at(rbuf, (MPI_Aint)i * rcount, &d), rcount, rtype, i, TAG, comm, &req[n++]);
    if (rc == MPI_SUCCESS)
        rc = cm_coll_waitall(n, req, MPI_STATUSES_IGNORE);
    free(req);
    return rc;
}
