/*
 * scan.c -- inclusive prefix reduction by recursive doubling: after the round
 * of distance m, a rank's "partial" covers the aligned block of 2m ranks
 * around it and its result covers that block up to itself; lower blocks are
 * always the left operand, so non-commutative ops are fine.
 */
#include "coll/coll.h"

#include <stdlib.h>

#define TAG CM_TAG_SCAN

int cm_coll_scan_common(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                        MPI_Comm comm, int exclusive, int tag)
{
    int rank, p, rc = MPI_SUCCESS;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &p);
    void *b1 = NULL, *b2 = NULL;
    void *partial = cm_coll_tmp(dt, count, &b1), *in = cm_coll_tmp(dt, count, &b2);
    if (!partial || !in) {
        cm_coll_tmp_free(b1);
        cm_coll_tmp_free(b2);
        return MPI_ERR_NO_MEM;
    }
    rc = cm_coll_copy(sbuf, count, dt, partial, count, dt, comm);
    if (rc == MPI_SUCCESS && !exclusive)
        rc = cm_coll_copy(sbuf, count, dt, rbuf, count, dt, comm);
    int have = !exclusive;
    for (int mask = 1; mask < p && rc == MPI_SUCCESS; mask <<= 1) {
        int peer = rank ^ mask;
        if (peer >= p)
            continue;
        rc = cm_coll_sendrecv(partial, count, dt, peer, tag, in, count, dt, peer, tag, comm, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            break;
        if (peer < rank) {
            if (have) {
                PMPI_Reduce_local(in, rbuf, count, dt, op);
            } else {
                rc = cm_coll_copy(in, count, dt, rbuf, count, dt, comm);
                have = 1;
            }
            PMPI_Reduce_local(in, partial, count, dt, op);
        } else {
            PMPI_Reduce_local(partial, in, count, dt, op);
            void *t = partial; partial = in; in = t;
        }
    }
    cm_coll_tmp_free(b1);
    cm_coll_tmp_free(b2);
    return rc;
}

int cm_coll_scan_rdb(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    return cm_coll_scan_common(sbuf, rbuf, count, dt, op, comm, 0, TAG);
}
