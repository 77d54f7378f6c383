/*
 * api_args.h -- the argument checks of the collectives with per-rank counts
 * and of the reductions, shared by their blocking and nonblocking front ends
 * (api_all.c, api_rooted.c, api_nonblocking_v.c) so both forms refuse the
 * same calls with the same messages.  Each returns 0 or the error class,
 * already raised through cm_error.
 */
#ifndef CM_COLL_API_ARGS_H
#define CM_COLL_API_ARGS_H

#include "coll/api.h"

/* Nonblocking forms: communicator and request pointer; fills *size, *rank
 * and the collective context *cc. */
static inline int api_nbc_begin(MPI_Comm comm, const char *call, MPI_Request *request, int *size, int *rank,
                                MPI_Comm *cc)
{
    *cc = MPI_COMM_NULL;
    int rc = api_comm(comm, call, size, rank);
    if (rc)
        return rc;
    if (!request)
        return cm_error(comm, MPI_ERR_REQUEST, call, "request pointer is NULL");
    *cc = cm_coll_comm(comm);
    return 0;
}

/* Reductions: count, type, op, buffers; MPI_IN_PLACE becomes *sendbuf ==
 * recvbuf.  count: elements of the send buffer; rcount: of the receive
 * buffer (if not in place).  Fills *size, *rank. */
static inline int api_reduction_args(MPI_Comm comm, const char *call, const void **sendbuf, void *recvbuf,
                                     int count, int rcount, MPI_Datatype dt, MPI_Op op, int *size, int *rank)
{
    int rc;
    if ((rc = api_comm(comm, call, size, rank)) || (rc = api_count(comm, call, count, "count")) ||
        (rc = api_type(comm, call, dt, "datatype")) || (rc = api_op(comm, call, op, dt)))
        return rc;
    if (*sendbuf == MPI_IN_PLACE) {
        *sendbuf = recvbuf;
        rcount = count;
    } else if (count > 0 && *sendbuf == recvbuf) {
        return cm_error(comm, MPI_ERR_BUFFER, call, "send and receive buffers alias (use MPI_IN_PLACE)");
    }
    if ((rc = api_buf(comm, call, *sendbuf, count, dt, "send buffer")) ||
        (rc = api_buf(comm, call, recvbuf, rcount, dt, "receive buffer")))
        return rc;
    return 0;
}

/* Reduce_scatter: recvcounts present and non-negative, their sum fits an
 * int (*total); then the reduction's checks. */
static inline int api_reduce_scatter_args(MPI_Comm comm, const char *call, const void **sendbuf, void *recvbuf,
                                          const int *recvcounts, MPI_Datatype dt, MPI_Op op, int *size,
                                          int *rank, int *total)
{
    int rc;
    *total = 0;
    if ((rc = api_comm(comm, call, size, rank)))
        return rc;
    if (!recvcounts)
        return cm_error(comm, MPI_ERR_ARG, call, "recvcounts is NULL");
    long long sum = 0;
    for (int i = 0; i < *size; i++) {
        if (recvcounts[i] < 0)
            return cm_error(comm, MPI_ERR_COUNT, call, "negative count %d for rank %d", recvcounts[i], i);
        sum += recvcounts[i];
    }
    if (sum > 0x7fffffff)
        return cm_error(comm, MPI_ERR_COUNT, call, "total count %lld too large", sum);
    *total = (int)sum;
    return api_reduction_args(comm, call, sendbuf, recvbuf, *total, recvcounts[*rank], dt, op, size, rank);
}

/* One side of a v form: its counts and displacements, and its type. */
static inline int api_v_side(MPI_Comm comm, const char *call, const int *counts, const int *displs, int size,
                             MPI_Datatype dt, const char *what)
{
    int rc;
    if ((rc = api_v_counts(comm, call, counts, displs, size)) || (rc = api_type(comm, call, dt, what)))
        return rc;
    return 0;
}

/* Gather(v) and Scatter(v): a valid root, and every rank's own block (a
 * gather's send side, a scatter's receive side; what: its name), which may
 * be MPI_IN_PLACE at the root only. */
static inline int api_rooted_own(MPI_Comm comm, const char *call, int root, int size, int rank, const void *buf,
                                 int count, MPI_Datatype dt, const char *what)
{
    int rc;
    if ((rc = api_root(comm, call, root, size)))
        return rc;
    if (buf == MPI_IN_PLACE && rank != root)
        return cm_error(comm, MPI_ERR_BUFFER, call, "MPI_IN_PLACE is only allowed at the root");
    if (buf != MPI_IN_PLACE && (rc = api_count_type_buf(comm, call, buf, count, dt, what)))
        return rc;
    return 0;
}

/* Gatherv and Scatterv (rank's own rank and size known): the own block,
 * then at the root the per-rank counts and their type (vwhat: its name). */
static inline int api_rooted_v_args(MPI_Comm comm, const char *call, const void *buf, int count, MPI_Datatype dt,
                                    const char *what, const int *counts, const int *displs, MPI_Datatype vtype,
                                    const char *vwhat, int root, int size, int rank)
{
    int rc;
    if ((rc = api_rooted_own(comm, call, root, size, rank, buf, count, dt, what)))
        return rc;
    return rank == root ? api_v_side(comm, call, counts, displs, size, vtype, vwhat) : 0;
}

/* Gatherv and Scatterv: the class of the call's word, from the side that
 * counts on this rank (the root's blocks, everyone else's own block). */
static inline unsigned api_rooted_v_class(int rank, int root, MPI_Datatype vtype, const int *counts, int size,
                                          MPI_Datatype dt, int count)
{
    return rank == root ? api_class(vtype, api_any(counts, size)) : api_class(dt, (size_t)count);
}

static inline int api_allgatherv_args(MPI_Comm comm, const char *call, const void *sendbuf, int sendcount,
                                      MPI_Datatype sendtype, const int *recvcounts, const int *displs,
                                      MPI_Datatype recvtype, int size)
{
    int rc;
    if (sendbuf != MPI_IN_PLACE &&
        (rc = api_count_type_buf(comm, call, sendbuf, sendcount, sendtype, "send buffer")))
        return rc;
    return api_v_side(comm, call, recvcounts, displs, size, recvtype, "receive datatype");
}

static inline int api_alltoallv_args(MPI_Comm comm, const char *call, const void *sendbuf, const int *sendcounts,
                                     const int *sdispls, MPI_Datatype sendtype, const int *recvcounts,
                                     const int *rdispls, MPI_Datatype recvtype, int size)
{
    int rc;
    if (sendbuf != MPI_IN_PLACE && (rc = api_v_side(comm, call, sendcounts, sdispls, size, sendtype, "send datatype")))
        return rc;
    return api_v_side(comm, call, recvcounts, rdispls, size, recvtype, "receive datatype");
}

static inline int api_alltoallw_args(MPI_Comm comm, const char *call, const void *sendbuf, const int *sendcounts,
                                     const int *sdispls, const MPI_Datatype *sendtypes, const int *recvcounts,
                                     const int *rdispls, const MPI_Datatype *recvtypes, int size)
{
    int rc;
    if (!recvtypes || (sendbuf != MPI_IN_PLACE && !sendtypes))
        return cm_error(comm, MPI_ERR_ARG, call, "datatype array is NULL");
    if ((rc = api_v_counts(comm, call, recvcounts, rdispls, size)))
        return rc;
    if (sendbuf != MPI_IN_PLACE && (rc = api_v_counts(comm, call, sendcounts, sdispls, size)))
        return rc;
    for (int i = 0; i < size; i++) {
        if ((rc = api_type(comm, call, recvtypes[i], "receive datatype")) ||
            (sendbuf != MPI_IN_PLACE && (rc = api_type(comm, call, sendtypes[i], "send datatype"))))
            return rc;
    }
    return 0;
}

#endif
