/*
 * intercomm.c -- making intercommunicators: Intercomm_create,
 * Intercomm_create_from_groups, Intercomm_merge, and the queries
 * Comm_test_inter, Comm_remote_size, Comm_remote_group.  The invariants of
 * the object are listed in mpi/intercomm.h; operations on an existing
 * intercommunicator (dup, split, create, compare) are intercomm_ops.c.
 */
#include "mpi/intercomm.h"
#include "mpi/comm_create.h"
#include "core/context.h"
#include "core/error.h"
#include "core/group.h"
#include "core/state.h"
#include "fe_comm.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* core/info.c may not be linked into every build of the unit tests. */
#pragma weak PMPI_Comm_set_info

int cm_inter_new(const int *local, int nlocal, int myrank, const int *remote, int nremote, const uint16_t *ctx,
               MPI_Errhandler errh, MPI_Comm *out)
{
    struct cm_comm *l = cm_comm_create_raw(local, nlocal, myrank, ctx[1]);
    struct cm_comm *c = l ? cm_comm_create_raw(local, nlocal, myrank, ctx[0]) : NULL;
    if (!c || cm_comm_set_remote(c, remote, nremote, l)) {
        if (c)
            cm_comm_release(c); /* frees ctx[0] */
        else
            cm_context_free(ctx[0]);
        if (l)
            cm_comm_release(l); /* frees ctx[1] */
        else
            cm_context_free(ctx[1]);
        return MPI_ERR_NO_MEM;
    }
    strcpy(l->name, "(local group of an intercommunicator)");
    l->errh = c->errh = errh;
    cm_errh_retain(errh);
    cm_errh_retain(errh);
    *out = c->handle;
    return MPI_SUCCESS;
}

/* The payload the leaders swap when a new intercommunicator is made: the
 * group's size and world ranks (at most the world's size). */
int *cm_inter_payload(const int *world, int n, size_t *bytes)
{
    *bytes = ((size_t)cm_g.size + 1) * sizeof(int);
    int *p = calloc((size_t)cm_g.size + 1, sizeof(int));
    if (p && world) {
        p[0] = n;
        memcpy(p + 1, world, (size_t)n * sizeof(int));
    }
    return p;
}

/* Both groups now know each other: check they are disjoint, build. */
int cm_inter_build(const char *call, MPI_Comm errcomm, const int *local, int nlocal, int myrank, const int *theirs,
               const uint16_t *ctx, MPI_Errhandler errh, MPI_Comm *out)
{
    int nremote = theirs[0];
    for (int i = 0; i < nremote; i++) {
        int w = theirs[1 + i];
        for (int j = 0; j < nlocal; j++)
            if (local[j] == w) {
                cm_context_free(ctx[0]);
                cm_context_free(ctx[1]);
                return cm_error(errcomm, MPI_ERR_ARG, call,
                                "the local and remote groups overlap (world rank %d is in both)", w);
            }
    }
    int rc = cm_inter_new(local, nlocal, myrank, theirs + 1, nremote, ctx, errh, out);
    return rc ? cm_error(errcomm, rc, call, "out of memory") : MPI_SUCCESS;
}

int cm_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag,
                        MPI_Comm *newintercomm)
{
    CM_CALL_INITIALIZED("MPI_Intercomm_create");
    struct cm_comm *l = cm_comm_intra_or_error(local_comm, "local_comm", call, &rc);
    if (!l)
        return rc;
    if (local_leader < 0 || local_leader >= l->size)
        return cm_error(local_comm, MPI_ERR_RANK, call, "invalid local_leader %d (local_comm size %d)", local_leader,
                        l->size);
    CM_ARG_NOT_NULL(local_comm, newintercomm, call);
    if (tag < 0)
        return cm_error(local_comm, MPI_ERR_TAG, call, "invalid tag %d (must be >= 0)", tag);
    struct cm_comm *p = NULL;
    if (l->rank == local_leader) {
        /* peer_comm is significant at the leaders only. */
        p = cm_comm_user_lookup(peer_comm);
        if (!p)
            return cm_error(local_comm, MPI_ERR_COMM, call, "peer_comm is %s at the local leader",
                            peer_comm == MPI_COMM_NULL ? "MPI_COMM_NULL" : "not a valid communicator");
        if (remote_leader < 0 || remote_leader >= p->peer_size)
            return cm_error(local_comm, MPI_ERR_RANK, call, "invalid remote_leader %d (peer_comm size %d)",
                            remote_leader, p->peer_size);
        if (p->peer_world_of[remote_leader] == cm_g.rank)
            return cm_error(local_comm, MPI_ERR_RANK, call,
                            "remote_leader %d is the local leader itself (the groups must be disjoint)", remote_leader);
    }
    size_t bytes;
    int *mine = cm_inter_payload(l->world_of, l->size, &bytes), *theirs = cm_inter_payload(NULL, 0, &bytes);
    int *ident = malloc((size_t)l->size * sizeof(int));
    uint16_t ctx[2];
    if (!mine || !theirs || !ident) {
        rc = cm_error(local_comm, MPI_ERR_NO_MEM, call, "out of memory");
        goto out;
    }
    for (int i = 0; i < l->size; i++)
        ident[i] = i;
    struct cm_sub g = { l, ident, l->size, l->rank, CM_TAG_INTER_CREATE };
    /* The leaders' messages travel on peer_comm's hidden context with a tag
     * made of the user's, so that no user message can match them and
     * concurrent creations over one peer_comm stay apart by their tags. */
    rc = cm_inter_agree(&g, local_leader, p, remote_leader, INT_MIN + (tag & 0x3fffffff), mine, bytes, theirs, bytes,
                        ctx, 2);
    if (rc) {
        rc = cm_error(local_comm, rc, call, "no free context id (too many communicators)");
        goto out;
    }
    rc = cm_inter_build(call, local_comm, l->world_of, l->size, l->rank, theirs, ctx, l->errh, newintercomm);
    if (!rc)
        cm_comm_lookup(*newintercomm, NULL)->session = l->session;
out:
    free(mine);
    free(theirs);
    free(ident);
    return rc;
}

/* FNV-1a: a string tag's internal tag (MPI-4.1 §7.6.2 lets the tag tell
 * concurrent calls apart; two strings of one hash still work when their
 * calls do not overlap). */
static int string_tag(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return -0x20000000 - (int)(h & 0x0fffffff);
}

/* All processes of a corempi job share MPI_COMM_WORLD, so the groups agree
 * over WORLD's hidden (collective) context, addressed by world rank, with a
 * tag made of stringtag: no parent communicator is needed. */
int cm_Intercomm_create_from_groups(MPI_Group local_group, int local_leader, MPI_Group remote_group,
                                    int remote_leader, const char *stringtag, MPI_Info info,
                                    MPI_Errhandler errhandler, MPI_Comm *newintercomm)
{
    CM_CALL_INITIALIZED("MPI_Intercomm_create_from_groups");
    struct cm_group *lg = cm_group_lookup(local_group), *rg = cm_group_lookup(remote_group);
    if (!lg || !rg)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_GROUP, call, "%s is not a valid group",
                        lg ? "remote_group" : "local_group");
    int me = cm_group_rank_of(lg, cm_g.rank);
    if (me == MPI_UNDEFINED)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_GROUP, call, "the calling process is not in local_group");
    if (local_leader < 0 || local_leader >= lg->size)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_RANK, call, "invalid local_leader %d (local_group size %d)",
                        local_leader, lg->size);
    if (remote_leader < 0 || remote_leader >= rg->size)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_RANK, call, "invalid remote_leader %d (remote_group size %d)",
                        remote_leader, rg->size);
    CM_ARG_NOT_NULL(MPI_COMM_WORLD, stringtag, call);
    CM_ARG_NOT_NULL(MPI_COMM_WORLD, newintercomm, call);
    for (int i = 0; i < rg->size; i++)
        if (cm_group_rank_of(lg, rg->world[i]) != MPI_UNDEFINED)
            return cm_error(MPI_COMM_WORLD, MPI_ERR_GROUP, call,
                            "the local and remote groups overlap (world rank %d is in both)", rg->world[i]);
    struct cm_comm *w = cm_comm_lookup(MPI_COMM_WORLD, NULL);
    size_t bytes;
    int *mine = cm_inter_payload(lg->world, lg->size, &bytes), *theirs = cm_inter_payload(NULL, 0, &bytes);
    uint16_t ctx[2];
    if (!mine || !theirs) {
        rc = cm_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, call, "out of memory");
        goto out;
    }
    int tag = string_tag(stringtag);
    struct cm_sub g = { w, lg->world, lg->size, me, tag };
    rc = cm_inter_agree(&g, local_leader, w, rg->world[remote_leader], tag, mine, bytes, theirs, bytes, ctx, 2);
    if (rc) {
        rc = cm_error(MPI_COMM_WORLD, rc, call, "no free context id (too many communicators)");
        goto out;
    }
    if (theirs[0] != rg->size || memcmp(theirs + 1, rg->world, (size_t)rg->size * sizeof(int))) {
        cm_context_free(ctx[0]);
        cm_context_free(ctx[1]);
        rc = cm_error(MPI_COMM_WORLD, MPI_ERR_GROUP, call,
                      "remote_group differs from the local_group the remote leader's group passed");
        goto out;
    }
    rc = cm_inter_build(call, MPI_COMM_WORLD, lg->world, lg->size, me, theirs, ctx, errhandler, newintercomm);
    if (!rc)
        cm_comm_lookup(*newintercomm, NULL)->session = lg->session;
    if (rc == MPI_SUCCESS && info != MPI_INFO_NULL && PMPI_Comm_set_info)
        PMPI_Comm_set_info(*newintercomm, info);
out:
    free(mine);
    free(theirs);
    return rc;
}

int cm_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    CM_CALL_INITIALIZED("MPI_Intercomm_merge");
    struct cm_comm *c = cm_comm_user_lookup(intercomm);
    if (!c)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_COMM, call, "intercomm is %s",
                        intercomm == MPI_COMM_NULL ? "MPI_COMM_NULL" : "not a valid communicator");
    if (!cm_comm_is_inter(c))
        return cm_error(intercomm, MPI_ERR_COMM, call, "intercomm is an intracommunicator (must be an intercommunicator)");
    CM_ARG_NOT_NULL(intercomm, newintracomm, call);
    int mine = high != 0, theirs = 0;
    uint16_t ctx;
    if ((rc = cm_inter_agree_on(c, &mine, sizeof mine, &theirs, sizeof theirs, &ctx, 1)))
        return cm_error(intercomm, rc, call, "no free context id (too many communicators)");
    /* The group that passed high = false comes first; when both passed the
     * same, the group whose rank 0 has the lower world rank (both groups see
     * the same two world ranks, so they order alike). */
    int first = mine != theirs ? !mine : c->world_of[0] < c->remote_world_of[0];
    int n = c->size + c->remote_size;
    int *world = malloc((size_t)n * sizeof(int));
    if (!world) {
        cm_context_free(ctx);
        return cm_error(intercomm, MPI_ERR_NO_MEM, call, "out of memory");
    }
    memcpy(world + (first ? 0 : c->remote_size), c->world_of, (size_t)c->size * sizeof(int));
    memcpy(world + (first ? c->size : 0), c->remote_world_of, (size_t)c->remote_size * sizeof(int));
    struct cm_comm *m = cm_comm_create_raw(world, n, first ? c->rank : c->remote_size + c->rank, ctx);
    free(world);
    if (!m) {
        cm_context_free(ctx);
        return cm_error(intercomm, MPI_ERR_NO_MEM, call, "out of memory");
    }
    m->errh = c->errh;
    cm_errh_retain(m->errh);
    m->session = c->session;
    *newintracomm = m->handle;
    return MPI_SUCCESS;
}

int cm_Comm_test_inter(MPI_Comm comm, int *flag)
{
    struct cm_comm *c = cm_comm_user_lookup(comm);
    if (!c)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_COMM, "MPI_Comm_test_inter", "invalid communicator %ld",
                        (long)(intptr_t)comm);
    CM_ARG_NOT_NULL(comm, flag, "MPI_Comm_test_inter");
    *flag = cm_comm_is_inter(c);
    return MPI_SUCCESS;
}

static struct cm_comm *inter_or_error(MPI_Comm comm, const char *call, int *rc)
{
    struct cm_comm *c = cm_comm_user_lookup(comm);
    if (!c)
        *rc = cm_error(MPI_COMM_WORLD, MPI_ERR_COMM, call, "invalid communicator %ld", (long)(intptr_t)comm);
    else if (!cm_comm_is_inter(c))
        *rc = cm_error(comm, MPI_ERR_COMM, call, "comm is an intracommunicator (must be an intercommunicator)");
    else
        return c;
    return NULL;
}

int cm_Comm_remote_size(MPI_Comm comm, int *size)
{
    CM_CALL_LOOKUP(struct cm_comm, c, "MPI_Comm_remote_size", inter_or_error, comm);
    CM_ARG_NOT_NULL(comm, size, call);
    *size = c->remote_size;
    return MPI_SUCCESS;
}

int cm_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    CM_CALL_LOOKUP(struct cm_comm, c, "MPI_Comm_remote_group", inter_or_error, comm);
    CM_ARG_NOT_NULL(comm, group, call);
    rc = cm_group_make(c->remote_world_of, c->remote_size, group);
    if (!rc)
        cm_group_set_session(*group, c->session);
    return rc ? cm_error(comm, rc, call, "out of memory") : MPI_SUCCESS;
}
