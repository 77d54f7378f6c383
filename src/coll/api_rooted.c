/*
 * api_rooted.c -- the rooted collectives: Bcast, Reduce, Gather(v),
 * Scatter(v) (the impls their generated front ends call, spec/coll.api).  Check the arguments, handle the trivial cases,
 * pick the algorithm and run it on the communicator's collective context.
 */
#include "coll/api_args.h"
#include "fe_coll.h"

int cm_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    static const char call[] = "MPI_Bcast";
    API_ENTER(Bcast);
    API_INTER(comm, cm_inter_bcast(buffer, count, datatype, root, comm));
    int size, rank, rc;
    if ((rc = api_comm(comm, call, &size, &rank)) || (rc = api_root(comm, call, root, size)) ||
        (rc = api_count_type_buf(comm, call, buffer, count, datatype, "buffer")))
        return rc;
    API_CHECK(comm, call, .coll = CM_COLL_BCAST, .root = root, .rcount = count, .rtype = datatype);
    /* A count of 0 still runs the collective (issue 32 item 2), here and in
     * every collective without a v: a rank with 0 where the others have data
     * must meet them, so that its word (0 bytes) is compared with theirs in
     * the syncs, FIFO entries or point-to-point tags, instead of returning
     * success at once and leaving them waiting or with nothing.  Every rank
     * with 0 runs the algorithm's smallest path (one FIFO entry or sync). */
    if (size == 1)
        return MPI_SUCCESS;
    MPI_Comm cc = cm_coll_comm(comm);
    struct cm_coll_query q = api_query(size, count, datatype, MPI_OP_NULL);
    const struct cm_coll_algo *a = cm_coll_select(CM_COLL_BCAST, cc, &q);
    api_word_rooted(CM_COLL_BCAST, q.bytes, root, api_class(datatype, q.bytes));
    return api_done(comm, call, ((cm_bcast_fn)a->fn)(buffer, count, datatype, root, cc));
}

int cm_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
              MPI_Comm comm)
{
    static const char call[] = "MPI_Reduce";
    API_ENTER(Reduce);
    API_INTER(comm, cm_inter_reduce(sendbuf, recvbuf, count, datatype, op, root, comm));
    int size, rank, rc;
    if ((rc = api_comm(comm, call, &size, &rank)) || (rc = api_root(comm, call, root, size)) ||
        (rc = api_count(comm, call, count, "count")) || (rc = api_type(comm, call, datatype, "datatype")) ||
        (rc = api_op(comm, call, op, datatype)))
        return rc;
    if (sendbuf == MPI_IN_PLACE) {
        if (rank != root)
            return cm_error(comm, MPI_ERR_BUFFER, call, "MPI_IN_PLACE is only allowed at the root");
        sendbuf = recvbuf;
    } else if (rank == root && count > 0 && sendbuf == recvbuf) {
        return cm_error(comm, MPI_ERR_BUFFER, call, "send and receive buffers alias (use MPI_IN_PLACE)");
    }
    if ((rc = api_buf(comm, call, sendbuf, count, datatype, "send buffer")) ||
        (rank == root && (rc = api_buf(comm, call, recvbuf, count, datatype, "receive buffer"))))
        return rc;
    API_CHECK(comm, call, .coll = CM_COLL_REDUCE, .root = root, .op = op, .scount = count, .stype = datatype);
    if (count == 0 && size == 1)
        return MPI_SUCCESS;
    api_empty_bufs(count, &sendbuf, &recvbuf);
    MPI_Comm cc = cm_coll_comm(comm);
    if (size == 1)      /* one rank: the result is its own vector, no tree needed */
        return sendbuf == recvbuf ? MPI_SUCCESS
                                  : api_done(comm, call, cm_coll_copy(sendbuf, count, datatype, recvbuf, count,
                                                                      datatype, cc));
    struct cm_coll_query q = api_query(size, count, datatype, op);
    const struct cm_coll_algo *a = cm_coll_select(CM_COLL_REDUCE, cc, &q);
    /* The datatype's class even for a count of 0: reduce wants the same
     * datatype on every rank (direct.h, cm_direct_root_field), and a root
     * with 0 against senders with data then differs in the bytes alone. */
    api_word_rooted_op(CM_COLL_REDUCE, q.bytes, root, op, api_class(datatype, 1));
    return api_done(comm, call, ((cm_reduce_fn)a->fn)(sendbuf, recvbuf, count, datatype, op, root, cc));
}

/* Gather and Scatter: the same checks, selection and word with the sides
 * swapped: every rank's own block (a gather's send, a scatter's receive
 * side; MPI_IN_PLACE at the root only) and the root's blocks of all ranks
 * (the other side).  Their algorithms have one signature. */
static int gather_scatter(enum cm_coll_id coll, const char *call, const void *sendbuf, int sendcount,
                          MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                          MPI_Comm comm)
{
    int scatter = coll == CM_COLL_SCATTER;
    const void *own = scatter ? recvbuf : sendbuf, *all = scatter ? sendbuf : recvbuf;
    int own_count = scatter ? recvcount : sendcount, all_count = scatter ? sendcount : recvcount;
    MPI_Datatype own_type = scatter ? recvtype : sendtype, all_type = scatter ? sendtype : recvtype;
    const char *own_what = scatter ? "receive buffer" : "send buffer", *all_what = scatter ? "send buffer" : "receive buffer";
    int size, rank, rc;
    if ((rc = api_comm(comm, call, &size, &rank)) ||
        (rc = api_rooted_own(comm, call, root, size, rank, own, own_count, own_type, own_what)))
        return rc;
    if (rank == root && (rc = api_count_type_buf(comm, call, all, all_count, all_type, all_what)))
        return rc;
    API_CHECK(comm, call, .coll = coll, .root = root, .sbuf = sendbuf, .rbuf = recvbuf, .scount = sendcount,
              .stype = sendtype, .rcount = recvcount, .rtype = recvtype);
    MPI_Comm cc = cm_coll_comm(comm);
    MPI_Datatype mine = rank == root ? all_type : own_type;
    struct cm_coll_query q = api_query(size, rank == root ? all_count : own_count, mine, MPI_OP_NULL);
    const struct cm_coll_algo *a = cm_coll_select(coll, cc, &q);
    api_word_rooted(coll, q.bytes, root, api_class(mine, q.bytes));
    return api_done(comm, call, ((cm_gather_fn)a->fn)(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                                        recvtype, root, cc));
}

int cm_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
              MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    API_ENTER(Gather);
    API_INTER(comm, cm_inter_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm));
    return gather_scatter(CM_COLL_GATHER, "MPI_Gather", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                          root, comm);
}

/* Gatherv and Scatterv: gather_scatter's sides, the root's blocks per
 * rank (counts at displs: a gather's recvcounts, a scatter's sendcounts;
 * the other form's count array NULL, its single count 0). */
static int gatherv_scatterv(enum cm_coll_id coll, const char *call, const void *sendbuf, int sendcount,
                            const int *sendcounts, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                            const int *recvcounts, const int *displs, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    int scatter = coll == CM_COLL_SCATTERV;
    int size, rank, rc;
    if ((rc = api_comm(comm, call, &size, &rank)))
        return rc;
    rc = scatter ? api_rooted_v_args(comm, call, recvbuf, recvcount, recvtype, "receive buffer", sendcounts, displs,
                                     sendtype, "send datatype", root, size, rank)
                 : api_rooted_v_args(comm, call, sendbuf, sendcount, sendtype, "send buffer", recvcounts, displs,
                                     recvtype, "receive datatype", root, size, rank);
    if (rc)
        return rc;
    API_CHECK(comm, call, .coll = coll, .root = root, .sbuf = sendbuf, .rbuf = recvbuf, .scount = sendcount,
              .scounts = sendcounts, .stype = sendtype, .rcount = recvcount, .rcounts = recvcounts, .rtype = recvtype);
    MPI_Comm cc = cm_coll_comm(comm);
    MPI_Datatype qtype = scatter ? (recvbuf == MPI_IN_PLACE ? sendtype : recvtype)
                                 : (sendtype == MPI_DATATYPE_NULL ? recvtype : sendtype);
    struct cm_coll_query q = api_query(size, scatter ? recvcount : sendcount, qtype, MPI_OP_NULL);
    const struct cm_coll_algo *a = cm_coll_select(coll, cc, &q);
    api_word_rooted(coll, 0, root,
                    scatter ? api_rooted_v_class(rank, root, sendtype, sendcounts, size, recvtype, recvcount)
                            : api_rooted_v_class(rank, root, recvtype, recvcounts, size, sendtype, sendcount));
    rc = scatter ? ((cm_scatterv_fn)a->fn)(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, cc)
                 : ((cm_gatherv_fn)a->fn)(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, cc);
    return api_done(comm, call, rc);
}

int cm_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    API_ENTER(Gatherv);
    API_INTER(comm, cm_inter_gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm));
    return gatherv_scatterv(CM_COLL_GATHERV, "MPI_Gatherv", sendbuf, sendcount, NULL, sendtype, recvbuf, 0,
                            recvcounts, displs, recvtype, root, comm);
}

int cm_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    API_ENTER(Scatter);
    API_INTER(comm, cm_inter_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm));
    return gather_scatter(CM_COLL_SCATTER, "MPI_Scatter", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                          recvtype, root, comm);
}

int cm_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    API_ENTER(Scatterv);
    API_INTER(comm, cm_inter_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm));
    return gatherv_scatterv(CM_COLL_SCATTERV, "MPI_Scatterv", sendbuf, 0, sendcounts, sendtype, recvbuf, recvcount,
                            NULL, displs, recvtype, root, comm);
}
