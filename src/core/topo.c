/*
 * topo.c -- what all process topologies share: the object's memory, attaching
 * it to a communicator, finding it again, and MPI_Topo_test.
 */
#include "core/topo.h"
#include "core/comm.h"
#include "core/error.h"
#include "core/state.h"

#include <stdlib.h>
#include <string.h>
#include "fe_topo.h"

struct cm_topo *cm_topo_new(int kind, size_t nints)
{
    struct cm_topo *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->kind = kind;
    t->nints = nints;
    t->ints = calloc(nints ? nints : 1, sizeof(int));
    if (!t->ints) {
        free(t);
        return NULL;
    }
    return t;
}

int *cm_topo_carve(struct cm_topo *t, size_t *used, size_t n)
{
    int *p = t->ints + *used;
    *used += n;
    return p;
}

void cm_topo_free(void *topo)
{
    struct cm_topo *t = topo;
    if (!t)
        return;
    free(t->ints);
    free(t);
}

static int *rebase(int *p, const int *old_base, int *new_base)
{
    return p ? new_base + (p - old_base) : NULL;
}

void *cm_topo_dup(const void *topo)
{
    const struct cm_topo *t = topo;
    if (!t)
        return NULL;
    struct cm_topo *n = cm_topo_new(t->kind, t->nints);
    if (!n)
        return NULL;
    int *ints = n->ints;
    *n = *t;
    n->ints = ints;
    memcpy(n->ints, t->ints, t->nints * sizeof(int));
    n->dims = rebase(t->dims, t->ints, ints);
    n->periods = rebase(t->periods, t->ints, ints);
    n->coords = rebase(t->coords, t->ints, ints);
    n->index = rebase(t->index, t->ints, ints);
    n->edges = rebase(t->edges, t->ints, ints);
    n->sources = rebase(t->sources, t->ints, ints);
    n->sourceweights = rebase(t->sourceweights, t->ints, ints);
    n->destinations = rebase(t->destinations, t->ints, ints);
    n->destweights = rebase(t->destweights, t->ints, ints);
    return n;
}

void cm_topo_attach(MPI_Comm newcomm, struct cm_topo *t)
{
    struct cm_comm *c = newcomm == MPI_COMM_NULL ? NULL : cm_comm_lookup(newcomm, NULL);
    if (!c) {
        cm_topo_free(t);
        return;
    }
    cm_topo_free(c->topo);
    c->topo = t;
}

struct cm_comm *cm_topo_user_comm(MPI_Comm comm, const char *call, int *rc)
{
    struct cm_comm *c = cm_comm_user_or_error(comm, call, rc);
    if (c && cm_comm_is_inter(c)) {
        /* MPI-4.1 §8: topologies (and so neighborhood collectives) are
         * for intracommunicators only. */
        *rc = cm_error(comm, MPI_ERR_COMM, call,
                       "comm is an intercommunicator (process topologies and neighborhood collectives need an "
                       "intracommunicator)");
        return NULL;
    }
    return c;
}

static const char *kind_name(int kind)
{
    switch (kind) {
    case MPI_CART: return "a Cartesian";
    case MPI_GRAPH: return "a graph";
    case MPI_DIST_GRAPH: return "a distributed graph";
    default: return "no";
    }
}

struct cm_topo *cm_topo_of(MPI_Comm comm, int kind, const char *call, int *rc)
{
    struct cm_comm *c = cm_topo_user_comm(comm, call, rc);
    if (!c)
        return NULL;
    struct cm_topo *t = c->topo;
    if (!t || (kind && t->kind != kind)) {
        if (kind)
            *rc = cm_error(comm, MPI_ERR_TOPOLOGY, call, "communicator %ld has %s topology, not %s one", (long)(intptr_t)comm,
                           kind_name(t ? t->kind : 0), kind_name(kind));
        else
            *rc = cm_error(comm, MPI_ERR_TOPOLOGY, call, "communicator %ld has no process topology", (long)(intptr_t)comm);
        return NULL;
    }
    return t;
}

int cm_Topo_test(MPI_Comm comm, int *status)
{
    CM_CALL_LOOKUP(struct cm_comm, c, "MPI_Topo_test", cm_topo_user_comm, comm);
    CM_ARG_NOT_NULL(comm, status, call);
    *status = c->topo ? ((struct cm_topo *)c->topo)->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
