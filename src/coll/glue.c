/*
 * glue.c -- what the collectives need from corempi's core that standard MPI
 * does not offer: cheap validity checks and per-communicator state.  Over
 * another MPI (tests/coll harness) the harness provides the same functions.
 */
#include "coll/coll.h"

#ifdef CM_IN_COREMPI
#include "coll/nbc.h"
#include "coll/percomm.h"
#include "coll/direct/direct.h"
#include "core/datatype.h"
#include "core/op.h"
#include "core/state.h"
#include "p2p/p2p.h"

#include <stdlib.h>

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

void cm_coll_start(void)
{
    cm_p2p_coll_word_differs = cm_coll_word_differs;
    cm_p2p_coll_stalled = cm_direct_p2p_stalled;
}

int cm_coll_oversubscribed(void)
{
    return cm_g.oversubscribed;
}

static void coll_state_free(void *p)
{
    struct cm_coll_state *cc = p;
    if (cc && cc->direct)
        cm_direct_detach(cc->direct);
    /* A collective whose ranks disagreed may have left messages nobody
     * will receive (more segments than the receiver expected, a root's that
     * no rank took); the next communicator given this context must not
     * match them.  The schedules' only when none is pending (a pending
     * one's later rounds may be among them: coll/leftover.c). */
    if (cc)
        cm_unexp_drop_worded(cc->ctx, !cm_nbc_any_live());
    if (cc)
        cm_nbc_slots_drop(cc->nbc_slots);
    free(cc);
}

/* Invariant: only this function sets c->coll, so it always points to a
 * struct cm_coll_state freed by coll_state_free. */
struct cm_coll_state *cm_coll_state_of(MPI_Comm collcomm, int create)
{
    struct cm_comm *c = cm_comm_lookup(collcomm, NULL);
    if (!c)
        return NULL;
    if (!c->coll && create) {
        c->coll = calloc(1, sizeof(struct cm_coll_state));
        if (c->coll) {
            c->coll_free = coll_state_free;
            ((struct cm_coll_state *)c->coll)->ctx = (uint16_t)(c->ctx + 1);
        }
    }
    return c->coll;
}

int cm_coll_members(MPI_Comm collcomm, struct cm_coll_members *m)
{
    struct cm_comm *c = cm_comm_lookup(collcomm, NULL);
    if (!c)
        return 1;
    m->size = c->size;
    m->rank = c->rank;
    m->world_of = c->world_of;
    m->index = cm_comm_index(cm_comm_plain(collcomm));
    return 0;
}

unsigned cm_coll_nbc_seq(MPI_Comm collcomm)
{
    if (!cm_comm_lookup(collcomm, NULL))
        return 0;
    struct cm_coll_state *cc = cm_coll_state_of(collcomm, 1);
    if (!cc)
        cm_fatal("MPI_Ibarrier", "out of memory");
    return cc->nbc_seq++;
}
#endif
