/*
 * coll_fuzz_call.c -- issue one prepared call of the collective fuzz test,
 * blocking or in its nonblocking form.  The arguments come from fz_prepare; MPI_IN_PLACE goes on
 * the side the standard puts it on.
 */
#include "coll_fuzz.h"

/* The persistent form of the call: the I-form's arguments plus an info. */
static int call_init(struct fz_inst *in, const void *s, void *r, MPI_Op op, int root, MPI_Comm c, MPI_Request *q)
{
    MPI_Info info = MPI_INFO_NULL;
    switch (in->op->coll) {
    case C_BARRIER:
        return MPI_Barrier_init(c, info, q);
    case C_BCAST:
        return MPI_Bcast_init(r, in->rcount, in->rdt, root, c, info, q);
    case C_REDUCE:
        return MPI_Reduce_init(s, r, in->scount, in->sdt, op, root, c, info, q);
    case C_ALLREDUCE:
        return MPI_Allreduce_init(s, r, in->scount, in->sdt, op, c, info, q);
    case C_GATHER:
        return MPI_Gather_init(s, in->scount, in->sdt, r, in->rcount, in->rdt, root, c, info, q);
    case C_GATHERV:
        return MPI_Gatherv_init(s, in->scount, in->sdt, r, in->rcounts, in->rdispls, in->rdt, root, c, info, q);
    case C_SCATTER:
        return MPI_Scatter_init(in->sbuf, in->scount, in->sdt, r, in->rcount, in->rdt, root, c, info, q);
    case C_SCATTERV:
        return MPI_Scatterv_init(in->sbuf, in->scounts, in->sdispls, in->sdt, r, in->rcount, in->rdt, root, c, info,
                                 q);
    case C_ALLGATHER:
        return MPI_Allgather_init(s, in->scount, in->sdt, r, in->rcount, in->rdt, c, info, q);
    case C_ALLGATHERV:
        return MPI_Allgatherv_init(s, in->scount, in->sdt, r, in->rcounts, in->rdispls, in->rdt, c, info, q);
    case C_ALLTOALL:
        return MPI_Alltoall_init(s, in->scount, in->sdt, r, in->rcount, in->rdt, c, info, q);
    case C_ALLTOALLV:
        return MPI_Alltoallv_init(s, in->scounts, in->sdispls, in->sdt, r, in->rcounts, in->rdispls, in->rdt, c,
                                  info, q);
    case C_ALLTOALLW:
        return MPI_Alltoallw_init(s, in->scounts, in->sdispls, in->stypes, r, in->rcounts, in->rdispls, in->rtypes,
                                  c, info, q);
    case C_REDUCE_SCATTER:
        return MPI_Reduce_scatter_init(s, r, in->rcounts, in->sdt, op, c, info, q);
    case C_REDUCE_SCATTER_BLOCK:
        return MPI_Reduce_scatter_block_init(s, r, in->scount, in->sdt, op, c, info, q);
    case C_SCAN:
        return MPI_Scan_init(s, r, in->scount, in->sdt, op, c, info, q);
    case C_EXSCAN:
        return MPI_Exscan_init(s, r, in->scount, in->sdt, op, c, info, q);
    }
    return MPI_ERR_OTHER;
}

int fz_call(struct fz_inst *in)
{
    const struct fz_op *o = in->op;
    MPI_Comm c = in->comm;
    MPI_Request *q = o->nb ? &in->req : NULL;
    const void *s = in->ip ? MPI_IN_PLACE : in->sbuf;
    void *r = in->rbuf;
    MPI_Op op = o->op >= 0 ? fz_ops[o->op].op : MPI_OP_NULL;
    int root = in->root;
    in->req = MPI_REQUEST_NULL;
    in->t_enter = MPI_Wtime();
    in->persistent = q && in->key % 3 == 0;
    if (in->persistent) {
        if (o->coll == C_SCATTER || o->coll == C_SCATTERV)
            r = in->ip ? MPI_IN_PLACE : in->rbuf;
        int rc = call_init(in, s, r, op, root, c, q);
        return rc != MPI_SUCCESS ? rc : MPI_Start(q);
    }
    switch (o->coll) {
    case C_BARRIER:
        return q ? MPI_Ibarrier(c, q) : MPI_Barrier(c);
    case C_BCAST:
        return q ? MPI_Ibcast(r, in->rcount, in->rdt, root, c, q) : MPI_Bcast(r, in->rcount, in->rdt, root, c);
    case C_REDUCE:
        return q ? MPI_Ireduce(s, r, in->scount, in->sdt, op, root, c, q)
                 : MPI_Reduce(s, r, in->scount, in->sdt, op, root, c);
    case C_ALLREDUCE:
        return q ? MPI_Iallreduce(s, r, in->scount, in->sdt, op, c, q) : MPI_Allreduce(s, r, in->scount, in->sdt, op, c);
    case C_GATHER:
        return q ? MPI_Igather(s, in->scount, in->sdt, r, in->rcount, in->rdt, root, c, q)
                 : MPI_Gather(s, in->scount, in->sdt, r, in->rcount, in->rdt, root, c);
    case C_GATHERV:
        return q ? MPI_Igatherv(s, in->scount, in->sdt, r, in->rcounts, in->rdispls, in->rdt, root, c, q)
                 : MPI_Gatherv(s, in->scount, in->sdt, r, in->rcounts, in->rdispls, in->rdt, root, c);
    case C_SCATTER:
        r = in->ip ? MPI_IN_PLACE : in->rbuf;
        return q ? MPI_Iscatter(in->sbuf, in->scount, in->sdt, r, in->rcount, in->rdt, root, c, q)
                 : MPI_Scatter(in->sbuf, in->scount, in->sdt, r, in->rcount, in->rdt, root, c);
    case C_SCATTERV:
        r = in->ip ? MPI_IN_PLACE : in->rbuf;
        return q ? MPI_Iscatterv(in->sbuf, in->scounts, in->sdispls, in->sdt, r, in->rcount, in->rdt, root, c, q)
                 : MPI_Scatterv(in->sbuf, in->scounts, in->sdispls, in->sdt, r, in->rcount, in->rdt, root, c);
    case C_ALLGATHER:
        return q ? MPI_Iallgather(s, in->scount, in->sdt, r, in->rcount, in->rdt, c, q)
                 : MPI_Allgather(s, in->scount, in->sdt, r, in->rcount, in->rdt, c);
    case C_ALLGATHERV:
        return q ? MPI_Iallgatherv(s, in->scount, in->sdt, r, in->rcounts, in->rdispls, in->rdt, c, q)
                 : MPI_Allgatherv(s, in->scount, in->sdt, r, in->rcounts, in->rdispls, in->rdt, c);
    case C_ALLTOALL:
        return q ? MPI_Ialltoall(s, in->scount, in->sdt, r, in->rcount, in->rdt, c, q)
                 : MPI_Alltoall(s, in->scount, in->sdt, r, in->rcount, in->rdt, c);
    case C_ALLTOALLV:
        return q ? MPI_Ialltoallv(s, in->scounts, in->sdispls, in->sdt, r, in->rcounts, in->rdispls, in->rdt, c, q)
                 : MPI_Alltoallv(s, in->scounts, in->sdispls, in->sdt, r, in->rcounts, in->rdispls, in->rdt, c);
    case C_ALLTOALLW:
        return q ? MPI_Ialltoallw(s, in->scounts, in->sdispls, in->stypes, r, in->rcounts, in->rdispls, in->rtypes,
                                  c, q)
                 : MPI_Alltoallw(s, in->scounts, in->sdispls, in->stypes, r, in->rcounts, in->rdispls, in->rtypes, c);
    case C_REDUCE_SCATTER:
        return q ? MPI_Ireduce_scatter(s, r, in->rcounts, in->sdt, op, c, q)
                 : MPI_Reduce_scatter(s, r, in->rcounts, in->sdt, op, c);
    case C_REDUCE_SCATTER_BLOCK:
        return q ? MPI_Ireduce_scatter_block(s, r, in->scount, in->sdt, op, c, q)
                 : MPI_Reduce_scatter_block(s, r, in->scount, in->sdt, op, c);
    case C_SCAN:
        return q ? MPI_Iscan(s, r, in->scount, in->sdt, op, c, q) : MPI_Scan(s, r, in->scount, in->sdt, op, c);
    case C_EXSCAN:
        return q ? MPI_Iexscan(s, r, in->scount, in->sdt, op, c, q) : MPI_Exscan(s, r, in->scount, in->sdt, op, c);
    }
    return MPI_ERR_OTHER;
}
