/*
 * intercomm_ops.c -- Comm_dup, Comm_split, Comm_create and Comm_compare
 * of an intercommunicator (mpi/comm_create.c hands them over).  Each new
 * intercommunicator's pairs come from cm_inter_agree_on over the parent,
 * so both groups take the same ones; the group lists travel in its
 * payload.  MPI-4.1 §7.4: split and create give intercommunicators, and
 * MPI_COMM_NULL where either side of the result is empty.
 */
#include "mpi/intercomm.h"
#include "mpi/comm_create.h"
#include "core/context.h"
#include "core/error.h"
#include "core/group.h"
#include "core/state.h"

#include <stdlib.h>
#include <string.h>

int cm_inter_dup(struct cm_comm *p, MPI_Info info, MPI_Comm *newcomm, const char *call)
{
    uint16_t ctx[2];
    int rc = cm_inter_agree_on(p, NULL, 0, NULL, 0, ctx, 2);
    if (rc)
        return cm_error(p->handle, rc, call, "no free context id (too many communicators)");
    if ((rc = cm_inter_new(p->world_of, p->size, p->rank, p->remote_world_of, p->remote_size, ctx, p->errh, newcomm)))
        return cm_error(p->handle, rc, call, "out of memory");
    cm_comm_lookup(*newcomm, NULL)->session = p->session;
    return cm_comm_dup_props(p, info, newcomm, call);
}

struct ck {
    int color, key, valid;
};

static int cmp_ck_rank(const void *a, const void *b)
{
    const int *x = a, *y = b; /* {key, rank} */
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* World ranks of the members of one side with color, in (key, rank) order;
 * returns how many, and *pos gets the place of side rank `me` (or -1). */
static int pick(const struct ck *all, int n, const int *world_of, int color, int me, int *out, int *pos)
{
    int *kr = malloc((size_t)(2 * n + 2) * sizeof(int)), m = 0;
    if (!kr)
        return -1;
    for (int i = 0; i < n; i++)
        if (color != MPI_UNDEFINED && all[i].color == color) {
            kr[2 * m] = all[i].key;
            kr[2 * m + 1] = i;
            m++;
        }
    qsort(kr, (size_t)m, 2 * sizeof(int), cmp_ck_rank);
    *pos = -1;
    for (int i = 0; i < m; i++) {
        out[i] = world_of[kr[2 * i + 1]];
        if (kr[2 * i + 1] == me)
            *pos = i;
    }
    free(kr);
    return m;
}

int cm_inter_split(struct cm_comm *p, int color, int key, MPI_Comm *newcomm)
{
    static const char call[] = "MPI_Comm_split";
    int n = p->size, rn = p->remote_size, rc = MPI_SUCCESS;
    struct ck *all = calloc((size_t)n, sizeof *all), *in = calloc((size_t)n, sizeof *in);
    struct ck *theirs = calloc((size_t)rn, sizeof *theirs);
    int *lw = malloc((size_t)n * sizeof(int)), *rw = malloc((size_t)rn * sizeof(int));
    if (!all || !in || !theirs || !lw || !rw) {
        rc = cm_error(p->handle, MPI_ERR_NO_MEM, call, "out of memory");
        goto out;
    }
    /* Allgather of (color, key) within the local group over the hidden
     * local communicator: dissemination, valid marks the entries known. */
    all[p->rank] = (struct ck){ color, key, 1 };
    for (int k = 1; k < n; k <<= 1) {
        cm_comm_exchange(p->local, all, (size_t)n * sizeof *all, (p->rank + k) % n, in, (size_t)n * sizeof *in,
                         (p->rank - k % n + n) % n, CM_TAG_INTER_OPS);
        for (int i = 0; i < n; i++)
            if (in[i].valid)
                all[i] = in[i];
    }
    /* Every group of one split can share the pairs: a process is in one. */
    uint16_t ctx[2];
    if ((rc = cm_inter_agree_on(p, all, (size_t)n * sizeof *all, theirs, (size_t)rn * sizeof *theirs, ctx, 2))) {
        rc = cm_error(p->handle, rc, call, "no free context id (too many communicators)");
        goto out;
    }
    int me, dummy;
    int nl = pick(all, n, p->world_of, color, p->rank, lw, &me);
    int nr = pick(theirs, rn, p->remote_world_of, color, -1, rw, &dummy);
    if (nl < 0 || nr < 0) {
        rc = cm_error(p->handle, MPI_ERR_NO_MEM, call, "out of memory");
    } else if (color == MPI_UNDEFINED || nr == 0) {
        *newcomm = MPI_COMM_NULL;
    } else {
        rc = cm_inter_new(lw, nl, me, rw, nr, ctx, p->errh, newcomm);
        if (rc)
            rc = cm_error(p->handle, rc, call, "out of memory");
        else
            cm_comm_lookup(*newcomm, NULL)->session = p->session;
        goto out; /* cm_inter_new owns the pairs */
    }
    cm_context_free(ctx[0]);
    cm_context_free(ctx[1]);
out:
    free(all);
    free(in);
    free(theirs);
    free(lw);
    free(rw);
    return rc;
}

int cm_inter_create(struct cm_comm *p, MPI_Group group, MPI_Comm *newcomm)
{
    static const char call[] = "MPI_Comm_create";
    struct cm_group *g = cm_group_lookup(group);
    if (!g)
        return cm_error(p->handle, MPI_ERR_GROUP, call, "invalid group %ld", (long)(intptr_t)group);
    for (int i = 0; i < g->size; i++)
        if (g->world[i] < 0 || g->world[i] >= cm_g.size || p->comm_of[g->world[i]] < 0)
            return cm_error(p->handle, MPI_ERR_GROUP, call,
                            "the group has world rank %d, which is not in the local group of the intercommunicator",
                            g->world[i]);
    /* Payload: the group's size and world ranks, as the other side needs them. */
    size_t bytes = ((size_t)cm_g.size + 1) * sizeof(int);
    int *mine = calloc((size_t)cm_g.size + 1, sizeof(int)), *theirs = calloc((size_t)cm_g.size + 1, sizeof(int));
    if (!mine || !theirs) {
        free(mine);
        free(theirs);
        return cm_error(p->handle, MPI_ERR_NO_MEM, call, "out of memory");
    }
    mine[0] = g->size;
    if (g->size)          /* the empty group's world may be NULL */
        memcpy(mine + 1, g->world, (size_t)g->size * sizeof(int));
    uint16_t ctx[2];
    int rc = cm_inter_agree_on(p, mine, bytes, theirs, bytes, ctx, 2);
    if (rc) {
        rc = cm_error(p->handle, rc, call, "no free context id (too many communicators)");
    } else {
        int me = cm_group_rank_of(g, cm_g.rank);
        if (me == MPI_UNDEFINED || theirs[0] == 0) {
            cm_context_free(ctx[0]);
            cm_context_free(ctx[1]);
            *newcomm = MPI_COMM_NULL;
        } else if ((rc = cm_inter_new(g->world, g->size, me, theirs + 1, theirs[0], ctx, p->errh, newcomm))) {
            rc = cm_error(p->handle, rc, call, "out of memory");
        } else {
            cm_comm_lookup(*newcomm, NULL)->session = p->session;
        }
    }
    free(mine);
    free(theirs);
    return rc;
}

int cm_group_compare_lists(const int *a, int na, const int *b, int nb);

/* MPI-4.1 §7.4.1: congruent when both groups are equal in order, similar
 * when they hold the same processes, unequal otherwise. */
int cm_inter_compare(struct cm_comm *a, struct cm_comm *b)
{
    if (!cm_comm_is_inter(a) || !cm_comm_is_inter(b))
        return MPI_UNEQUAL;
    int l = cm_group_compare_lists(a->world_of, a->size, b->world_of, b->size);
    int r = cm_group_compare_lists(a->remote_world_of, a->remote_size, b->remote_world_of, b->remote_size);
    if (l == MPI_UNEQUAL || r == MPI_UNEQUAL)
        return MPI_UNEQUAL;
    return l == MPI_IDENT && r == MPI_IDENT ? MPI_CONGRUENT : MPI_SIMILAR;
}
