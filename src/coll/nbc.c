/*
 * nbc.c -- nonblocking collectives as small schedules.
 *
 * A schedule is a list of rounds.  A round's sends and receives are started
 * together; when all have completed, the round's local steps (reduce, copy)
 * run in order, and the next round starts.  The request that the user holds
 * is a generic request whose poll() advances the schedule, so the schedule
 * only moves while the user calls Test/Wait (or the library progresses).
 *
 * Several schedules may be outstanding on one communicator: each takes the
 * tag CM_TAG_NBC_BASE + (sequence number mod CM_NBC_TAGS), where all ranks
 * number a communicator's nonblocking collectives in the same (call) order.
 * Two outstanding schedules never share a tag: a start whose tag a schedule
 * of the same communicator still holds (CM_NBC_TAGS starts ago, or more)
 * progresses until that one completes first (claim; docs/collectives.md,
 * "Nonblocking schedules", argues it cannot deadlock).  Otherwise a later
 * schedule's round could send to a peer before the older one's next round
 * does, and the peer's older receive would take the message.
 * Reductions keep rank order (binomial tree rooted at rank 0 for
 * non-commutative ops), like the blocking ones.
 *
 * Argument agreement (docs/collectives.md, "Nonblocking schedules"): a
 * schedule made by a nonblocking front end that computed the call's word
 * (cm_nbc_word) puts its low 17 bits above the tag, as the blocking
 * algorithms do (coll/p2p.h), so a receive also matches a message of the
 * same call whose sender has other arguments (p2p/match.c, fits).  Each
 * completed round compares what every receive got with what it posted
 * (the tag, so the word, and the size); a difference is kept in the
 * schedule, the rest of its sends carry the poison word (ranks downstream
 * learn of it), and the request's completion raises it under the call's
 * name.  In a correct program every receive gets exactly what it posted:
 * each is built from the same count and type arithmetic as its send
 * (nbc_build*.c).
 */
#include "coll/nbc.h"
#ifdef CM_IN_COREMPI
#include "coll/direct/direct.h"
#include "coll/percomm.h"
#include "core/datatype.h"
#include "core/op.h"
#include "core/request.h"
#include "p2p/p2p.h"
#endif

#include <stdlib.h>
#include <string.h>

enum step_kind { STEP_SEND, STEP_RECV, STEP_REDUCE, STEP_COPY, STEP_END };

struct step {
    enum step_kind kind;
    const void *src;        /* send buffer, reduce "in", copy source */
    void *dst;              /* receive buffer, reduce "inout", copy destination */
    int count, dcount;
    MPI_Datatype dt, ddt;
    int peer;
    MPI_Op op;
    MPI_Comm comm;          /* sends and receives: where peer is a rank */
};

struct cm_nbc {
    MPI_Comm comm;
    MPI_Comm cur;           /* what cm_nbc_use chose: the comm of new steps */
    int tag;                /* of sends and receives: base | the word's bits */
    int base;               /* CM_TAG_NBC_BASE + this call's sequence */
#ifdef CM_IN_COREMPI
    struct cm_direct_nbc_args args;   /* word 0: no comparison (cm_nbc_word not called) */
    struct cm_direct_mismatch mm;     /* the first difference a receive saw */
    struct cm_p2p_got *got;           /* per request of the round (reqcap of them) */
    struct cm_request *req;           /* a persistent one's request (coll/persist.c) */
    struct cm_nbc_slots *slots;       /* its communicator's, referenced once claimed */
    int classes;                      /* each message carries its data's class (cm_nbc_classes) */
#endif
    struct step *steps;
    int nsteps, cap;
    int pos, posted;
    MPI_Request *reqs;
    int nreq, reqcap;
    void *blocks[4];
    int nblocks;
    int error;              /* sticky: building failed (out of memory) */
    int held;               /* kept by a persistent collective: its types and ops retained */
    int live;               /* counted in cm_nbc_live: started, not yet complete */
};

/* Schedules of this process started and not yet complete, on any
 * communicator.  While one is, a message on a schedule's tag may be its
 * (a peer's later round on its way); when none is, every such message this
 * process was sent was received by its schedule, in a correct program, so
 * one left over was sent by a rank whose arguments differed
 * (coll/leftover.c).  Atomic: schedules complete in any thread. */
static int cm_nbc_live;

int cm_nbc_any_live(void) { return __atomic_load_n(&cm_nbc_live, __ATOMIC_RELAXED) != 0; }

#ifdef CM_IN_COREMPI
/* A communicator's schedule tags: held[t] is 1 while a started schedule on
 * tag CM_TAG_NBC_BASE + t is not complete.  Referenced by the communicator's
 * collective state (percomm.h) and by each schedule that claimed a tag, since
 * a schedule may outlive MPI_Comm_free. */
struct cm_nbc_slots {
    int refs;
    unsigned char held[CM_NBC_TAGS];
};

void cm_nbc_slots_drop(struct cm_nbc_slots *t)
{
    if (t && __atomic_sub_fetch(&t->refs, 1, __ATOMIC_ACQ_REL) == 0)
        free(t);
}

static struct cm_nbc_slots *slots_of(MPI_Comm comm)
{
    struct cm_coll_state *cc = cm_coll_state_of(comm, 1);
    if (!cc)
        return NULL;
    if (!cc->nbc_slots && (cc->nbc_slots = calloc(1, sizeof(struct cm_nbc_slots))))
        cc->nbc_slots->refs = 1;
    return cc->nbc_slots;
}

static int slot_open(void *held) { return !__atomic_load_n((unsigned char *)held, __ATOMIC_ACQUIRE); }

/* Take s's tag on its communicator; while an older schedule holds it,
 * progress (every schedule of the process: the progress engine polls them
 * all, and sleeps as a Wait would) until that one completes.  The common
 * path: one load and compare. */
static void claim(struct cm_nbc *s)
{
    if (!s->slots) {
        if (!(s->slots = slots_of(s->comm)))
            return;   /* no memory for the table (or no communicator): unguarded */
        __atomic_add_fetch(&s->slots->refs, 1, __ATOMIC_RELAXED);
    }
    unsigned char *h = &s->slots->held[s->base - CM_TAG_NBC_BASE];
    if (__builtin_expect(__atomic_load_n(h, __ATOMIC_ACQUIRE), 0))
        cm_progress_until(slot_open, h, -1, 0, -1, s->base, 0);
    __atomic_store_n(h, 1, __ATOMIC_RELAXED);
}

static void unclaim(struct cm_nbc *s)
{
    if (s->slots)
        __atomic_store_n(&s->slots->held[s->base - CM_TAG_NBC_BASE], 0, __ATOMIC_RELEASE);
}
#else
#define claim(s) ((void)(s))
#define unclaim(s) ((void)(s))
#endif

static void set_live(struct cm_nbc *s, int live)
{
    if (s->live == live)
        return;
    if (live)
        claim(s);
    else
        unclaim(s);
    __atomic_fetch_add(&cm_nbc_live, live - s->live, __ATOMIC_RELAXED);
    s->live = live;
}

struct cm_nbc *cm_nbc_new(MPI_Comm collcomm)
{
    struct cm_nbc *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->comm = s->cur = collcomm;
    s->tag = s->base = CM_TAG_NBC_BASE + (int)(cm_coll_nbc_seq(collcomm) % CM_NBC_TAGS);
    return s;
}

#ifdef CM_IN_COREMPI
/* The word's bits above the base tag (the poison word once a receive saw a
 * difference, for sends). */
static int word_tag(const struct cm_nbc *s, int send)
{
    uint32_t w = (s->args.word & ((1u << CM_P2P_TAG_WORD_BITS) - 1)) << CM_P2P_TAG_BASE_BITS;
    return s->base | (int)(send && s->mm.on ? CM_COLL_TAG_POISON : w);
}

void cm_nbc_word(struct cm_nbc *s, const struct cm_direct_nbc_args *args)
{
    unsigned coll = (args->word & 31u) - 1;
    s->args = *args;
    s->tag = word_tag(s, 0);
    s->classes |= coll == CM_COLL_ALLTOALLV || coll == CM_COLL_ALLTOALLW;
}

void cm_nbc_classes(struct cm_nbc *s) { s->classes = 1; }

/* Step st's word and tag: the call's, with the class of the step's data
 * where the schedule's messages carry their own (direct.h,
 * cm_direct_word_class). */
static uint32_t step_word(const struct cm_nbc *s, const struct step *st)
{
    return s->classes ? cm_direct_word_class(s->args.word, cm_direct_data_class(st->dt, st->count)) : s->args.word;
}
static int step_tag(const struct cm_nbc *s, const struct step *st, int send)
{
    if (!s->classes)
        return send ? word_tag(s, 1) : s->tag;
    uint32_t w = (step_word(s, st) & ((1u << CM_P2P_TAG_WORD_BITS) - 1)) << CM_P2P_TAG_BASE_BITS;
    return s->base | (int)(send && s->mm.on ? CM_COLL_TAG_POISON : w);
}

void cm_nbc_take_word(struct cm_nbc *s)
{
    if (s && cm_direct_nbc_next.word)
        cm_nbc_word(s, &cm_direct_nbc_next);
    cm_direct_nbc_next.word = 0;
}

/* A round is complete: compare what its receives got (nbc.c's header). */
static void compare_round(struct cm_nbc *s, int from, int end)
{
    for (int i = from, j = 0; i < end && !s->mm.on; i++) {
        const struct step *st = &s->steps[i];
        if (st->kind != STEP_SEND && st->kind != STEP_RECV)
            continue;
        const struct cm_p2p_got *g = &s->got[j++];
        uint32_t mine = step_word(s, st), theirs;
        if (g->recv && (g->tag != step_tag(s, st, 0) || g->got != g->posted) &&
            cm_coll_tag_words(&mine, g->tag, g->posted, g->got, &theirs)) {
            s->mm = (struct cm_direct_mismatch){ .on = 1, .peer = st->peer, .mine = mine, .theirs = theirs };
            if (s->classes)     /* the message names the class this receive takes */
                s->args.sig_class = cm_direct_data_class(st->dt, st->count);
        }
    }
    if (s->mm.on && s->req)
        s->req->quick_finish = 0;   /* Wait/Test take the full finish, which reports */
}

/* The request's completion (Wait/Test): the difference a receive saw. */
static int query_schedule(struct cm_request *r)
{
    const struct cm_nbc *s = r->state;
    return s->mm.on ? cm_coll_mismatch_report(s->args.comm, s->args.call, &s->mm, s->args.sig_class) : MPI_SUCCESS;
}

/* A persistent one's (coll/persist.c, report): the same, cleared for the
 * next start. */
static int sched_report(void *state)
{
    struct cm_nbc *s = state;
    if (!s->mm.on)
        return MPI_SUCCESS;
    s->mm.on = 0;
    return cm_coll_mismatch_report(s->args.comm, s->args.call, &s->mm, s->args.sig_class);
}
#else
#define word_tag(s, send) ((s)->base)
#define step_tag(s, st, send) ((s)->base)
#endif

void cm_nbc_use(struct cm_nbc *s, MPI_Comm collcomm) { s->cur = collcomm; }

static int push(struct cm_nbc *s, struct step st)
{
    if (s->error)
        return s->error;
    st.comm = s->cur;
    if (s->nsteps == s->cap) {
        int cap = s->cap ? 2 * s->cap : 16;
        struct step *n = realloc(s->steps, sizeof(*n) * (size_t)cap);
        if (!n)
            return s->error = MPI_ERR_NO_MEM;
        s->steps = n;
        s->cap = cap;
    }
    if (st.kind == STEP_SEND || st.kind == STEP_RECV) {
        int r = 0;
        for (int i = s->nsteps - 1; i >= 0 && s->steps[i].kind != STEP_END; i--)
            r += s->steps[i].kind == STEP_SEND || s->steps[i].kind == STEP_RECV;
        if (r + 1 > s->reqcap) {
            int cap = s->reqcap ? 2 * s->reqcap : 8;
            MPI_Request *n = realloc(s->reqs, sizeof(*n) * (size_t)cap);
            if (!n)
                return s->error = MPI_ERR_NO_MEM;
            s->reqs = n;
#ifdef CM_IN_COREMPI
            struct cm_p2p_got *g = realloc(s->got, sizeof(*g) * (size_t)cap);
            if (!g)
                return s->error = MPI_ERR_NO_MEM;
            s->got = g;
#endif
            s->reqcap = cap;
        }
    }
    s->steps[s->nsteps++] = st;
    return MPI_SUCCESS;
}

int cm_nbc_send(struct cm_nbc *s, const void *buf, int count, MPI_Datatype dt, int peer)
{
    return push(s, (struct step){.kind = STEP_SEND, .src = buf, .count = count, .dt = dt, .peer = peer});
}

int cm_nbc_recv(struct cm_nbc *s, void *buf, int count, MPI_Datatype dt, int peer)
{
    return push(s, (struct step){.kind = STEP_RECV, .dst = buf, .count = count, .dt = dt, .peer = peer});
}

int cm_nbc_reduce(struct cm_nbc *s, const void *in, void *inout, int count, MPI_Datatype dt, MPI_Op op)
{
    return push(s, (struct step){.kind = STEP_REDUCE, .src = in, .dst = inout, .count = count, .dt = dt,
                                 .op = op});
}

int cm_nbc_copy(struct cm_nbc *s, const void *src, int scount, MPI_Datatype stype, void *dst, int rcount,
                MPI_Datatype rtype)
{
    return push(s, (struct step){.kind = STEP_COPY, .src = src, .dst = dst, .count = scount, .dt = stype,
                                 .dcount = rcount, .ddt = rtype});
}

int cm_nbc_round(struct cm_nbc *s)
{
    if (s->nsteps > 0 && s->steps[s->nsteps - 1].kind == STEP_END)
        return MPI_SUCCESS;
    return push(s, (struct step){.kind = STEP_END});
}

void *cm_nbc_scratch(struct cm_nbc *s, MPI_Datatype dt, int count)
{
    if (s->nblocks == (int)(sizeof(s->blocks) / sizeof(s->blocks[0]))) {
        s->error = MPI_ERR_INTERN;
        return NULL;
    }
    void *buf = cm_coll_tmp(dt, count, &s->blocks[s->nblocks]);
    if (buf)
        s->nblocks++;
    else
        s->error = MPI_ERR_NO_MEM;
    return buf;
}

static int poll_schedule(void *state)
{
    struct cm_nbc *s = state;
    while (s->pos < s->nsteps) {
        int end = s->pos;
        while (s->steps[end].kind != STEP_END)
            end++;
        if (!s->posted) {
            s->nreq = 0;
            for (int i = s->pos; i < end; i++) {
                struct step *st = &s->steps[i];
                if (st->kind == STEP_SEND)
                    cm_coll_isend(st->src, st->count, st->dt, st->peer, step_tag(s, st, 1), st->comm,
                                  &s->reqs[s->nreq++]);
                else if (st->kind == STEP_RECV)
                    cm_coll_irecv(st->dst, st->count, st->dt, st->peer, step_tag(s, st, 0), st->comm,
                                  &s->reqs[s->nreq++]);
            }
            s->posted = 1;
        }
        if (s->nreq > 0) {
            int flag = 0;
#ifdef CM_IN_COREMPI
            if (s->args.word) {
                cm_coll_testall_got(s->nreq, s->reqs, &flag, s->got);
                if (flag)
                    compare_round(s, s->pos, end);
            } else
#endif
                cm_coll_testall(s->nreq, s->reqs, &flag, MPI_STATUSES_IGNORE);
            if (!flag)
                return 0;
        }
        for (int i = s->pos; i < end; i++) {
            struct step *st = &s->steps[i];
            if (st->kind == STEP_REDUCE)
                PMPI_Reduce_local(st->src, st->dst, st->count, st->dt, st->op);
            else if (st->kind == STEP_COPY)
                cm_coll_copy(st->src, st->count, st->dt, st->dst, st->dcount, st->ddt, s->comm);
        }
        s->pos = end + 1;
        s->posted = 0;
    }
    set_live(s, 0);
    return 1;
}

/* A schedule outlives the call that built it: MPI_Type_free and MPI_Op_free
 * right after a nonblocking call (or between a persistent _init and a later
 * MPI_Start) must leave the derived types and user ops of its steps usable,
 * as MPI allows.  Every started schedule holds them until it is destroyed
 * (take 1: retain, 0: release); predefined ones cost a lookup each. */
static void hold(struct cm_nbc *s, int take)
{
#ifdef CM_IN_COREMPI
    for (int i = 0; i < s->nsteps; i++) {
        const struct step *st = &s->steps[i];
        if (st->kind == STEP_END)
            continue;
        void (*dt_fn)(MPI_Datatype) = take ? cm_dt_retain : cm_dt_release;
        dt_fn(st->dt);
        if (st->kind == STEP_COPY)
            dt_fn(st->ddt);
        if (st->kind == STEP_REDUCE)
            (take ? cm_op_retain : cm_op_release)(st->op);
    }
    s->held = take;
#else
    (void)s;
    (void)take;
#endif
}

static void destroy_schedule(void *state)
{
    struct cm_nbc *s = state;
    set_live(s, 0);
    if (s->held)
        hold(s, 0);
    for (int i = 0; i < s->nblocks; i++)
        cm_coll_tmp_free(s->blocks[i]);
    free(s->steps);
    free(s->reqs);
#ifdef CM_IN_COREMPI
    free(s->got);
    cm_nbc_slots_drop(s->slots);
#endif
    free(s);
}

void cm_nbc_free(struct cm_nbc *s)
{
    destroy_schedule(s);
}

CM_THREAD_LOCAL struct cm_coll_plan cm_coll_capture;

int cm_coll_keep(void *plan, int (*begin)(void *), int (*poll)(void *), void (*block)(void *),
                 void (*destroy)(void *), MPI_Request *request)
{
    cm_coll_capture = (struct cm_coll_plan){ .on = 1, .call = cm_coll_capture.call, .plan = plan, .begin = begin,
                                              .poll = poll, .block = block, .destroy = destroy };
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}

/* A persistent collective's MPI_Start: the schedule from the first step with
 * a fresh tag.  Every rank starts a communicator's collectives (persistent
 * ones' starts included) in one order, so the sequence number is the same
 * on every rank, as for a new nonblocking schedule; a tag drawn once at
 * _init could meet a later nonblocking call's after CM_NBC_TAGS others. */
static int rearm_schedule(void *state)
{
    struct cm_nbc *s = state;
    s->pos = 0;
    s->posted = 0;
    s->base = CM_TAG_NBC_BASE + (int)(cm_coll_nbc_seq(s->comm) % CM_NBC_TAGS);
    s->tag = word_tag(s, 0);
    set_live(s, 1);
    return MPI_SUCCESS;
}

int cm_nbc_start(struct cm_nbc *s, MPI_Request *request)
{
    int rc = cm_nbc_round(s);
    if (rc == MPI_SUCCESS)
        rc = s->error;
    if (rc != MPI_SUCCESS) {
        destroy_schedule(s);
        return rc;
    }
    hold(s, 1);
    if (cm_coll_capture.on) {
        rc = cm_coll_keep(s, rearm_schedule, poll_schedule, NULL, destroy_schedule, request);
#ifdef CM_IN_COREMPI
        if (s->args.word) {
            cm_coll_capture.req = &s->req;
            cm_coll_capture.report = sched_report;
        }
#endif
        return rc;
    }
    set_live(s, 1);
#ifdef CM_IN_COREMPI
    if (s->args.word) {
        struct cm_request *r = cm_request_generic_new(poll_schedule, destroy_schedule, s);
        r->query = query_schedule;
        *request = cm_request_generic_go(r);
        return MPI_SUCCESS;
    }
#endif
    *request = cm_request_generic(poll_schedule, destroy_schedule, s);
    return MPI_SUCCESS;
}
