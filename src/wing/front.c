/*
 * front.c -- the MPI_ entries the wing interposes (docs/wing.md).  Each
 * collective first tries the engine's 2-rank shortcut on the communicator it
 * served last, then decides whether the engine takes the call at all; the
 * decision uses only what every member agrees on (the communicator, and
 * for reductions the datatype, count and op, which MPI requires to be the
 * same everywhere), so all members go the same way.  Everything else is the
 * host's PMPI_ function, untouched.
 */
#include "wing/wing.h"

#include <limits.h>

void cm_wing_areas_free(void);
void cm_wing_dt_forget(MPI_Datatype h);

int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        cm_wing_start(MPI_THREAD_SINGLE);
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        cm_wing_start(*provided);
    return rc;
}

int MPI_Finalize(void)
{
    cm_wing_hier_free();
    cm_wing_areas_free();
    cm_wing_stop();
    return PMPI_Finalize();
}

int MPI_Type_free(MPI_Datatype *dt)
{
    if (dt)
        cm_wing_dt_forget(*dt);
    return PMPI_Type_free(dt);
}

/* The communicator served last: its shortcut may be tried at once. */
static inline int recent(MPI_Comm comm) { return comm == cm_wing_last_comm && cm_direct_recent; }

/* The area of comm if the engine serves it, else NULL (the host does). */
static struct cm_direct *served(MPI_Comm comm, const char *call)
{
    if (!cm_wing_on || comm == MPI_COMM_NULL)
        return NULL;
    return cm_direct_get(comm, call);
}

/* Why a reduction goes to the host, or NULL.  Erroneous arguments go there
 * too, so that the host reports them as it would. */
static const char *reduction_declined(int count, MPI_Datatype dt, MPI_Op op, const void *rbuf, int rbuf_used)
{
    if (count < 0 || dt == MPI_DATATYPE_NULL || op == MPI_OP_NULL || (rbuf_used && !rbuf && count > 0))
        return "an argument the host must check";
    const struct cm_datatype *t = cm_wing_dt(dt);
    if (!t)
        return "a datatype the host does not describe";
    if (!cm_wing_contiguous(t))
        return "a datatype with holes";
    if (op == MPI_REPLACE || op == MPI_NO_OP)
        return "an op for one-sided calls only";
    if (!t->basic && cm_op_is_predefined(op) && t->elem_handle == MPI_DATATYPE_NULL)
        return "a predefined op on a derived type of mixed elements";
    return NULL;
}

/* A predefined op on a derived type (with no holes) is the op on the named
 * type it is made of: the host's MPI_Reduce_local, which the engine calls
 * for what it has no loop for, takes only named types with predefined ops.
 * 0: too many elements for an int count (the host's then). */
static int as_elements(int *count, MPI_Datatype *dt, MPI_Op op)
{
    const struct cm_datatype *t = cm_wing_dt(*dt);
    if (t->basic || !cm_op_is_predefined(op))
        return 1;
    size_t per = t->size / cm_wing_dt(t->elem_handle)->size;
    if ((size_t)*count * per > INT_MAX)
        return 0;
    *count *= (int)per;
    *dt = t->elem_handle;
    return 1;
}

int cm_wing_barrier(MPI_Comm comm)
{
    if (recent(comm)) {
        int rc = cm_coll_barrier_meet(comm);
        if (rc != CM_COLL_NO_SHORTCUT)
            return rc;
    }
    if (!served(comm, "MPI_Barrier")) {
        struct cm_wing_hier *h = cm_wing_hier(comm);
        return h ? cm_wing_hier_barrier(h) : PMPI_Barrier(comm);
    }
    int rc = cm_coll_barrier_shm(comm);
    struct cm_coll_query q = { 0 };
    if (rc == MPI_SUCCESS)
        cm_coll_barrier_meet_applies(comm, &q);
    return rc;
}

int cm_wing_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    struct cm_direct *s = served(comm, "MPI_Bcast");
    struct cm_wing_hier *h = s ? NULL : cm_wing_hier(comm);
    int n = s ? s->n : h ? h->n : 0;
    if (count < 0 || root < 0 || root >= n || !cm_wing_dt(dt))
        return PMPI_Bcast(buf, count, dt, root, comm);
    return s ? cm_coll_bcast_shm(buf, count, dt, root, comm) : cm_wing_hier_bcast(buf, count, dt, root, h);
}

/* Why a reduction on a served (s) or hierarchical (h) communicator goes to
 * the host, or NULL, with count and dt then in the elements it runs on. */
static const char *reduction_path(const struct cm_direct *s, const struct cm_wing_hier *h, int *count,
                                  MPI_Datatype *dt, MPI_Op op, const void *rbuf, int rbuf_used)
{
    const char *why = reduction_declined(*count, *dt, op, rbuf, rbuf_used);
    if (!why && !as_elements(count, dt, op))
        why = "too many elements for the host's reduction loop";
    /* Across nodes the order of the folds is node, then leaders: rank
     * order only when each node's ranks are one run of comm's. */
    if (!why && h && !h->ordered && !cm_op_is_commutative(op))
        why = "a non-commutative op on a communicator whose nodes' ranks interleave";
    return why;
}

int cm_wing_reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm)
{
    struct cm_direct *s = served(comm, "MPI_Reduce");
    struct cm_wing_hier *h = s ? NULL : cm_wing_hier(comm);
    int n = s ? s->n : h ? h->n : 0, c = count;
    MPI_Datatype t = dt;
    const char *why = s || h ? reduction_path(s, h, &c, &t, op, rbuf, 0) : NULL;
    if (!(s || h) || why || root < 0 || root >= n) {
        if (why)
            cm_wing_declined("MPI_Reduce", why);
        return PMPI_Reduce(sbuf, rbuf, count, dt, op, root, comm);
    }
    if (h)
        return cm_wing_hier_reduce(sbuf, rbuf, c, t, op, root, h);
    if (s->rank == root && sbuf == MPI_IN_PLACE)
        sbuf = rbuf;
    return cm_coll_reduce_shm(sbuf, rbuf, c, t, op, root, comm);
}

int cm_wing_allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    if (recent(comm)) {
        int rc = cm_coll_allreduce_meet(sbuf, rbuf, count, dt, op, comm);
        if (rc != CM_COLL_NO_SHORTCUT)
            return rc;
    }
    struct cm_direct *s = served(comm, "MPI_Allreduce");
    struct cm_wing_hier *h = s ? NULL : cm_wing_hier(comm);
    int c = count;
    MPI_Datatype t = dt;
    const char *why = s || h ? reduction_path(s, h, &c, &t, op, rbuf, 1) : NULL;
    if (!(s || h) || why) {
        if (why)
            cm_wing_declined("MPI_Allreduce", why);
        return PMPI_Allreduce(sbuf, rbuf, count, dt, op, comm);
    }
    if (h)
        return cm_wing_hier_allreduce(sbuf, rbuf, c, t, op, h);
    if (sbuf == MPI_IN_PLACE)
        sbuf = rbuf;
    int rc = cm_coll_allreduce_shm(sbuf, rbuf, c, t, op, comm);
    if (rc == MPI_SUCCESS) {
        /* As corempi's selector offers a shape that ran here to the shortcut. */
        struct cm_coll_query q = { s->n, c, (size_t)c * cm_wing_dt(t)->size, cm_op_is_commutative(op), 1 };
        cm_coll_allreduce_meet_applies(comm, &q);
    }
    return rc;
}

int MPI_Barrier(MPI_Comm comm) { return cm_wing_barrier(comm); }
int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    return cm_wing_bcast(buf, count, dt, root, comm);
}
int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm)
{
    return cm_wing_reduce(sbuf, rbuf, count, dt, op, root, comm);
}
int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    return cm_wing_allreduce(sbuf, rbuf, count, dt, op, comm);
}

/* The data-movement collectives: the engine takes any datatypes (packing
 * those with holes), so only erroneous arguments go to the host.  1: the
 * engine takes the call. */
static int moves(const struct cm_direct *s, const void *sbuf, int scount, MPI_Datatype stype, int rcount,
                 MPI_Datatype rtype)
{
    return s && rcount >= 0 && cm_wing_dt(rtype) && (sbuf == MPI_IN_PLACE || (scount >= 0 && cm_wing_dt(stype)));
}

int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                  MPI_Comm comm)
{
    if (!moves(served(comm, "MPI_Allgather"), sbuf, scount, stype, rcount, rtype))
        return PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    return cm_coll_allgather_shm(sbuf, scount, stype, rbuf, rcount, rtype, comm);
}

int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                 MPI_Comm comm)
{
    if (!moves(served(comm, "MPI_Alltoall"), sbuf, scount, stype, rcount, rtype))
        return PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    return cm_coll_alltoall_shm(sbuf, scount, stype, rbuf, rcount, rtype, comm);
}
