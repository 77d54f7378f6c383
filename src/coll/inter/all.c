/*
 * all.c -- Barrier, Allreduce, Reduce_scatter(_block), Allgather(v),
 * Alltoall(v,w) on an intercommunicator (inter.h): each group receives what
 * the other group contributed.
 */
#include "coll/inter/util.h"
#include "coll/p2p.h"

#include <stdlib.h>

/* Nobody leaves before everyone entered: the second local barrier waits
 * for the leaders' swap, which waits for both groups' first barrier. */
int cm_inter_barrier(MPI_Comm comm)
{
    struct cm_ic ic;
    cm_ic_get(comm, "MPI_Barrier", &ic);
    int rc = cm_ic_local_barrier(&ic);
    if (!rc && ic.rank == 0)
        rc = cm_ic_sendrecv(&ic, NULL, NULL, 0, MPI_BYTE);
    if (!rc)
        rc = cm_ic_local_barrier(&ic);
    return cm_ic_done(&ic, rc);
}

static int reduction_args(struct cm_ic *ic, const void *sbuf, void *rbuf, int scount, int rcount, MPI_Datatype dt,
                          MPI_Op op)
{
    int rc;
    if ((rc = cm_ic_no_in_place(ic, sbuf, rbuf)) || (rc = api_count(ic->comm, ic->call, scount, "count")) ||
        (rc = api_type(ic->comm, ic->call, dt, "datatype")) || (rc = api_op(ic->comm, ic->call, op, dt)) ||
        (rc = api_buf(ic->comm, ic->call, sbuf, scount, dt, "send buffer")) ||
        (rc = api_buf(ic->comm, ic->call, rbuf, rcount, dt, "receive buffer")))
        return rc;
    cm_ic_op(ic, op);
    return 0;
}

/* Reduce the group's count elements to its rank 0 and swap the result
 * with the other group's rank 0: *theirs (at rank 0 only; free *block)
 * then holds the other group's reduction. */
static int reduce_and_swap(struct cm_ic *ic, const void *sbuf, int count, MPI_Datatype dt, MPI_Op op,
                           void **theirs, void **block)
{
    void *mblock = NULL, *mine = NULL;
    *theirs = *block = NULL;
    if (ic->rank == 0) {
        mine = cm_ic_tmp(ic, dt, count, &mblock);
        *theirs = cm_ic_tmp(ic, dt, count, block);
        if (!mine || !*theirs) {
            cm_coll_tmp_free(mblock);
            cm_coll_tmp_free(*block);
            return MPI_ERR_NO_MEM;
        }
    }
    int rc = cm_ic_local_reduce(ic, sbuf, mine, count, dt, op);
    if (!rc && ic->rank == 0)
        rc = cm_ic_sendrecv(ic, mine, *theirs, count, dt);
    cm_coll_tmp_free(mblock);
    return rc;
}

int cm_inter_allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    struct cm_ic ic;
    int rc;
    void *theirs, *block;
    if ((rc = cm_ic_get(comm, "MPI_Allreduce", &ic)) || (rc = reduction_args(&ic, sbuf, rbuf, count, count, dt, op)))
        return rc;
    rc = reduce_and_swap(&ic, sbuf, count, dt, op, &theirs, &block);
    if (!rc && ic.rank == 0)
        rc = cm_ic_copy(&ic, theirs, rbuf, count, dt);
    cm_coll_tmp_free(block);
    if (!rc)
        rc = cm_ic_local_bcast(&ic, rbuf, count, dt);
    return cm_ic_done(&ic, rc);
}

/* The vector is sum(rcounts) long in both groups (MPI-4.1 §6.11.1): the
 * other group's reduction is scattered over this group. */
static int reduce_scatter_common(struct cm_ic *ic, const void *sbuf, void *rbuf, const int *rcounts, int rcount,
                                 MPI_Datatype dt, MPI_Op op)
{
    int rc, total = 0, mine = rcounts ? rcounts[ic->rank] : rcount;
    int *displs = rcounts ? malloc((size_t)ic->size * sizeof(int)) : NULL;
    if (rcounts && !displs)
        return cm_error(ic->comm, MPI_ERR_NO_MEM, ic->call, "out of memory");
    for (int i = 0; i < ic->size; i++) {
        int n = rcounts ? rcounts[i] : rcount;
        if (n < 0) {
            free(displs);
            return cm_error(ic->comm, MPI_ERR_COUNT, ic->call, "negative count %d for rank %d", n, i);
        }
        if (displs)
            displs[i] = total;
        total += n;
    }
    if ((rc = reduction_args(ic, sbuf, rbuf, total, mine, dt, op))) {
        free(displs);
        return rc;
    }
    void *theirs, *block;
    rc = reduce_and_swap(ic, sbuf, total, dt, op, &theirs, &block);
    if (!rc)
        rc = cm_ic_local_scatter(ic, theirs, rcounts, displs, rcount, rbuf, dt);
    cm_coll_tmp_free(block);
    free(displs);
    return cm_ic_done(ic, rc);
}

int cm_inter_reduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype dt, MPI_Op op,
                                  MPI_Comm comm)
{
    struct cm_ic ic;
    cm_ic_get(comm, "MPI_Reduce_scatter_block", &ic);
    return reduce_scatter_common(&ic, sbuf, rbuf, NULL, rcount, dt, op);
}

int cm_inter_reduce_scatter(const void *sbuf, void *rbuf, const int *rcounts, MPI_Datatype dt, MPI_Op op,
                            MPI_Comm comm)
{
    struct cm_ic ic;
    cm_ic_get(comm, "MPI_Reduce_scatter", &ic);
    if (!rcounts)
        return cm_error(comm, MPI_ERR_ARG, ic.call, "recvcounts is NULL");
    return reduce_scatter_common(&ic, sbuf, rbuf, rcounts, 0, dt, op);
}

/* The general exchange of the all-to-all family: per remote rank j, a send
 * block (counts[j] or count elements at displs[j] or j * count elements,
 * or bytes for the w form) and a receive block likewise. */
struct side {
    const void *buf;
    const int *counts, *displs;
    int count;
    MPI_Datatype dt;
    const MPI_Datatype *dts; /* w form: displacements in bytes */
    int same;                /* every block is the whole buffer (allgather's send side) */
};

static int blocks_of(const struct cm_ic *ic, const struct side *s, struct cm_blk *b, const char *what)
{
    int rc = 0;
    for (int j = 0; j < ic->rsize && !rc; j++) {
        MPI_Datatype dt = s->dts ? s->dts[j] : s->dt;
        int n = s->counts ? s->counts[j] : s->count;
        const void *at = s->same ? s->buf
                         : s->dts ? (const char *)s->buf + s->displs[j]
                                  : cm_ic_at(s->buf, dt, s->counts ? s->displs[j] : (long)j * s->count);
        if ((rc = api_count(ic->comm, ic->call, n, "count")) || (rc = api_type(ic->comm, ic->call, dt, what)) ||
            (rc = api_buf(ic->comm, ic->call, s->buf, n, dt, what)))
            break;
        b[j] = (struct cm_blk){ at, n, dt };
    }
    return rc;
}

static int all_exchange(struct cm_ic *ic, const struct side *s, const struct side *r)
{
    int rc;
    if ((rc = cm_ic_no_in_place(ic, s->buf, r->buf)))
        return rc;
    if ((s->counts && !s->displs) || (r->counts && !r->displs) || (s->dts && !s->counts) || (r->dts && !r->counts))
        return cm_error(ic->comm, MPI_ERR_ARG, ic->call, "counts or displacements array is NULL");
    struct cm_blk *b = malloc(2 * (size_t)ic->rsize * sizeof *b);
    if (!b)
        return cm_error(ic->comm, MPI_ERR_NO_MEM, ic->call, "out of memory");
    if (!(rc = blocks_of(ic, s, b, "send datatype")) && !(rc = blocks_of(ic, r, b + ic->rsize, "receive datatype")))
        rc = cm_ic_done(ic, cm_ic_swap(ic, b, b + ic->rsize));
    free(b);
    return rc;
}

/* Allgather (same = 1: the one send buffer goes to every remote rank) and
 * alltoall (a block per remote rank). */
static int all_uniform(const char *call, int same, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                       int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
    struct cm_ic ic;
    cm_ic_get(comm, call, &ic);
    struct side s = { sbuf, NULL, NULL, scount, stype, NULL, same }, r = { rbuf, NULL, NULL, rcount, rtype, NULL, 0 };
    return all_exchange(&ic, &s, &r);
}

int cm_inter_allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                       MPI_Comm comm)
{
    return all_uniform("MPI_Allgather", 1, sbuf, scount, stype, rbuf, rcount, rtype, comm);
}

int cm_inter_allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int *rcounts,
                        const int *displs, MPI_Datatype rtype, MPI_Comm comm)
{
    struct cm_ic ic;
    cm_ic_get(comm, "MPI_Allgatherv", &ic);
    if (!rcounts)
        return cm_error(comm, MPI_ERR_ARG, ic.call, "recvcounts is NULL");
    struct side s = { sbuf, NULL, NULL, scount, stype, NULL, 1 }, r = { rbuf, rcounts, displs, 0, rtype, NULL, 0 };
    return all_exchange(&ic, &s, &r);
}

int cm_inter_alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                      MPI_Comm comm)
{
    return all_uniform("MPI_Alltoall", 0, sbuf, scount, stype, rbuf, rcount, rtype, comm);
}

int cm_inter_alltoallv(const void *sbuf, const int *scounts, const int *sdispls, MPI_Datatype stype, void *rbuf,
                       const int *rcounts, const int *rdispls, MPI_Datatype rtype, MPI_Comm comm)
{
    struct cm_ic ic;
    cm_ic_get(comm, "MPI_Alltoallv", &ic);
    if (!scounts || !rcounts)
        return cm_error(comm, MPI_ERR_ARG, ic.call, "counts or displacements array is NULL");
    struct side s = { sbuf, scounts, sdispls, 0, stype, NULL, 0 }, r = { rbuf, rcounts, rdispls, 0, rtype, NULL, 0 };
    return all_exchange(&ic, &s, &r);
}

int cm_inter_alltoallw(const void *sbuf, const int *scounts, const int *sdispls, const MPI_Datatype *stypes,
                       void *rbuf, const int *rcounts, const int *rdispls, const MPI_Datatype *rtypes, MPI_Comm comm)
{
    struct cm_ic ic;
    cm_ic_get(comm, "MPI_Alltoallw", &ic);
    if (!scounts || !rcounts || !stypes || !rtypes)
        return cm_error(comm, MPI_ERR_ARG, ic.call, "a counts, displacements or datatype array is NULL");
    struct side s = { sbuf, scounts, sdispls, 0, MPI_DATATYPE_NULL, stypes, 0 },
                r = { rbuf, rcounts, rdispls, 0, MPI_DATATYPE_NULL, rtypes, 0 };
    return all_exchange(&ic, &s, &r);
}
