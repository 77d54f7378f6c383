/*
 * coll_fuzz_gen.c -- the seeded generator of the collective fuzz test.
 *
 * A case is drawn from its own stream, splitmix64 seeded with (seed, case
 * number), so every rank draws the same case and a case can be drawn without
 * the ones before it.  Kinds of cases:
 *   single       one call
 *   loop         one shape repeated 100-300 times (a few times when large),
 *                lagging on the first iteration and maybe every k-th
 *   batch        2-5 calls on random communicators, nonblocking ones left
 *                in flight until the end, so blocking calls on the same and
 *                on overlapping communicators interleave with them
 *   rooted_lag   a rooted call whose root sleeps 1-3 ms, then 100-300 calls
 *                of a rooted shape to another root in which the late rank
 *                contributes nothing (the schedule of issue 18's race)
 */
#include "coll_fuzz.h"

#include <stdio.h>

const char *const fz_coll_name[FZ_NCOLLS] = {
    "Barrier", "Bcast", "Reduce", "Allreduce", "Gather", "Gatherv", "Scatter", "Scatterv", "Allgather",
    "Allgatherv", "Alltoall", "Alltoallv", "Alltoallw", "Reduce_scatter", "Reduce_scatter_block", "Scan", "Exscan",
};
const char *const fz_comm_name[FZ_NCOMMS] = {"world", "dup", "split2", "split3", "group", "dupsplit"};
const char *const fz_kind_name[] = {"single", "loop", "batch", "rooted_lag"};

/* Every collective has its I-form (issue 22). */
int fz_coll_has_nb(int c)
{
    (void)c;
    return 1;
}
int fz_coll_rooted(int c) { return c == C_BCAST || c == C_REDUCE || c == C_GATHER || c == C_GATHERV || c == C_SCATTER || c == C_SCATTERV; }
int fz_coll_reduces(int c)
{
    return c == C_REDUCE || c == C_ALLREDUCE || c == C_REDUCE_SCATTER || c == C_REDUCE_SCATTER_BLOCK ||
           c == C_SCAN || c == C_EXSCAN;
}
int fz_coll_in_place_ok(int c) { return c != C_BARRIER && c != C_BCAST; }

/* Units or elements of a call: mostly small, sometimes up to ~70,000. */
static int gen_size(struct fz_rng *r)
{
    int p = fz_below(r, 100);
    if (p < 6)
        return 0;
    if (p < 66)
        return 1 + fz_below(r, 130);
    if (p < 92)
        return 131 + fz_below(r, 3870);
    return 4001 + fz_below(r, 66000);
}

static int pick_type_in_group(struct fz_rng *r, int group)
{
    int list[FZ_NTYPES], n = 0;
    for (int t = 0; t < FZ_NTYPES; t++)
        if (fz_types[t].group == group)
            list[n++] = t;
    return list[fz_below(r, n)];
}

static void gen_types(struct fz_rng *r, struct fz_op *o)
{
    if (fz_coll_reduces(o->coll)) {
        static const int weight[FZ_NOPS] = {20, 8, 8, 8, 5, 5, 5, 3, 3, 6, 6, 16, 8};
        int total = 0, pick;
        for (int i = 0; i < FZ_NOPS; i++)
            total += weight[i];
        pick = fz_below(r, total);
        for (o->op = 0; pick >= weight[o->op]; o->op++)
            pick -= weight[o->op];
        int list[FZ_NTYPES], n = 0;
        for (int t = 0; t < FZ_NTYPES; t++)
            if (fz_op_fits(o->op, t))
                list[n++] = t;
        o->stype = o->rtype = list[fz_below(r, n)];
    } else {
        int group = fz_chance(r, 15) ? FZ_G_DINT : FZ_G_INT;
        o->stype = pick_type_in_group(r, group);
        o->rtype = pick_type_in_group(r, group);
        o->op = -1;
    }
}

/* Round the size to what the types allow: whole elements on both sides. */
static void fit_size(struct fz_op *o)
{
    if (o->coll == C_ALLTOALLW || fz_coll_reduces(o->coll))
        return; /* per-pair types decide later; reductions count elements */
    int l = fz_lcm(fz_types[o->stype].k, fz_types[o->rtype].k);
    o->m = (o->m + l - 1) / l * l;
}

static void gen_op(struct fz_rng *r, struct fz_op *o, int coll)
{
    static const int comm_weight[FZ_NCOMMS] = {35, 15, 15, 15, 10, 10};
    *o = (struct fz_op){0};
    o->coll = coll >= 0 ? coll : fz_below(r, FZ_NCOLLS);
    int pick = fz_below(r, 100);
    for (o->comm = 0; pick >= comm_weight[o->comm]; o->comm++)
        pick -= comm_weight[o->comm];
    o->nb = fz_coll_has_nb(o->coll) && fz_chance(r, 35);
    o->in_place = fz_coll_in_place_ok(o->coll) && fz_chance(r, 20);
    o->root = fz_below(r, 64);
    gen_types(r, o);
    o->m = gen_size(r);
    if (o->coll >= C_ALLTOALL && o->coll <= C_ALLTOALLW && o->m > 16000)
        o->m = 16000 + o->m % 4000; /* a block per pair: megabytes per rank already */
    fit_size(o);
    o->zero_rank = -1;
    o->lag_rank[0] = o->lag_rank[1] = 0;
    if (fz_chance(r, 50)) {
        o->lag_rank[0] = fz_coll_rooted(o->coll) && fz_chance(r, 50) ? o->root : fz_below(r, 64);
        o->lag_us[0] = fz_below(r, 3001);
        if (fz_chance(r, 30)) {
            o->lag_rank[1] = fz_below(r, 64);
            o->lag_us[1] = fz_below(r, 3001);
        }
    }
    /* v-forms: one rank sends or receives nothing, often the late one */
    if (fz_chance(r, 40))
        o->zero_rank = o->lag_us[0] && fz_chance(r, 50) ? o->lag_rank[0] : fz_below(r, 64);
    o->key = fz_next(r);
}

/* Repetitions of one shape: 100-300, fewer when the calls are larger, and
 * 10-40 nonblocking ones (their schedules progress only inside MPI calls:
 * oversubscribed, a Testall loop takes tens of ms per call). */
static int loop_count(struct fz_rng *r, const struct fz_op *o)
{
    if (o->m > 2000)
        return 2 + fz_below(r, 5);
    if (o->m > 300 || o->nb)
        return 10 + fz_below(r, 31);
    return 100 + fz_below(r, 201);
}

static void gen_rooted_lag(struct fz_rng *r, struct fz_case *c)
{
    static const int first[] = {C_GATHER, C_REDUCE, C_BCAST, C_GATHERV, C_SCATTERV, C_SCATTER, C_SCAN, C_EXSCAN};
    static const int then[] = {C_GATHERV, C_GATHERV, C_GATHERV, C_GATHERV, C_GATHERV, C_GATHERV, C_GATHERV,
                               C_GATHERV, C_SCATTERV, C_GATHER, C_REDUCE, C_BCAST};
    struct fz_op *a = &c->steps[0].op, *b = &c->steps[1].op;
    gen_op(r, a, first[fz_below(r, (int)(sizeof first / sizeof first[0]))]);
    a->nb = a->nb && fz_chance(r, 50);
    a->m = 1 + fz_below(r, 126);
    fit_size(a);
    a->lag_rank[0] = a->root;
    a->lag_us[0] = 1000 + fz_below(r, 2001);
    a->lag_us[1] = 0;
    gen_op(r, b, then[fz_below(r, (int)(sizeof then / sizeof then[0]))]);
    b->comm = a->comm;
    b->nb = 0; /* the shared-memory FIFOs serve the blocking calls */
    b->m = fz_chance(r, 5) ? 0 : 1 + fz_below(r, 126);
    fit_size(b);
    b->lag_rank[0] = a->root; /* not a lag (0 us): names the rank that is still asleep */
    b->lag_us[0] = b->lag_us[1] = 0;
    b->root_not_lagger = 1;
    b->zero_rank = a->root;
    b->in_place = b->in_place && fz_chance(r, 30);
    c->nsteps = 2;
    c->steps[0].repeat = 1;
    c->steps[1].repeat = 100 + fz_below(r, 201);
}

void fz_gen_case(uint64_t seed, long case_no, struct fz_case *c)
{
    struct fz_rng r = {fz_hash2(seed, (uint64_t)case_no)};
    *c = (struct fz_case){0};
    int p = fz_below(&r, 100);
    c->kind = p < 25 ? K_ROOTED_LAG : p < 48 ? K_LOOP : p < 72 ? K_BATCH : K_SINGLE;
    c->wait_mode = fz_below(&r, 3);
    c->window = 1;
    switch (c->kind) {
    case K_ROOTED_LAG:
        gen_rooted_lag(&r, c);
        break;
    case K_LOOP: {
        struct fz_op *o = &c->steps[0].op;
        gen_op(&r, o, -1);
        c->nsteps = 1;
        c->steps[0].repeat = loop_count(&r, o);
        o->lag_every = fz_chance(&r, 15) ? 16 + fz_below(&r, 49) : 0;
        c->window = o->nb ? 1 + fz_below(&r, 4) : 1;
        break;
    }
    case K_BATCH:
        c->nsteps = 2 + fz_below(&r, 4);
        for (int i = 0; i < c->nsteps; i++) {
            gen_op(&r, &c->steps[i].op, -1);
            c->steps[i].op.nb = fz_coll_has_nb(c->steps[i].op.coll) && fz_chance(&r, 50);
            c->steps[i].repeat = 1;
        }
        c->window = FZ_MAXSTEPS + 1; /* everything in flight until the end */
        break;
    default:
        gen_op(&r, &c->steps[0].op, -1);
        c->nsteps = 1;
        c->steps[0].repeat = 1;
    }
}

int fz_describe(const struct fz_op *o, char *buf, size_t len)
{
    int w = snprintf(buf, len, "MPI_%s%s comm %s", o->nb ? "I" : "", fz_coll_name[o->coll], fz_comm_name[o->comm]);
    if (fz_coll_rooted(o->coll))
        w += snprintf(buf + w, len - (size_t)w, " root %d%s", o->root, o->root_not_lagger ? "(not the late rank)" : "");
    if (fz_coll_reduces(o->coll))
        w += snprintf(buf + w, len - (size_t)w, " op %s type %s count %d", fz_ops[o->op].name,
                      fz_types[o->stype].name, o->m);
    else if (o->coll == C_ALLTOALLW)
        w += snprintf(buf + w, len - (size_t)w, " types per pair, ~%d units", o->m);
    else if (o->coll != C_BARRIER)
        w += snprintf(buf + w, len - (size_t)w, " sendtype %s recvtype %s units %d", fz_types[o->stype].name,
                      fz_types[o->rtype].name, o->m);
    if (o->in_place)
        w += snprintf(buf + w, len - (size_t)w, " MPI_IN_PLACE");
    if (o->zero_rank >= 0)
        w += snprintf(buf + w, len - (size_t)w, " zero-count rank %d", o->zero_rank);
    for (int i = 0; i < 2; i++)
        if (o->lag_us[i])
            w += snprintf(buf + w, len - (size_t)w, " rank %d sleeps %d us", o->lag_rank[i], o->lag_us[i]);
    if (o->lag_every)
        w += snprintf(buf + w, len - (size_t)w, " (every %d iterations)", o->lag_every);
    w += snprintf(buf + w, len - (size_t)w, " (ranks/roots modulo the communicator size)");
    return w;
}
