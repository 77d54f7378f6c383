/*
 * persist.c -- MPI-4 persistent collectives: MPI_<coll>_init and what
 * MPI_Start does with them (the neighbourhood ones: mpi/topo_neighbor_init.c).
 *
 * An _init runs the nonblocking front end of its collective with capture on
 * (coll/nbc.h): the same argument checks, under the _init's name, and the
 * same choice of path (the shared-memory engine's record, or a p2p
 * schedule), made once.  The plan it would have started is kept in a
 * persistent generic request; MPI_Start (p2p/api_recv.c, the request's
 * `start` hook) re-arms the plan and lets the progress engine and
 * Wait/Test drive it exactly as they drive the nonblocking request, so a
 * started persistent collective costs what the nonblocking one costs minus
 * the checks, the choice and the allocations.
 *
 * Start never waits for another rank, although running the blocking
 * algorithm inside Start would be quicker for a tiny Allreduce: a rank may
 * start A on one communicator and B on another while a peer starts B and
 * then waits for something that needs this rank to progress A; a blocking
 * A inside Start would never return there.  So Start only arms the plan,
 * and the speed comes from Wait: on the shared-memory engine it runs the
 * blocking twin of each step (block), the blocking collective's own waits.
 *
 * Info keys are accepted and ignored (none is defined for collectives).
 */
#ifdef CM_IN_COREMPI  /* corempi only: the host-MPI harness compiles every src/coll file */
#include "coll/api_args.h"
#include "coll/direct/nbc.h"
#include "coll/nbc.h"
#include "core/info.h"
#include "p2p/outq.h"

#include <stdlib.h>
#include "fe_coll.h"

static int plan_poll(void *state)
{
    struct cm_coll_plan *p = state;
    return p->poll(p->plan);
}

static void plan_block(void *state)
{
    struct cm_coll_plan *p = state;
    p->block(p->plan);
}

/* Wait/Test of a start that cleared quick_finish (nbc.h, report): the
 * error, and quick_finish back for the next start. */
static int plan_query(struct cm_request *r)
{
    struct cm_coll_plan *p = r->state;
    r->quick_finish = 1;
    return p->report(p->plan);
}

static void plan_destroy(void *state)
{
    struct cm_coll_plan *p = state;
    p->destroy(p->plan);
    free(p);
}

int cm_coll_plan_start(struct cm_request *r, const char *call)
{
    struct cm_coll_plan *p = r->state;
    int rc = p->begin(p->plan);
    if (rc != MPI_SUCCESS)
        return cm_error(r->comm, rc, call, "could not start the persistent %s", p->call);
    r->active = 1;
    r->cancelled = 0;
    if (!p->no_first_poll && p->poll(p->plan))
        r->complete = 1;
    else {
        r->complete = 0;
        cm_progress_add_generic(r);
    }
    return MPI_SUCCESS;
}

/* The plan of a collective that has nothing to do (none kept). */
static int nothing_begin(void *plan) { (void)plan; return MPI_SUCCESS; }
static int nothing_poll(void *plan) { (void)plan; return 1; }
static void nothing_destroy(void *plan) { (void)plan; }

int cm_coll_persist_begin(const char *call, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    if (!request)
        return cm_error(comm, MPI_ERR_REQUEST, call, "request pointer is NULL");
    /* The intercommunicator collectives (coll/inter) build schedules of their
     * own that the capture does not keep: refuse rather than run once. */
    const struct cm_comm *c = cm_comm_lookup(comm, NULL);
    if (c && c->remote_size)
        return cm_error(comm, MPI_ERR_COMM, call, "persistent collectives on an intercommunicator are not supported");
    if (!cm_info_valid(info))
        return cm_error(comm, MPI_ERR_INFO, call, "invalid info %ld", (long)(intptr_t)info);
    if (c)
        cm_direct_nbc_prepare(comm, call);
    cm_coll_capture = (struct cm_coll_plan){ .on = 1, .call = call };
    return MPI_SUCCESS;
}

int cm_coll_persist_end(int rc, MPI_Request inner, MPI_Comm comm, MPI_Request *request)
{
    struct cm_coll_plan kept = cm_coll_capture;
    cm_coll_capture = (struct cm_coll_plan){ 0 };
    if (rc != MPI_SUCCESS) {
        if (kept.plan)
            kept.destroy(kept.plan);
        return rc;   /* reported by the front end, under the _init's name */
    }
    if (inner != MPI_REQUEST_NULL) {
        /* A path that started instead of keeping: a bug, not the user's. */
        struct cm_request *q = cm_request_get(inner);
        if (q) {
            cm_request_wait(q, 0);
            cm_request_release(q);
        }
        return cm_error(comm, MPI_ERR_INTERN, kept.call, "the collective started instead of keeping its plan");
    }
    if (!kept.plan)
        kept = (struct cm_coll_plan){ .call = kept.call, .begin = nothing_begin, .poll = nothing_poll,
                                      .destroy = nothing_destroy };
    struct cm_coll_plan *p = malloc(sizeof *p);
    if (!p) {
        kept.destroy(kept.plan);
        return cm_error(comm, MPI_ERR_NO_MEM, kept.call, "out of memory");
    }
    *p = kept;
    p->on = 0;
    struct cm_request *r = cm_request_generic_new(plan_poll, plan_destroy, p);
    r->block = p->block ? plan_block : NULL;
    r->persistent = 1;
    r->quick_finish = 1;
    r->complete = 1;
    r->start = p->start ? p->start : cm_coll_plan_start;
    r->comm = comm;
    if (p->req) {
        *p->req = r;
        r->query = plan_query;
    }
    *request = cm_request_handle(r);
    return MPI_SUCCESS;
}

int cm_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    API_ENTER(Barrier_init);
    CM_PERSIST(Barrier_init, PMPI_Ibarrier(comm, &inner));
}

int cm_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info,
    MPI_Request *request)
{
    API_ENTER(Bcast_init);
    CM_PERSIST(Bcast_init, PMPI_Ibcast(buffer, count, datatype, root, comm, &inner));
}

int cm_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
    MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    API_ENTER(Reduce_init);
    CM_PERSIST(Reduce_init, PMPI_Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, &inner));
}

int cm_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
    MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    API_ENTER(Allreduce_init);
    CM_PERSIST(Allreduce_init, PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, &inner));
}

int cm_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
    MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    API_ENTER(Gather_init);
    CM_PERSIST(Gather_init, PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, &inner));
}

int cm_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
    MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    API_ENTER(Scatter_init);
    CM_PERSIST(Scatter_init, PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, &inner));
}

int cm_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    API_ENTER(Allgather_init);
    CM_PERSIST(Allgather_init, PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &inner));
}

int cm_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
    MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    API_ENTER(Alltoall_init);
    CM_PERSIST(Alltoall_init, PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &inner));
}

int cm_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
    MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    API_ENTER(Reduce_scatter_block_init);
    CM_PERSIST(Reduce_scatter_block_init, PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, &inner));
}

int cm_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
    const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
    MPI_Request *request)
{
    API_ENTER(Gatherv_init);
    CM_PERSIST(Gatherv_init, PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, &inner));
}

int cm_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
    void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
    MPI_Request *request)
{
    API_ENTER(Scatterv_init);
    CM_PERSIST(Scatterv_init, PMPI_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, &inner));
}

int cm_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
    const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
    MPI_Request *request)
{
    API_ENTER(Allgatherv_init);
    CM_PERSIST(Allgatherv_init, PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, &inner));
}

int cm_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
    MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    API_ENTER(Alltoallv_init);
    CM_PERSIST(Alltoallv_init, PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, &inner));
}

int cm_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
    const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
    const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    API_ENTER(Alltoallw_init);
    CM_PERSIST(Alltoallw_init, PMPI_Ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, &inner));
}

int cm_Scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
    MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    API_ENTER(Scan_init);
    CM_PERSIST(Scan_init, PMPI_Iscan(sendbuf, recvbuf, count, datatype, op, comm, &inner));
}

int cm_Exscan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
    MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    API_ENTER(Exscan_init);
    CM_PERSIST(Exscan_init, PMPI_Iexscan(sendbuf, recvbuf, count, datatype, op, comm, &inner));
}

int cm_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
    MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    API_ENTER(Reduce_scatter_init);
    CM_PERSIST(Reduce_scatter_init, PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, &inner));
}
#endif
