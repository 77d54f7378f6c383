/*
 * exscan.c -- exclusive prefix reduction: the recursive doubling of scan.c
 * with an initially empty result (rank 0's receive buffer is left alone).
 */
#include "coll/coll.h"

int cm_coll_exscan_rdb(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    return cm_coll_scan_common(sbuf, rbuf, count, dt, op, comm, 1, CM_TAG_EXSCAN);
}
