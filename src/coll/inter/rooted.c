/*
 * rooted.c -- Bcast, Reduce, Gather(v), Scatter(v) on an intercommunicator
 * (inter.h).  root is MPI_ROOT at the root, MPI_PROC_NULL at the rest of
 * its group (they take no part), and the root's rank in the other group.
 */
#include "coll/inter/util.h"
#include "coll/p2p.h"

#include <stdlib.h>

int cm_inter_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    struct cm_ic ic;
    int rc;
    if (cm_ic_rooted(comm, "MPI_Bcast", root, &ic, &rc))
        return rc;
    if ((rc = api_count_type_buf(comm, ic.call, buf, count, dt, "buffer")))
        return rc;
    if (root == MPI_ROOT)
        return cm_ic_done(&ic, cm_ic_send(&ic, buf, count, dt, 0));
    if (ic.rank == 0)
        rc = cm_ic_recv(&ic, buf, count, dt, root);
    if (!rc)
        rc = cm_ic_local_bcast(&ic, buf, count, dt);
    return cm_ic_done(&ic, rc);
}

int cm_inter_reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm)
{
    struct cm_ic ic;
    int rc;
    if (cm_ic_rooted(comm, "MPI_Reduce", root, &ic, &rc))
        return rc;
    if ((rc = cm_ic_no_in_place(&ic, sbuf, rbuf)) || (rc = api_count(comm, ic.call, count, "count")) ||
        (rc = api_type(comm, ic.call, dt, "datatype")) || (rc = api_op(comm, ic.call, op, dt)))
        return rc;
    cm_ic_op(&ic, op);
    if (root == MPI_ROOT)
        return (rc = api_buf(comm, ic.call, rbuf, count, dt, "receive buffer"))
                   ? rc
                   : cm_ic_done(&ic, cm_ic_recv(&ic, rbuf, count, dt, 0));
    if ((rc = api_buf(comm, ic.call, sbuf, count, dt, "send buffer")))
        return rc;
    /* The group reduces to its rank 0, which sends the result to the root. */
    void *block = NULL, *tmp = ic.rank == 0 ? cm_ic_tmp(&ic, dt, count, &block) : NULL;
    if (ic.rank == 0 && !tmp)
        return cm_error(comm, MPI_ERR_NO_MEM, ic.call, "out of memory");
    rc = cm_ic_local_reduce(&ic, sbuf, tmp, count, dt, op);
    if (!rc && ic.rank == 0)
        rc = cm_ic_send(&ic, tmp, count, dt, root);
    cm_coll_tmp_free(block);
    return cm_ic_done(&ic, rc);
}

/* The root's side of the gathers and scatters: one block per remote rank. */
static int root_blocks(struct cm_ic *ic, void *buf, const int *counts, const int *displs, int count,
                       MPI_Datatype dt, int sending)
{
    struct cm_blk *b = malloc((size_t)ic->rsize * sizeof *b);
    if (!b)
        return cm_error(ic->comm, MPI_ERR_NO_MEM, ic->call, "out of memory");
    for (int j = 0; j < ic->rsize; j++)
        b[j] = (struct cm_blk){ cm_ic_at(buf, dt, counts ? displs[j] : (long)j * count), counts ? counts[j] : count,
                                dt };
    int rc = cm_ic_swap(ic, sending ? b : NULL, sending ? NULL : b);
    free(b);
    return cm_ic_done(ic, rc);
}

static int root_v_args(struct cm_ic *ic, const int *counts, const int *displs, MPI_Datatype dt,
                       const char *what)
{
    int rc = api_v_counts(ic->comm, ic->call, counts, displs, ic->rsize);
    if (!rc)
        rc = api_type(ic->comm, ic->call, dt, what);
    return rc;
}

/* Gather (gather = 1) and scatter, plain (counts NULL: count per rank) or
 * v: the root exchanges one block per remote rank, the others one block
 * with the root. */
static int rooted(const char *call, int gather, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                  int rcount, MPI_Datatype rtype, const int *counts, const int *displs, int root, MPI_Comm comm)
{
    struct cm_ic ic;
    int rc;
    if (cm_ic_rooted(comm, call, root, &ic, &rc))
        return rc;
    if ((rc = cm_ic_no_in_place(&ic, sbuf, rbuf)))
        return rc;
    void *buf = gather ? rbuf : (void *)sbuf;
    int count = gather ? rcount : scount;
    MPI_Datatype dt = gather ? rtype : stype;
    if (root == MPI_ROOT) {
        rc = counts ? root_v_args(&ic, counts, displs, dt, gather ? "receive datatype" : "send datatype")
                    : api_count_type_buf(comm, call, buf, count, dt, gather ? "receive buffer" : "send buffer");
        return rc ? rc : root_blocks(&ic, buf, counts, displs, count, dt, !gather);
    }
    if (gather)
        return (rc = api_count_type_buf(comm, call, sbuf, scount, stype, "send buffer"))
                   ? rc
                   : cm_ic_done(&ic, cm_ic_send(&ic, sbuf, scount, stype, root));
    return (rc = api_count_type_buf(comm, call, rbuf, rcount, rtype, "receive buffer"))
               ? rc
               : cm_ic_done(&ic, cm_ic_recv(&ic, rbuf, rcount, rtype, root));
}

int cm_inter_gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                    int root, MPI_Comm comm)
{
    return rooted("MPI_Gather", 1, sbuf, scount, stype, rbuf, rcount, rtype, NULL, NULL, root, comm);
}

int cm_inter_gatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int *rcounts,
                     const int *displs, MPI_Datatype rtype, int root, MPI_Comm comm)
{
    return rooted("MPI_Gatherv", 1, sbuf, scount, stype, rbuf, 0, rtype, rcounts, displs, root, comm);
}

int cm_inter_scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                     int root, MPI_Comm comm)
{
    return rooted("MPI_Scatter", 0, sbuf, scount, stype, rbuf, rcount, rtype, NULL, NULL, root, comm);
}

int cm_inter_scatterv(const void *sbuf, const int *scounts, const int *displs, MPI_Datatype stype, void *rbuf,
                      int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
    return rooted("MPI_Scatterv", 0, sbuf, 0, stype, rbuf, rcount, rtype, scounts, displs, root, comm);
}
