/*
 * api_all.c -- the collectives without a root: Barrier, Allreduce,
 * Allgather(v), Alltoall(v,w), Reduce_scatter(_block), Scan, Exscan.  The
 * impls cm_<Name> their generated front ends call (spec/coll.api).  A count
 * of 0 runs the collective as any other (api_rooted.c, cm_Bcast: why).
 */
#include "coll/api_args.h"
#include "fe_coll.h"

#include <stdint.h>

int cm_Barrier(MPI_Comm comm)
{
    static const char call[] = "MPI_Barrier";
    API_ENTER(Barrier);
    API_INTER(comm, cm_inter_barrier(comm));
    API_SHORTCUT(CM_COLL_BARRIER, cm_barrier_fn, (comm));
    int size, rank, rc;
    if ((rc = api_comm(comm, call, &size, &rank)))
        return rc;
    API_CHECK(comm, call, .coll = CM_COLL_BARRIER, .root = -1);
    if (size == 1)
        return MPI_SUCCESS;
    MPI_Comm cc = cm_coll_comm(comm);
    struct cm_coll_query q = api_query(size, 0, MPI_BYTE, MPI_OP_NULL);
    const struct cm_coll_algo *a = cm_coll_select(CM_COLL_BARRIER, cc, &q);
    api_word(CM_COLL_BARRIER, 0, -1, MPI_OP_NULL);
    rc = cm_coll_ran(CM_COLL_BARRIER, cc, &q, a, ((cm_barrier_fn)a->fn)(cc));
    return api_done(comm, call, rc);
}

/* The checked, selected way (every call but the shortcut's, API_SHORTCUT). */
static __attribute__((noinline)) int allreduce_checked(const void *sendbuf, void *recvbuf, int count,
                                                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    static const char call[] = "MPI_Allreduce";
    int size, rank, rc;
    if ((rc = api_reduction_args(comm, call, &sendbuf, recvbuf, count, count, datatype, op, &size, &rank)))
        return rc;
    API_CHECK(comm, call, .coll = CM_COLL_ALLREDUCE, .root = -1, .op = op, .scount = count, .stype = datatype);
    if (count == 0 && size == 1)
        return MPI_SUCCESS;
    api_empty_bufs(count, &sendbuf, &recvbuf);
    MPI_Comm cc = cm_coll_comm(comm);
    struct cm_coll_query q = api_query(size, count, datatype, op);
    const struct cm_coll_algo *a = cm_coll_select(CM_COLL_ALLREDUCE, cc, &q);
    api_word(CM_COLL_ALLREDUCE, q.bytes, api_sig_root(datatype), op);
    rc = cm_coll_ran(CM_COLL_ALLREDUCE, cc, &q, a, ((cm_allreduce_fn)a->fn)(sendbuf, recvbuf, count, datatype, op, cc));
    return api_done(comm, call, rc);
}

int cm_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 MPI_Comm comm)
{
    API_ENTER(Allreduce);
    API_INTER(comm, cm_inter_allreduce(sendbuf, recvbuf, count, datatype, op, comm));
    API_SHORTCUT(CM_COLL_ALLREDUCE, cm_allreduce_fn, (sendbuf, recvbuf, count, datatype, op, comm));
    return allreduce_checked(sendbuf, recvbuf, count, datatype, op, comm);
}

int cm_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    static const char call[] = "MPI_Scan";
    API_ENTER(Scan);
    API_INTER(comm, cm_inter_refuse(comm, "MPI_Scan"));
    int size, rank, rc;
    if ((rc = api_reduction_args(comm, call, &sendbuf, recvbuf, count, count, datatype, op, &size, &rank)))
        return rc;
    API_CHECK(comm, call, .coll = CM_COLL_SCAN, .root = -1, .op = op, .scount = count, .stype = datatype);
    if (count == 0 && size == 1)
        return MPI_SUCCESS;
    api_empty_bufs(count, &sendbuf, &recvbuf);
    MPI_Comm cc = cm_coll_comm(comm);
    struct cm_coll_query q = api_query(size, count, datatype, op);
    const struct cm_coll_algo *a = cm_coll_select(CM_COLL_SCAN, cc, &q);
    api_word(CM_COLL_SCAN, q.bytes, api_sig_root(datatype), op);
    return api_done(comm, call, ((cm_scan_fn)a->fn)(sendbuf, recvbuf, count, datatype, op, cc));
}

int cm_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    static const char call[] = "MPI_Exscan";
    API_ENTER(Exscan);
    API_INTER(comm, cm_inter_refuse(comm, "MPI_Exscan"));
    int size, rank, rc;
    if ((rc = api_reduction_args(comm, call, &sendbuf, recvbuf, count, count, datatype, op, &size, &rank)))
        return rc;
    API_CHECK(comm, call, .coll = CM_COLL_EXSCAN, .root = -1, .op = op, .scount = count, .stype = datatype);
    if (count == 0 && size == 1)
        return MPI_SUCCESS;
    api_empty_bufs(count, &sendbuf, &recvbuf);
    MPI_Comm cc = cm_coll_comm(comm);
    struct cm_coll_query q = api_query(size, count, datatype, op);
    const struct cm_coll_algo *a = cm_coll_select(CM_COLL_EXSCAN, cc, &q);
    api_word(CM_COLL_EXSCAN, q.bytes, api_sig_root(datatype), op);
    return api_done(comm, call, ((cm_scan_fn)a->fn)(sendbuf, recvbuf, count, datatype, op, cc));
}

int cm_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                            MPI_Op op, MPI_Comm comm)
{
    static const char call[] = "MPI_Reduce_scatter_block";
    API_ENTER(Reduce_scatter_block);
    API_INTER(comm, cm_inter_reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm));
    int size, rank, rc;
    if ((rc = api_comm(comm, call, &size, &rank)) || (rc = api_count(comm, call, recvcount, "count")))
        return rc;
    if ((long long)recvcount * size > 0x7fffffff)
        return cm_error(comm, MPI_ERR_COUNT, call, "total count %lld too large", (long long)recvcount * size);
    if ((rc = api_reduction_args(comm, call, &sendbuf, recvbuf, recvcount * size, recvcount, datatype, op, &size,
                             &rank)))
        return rc;
    API_CHECK(comm, call, .coll = CM_COLL_REDUCE_SCATTER_BLOCK, .root = -1, .op = op, .rcount = recvcount,
              .rtype = datatype);
    if (recvcount == 0 && size == 1)
        return MPI_SUCCESS;
    api_empty_bufs(recvcount, &sendbuf, &recvbuf);
    MPI_Comm cc = cm_coll_comm(comm);
    struct cm_coll_query q = api_query(size, recvcount, datatype, op);
    const struct cm_coll_algo *a = cm_coll_select(CM_COLL_REDUCE_SCATTER_BLOCK, cc, &q);
    api_word(CM_COLL_REDUCE_SCATTER_BLOCK, q.bytes, api_sig_root(datatype), op);
    return api_done(comm, call,
                    ((cm_reduce_scatter_block_fn)a->fn)(sendbuf, recvbuf, recvcount, datatype, op, cc));
}

int cm_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                      MPI_Op op, MPI_Comm comm)
{
    static const char call[] = "MPI_Reduce_scatter";
    API_ENTER(Reduce_scatter);
    API_INTER(comm, cm_inter_reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm));
    int size, rank, rc;
    int total;
    if ((rc = api_reduce_scatter_args(comm, call, &sendbuf, recvbuf, recvcounts, datatype, op, &size, &rank,
                                      &total)))
        return rc;
    API_CHECK(comm, call, .coll = CM_COLL_REDUCE_SCATTER, .root = -1, .op = op, .rcounts = recvcounts,
              .rtype = datatype);
    if (total == 0 && size == 1)
        return MPI_SUCCESS;
    api_empty_bufs(total, &sendbuf, &recvbuf);
    MPI_Comm cc = cm_coll_comm(comm);
    struct cm_coll_query q = api_query(size, total, datatype, op);
    const struct cm_coll_algo *a = cm_coll_select(CM_COLL_REDUCE_SCATTER, cc, &q);
    api_word(CM_COLL_REDUCE_SCATTER, q.bytes, api_sig_root(datatype), op);
    return api_done(comm, call, ((cm_reduce_scatter_fn)a->fn)(sendbuf, recvbuf, recvcounts, datatype, op, cc));
}

int cm_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm)
{
    static const char call[] = "MPI_Allgather";
    API_ENTER(Allgather);
    API_INTER(comm, cm_inter_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm));
    int size, rank, rc;
    if ((rc = api_comm(comm, call, &size, &rank)))
        return rc;
    if (sendbuf != MPI_IN_PLACE &&
        (rc = api_count_type_buf(comm, call, sendbuf, sendcount, sendtype, "send buffer")))
        return rc;
    if ((rc = api_count_type_buf(comm, call, recvbuf, recvcount, recvtype, "receive buffer")))
        return rc;
    API_CHECK(comm, call, .coll = CM_COLL_ALLGATHER, .root = -1, .sbuf = sendbuf, .rbuf = recvbuf, .scount = sendcount,
              .stype = sendtype, .rcount = recvcount, .rtype = recvtype);
    if (recvcount == 0 && size == 1)
        return MPI_SUCCESS;
    MPI_Comm cc = cm_coll_comm(comm);
    struct cm_coll_query q = api_query(size, recvcount, recvtype, MPI_OP_NULL);
    const struct cm_coll_algo *a = cm_coll_select(CM_COLL_ALLGATHER, cc, &q);
    api_word(CM_COLL_ALLGATHER, q.bytes, (int)api_class(recvtype, q.bytes) - 1, MPI_OP_NULL);
    return api_done(comm, call, ((cm_allgather_fn)a->fn)(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                                           recvtype, cc));
}

/* Allgatherv's word, where the others' bytes go: a hash of every block's
 * size as this rank sees it (recvcounts x recvtype size; its own from its
 * send arguments).  Every rank must hold the same recvcounts (MPI 4.1,
 * 6.7.1), so in a correct program all hashes are equal, and ranks that
 * disagree on any block differ in the word the allgather taken for equal
 * counts compares in its syncs.  Kept 16384 or above, i.e. hashed in the
 * word (direct.h), which the report names as a difference in the counts. */
static size_t allgatherv_sizes(const int *rcounts, int n, MPI_Datatype rtype, int me, size_t mine)
{
    size_t rsize = api_bytes(1, rtype);
    uint64_t h = 0;
    for (int j = 0; j < n; j++)
        h += ((j == me ? mine : (uint64_t)rcounts[j] * rsize) + 1) * (0x9E3779B97F4A7C15ull * (uint64_t)(2 * j + 1));
    return (size_t)(h | 1ull << 63);
}

int cm_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    static const char call[] = "MPI_Allgatherv";
    API_ENTER(Allgatherv);
    API_INTER(comm, cm_inter_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm));
    int size, rank, rc;
    if ((rc = api_comm(comm, call, &size, &rank)))
        return rc;
    if ((rc = api_allgatherv_args(comm, call, sendbuf, sendcount, sendtype, recvcounts, displs, recvtype, size)))
        return rc;
    API_CHECK(comm, call, .coll = CM_COLL_ALLGATHERV, .root = -1, .sbuf = sendbuf, .rbuf = recvbuf, .scount = sendcount,
              .stype = sendtype, .rcounts = recvcounts, .rtype = recvtype);
    MPI_Comm cc = cm_coll_comm(comm);
    struct cm_coll_query q = api_query(size, recvcounts[rank], recvtype, MPI_OP_NULL);
    const struct cm_coll_algo *a = cm_coll_select(CM_COLL_ALLGATHERV, cc, &q);
    size_t mine = sendbuf == MPI_IN_PLACE ? api_bytes(recvcounts[rank], recvtype) : api_bytes(sendcount, sendtype);
    api_word(CM_COLL_ALLGATHERV, allgatherv_sizes(recvcounts, size, recvtype, rank, mine),
             (int)api_class(recvtype, api_any(recvcounts, size)) - 1, MPI_OP_NULL);
    return api_done(comm, call, ((cm_allgatherv_fn)a->fn)(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                                            displs, recvtype, cc));
}

int cm_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, MPI_Comm comm)
{
    static const char call[] = "MPI_Alltoall";
    API_ENTER(Alltoall);
    API_INTER(comm, cm_inter_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm));
    int size, rank, rc;
    if ((rc = api_comm(comm, call, &size, &rank)))
        return rc;
    if (sendbuf != MPI_IN_PLACE &&
        (rc = api_count_type_buf(comm, call, sendbuf, sendcount, sendtype, "send buffer")))
        return rc;
    if ((rc = api_count_type_buf(comm, call, recvbuf, recvcount, recvtype, "receive buffer")))
        return rc;
    API_CHECK(comm, call, .coll = CM_COLL_ALLTOALL, .root = -1, .sbuf = sendbuf, .rbuf = recvbuf, .scount = sendcount,
              .stype = sendtype, .rcount = recvcount, .rtype = recvtype);
    MPI_Comm cc = cm_coll_comm(comm);
    struct cm_coll_query q = api_query(size, recvcount, recvtype, MPI_OP_NULL);
    const struct cm_coll_algo *a = cm_coll_select(CM_COLL_ALLTOALL, cc, &q);
    api_word(CM_COLL_ALLTOALL, q.bytes, (int)api_class(recvtype, q.bytes) - 1, MPI_OP_NULL);
    return api_done(comm, call, ((cm_alltoall_fn)a->fn)(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                                          recvtype, cc));
}

int cm_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                 void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                 MPI_Comm comm)
{
    static const char call[] = "MPI_Alltoallv";
    API_ENTER(Alltoallv);
    API_INTER(comm, cm_inter_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm));
    int size, rank, rc;
    if ((rc = api_comm(comm, call, &size, &rank)))
        return rc;
    if ((rc = api_alltoallv_args(comm, call, sendbuf, sendcounts, sdispls, sendtype, recvcounts, rdispls,
                                 recvtype, size)))
        return rc;
    API_CHECK(comm, call, .coll = CM_COLL_ALLTOALLV, .root = -1, .sbuf = sendbuf, .rbuf = recvbuf, .scounts = sendcounts,
              .stype = sendtype, .rcounts = recvcounts, .rtype = recvtype);
    MPI_Comm cc = cm_coll_comm(comm);
    struct cm_coll_query q = api_query(size, 0, recvtype, MPI_OP_NULL);
    const struct cm_coll_algo *a = cm_coll_select(CM_COLL_ALLTOALLV, cc, &q);
    api_word(CM_COLL_ALLTOALLV, 0, -1, MPI_OP_NULL);
    return api_done(comm, call, ((cm_alltoallv_fn)a->fn)(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                                           recvcounts, rdispls, recvtype, cc));
}

int cm_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                 const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
                 const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    static const char call[] = "MPI_Alltoallw";
    API_ENTER(Alltoallw);
    API_INTER(comm, cm_inter_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm));
    int size, rank, rc;
    if ((rc = api_comm(comm, call, &size, &rank)))
        return rc;
    if ((rc = api_alltoallw_args(comm, call, sendbuf, sendcounts, sdispls, sendtypes, recvcounts, rdispls,
                                 recvtypes, size)))
        return rc;
    API_CHECK(comm, call, .coll = CM_COLL_ALLTOALLW, .root = -1, .sbuf = sendbuf, .rbuf = recvbuf, .scounts = sendcounts,
              .stypes = sendtypes, .rcounts = recvcounts, .rtypes = recvtypes);
    MPI_Comm cc = cm_coll_comm(comm);
    struct cm_coll_query q = api_query(size, 0, MPI_BYTE, MPI_OP_NULL);
    const struct cm_coll_algo *a = cm_coll_select(CM_COLL_ALLTOALLW, cc, &q);
    api_word(CM_COLL_ALLTOALLW, 0, -1, MPI_OP_NULL);
    return api_done(comm, call, ((cm_alltoallw_fn)a->fn)(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                                           recvcounts, rdispls, recvtypes, cc));
}
