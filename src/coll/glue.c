/*
 * glue.c -- what the collectives need from corempi's core that standard MPI
 * does not offer: cheap validity checks and per-communicator state.  Over
 * another MPI (tests/coll harness) the harness provides the same functions.
 */
#include "coll/coll.h"

#ifdef CM_IN_COREMPI
#include "core/datatype.h"
#include "core/op.h"
#include "core/state.h"

#include <stdlib.h>

/* The collective layer's per-communicator data (struct cm_comm.coll). */
struct cm_coll_percomm {
    unsigned nbc_seq;
};

int cm_coll_comm_check(MPI_Comm comm, int *size, int *rank)
{
    struct cm_comm *c = comm == MPI_COMM_NULL ? NULL : cm_comm_lookup(comm, NULL);
    if (!c)
        return 1;
    *size = c->size;
    *rank = c->rank;
    return 0;
}

int cm_coll_dtype_check(MPI_Datatype dt)
{
    struct cm_datatype *t = cm_dt_lookup(dt);
    return !(t && (t->predefined || t->committed));
}

int cm_coll_op_check(MPI_Op op)
{
    return !cm_op_is_valid(op);
}

int cm_coll_oversubscribed(void)
{
    return cm_g.oversubscribed;
}

unsigned cm_coll_nbc_seq(MPI_Comm collcomm)
{
    struct cm_comm *c = cm_comm_lookup(collcomm, NULL);
    if (!c)
        return 0;
    if (!c->coll) {
        c->coll = calloc(1, sizeof(struct cm_coll_percomm));
        if (!c->coll)
            cm_fatal("MPI_Ibarrier", "out of memory");
        c->coll_free = free;
    }
    return ((struct cm_coll_percomm *)c->coll)->nbc_seq++;
}
#endif
