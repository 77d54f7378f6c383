/*
 * api_nonblocking.c -- the nonblocking collectives (the impls their
 * generated front ends call, spec/coll.api): the
 * argument checks of the blocking ones, then a schedule (nbc_build.c) driven
 * by a generic request.
 */
#include "coll/api_args.h"
#include "coll/nbc.h"
#ifdef CM_IN_COREMPI  /* corempi only: the host-MPI harness compiles every src/coll file */
#include "coll/direct/direct.h"
#include "fe_coll.h"
#else
/* Over another MPI there is no shared-memory engine: every call takes the
 * point-to-point schedule, as when the engine declines. */
#define CM_NO_SHM_NBC(...) (-1)   /* CM_COLL_NO_SHORTCUT: not taken */
#define cm_direct_nbc_barrier CM_NO_SHM_NBC
#define cm_direct_nbc_bcast CM_NO_SHM_NBC
#define cm_direct_nbc_reduce CM_NO_SHM_NBC
#define cm_direct_nbc_allreduce CM_NO_SHM_NBC
#define cm_direct_nbc_reduce_scatter_block CM_NO_SHM_NBC
#define cm_direct_nbc_gather CM_NO_SHM_NBC
#define cm_direct_nbc_scatter CM_NO_SHM_NBC
#define cm_direct_nbc_allgather CM_NO_SHM_NBC
#define cm_direct_nbc_alltoall CM_NO_SHM_NBC
#define cm_direct_iallreduce_lane(...) (-1)
#define cm_direct_ibarrier_lane(...) (-1)
#define cm_direct_iallgather_lane(...) (-1)
#endif


/* Every schedule of these front ends ends here: the word API_NBC left
 * (api.h, api_nbc_after) goes on it, and is cleared. */
static int start(MPI_Comm comm, const char *call, struct cm_nbc *s, int rc, MPI_Request *request)
{
    cm_nbc_take_word(s);
    if (rc != MPI_SUCCESS) {
        cm_nbc_free(s);
        return cm_error(comm, rc, call, "could not build the schedule");
    }
    rc = cm_nbc_start(s, request);
    if (rc != MPI_SUCCESS)
        return cm_error(comm, rc, call, "could not start the schedule");
    return MPI_SUCCESS;
}

/* A fresh schedule on the collective context. */
static int new_schedule(MPI_Comm comm, const char *call, MPI_Comm cc, struct cm_nbc **s)
{
    *s = cm_nbc_new(cc);
#ifdef CM_IN_COREMPI
    if (!*s)
        cm_direct_nbc_next.word = 0;   /* no start() to take it */
#endif
    return *s ? 0 : cm_error(comm, MPI_ERR_NO_MEM, call, "out of memory");
}

int cm_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    const char *call = CM_COLL_CALL("MPI_Ibarrier");
    API_ENTER(Ibarrier);
    API_INTER(comm, cm_inter_nb_end(comm, request, (cm_inter_nb_begin(comm, "MPI_Ibarrier"), cm_inter_barrier(comm))));
    int size, rank, rc;
    if ((rc = cm_direct_ibarrier_lane(comm, request)) != -1)   /* CM_COLL_NO_SHORTCUT */
        return rc;
    MPI_Comm cc;
    struct cm_nbc *s;
    if ((rc = api_nbc_begin(comm, call, request, &size, &rank, &cc)))
        return rc;
    if (API_NBC(comm, call, CM_COLL_BARRIER, 0, -1, MPI_OP_NULL, 0, cm_direct_nbc_barrier(cc, request)) == MPI_SUCCESS)
        return MPI_SUCCESS;
    if ((rc = new_schedule(comm, call, cc, &s)))
        return rc;
    return start(comm, call, s, cm_nbc_build_barrier(s, cc), request);
}

int cm_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request)
{
    const char *call = CM_COLL_CALL("MPI_Ibcast");
    API_ENTER(Ibcast);
    API_INTER(comm, cm_inter_nb_end(comm, request, (cm_inter_nb_begin(comm, "MPI_Ibcast"), cm_inter_bcast(buffer, count, datatype, root, comm))));
    int size, rank, rc;
    MPI_Comm cc;
    struct cm_nbc *s;
    if ((rc = api_nbc_begin(comm, call, request, &size, &rank, &cc)))
        return rc;
    if ((rc = api_root(comm, call, root, size)) ||
        (rc = api_count_type_buf(comm, call, buffer, count, datatype, "buffer")))
        return rc;
    size_t bytes = api_bytes(count, datatype);
    if (API_NBC(comm, call, CM_COLL_BCAST, bytes, root, MPI_OP_NULL, api_class(datatype, bytes),
                cm_direct_nbc_bcast(buffer, count, datatype, root, cc, request)) == MPI_SUCCESS)
        return MPI_SUCCESS;
    if ((rc = new_schedule(comm, call, cc, &s)))
        return rc;
    return start(comm, call, s, cm_nbc_build_bcast(s, buffer, count, datatype, root, cc), request);
}

static int reduce_args(MPI_Comm comm, const char *call, const void **sendbuf, void *recvbuf, int count,
                       MPI_Datatype dt, MPI_Op op, int root, int rank, int all)
{
    int rc;
    if ((rc = api_count(comm, call, count, "count")) || (rc = api_type(comm, call, dt, "datatype")) ||
        (rc = api_op(comm, call, op, dt)))
        return rc;
    int receives = all || rank == root;
    if (*sendbuf == MPI_IN_PLACE) {
        if (!receives)
            return cm_error(comm, MPI_ERR_BUFFER, call, "MPI_IN_PLACE is only allowed at the root");
        *sendbuf = recvbuf;
    } else if (receives && count > 0 && *sendbuf == recvbuf) {
        return cm_error(comm, MPI_ERR_BUFFER, call, "send and receive buffers alias (use MPI_IN_PLACE)");
    }
    if ((rc = api_buf(comm, call, *sendbuf, count, dt, "send buffer")) ||
        (receives && (rc = api_buf(comm, call, recvbuf, count, dt, "receive buffer"))))
        return rc;
    return 0;
}

int cm_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
               MPI_Comm comm, MPI_Request *request)
{
    const char *call = CM_COLL_CALL("MPI_Ireduce");
    API_ENTER(Ireduce);
    API_INTER(comm, cm_inter_nb_end(comm, request, (cm_inter_nb_begin(comm, "MPI_Ireduce"), cm_inter_reduce(sendbuf, recvbuf, count, datatype, op, root, comm))));
    int size, rank, rc;
    MPI_Comm cc;
    struct cm_nbc *s;
    if ((rc = api_nbc_begin(comm, call, request, &size, &rank, &cc)))
        return rc;
    if ((rc = api_root(comm, call, root, size)) ||
        (rc = reduce_args(comm, call, &sendbuf, recvbuf, count, datatype, op, root, rank, 0)))
        return rc;
    api_empty_bufs(count, &sendbuf, &recvbuf);   /* a count of 0 runs too (api.h) */
    if (API_NBC(comm, call, CM_COLL_REDUCE, api_bytes(count, datatype), root, op, api_class(datatype, 1),
                cm_direct_nbc_reduce(sendbuf, recvbuf, count, datatype, op, root, cc, request)) == MPI_SUCCESS)
        return MPI_SUCCESS;
    if ((rc = new_schedule(comm, call, cc, &s)))
        return rc;
    return start(comm, call, s, cm_nbc_build_reduce(s, sendbuf, recvbuf, count, datatype, op, root, cc), request);
}

int cm_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm, MPI_Request *request)
{
    const char *call = CM_COLL_CALL("MPI_Iallreduce");
    API_ENTER(Iallreduce);
    API_INTER(comm, cm_inter_nb_end(comm, request, (cm_inter_nb_begin(comm, "MPI_Iallreduce"), cm_inter_allreduce(sendbuf, recvbuf, count, datatype, op, comm))));
    int size, rank, rc;
    if ((rc = cm_direct_iallreduce_lane(sendbuf, recvbuf, count, datatype, op, comm, request)) != -1)
        return rc;
    MPI_Comm cc;
    struct cm_nbc *s;
    if ((rc = api_nbc_begin(comm, call, request, &size, &rank, &cc)))
        return rc;
    if ((rc = reduce_args(comm, call, &sendbuf, recvbuf, count, datatype, op, 0, rank, 1)))
        return rc;
    api_empty_bufs(count, &sendbuf, &recvbuf);
    size_t bytes = api_bytes(count, datatype);
    if (API_NBC(comm, call, CM_COLL_ALLREDUCE, bytes, -1, op, api_class(datatype, bytes),
                cm_direct_nbc_allreduce(sendbuf, recvbuf, count, datatype, op, cc, request)) == MPI_SUCCESS)
        return MPI_SUCCESS;
    if ((rc = new_schedule(comm, call, cc, &s)))
        return rc;
    rc = cm_nbc_build_reduce(s, sendbuf, recvbuf, count, datatype, op, 0, cc);
    if (rc == MPI_SUCCESS)
        rc = cm_nbc_build_bcast(s, recvbuf, count, datatype, 0, cc);
    return start(comm, call, s, rc, request);
}

int cm_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                             MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    const char *call = CM_COLL_CALL("MPI_Ireduce_scatter_block");
    API_ENTER(Ireduce_scatter_block);
    API_INTER(comm, cm_inter_nb_end(comm, request, (cm_inter_nb_begin(comm, "MPI_Ireduce_scatter_block"), cm_inter_reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm))));
    int size, rank, rc;
    MPI_Comm cc;
    struct cm_nbc *s;
    if ((rc = api_nbc_begin(comm, call, request, &size, &rank, &cc)))
        return rc;
    if ((rc = reduce_args(comm, call, &sendbuf, recvbuf, recvcount, datatype, op, 0, rank, 1)))
        return rc;
    api_empty_bufs(recvcount, &sendbuf, &recvbuf);
    size_t bytes = api_bytes(recvcount, datatype);
    if (API_NBC(comm, call, CM_COLL_REDUCE_SCATTER_BLOCK, bytes, -1, op, api_class(datatype, bytes),
                cm_direct_nbc_reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, cc, request)) ==
        MPI_SUCCESS)
        return MPI_SUCCESS;
    if ((rc = new_schedule(comm, call, cc, &s)))
        return rc;
    void *full = rank == 0 ? cm_nbc_scratch(s, datatype, recvcount * size) : NULL;
    if (rank == 0 && !full)
        return start(comm, call, s, MPI_ERR_NO_MEM, request);
    rc = cm_nbc_build_reduce(s, sendbuf, full, recvcount * size, datatype, op, 0, cc);
    if (rc == MPI_SUCCESS)
        rc = cm_nbc_build_scatter(s, full, recvcount, datatype, recvbuf, recvcount, datatype, 0, cc);
    return start(comm, call, s, rc, request);
}

int cm_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    const char *call = CM_COLL_CALL("MPI_Igather");
    API_ENTER(Igather);
    API_INTER(comm, cm_inter_nb_end(comm, request, (cm_inter_nb_begin(comm, "MPI_Igather"), cm_inter_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm))));
    int size, rank, rc;
    MPI_Comm cc;
    struct cm_nbc *s;
    if ((rc = api_nbc_begin(comm, call, request, &size, &rank, &cc)))
        return rc;
    if ((rc = api_root(comm, call, root, size)))
        return rc;
    if (sendbuf == MPI_IN_PLACE && rank != root)
        return cm_error(comm, MPI_ERR_BUFFER, call, "MPI_IN_PLACE is only allowed at the root");
    if ((sendbuf != MPI_IN_PLACE &&
         (rc = api_count_type_buf(comm, call, sendbuf, sendcount, sendtype, "send buffer"))) ||
        (rank == root && (rc = api_count_type_buf(comm, call, recvbuf, recvcount, recvtype, "receive buffer"))))
        return rc;
    MPI_Datatype mine = rank == root ? recvtype : sendtype;
    size_t bytes = api_bytes(rank == root ? recvcount : sendcount, mine);
    if (API_NBC(comm, call, CM_COLL_GATHER, bytes, root, MPI_OP_NULL, api_class(mine, bytes),
                cm_direct_nbc_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, cc, request)) ==
        MPI_SUCCESS)
        return MPI_SUCCESS;
    if ((rc = new_schedule(comm, call, cc, &s)))
        return rc;
    return start(comm, call, s,
                 cm_nbc_build_gather(s, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, cc),
                 request);
}

int cm_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    const char *call = CM_COLL_CALL("MPI_Iscatter");
    API_ENTER(Iscatter);
    API_INTER(comm, cm_inter_nb_end(comm, request, (cm_inter_nb_begin(comm, "MPI_Iscatter"), cm_inter_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm))));
    int size, rank, rc;
    MPI_Comm cc;
    struct cm_nbc *s;
    if ((rc = api_nbc_begin(comm, call, request, &size, &rank, &cc)))
        return rc;
    if ((rc = api_root(comm, call, root, size)))
        return rc;
    if (recvbuf == MPI_IN_PLACE && rank != root)
        return cm_error(comm, MPI_ERR_BUFFER, call, "MPI_IN_PLACE is only allowed at the root");
    if ((recvbuf != MPI_IN_PLACE &&
         (rc = api_count_type_buf(comm, call, recvbuf, recvcount, recvtype, "receive buffer"))) ||
        (rank == root && (rc = api_count_type_buf(comm, call, sendbuf, sendcount, sendtype, "send buffer"))))
        return rc;
    MPI_Datatype mine = rank == root ? sendtype : recvtype;
    size_t bytes = api_bytes(rank == root ? sendcount : recvcount, mine);
    if (API_NBC(comm, call, CM_COLL_SCATTER, bytes, root, MPI_OP_NULL, api_class(mine, bytes),
                cm_direct_nbc_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, cc, request)) ==
        MPI_SUCCESS)
        return MPI_SUCCESS;
    if ((rc = new_schedule(comm, call, cc, &s)))
        return rc;
    return start(comm, call, s,
                 cm_nbc_build_scatter(s, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, cc),
                 request);
}

int cm_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    const char *call = CM_COLL_CALL("MPI_Iallgather");
    API_ENTER(Iallgather);
    API_INTER(comm, cm_inter_nb_end(comm, request, (cm_inter_nb_begin(comm, "MPI_Iallgather"), cm_inter_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))));
    int size, rank, rc;
    if ((rc = cm_direct_iallgather_lane(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request)) != -1)
        return rc;
    MPI_Comm cc;
    struct cm_nbc *s;
    if ((rc = api_nbc_begin(comm, call, request, &size, &rank, &cc)))
        return rc;
    if ((sendbuf != MPI_IN_PLACE &&
         (rc = api_count_type_buf(comm, call, sendbuf, sendcount, sendtype, "send buffer"))) ||
        (rc = api_count_type_buf(comm, call, recvbuf, recvcount, recvtype, "receive buffer")))
        return rc;
    size_t bytes = api_bytes(recvcount, recvtype);
    if (API_NBC(comm, call, CM_COLL_ALLGATHER, bytes, -1, MPI_OP_NULL, api_class(recvtype, bytes),
                cm_direct_nbc_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, cc, request)) ==
        MPI_SUCCESS)
        return MPI_SUCCESS;
    if ((rc = new_schedule(comm, call, cc, &s)))
        return rc;
    return start(comm, call, s,
                 cm_nbc_build_allgather(s, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, cc),
                 request);
}

int cm_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    const char *call = CM_COLL_CALL("MPI_Ialltoall");
    API_ENTER(Ialltoall);
    API_INTER(comm, cm_inter_nb_end(comm, request, (cm_inter_nb_begin(comm, "MPI_Ialltoall"), cm_inter_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))));
    int size, rank, rc;
    MPI_Comm cc;
    struct cm_nbc *s;
    if ((rc = api_nbc_begin(comm, call, request, &size, &rank, &cc)))
        return rc;
    if ((sendbuf != MPI_IN_PLACE &&
         (rc = api_count_type_buf(comm, call, sendbuf, sendcount, sendtype, "send buffer"))) ||
        (rc = api_count_type_buf(comm, call, recvbuf, recvcount, recvtype, "receive buffer")))
        return rc;
    size_t bytes = api_bytes(recvcount, recvtype);
    if (API_NBC(comm, call, CM_COLL_ALLTOALL, bytes, -1, MPI_OP_NULL, api_class(recvtype, bytes),
                cm_direct_nbc_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, cc, request)) ==
        MPI_SUCCESS)
        return MPI_SUCCESS;
    if ((rc = new_schedule(comm, call, cc, &s)))
        return rc;
    return start(comm, call, s,
                 cm_nbc_build_alltoall(s, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, cc),
                 request);
}
