/*
 * comm_create.c -- making and freeing communicators: Comm_dup (and _with_info;
 * Comm_idup is comm_idup.c), Comm_split, Comm_create, Comm_create_group, Comm_free, Comm_compare,
 * names.  An intercommunicator parent goes to mpi/intercomm_ops.c.
 *
 * New communicators need two agreements among their members: the membership
 * itself (Comm_split exchanges (color, key) pairs) and a context id free in
 * every member.  Both are exchanged by dissemination over the parent's
 * collective context with internal (negative) tags, which no user message and
 * no collective algorithm can carry.
 */
#include "coll/percomm.h"
#include "core/comm.h"
#include "core/context.h"
#include "core/group.h"
#include "core/state.h"
#include "core/error.h"
#include "core/request.h"
#include "p2p/p2p.h"
#include "mpi/comm_create.h"
#include "fe_comm.h"

#include <stdlib.h>
#include <string.h>

/* core/info.c may not be linked into every build of the unit tests. */
#pragma weak PMPI_Comm_set_info

#define TAG_CONTEXT (-11)
#define TAG_SPLIT (-12)

int cm_group_compare_lists(const int *a, int na, const int *b, int nb);

/* Exchange bytes with two parent ranks over parent's collective context;
 * to < 0: receive only, from < 0: send only. */
void cm_comm_exchange(struct cm_comm *parent, const void *sbuf, size_t sbytes, int to, void *rbuf, size_t rbytes,
                      int from, int tag)
{
    struct cm_request rr, sr;
    memset(&rr, 0, sizeof rr);
    memset(&sr, 0, sizeof sr);
    rr.kind = CM_REQ_RECV;
    rr.internal = 1;
    rr.buf = rbuf;
    rr.count = (int)rbytes;
    rr.dtype = MPI_BYTE;
    rr.comm = cm_coll_comm(parent->handle);
    rr.peer = from;
    rr.tag = tag;
    sr = rr;
    sr.kind = CM_REQ_SEND;
    sr.buf = (void *)sbuf;
    sr.count = (int)sbytes;
    sr.peer = to;
    if (from >= 0)
        cm_recv_start(&rr);
    if (to >= 0) {
        cm_send_start(&sr);
        cm_request_wait(&sr, CM_CALL_Comm_dup);
    }
    if (from >= 0)
        cm_request_wait(&rr, CM_CALL_Comm_dup);
}

/* OR-allreduce of the context bitmaps among members (parent ranks), then take a pair. */
int cm_comm_agree_context(struct cm_comm *parent, const int *members, int n, int me, int tag, uint16_t *ctx)
{
    static uint64_t bits[CM_CTX_WORDS], incoming[CM_CTX_WORDS];
    if (cm_mt)   /* threads may agree on other parents at once: mpi/context_agree_mt.c */
        return cm_comm_agree_context_mt(parent, members, n, me, tag, ctx);
    cm_context_bits(bits);
    for (int k = 1; k < n; k <<= 1) {
        cm_comm_exchange(parent, bits, sizeof bits, members[(me + k) % n], incoming, sizeof incoming,
                 members[(me - k % n + n) % n], tag);
        for (int w = 0; w < CM_CTX_WORDS; w++)
            bits[w] |= incoming[w];
    }
    return cm_context_take(bits, ctx);
}

static int agree_context(struct cm_comm *parent, const int *members, int n, int me, uint16_t *ctx)
{
    return cm_comm_agree_context(parent, members, n, me, TAG_CONTEXT, ctx);
}

static int all_members(struct cm_comm *parent, int **members)
{
    *members = malloc((size_t)parent->size * sizeof(int));
    if (!*members)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < parent->size; i++)
        (*members)[i] = i;
    return MPI_SUCCESS;
}

/* A new communicator of the given world ranks (in order) with a fresh context. */
static int finish_new(struct cm_comm *parent, const int *world, int n, int myrank, uint16_t ctx, MPI_Comm *out,
                      const char *call)
{
    struct cm_comm *c = cm_comm_create_raw(world, n, myrank, ctx);
    if (!c) {
        cm_context_free(ctx);
        return cm_error(parent->handle, MPI_ERR_NO_MEM, call, "out of memory");
    }
    c->errh = parent->errh;
    cm_errh_retain(c->errh);
    c->session = parent->session;
    *out = c->handle;
    return MPI_SUCCESS;
}

static int dup_common(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, const char *call)
{
    int rc;
    struct cm_comm *p = cm_comm_user_or_error(comm, call, &rc);
    if (!p)
        return rc;
    CM_ARG_NOT_NULL(comm, newcomm, call);
    if (cm_comm_is_inter(p))
        return cm_inter_dup(p, info, newcomm, call);
    int *members;
    uint16_t ctx;
    if ((rc = all_members(p, &members)) || (rc = agree_context(p, members, p->size, p->rank, &ctx))) {
        free(members);
        return cm_error(comm, rc, call, "no free context id (too many communicators)");
    }
    free(members);
    return cm_comm_dup_finish(p, ctx, info, newcomm, call);
}

int cm_comm_dup_finish(struct cm_comm *p, uint16_t ctx, MPI_Info info, MPI_Comm *newcomm, const char *call)
{
    int rc = finish_new(p, p->world_of, p->size, p->rank, ctx, newcomm, call);
    return rc ? rc : cm_comm_dup_props(p, info, newcomm, call);
}

int cm_comm_dup_props(struct cm_comm *p, MPI_Info info, MPI_Comm *newcomm, const char *call)
{
    int rc;
    struct cm_comm *c = cm_comm_lookup(*newcomm, NULL);
    if (p->topo && cm_topo_dup)
        c->topo = cm_topo_dup(p->topo);
    if (cm_attr_copy_all && (rc = cm_attr_copy_all(p, c)) != MPI_SUCCESS) {
        cm_comm_release(c);
        *newcomm = MPI_COMM_NULL;
        return cm_error(p->handle, rc, call, "an attribute copy callback failed with code %d", rc);
    }
    /* Comm_dup copies the parent's hints; dup_with_info replaces them. */
    if (info == MPI_INFO_NULL)
        info = p->info;
    if (info != MPI_INFO_NULL && PMPI_Comm_set_info)
        PMPI_Comm_set_info(*newcomm, info);
    return MPI_SUCCESS;
}

int cm_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    return dup_common(comm, MPI_INFO_NULL, newcomm, "MPI_Comm_dup");
}

int cm_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    return dup_common(comm, info, newcomm, "MPI_Comm_dup_with_info");
}

/* The duplicate is made at once (blocking); the request is born complete.
 * Correct by the standard, only less overlapped. */
struct split_entry {
    int color, key, valid;
};

static int cmp_by_key(const void *a, const void *b)
{
    const int *x = a, *y = b; /* {key, parent rank} */
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

int cm_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    CM_CALL_LOOKUP(struct cm_comm, p, "MPI_Comm_split", cm_comm_user_or_error, comm);
    CM_ARG_NOT_NULL(comm, newcomm, call);
    if (color < 0 && color != MPI_UNDEFINED)
        return cm_error(comm, MPI_ERR_ARG, call, "invalid color %d (must be >= 0 or MPI_UNDEFINED)", color);
    if (cm_comm_is_inter(p))
        return cm_inter_split(p, color, key, newcomm);
    int n = p->size, me = p->rank;
    struct split_entry *all = calloc((size_t)n, sizeof *all), *in = calloc((size_t)n, sizeof *in);
    int *members = malloc((size_t)n * sizeof(int)), *keyed = malloc((size_t)n * 2 * sizeof(int));
    int *world = malloc((size_t)n * sizeof(int));
    if (!all || !in || !members || !keyed || !world) {
        rc = cm_error(comm, MPI_ERR_NO_MEM, call, "out of memory");
        goto out;
    }
    all[me] = (struct split_entry){ color, key, 1 };
    /* Dissemination allgather: after ceil(log2 n) rounds every entry is known. */
    for (int k = 1; k < n; k <<= 1) {
        cm_comm_exchange(p, all, (size_t)n * sizeof *all, (me + k) % n, in, (size_t)n * sizeof *in, (me - k % n + n) % n, TAG_SPLIT);
        for (int i = 0; i < n; i++)
            if (in[i].valid)
                all[i] = in[i];
    }
    /* Every member needs one context; all groups of one split can share it,
     * since each process belongs to at most one of them. */
    int m = 0;
    for (int i = 0; i < n; i++)
        if (all[i].color == color && color != MPI_UNDEFINED) {
            keyed[2 * m] = all[i].key;
            keyed[2 * m + 1] = i;
            m++;
        }
    for (int i = 0; i < n; i++)
        members[i] = i;
    uint16_t ctx;
    uint64_t dummy;
    (void)dummy;
    if ((rc = agree_context(p, members, n, me, &ctx)) != MPI_SUCCESS) {
        rc = cm_error(comm, rc, call, "no free context id (too many communicators)");
        goto out;
    }
    if (color == MPI_UNDEFINED) {
        cm_context_free(ctx);
        *newcomm = MPI_COMM_NULL;
        goto out;
    }
    qsort(keyed, (size_t)m, 2 * sizeof(int), cmp_by_key);
    int myrank = 0;
    for (int i = 0; i < m; i++) {
        world[i] = p->world_of[keyed[2 * i + 1]];
        if (keyed[2 * i + 1] == me)
            myrank = i;
    }
    rc = finish_new(p, world, m, myrank, ctx, newcomm, call);
out:
    free(all);
    free(in);
    free(members);
    free(keyed);
    free(world);
    return rc;
}

/* Parent ranks of a group's members, in group order; -1 if one is not in parent. */
static int group_to_parent(struct cm_comm *p, struct cm_group *g, int *ranks)
{
    for (int i = 0; i < g->size; i++) {
        int w = g->world[i];
        ranks[i] = w >= 0 && w < cm_g.size ? p->comm_of[w] : -1;
        if (ranks[i] < 0)
            return -1;
    }
    return 0;
}

int cm_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    CM_CALL_LOOKUP(struct cm_comm, p, "MPI_Comm_create", cm_comm_user_or_error, comm);
    CM_ARG_NOT_NULL(comm, newcomm, call);
    if (cm_comm_is_inter(p))
        return cm_inter_create(p, group, newcomm);
    struct cm_group *g = cm_group_lookup(group);
    if (!g)
        return cm_error(comm, MPI_ERR_GROUP, call, "invalid group %ld", (long)(intptr_t)group);
    int *ranks = malloc(((size_t)g->size + 1) * sizeof(int)), *members = NULL;
    if (group_to_parent(p, g, ranks)) {
        free(ranks);
        return cm_error(comm, MPI_ERR_GROUP, call, "the group has a process that is not in the communicator");
    }
    uint16_t ctx;
    if ((rc = all_members(p, &members)) || (rc = agree_context(p, members, p->size, p->rank, &ctx))) {
        free(ranks);
        free(members);
        return cm_error(comm, rc, call, "no free context id (too many communicators)");
    }
    free(members);
    int myrank = cm_group_rank_of(g, cm_g.rank);
    free(ranks);
    if (myrank == MPI_UNDEFINED) {
        cm_context_free(ctx);
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    return finish_new(p, g->world, g->size, myrank, ctx, newcomm, call);
}

int cm_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    CM_CALL_LOOKUP(struct cm_comm, p, "MPI_Comm_create_group", cm_comm_user_or_error, comm);
    if (cm_comm_is_inter(p))
        return cm_error(comm, MPI_ERR_COMM, call,
                        "comm is an intercommunicator (must be an intracommunicator)");
    struct cm_group *g = cm_group_lookup(group);
    if (!g)
        return cm_error(comm, MPI_ERR_GROUP, call, "invalid group %ld", (long)(intptr_t)group);
    if (tag < 0)
        return cm_error(comm, MPI_ERR_TAG, call, "invalid tag %d", tag);
    int myrank = cm_group_rank_of(g, cm_g.rank);
    if (myrank == MPI_UNDEFINED) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    int *ranks = malloc(((size_t)g->size + 1) * sizeof(int));
    if (group_to_parent(p, g, ranks)) {
        free(ranks);
        return cm_error(comm, MPI_ERR_GROUP, call, "the group has a process that is not in the communicator");
    }
    uint16_t ctx;
    rc = agree_context(p, ranks, g->size, myrank, &ctx);
    free(ranks);
    if (rc)
        return cm_error(comm, rc, call, "no free context id (too many communicators)");
    return finish_new(p, g->world, g->size, myrank, ctx, newcomm, call);
}

int cm_Comm_free(MPI_Comm *comm)
{
    if (!comm)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Comm_free", "comm pointer is NULL");
    if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
        return cm_error(*comm, MPI_ERR_COMM, "MPI_Comm_free", "%s cannot be freed",
                        *comm == MPI_COMM_WORLD ? "MPI_COMM_WORLD" : "MPI_COMM_SELF");
    struct cm_comm *c = cm_comm_user_lookup(*comm);
    if (!c)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_COMM, "MPI_Comm_free", "invalid communicator %ld", (long)(intptr_t)(*comm));
    if (cm_attr_delete_all) {
        int rc = cm_attr_delete_all(c);
        if (rc)
            return cm_error(*comm, rc, "MPI_Comm_free", "an attribute delete callback failed with code %d", rc);
    }
    /* Before the context goes: a blocking collective's message nobody took
     * is a mismatch (coll/leftover.c), raised while the handle still names
     * the communicator; it is freed all the same. */
    int rc = cm_coll_leftovers(*comm, "MPI_Comm_free", 0);
    cm_comm_release(c);
    *comm = MPI_COMM_NULL;
    return rc;
}

int cm_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    struct cm_comm *a = cm_comm_lookup(comm1, NULL), *b = cm_comm_lookup(comm2, NULL);
    if (!a || !b)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_COMM, "MPI_Comm_compare", "invalid communicator %ld",
                        (long)(intptr_t)(a ? comm2 : comm1));
    if (a == b) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    if (cm_comm_is_inter(a) || cm_comm_is_inter(b)) {
        *result = cm_inter_compare(a, b);
        return MPI_SUCCESS;
    }
    int r = cm_group_compare_lists(a->world_of, a->size, b->world_of, b->size);
    *result = r == MPI_IDENT ? MPI_CONGRUENT : r;
    return MPI_SUCCESS;
}

int cm_Comm_set_name(MPI_Comm comm, const char *comm_name)
{
    struct cm_comm *c = cm_comm_lookup(comm, NULL);
    if (!c)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_COMM, "MPI_Comm_set_name", "invalid communicator %ld", (long)(intptr_t)comm);
    if (!comm_name)
        return cm_error(comm, MPI_ERR_ARG, "MPI_Comm_set_name", "name is NULL");
    strncpy(c->name, comm_name, MPI_MAX_OBJECT_NAME - 1);
    c->name[MPI_MAX_OBJECT_NAME - 1] = 0;
    return MPI_SUCCESS;
}

int cm_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
    if (!comm_name || !resultlen)
        return cm_error(comm, MPI_ERR_ARG, "MPI_Comm_get_name", "%s is NULL", !comm_name ? "comm_name" : "resultlen");
    /* MPI-4.1 section 7.8: the null handle is named after itself */
    if (comm == MPI_COMM_NULL) {
        strcpy(comm_name, "MPI_COMM_NULL");
        *resultlen = (int)strlen(comm_name);
        return MPI_SUCCESS;
    }
    struct cm_comm *c = cm_comm_lookup(comm, NULL);
    if (!c)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_COMM, "MPI_Comm_get_name", "invalid communicator %ld", (long)(intptr_t)comm);
    strcpy(comm_name, c->name);
    *resultlen = (int)strlen(c->name);
    return MPI_SUCCESS;
}
