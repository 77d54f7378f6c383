/*
 * api_nonblocking_v.c -- the impls (spec/coll.api) of the nonblocking collectives with
 * per-rank counts, the prefix reductions and Ireduce_scatter: the blocking
 * forms' argument checks, then a point-to-point schedule (nbc_build_v.c)
 * carrying the call's word (coll/nbc.c).  They never take the
 * shared-memory engine's path (README).
 */
#include "coll/api_args.h"
#include "coll/nbc.h"
#include "fe_coll.h"

/* Build with fn's result in rc, then hand the schedule to *request; the
 * word the front end made just before (api_nbc_word: the collective, root,
 * op and class; each message's size is compared, coll/nbc.c) goes on it. */
#define RUN(comm, call, cc, request, build)                                               \
    do {                                                                                  \
        struct cm_nbc *s_ = cm_nbc_new(cc);                                               \
        cm_nbc_take_word(s_);                                                             \
        if (!s_)                                                                          \
            return cm_error(comm, MPI_ERR_NO_MEM, call, "out of memory");                 \
        struct cm_nbc *s = s_;                                                            \
        int brc_ = (build);                                                               \
        if (brc_ != MPI_SUCCESS) {                                                        \
            cm_nbc_free(s_);                                                              \
            return cm_error(comm, brc_, call, "could not build the schedule");            \
        }                                                                                 \
        brc_ = cm_nbc_start(s_, request);                                                 \
        if (brc_ != MPI_SUCCESS)                                                          \
            return cm_error(comm, brc_, call, "could not start the schedule");            \
        return MPI_SUCCESS;                                                               \
    } while (0)

int cm_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm,
                MPI_Request *request)
{
    const char *call = CM_COLL_CALL("MPI_Igatherv");
    API_ENTER(Igatherv);
    API_INTER(comm, cm_inter_nb_end(comm, request, (cm_inter_nb_begin(comm, "MPI_Igatherv"), cm_inter_gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm))));
    int size, rank, rc;
    MPI_Comm cc;
    if ((rc = api_nbc_begin(comm, call, request, &size, &rank, &cc)) || 
        (rc = api_rooted_v_args(comm, call, sendbuf, sendcount, sendtype, "send buffer", recvcounts, displs,
                                recvtype, "receive datatype", root, size, rank)))
        return rc;
    api_nbc_word(comm, call, CM_COLL_GATHERV, 0, root, MPI_OP_NULL,
                 api_rooted_v_class(rank, root, recvtype, recvcounts, size, sendtype, sendcount));
    RUN(comm, call, cc, request,
        cm_nbc_build_gatherv(s, sendbuf, sendcount, sendtype, recvbuf, &(struct cm_nbc_blocks){recvcounts, displs, 0},
                             recvtype, root, cc));
}

int cm_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request *request)
{
    const char *call = CM_COLL_CALL("MPI_Iscatterv");
    API_ENTER(Iscatterv);
    API_INTER(comm, cm_inter_nb_end(comm, request, (cm_inter_nb_begin(comm, "MPI_Iscatterv"), cm_inter_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm))));
    int size, rank, rc;
    MPI_Comm cc;
    if ((rc = api_nbc_begin(comm, call, request, &size, &rank, &cc)) || 
        (rc = api_rooted_v_args(comm, call, recvbuf, recvcount, recvtype, "receive buffer", sendcounts, displs,
                                sendtype, "send datatype", root, size, rank)))
        return rc;
    api_nbc_word(comm, call, CM_COLL_SCATTERV, 0, root, MPI_OP_NULL,
                 api_rooted_v_class(rank, root, sendtype, sendcounts, size, recvtype, recvcount));
    RUN(comm, call, cc, request,
        cm_nbc_build_scatterv(s, sendbuf, &(struct cm_nbc_blocks){sendcounts, displs, 0}, sendtype, recvbuf,
                              recvcount, recvtype, root, cc));
}

int cm_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                   MPI_Request *request)
{
    const char *call = CM_COLL_CALL("MPI_Iallgatherv");
    API_ENTER(Iallgatherv);
    API_INTER(comm, cm_inter_nb_end(comm, request, (cm_inter_nb_begin(comm, "MPI_Iallgatherv"), cm_inter_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm))));
    int size, rank, rc;
    MPI_Comm cc;
    if ((rc = api_nbc_begin(comm, call, request, &size, &rank, &cc)) ||
        (rc = api_allgatherv_args(comm, call, sendbuf, sendcount, sendtype, recvcounts, displs, recvtype, size)))
        return rc;
    api_nbc_word(comm, call, CM_COLL_ALLGATHERV, 0, -1, MPI_OP_NULL, api_class(recvtype, api_any(recvcounts, size)));
    RUN(comm, call, cc, request,
        cm_nbc_build_allgatherv(s, sendbuf, sendcount, sendtype, recvbuf,
                                &(struct cm_nbc_blocks){recvcounts, displs, 0}, recvtype, cc));
}

int cm_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                  void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                  MPI_Comm comm, MPI_Request *request)
{
    const char *call = CM_COLL_CALL("MPI_Ialltoallv");
    API_ENTER(Ialltoallv);
    API_INTER(comm, cm_inter_nb_end(comm, request, (cm_inter_nb_begin(comm, "MPI_Ialltoallv"), cm_inter_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm))));
    int size, rank, rc;
    MPI_Comm cc;
    if ((rc = api_nbc_begin(comm, call, request, &size, &rank, &cc)) ||
        (rc = api_alltoallv_args(comm, call, sendbuf, sendcounts, sdispls, sendtype, recvcounts, rdispls,
                                 recvtype, size)))
        return rc;
    api_nbc_word(comm, call, CM_COLL_ALLTOALLV, 0, -1, MPI_OP_NULL, 0);
    RUN(comm, call, cc, request,
        cm_nbc_build_alltoallv(s, sendbuf, &(struct cm_nbc_blocks){sendcounts, sdispls, 0}, sendtype, recvbuf,
                               &(struct cm_nbc_blocks){recvcounts, rdispls, 0}, recvtype, cc));
}

int cm_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
                  const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request)
{
    const char *call = CM_COLL_CALL("MPI_Ialltoallw");
    API_ENTER(Ialltoallw);
    API_INTER(comm, cm_inter_nb_end(comm, request, (cm_inter_nb_begin(comm, "MPI_Ialltoallw"), cm_inter_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm))));
    int size, rank, rc;
    MPI_Comm cc;
    if ((rc = api_nbc_begin(comm, call, request, &size, &rank, &cc)) ||
        (rc = api_alltoallw_args(comm, call, sendbuf, sendcounts, sdispls, sendtypes, recvcounts, rdispls,
                                 recvtypes, size)))
        return rc;
    api_nbc_word(comm, call, CM_COLL_ALLTOALLW, 0, -1, MPI_OP_NULL, 0);
    RUN(comm, call, cc, request,
        cm_nbc_build_alltoallw(s, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                               recvtypes, cc));
}

static int iscan(const char *call, const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                 MPI_Op op, MPI_Comm comm, MPI_Request *request, int exclusive)
{
    int size, rank, rc;
    MPI_Comm cc;
    if ((rc = api_nbc_begin(comm, call, request, &size, &rank, &cc)) ||
        (rc = api_reduction_args(comm, call, &sendbuf, recvbuf, count, count, datatype, op, &size, &rank)))
        return rc;
    size_t bytes = api_bytes(count, datatype);
    api_nbc_word(comm, call, exclusive ? CM_COLL_EXSCAN : CM_COLL_SCAN, bytes, -1, op, api_class(datatype, bytes));
    RUN(comm, call, cc, request, cm_nbc_build_scan(s, sendbuf, recvbuf, count, datatype, op, exclusive, cc));
}

int cm_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
             MPI_Request *request)
{
    API_ENTER(Iscan);
    API_INTER(comm, cm_inter_refuse(comm, CM_COLL_CALL("MPI_Iscan")));
    return iscan(CM_COLL_CALL("MPI_Iscan"), sendbuf, recvbuf, count, datatype, op, comm, request, 0);
}

int cm_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
               MPI_Request *request)
{
    API_ENTER(Iexscan);
    API_INTER(comm, cm_inter_refuse(comm, CM_COLL_CALL("MPI_Iexscan")));
    return iscan(CM_COLL_CALL("MPI_Iexscan"), sendbuf, recvbuf, count, datatype, op, comm, request, 1);
}

int cm_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    const char *call = CM_COLL_CALL("MPI_Ireduce_scatter");
    API_ENTER(Ireduce_scatter);
    API_INTER(comm, cm_inter_nb_end(comm, request, (cm_inter_nb_begin(comm, "MPI_Ireduce_scatter"), cm_inter_reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm))));
    int size, rank, rc, total;
    MPI_Comm cc;
    if ((rc = api_nbc_begin(comm, call, request, &size, &rank, &cc)) ||
        (rc = api_reduce_scatter_args(comm, call, &sendbuf, recvbuf, recvcounts, datatype, op, &size, &rank,
                                      &total)))
        return rc;
    size_t bytes = api_bytes(total, datatype);
    api_nbc_word(comm, call, CM_COLL_REDUCE_SCATTER, bytes, -1, op, api_class(datatype, bytes));
    RUN(comm, call, cc, request, cm_nbc_build_reduce_scatter(s, sendbuf, recvbuf, recvcounts, datatype, op, cc));
}
