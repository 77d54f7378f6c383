/*
 * direct/nbc.c -- nonblocking collectives on the shared area (issue 19).
 *
 * Every nonblocking collective on a communicator that has an area runs on
 * the area.  An Ibarrier, a small Ibcast, Ireduce or Iallreduce runs the
 * same shared-memory protocols as the blocking calls, cut into steps that
 * never wait: arrive at an epoch, then test the others'
 * arrivals; claim a FIFO entry if it is free, else try again later; read an
 * entry once its sequence number is there.  The user's request is a generic
 * request whose poll advances the steps, so they move whenever the rank is
 * in MPI (Test, Wait, any blocking call: the progress engine polls generic
 * requests, and shared-memory waits run it too).  MPI_Wait uses the
 * blocking twin of each step (futex sleeps on the same words as the
 * blocking collectives) instead of the doorbell sleep of generic requests.
 * The others (Igather, Iscatter, Iallgather, Ialltoall,
 * Ireduce_scatter_block, larger Ibcast/Ireduce/Iallreduce) move their data
 * through the slots in rounds of one epoch each (direct/nbc_pieces.c).
 *
 * Never a blocking algorithm inside a poll: with calls pending on two
 * communicators, one rank could be inside A's algorithm waiting for a peer
 * that is inside B's waiting for it, started in the other order (legal for
 * nonblocking calls).  Every step here stops where its protocol would wait.
 *
 * Order.  The area's protocols assume that every member runs the area's
 * calls in one order and finishes each before its next one starts (epoch
 * parities, the FIFO counts and acknowledgements: direct.h, docs).  So the
 * operations started on an area form a queue in start order; only the head
 * takes steps, an operation starts its protocol when it becomes the head,
 * and a blocking collective on the area first finishes the whole queue
 * (cm_direct_get, cm_direct_peek).  Every member starts the communicator's
 * collectives in the same order (MPI rule), so every member runs the same
 * sequence on the area; with nonblocking ones in between it is merely
 * spread over time.  No deadlock: the head of any member's queue waits only
 * for other members to reach the same call, and each of them reaches it
 * once its earlier calls, which wait for the same thing, are done.
 *
 * Which calls come here is decided from the arguments and the area's
 * presence, the same on every member.  An area is never attached by a
 * nonblocking call (attaching is collective and blocking); a communicator
 * whose first collectives are nonblocking uses the point-to-point schedules
 * until a blocking collective attaches its area.
 */
#include <mpi.h>
#ifdef CM_IN_COREMPI  /* corempi only: the host-MPI harness compiles every src/coll file */
#include "coll/direct/fold.h"
#include "coll/direct/nbc.h"
#include "coll/nbc.h"
#include "core/datatype.h"
#include "core/op.h"
#include "core/request.h"
#include "p2p/request_wait.h"
#include "core/state.h"
#include "shm/copy.h"
#include "shm/wait.h"

#include <stdlib.h>
#include <string.h>

static int enabled(void)
{
    return cm_config_flag(COREMPI_SHM_NBC, 1);
}

/* Records of one-shot calls come from a free list (calloc and free were a
 * sixth of a small call's instructions): popped and pushed by the one
 * thread below MPI_THREAD_MULTIPLE; under it, calloc and free. */
static struct cm_direct_nbc *spare;

struct cm_direct_nbc *cm_direct_nbc_new(void)
{
    struct cm_direct_nbc *o = spare;
    if (cm_mt || !o)
        return calloc(1, sizeof *o);
    spare = o->next;
    memset(o, 0, sizeof *o);
    return o;
}

void cm_direct_nbc_free(struct cm_direct_nbc *o)
{
    if (cm_mt) {
        free(o);
        return;
    }
    o->next = spare;
    spare = o;
}

/* ---- the steps ---------------------------------------------------------- */

/* Each returns 1 when the operation is complete.  block = 0: never waits;
 * block = 1: waits where the protocol waits. */

static int barrier_step(struct cm_direct_nbc *o, int block)
{
    struct cm_direct *s = o->s;
    if (!o->started) {
        o->started = 1;
        o->k = cm_direct_sync_arrive(s, o->args.word);
    }
    if (!cm_direct_nbc_synced(s, o, block))
        return 0;
    cm_direct_nbc_words(o, o->k);
    return 1;
}

/* A mismatch seen in a FIFO entry of o (direct.h, argument agreement). */
static int nbc_mismatch(struct cm_direct_nbc *o, int peer, uint32_t theirs)
{
    o->mm = (struct cm_direct_mismatch){ .on = 1, .peer = peer, .mine = o->args.word, .theirs = theirs };
    return 1;
}

/* A broadcast-FIFO reader of o saw another word in the entry: its writer is
 * the root that word names (another one than mine when the roots differ). */
static void reader_mismatch(struct cm_direct_nbc *o, const struct cm_direct_bfifo_entry *e)
{
    nbc_mismatch(o, cm_direct_word_root(e->word, e->sig_class, o->s->n, o->root), e->word);
}

/* The root of broadcast-FIFO call o->k: the entry claimed, take it (0: another
 * rank took it as root too, recorded). */
static int root_takes(struct cm_direct_nbc *o, struct cm_direct_bfifo_entry *e)
{
    int peer;
    uint32_t theirs;
    if (__builtin_expect(!cm_direct_bfifo_take(o->s, o->k, &peer, &theirs), 0))
        return !nbc_mismatch(o, peer, theirs);
    e->word = o->args.word;
    e->sig_class = (uint8_t)o->args.sig_class;   /* a blocking reader compares it (direct.h) */
    return 1;
}

/* The broadcast FIFO as in direct/bcast.c, and a small scatter through it
 * as direct/scatter.c: the root claims entry k, fills it (a scatter's:
 * every other rank's block, block i at i * bytes), publishes; a reader
 * waits for the publication and copies out (a scatter's: its own block).
 * Both count the call (cm_direct_bfifo_done) only when finished with the
 * entry. */
static int bfifo_step(struct cm_direct_nbc *o, int block)
{
    struct cm_direct *s = o->s;
    int scatter = o->kind == NBC_SCATTER;
    if (!o->started) {
        o->started = 1;
        o->k = s->bcasts++;
    }
    struct cm_direct_bfifo_entry *e = cm_direct_bfifo(s, o->k);
    size_t filled = scatter ? (size_t)s->n * o->bytes : o->bytes;
    unsigned char *data = filled <= CM_DIRECT_BFIFO_INLINE ? e->inl : e->data;
    if (s->rank == o->root) {
        if (block)
            cm_direct_bfifo_claim(s, o->k);
        else if (!cm_direct_bfifo_try_claim(s, o->k))
            return 0;
        if (!root_takes(o, e))
            return 1;
        for (int i = 0; scatter && i < s->n; i++)
            if (i != s->rank)
                cm_direct_pack(data + (size_t)i * o->bytes, (const char *)o->sbuf + (size_t)i * o->sblk, o->scount,
                            o->stype);
        if (!scatter)
            cm_direct_pack(data, o->rbuf, o->count, o->dt);
        atomic_store_explicit(&e->seq, o->k + 1, memory_order_release);
        cm_direct_wake32(&e->seq, &e->seq_waiters);
        if (scatter && !o->inplace)
            cm_direct_nbc_copy_block((const char *)o->sbuf + (size_t)s->rank * o->sblk, o->scount, o->stype, o->rbuf,
                                  o->rcount, o->rtype);
    } else {
        if (block)
            cm_direct_wait32(s, &e->seq, &e->seq_waiters, o->k + 1);
        else if ((int32_t)(atomic_load_explicit(&e->seq, memory_order_acquire) - (o->k + 1)) < 0)
            return 0;
        if (cm_direct_words_differ(e->word, o->args.word))
            reader_mismatch(o, e);
        else if (scatter)
            cm_direct_unpack(data + (size_t)s->rank * o->bytes, o->rbuf, o->rcount, o->rtype);
        else
            cm_direct_unpack(data, o->rbuf, o->count, o->dt);
    }
    cm_direct_bfifo_done(s, o->k);
    return 1;
}

/* The root of a reduce-FIFO call: 1 once every other rank's entry k is
 * published (all of them: the root's acknowledgement speaks for every
 * earlier call, direct.h). */
static int entries_in(struct cm_direct_nbc *o, int block)
{
    struct cm_direct *s = o->s;
    for (int r = 0; r < s->n; r++) {
        if (r == s->rank)
            continue;
        struct cm_direct_rfifo_entry *e = cm_direct_rfifo(s, r, o->k);
        if (block)
            cm_direct_wait32(s, &e->seq, &e->seq_waiters, o->k + 1);
        else if ((int32_t)(atomic_load_explicit(&e->seq, memory_order_acquire) - (o->k + 1)) < 0)
            return 0;
    }
    for (int r = 0; r < s->n && !o->mm.on; r++) {
        uint32_t w = cm_direct_rfifo(s, r, o->k)->word;
        if (r != s->rank && cm_direct_words_differ(w, o->args.word))
            nbc_mismatch(o, r, w);
    }
    return 1;
}

/* A non-root's entry k of the reduce FIFO: claim, fill(arg, data), publish.
 * 0 while the entry is not free yet (block = 0). */
static int entry_out(struct cm_direct_nbc *o, int block, void (*fill)(struct cm_direct_nbc *o, unsigned char *data))
{
    struct cm_direct *s = o->s;
    struct cm_direct_rfifo_entry *e = cm_direct_rfifo(s, s->rank, o->k);
    if (block)
        cm_direct_rfifo_claim(s, o->k);
    else if (!cm_direct_rfifo_try_claim(s, o->k))
        return 0;
    fill(o, e->data);
    e->word = o->args.word;
    e->sig_class = o->args.sig_class & 0xffu;
    atomic_store_explicit(&e->seq, o->k + 1, memory_order_release);
    cm_direct_wake32(&e->seq, &e->seq_waiters);
    return 1;
}

static void fill_vector(struct cm_direct_nbc *o, unsigned char *data)
{
    cm_copy(data, (const char *)o->sbuf + o->tlb, o->bytes);
}

/* What the reduce-FIFO calls share: a non-root's whole step (fill
 * publishes its entry); the root's wait for every other entry, and its end
 * where they showed a mismatch.  -1: the root has every entry to read;
 * else the step's result. */
static int rfifo_gathered(struct cm_direct_nbc *o, int block, int root,
                          void (*fill)(struct cm_direct_nbc *o, unsigned char *data))
{
    if (o->s->rank != root)
        return entry_out(o, block, fill);
    if (!entries_in(o, block))
        return 0;
    if (o->mm.on) {
        cm_direct_rfifo_done(o->s, o->k);
        return 1;
    }
    return -1;
}

static void fill_block(struct cm_direct_nbc *o, unsigned char *data)
{
    cm_direct_pack(data, o->sbuf, o->scount, o->stype);
}

/* A small gather through the reduce FIFO, as direct/gather.c: a non-root packs
 * its block into its entry and is done; the root unpacks them all and
 * acknowledges. */
static int gather_step(struct cm_direct_nbc *o, int block)
{
    struct cm_direct *s = o->s;
    if (!o->started) {
        o->started = 1;
        o->k = s->to_root++;
    }
    int rc = rfifo_gathered(o, block, o->root, fill_block);
    if (rc >= 0)
        return rc;
    if (!o->inplace)
        cm_direct_nbc_copy_block(o->sbuf, o->scount, o->stype, (char *)o->rbuf + (size_t)s->rank * o->rblk, o->rcount,
                              o->rtype);
    for (int r = 0; r < s->n; r++)
        if (r != s->rank)
            cm_direct_unpack(cm_direct_rfifo(s, r, o->k)->data, (char *)o->rbuf + (size_t)r * o->rblk, o->rcount, o->rtype);
    cm_direct_rfifo_done(s, o->k);
    return 1;
}

/* The reduce FIFO as in direct/reduce.c: a non-root claims its entry k, fills
 * and publishes it and is done; the root waits for every other rank's
 * entry (all of them: its acknowledgement speaks for every earlier call,
 * direct.h), folds in rank order and acknowledges. */
static int reduce_fifo_step(struct cm_direct_nbc *o, int block, int root, char *out)
{
    struct cm_direct *s = o->s;
    int me = s->rank, n = s->n;
    const char *sb = (const char *)o->sbuf + o->tlb;
    int rc = rfifo_gathered(o, block, root, fill_vector);
    if (rc >= 0)
        return rc;
    /* Right fold in rank order; in place the root's input is out itself. */
    unsigned char own[CM_DIRECT_RFIFO_BYTES];
    cm_copy(own, sb, o->bytes);
    cm_copy(out, me == n - 1 ? own : cm_direct_rfifo(s, n - 1, o->k)->data, o->bytes);
    cm_op_kernel_fn kernel = cm_direct_kernel(o->op, o->dt);
    for (int r = n - 2; r >= 0; r--) {
        const unsigned char *x = r == me ? own : cm_direct_rfifo(s, r, o->k)->data;
        if (kernel)
            kernel(x, out, (size_t)o->count);
        else
            PMPI_Reduce_local(x - o->tlb, out - o->tlb, o->count, o->dt, o->op);
    }
    cm_direct_rfifo_done(s, o->k);
    return 1;
}

static int reduce_step(struct cm_direct_nbc *o, int block)
{
    if (!o->started) {
        o->started = 1;
        o->k = o->s->to_root++;
    }
    return reduce_fifo_step(o, block, o->root, (char *)o->rbuf + o->tlb);
}

/* Allreduce of a small vector: each rank copies its vector into its data of
 * the coming epoch's parity (flag line, meeting line or slot: cm_direct_data),
 * arrives, and once all arrived folds every rank's vector in rank order
 * itself.  The data of parity p is written again only for epoch e + 2,
 * which nobody starts before every member arrived at e + 1, and a member
 * arrives there only after its fold of epoch e (one operation at a time). */
static int allreduce_step(struct cm_direct_nbc *o, int block)
{
    struct cm_direct *s = o->s;
    if (!o->started) {
        o->started = 1;
        int p = cm_direct_parity(s);
        cm_copy(cm_direct_data(s, s->rank, p, o->bytes), (const char *)o->sbuf + o->tlb, o->bytes);
        o->k = cm_direct_sync_arrive(s, o->args.word);
    }
    if (!cm_direct_nbc_synced(s, o, block))
        return 0;
    if (cm_direct_nbc_words(o, o->k))
        return 1;
    cm_direct_fold_all(s, (int)(o->k & 1), o->bytes, (char *)o->rbuf + o->tlb, o->count, o->dt, o->op);
    return 1;
}

static int step(struct cm_direct_nbc *o, int block)
{
    switch (o->kind) {
    case NBC_PIECES: return cm_direct_nbc_pieces_step(o, block);
    case NBC_BARRIER: return barrier_step(o, block);
    case NBC_GATHER: return gather_step(o, block);
    case NBC_SCATTER:
    case NBC_BCAST: return bfifo_step(o, block);
    case NBC_REDUCE: return reduce_step(o, block);
    case NBC_ALLREDUCE: return allreduce_step(o, block);
    case NBC_HOOK: return o->hook(o, block);
    }
    return 1;
}

/* ---- the queue ------------------------------------------------------------ */

/* Step the head while it completes; with block, until `until` is done (NULL:
 * the whole queue).  A shared-memory wait inside a blocking step runs the
 * progress engine, which polls this area's requests again: nbc_busy keeps
 * that poll out of the queue being advanced. */
static void run_queue(struct cm_direct *s, int block, const struct cm_direct_nbc *until)
{
    /* A blocking call that found mismatched arguments lets its shared-memory
     * waits return at once until it raises the error (direct.h): no blocking
     * step may rely on them meanwhile. */
    if (cm_direct_mm.on)
        block = 0;
    struct cm_direct_nbc *h;
    while ((h = s->nbc_head) != NULL) {
        if (!step(h, block))
            break;
        cm_direct_nbc_pop(s);
        if (h == until)
            break;
    }
}

static void advance(struct cm_direct *s, int block, const struct cm_direct_nbc *until)
{
    /* MULTIPLE: nbc_busy is the area's try-lock (direct/nbc_lock.c); a
     * poll gives way to its holder, a blocking caller waits for it. */
    if (__builtin_expect(cm_mt, 0)) {
        if (cm_direct_nbc_lock(s, block) > 0) {
            run_queue(s, block, until);
            cm_direct_nbc_unlock(s);
        }
        return;
    }
    if (s->nbc_busy)
        return;
    s->nbc_busy = 1;
    run_queue(s, block, until);
    s->nbc_busy = 0;
}

void cm_direct_nbc_drain(struct cm_direct *s)
{
    advance(s, 1, NULL);
    /* N1: a blocking call takes its first step only after every call started
     * before it on the area finished (unless the queue is being advanced
     * below us, or this call's arguments disagree and nothing waits). */
    CM_ASSERT(!s->nbc_head || __atomic_load_n(&s->nbc_busy, __ATOMIC_RELAXED) || cm_direct_mm.on,
              "N1 (docs/protocols.md)");
}

static int poll_op(void *state)
{
    struct cm_direct_nbc *o = state;
    if (!cm_direct_nbc_done(o))
        advance(o->s, 0, NULL);
    return cm_direct_nbc_done(o);
}

static void block_op(void *state)
{
    struct cm_direct_nbc *o = state;
    if (!cm_direct_nbc_done(o))
        advance(o->s, 1, o);
}

static inline void kept_hold(const struct cm_direct_nbc *o, int take);

/* A one-shot record holds its types and op like a kept one (see
 * kept_hold): the user may free them once the call returned. */
static void free_op(void *state)
{
    kept_hold(state, 0);
    cm_direct_nbc_free(state);
}

int cm_direct_nbc_poll(void *o) { return poll_op(o); }
void cm_direct_nbc_block(void *o) { block_op(o); }

/* The area of cc if the engine takes a call there (see the top). */
struct cm_direct *cm_direct_nbc_area(MPI_Comm cc)
{
    if (!enabled())
        return NULL;
    struct cm_direct *s = cm_direct_peek_slow(cc);
    return s && s->n > 1 ? s : NULL;
}

/* A persistent collective's _init is collective and may synchronize (MPI-4.1
 * §6.13: its initialization calls follow the ordering rules of collective
 * operations), so unlike a nonblocking call it may set up the communicator's
 * area when no blocking collective has yet: a program that makes its plans
 * right after MPI_Init would otherwise plan every one on point-to-point
 * schedules for good (an 8-byte Allreduce_init + Start + Wait took 0.83 us
 * instead of 0.28).  Every member calls this at the same point of every
 * _init, before any check of its own arguments, so all take part alike. */
void cm_direct_nbc_prepare(MPI_Comm cc, const char *call)
{
    /* An area already there is left alone: cm_direct_get would also drain
     * the nonblocking operations pending on it, which an _init need not. */
    if (enabled())
        cm_direct_prepare(cc, call);
}

void cm_direct_nbc_enqueue(struct cm_direct *s, struct cm_direct_nbc *o)
{
    /* MULTIPLE: the progress holder may be advancing the queue. */
    int held = __builtin_expect(cm_mt, 0) && cm_direct_nbc_lock(s, 1) > 0;
    o->s = s;
    cm_direct_unrung_add(1);
    CM_FAULT(mt_nbc_enqueue);   /* nobody may pop the tail meanwhile */
    if (s->nbc_tail)
        s->nbc_tail->next = o;
    else
        s->nbc_head = o;
    s->nbc_tail = o;
    if (held)
        cm_direct_nbc_unlock(s);
}

/* A persistent collective's plan on the area: the record as the front end
 * made it (kind, arguments, nothing stepped yet) and the one that runs.
 * Each MPI_Start copies the first over the second and queues it: the same
 * protocol from its first step, with no allocation or choice made again. */
struct kept {
    struct cm_direct_nbc pristine;
    struct cm_direct_nbc run;
    struct cm_request *req;     /* the persistent request (coll/persist.c) */
};

static int kept_begin(void *state)
{
    struct kept *k = state;
    k->run = k->pristine;
    cm_direct_nbc_enqueue(k->pristine.s, &k->run);
    return MPI_SUCCESS;
}

int cm_direct_nbc_kept_poll(struct cm_direct_nbc *o, struct cm_request *req)
{
    int done = poll_op(o);
    if (done)
        cm_direct_nbc_kept_check(o, req);
    return done;
}

static int kept_poll(void *state)
{
    struct kept *k = state;
    return cm_direct_nbc_kept_poll(&k->run, k->req);
}

static void kept_block(void *state)
{
    struct kept *k = state;
    block_op(&k->run);
    cm_direct_nbc_kept_check(&k->run, k->req);
}
/* The record outlives the call (the _init of a kept plan): its types and
 * op stay usable after the user frees them (released with the record). */
static void hold_all(const struct cm_direct_nbc *o, int take)
{
    void (*dt_fn)(MPI_Datatype) = take ? cm_dt_retain : cm_dt_release;
    dt_fn(o->dt);
    dt_fn(o->stype);
    dt_fn(o->rtype);
    (take ? cm_op_retain : cm_op_release)(o->op);
}

/* Predefined types and ops, and the fields a kind leaves unset (0), are
 * never freed: no call for them (most calls have only those). */
static inline int freeable_type(MPI_Datatype t) { return t && t != MPI_DATATYPE_NULL && !cm_dt_is_basic(t); }

static inline void kept_hold(const struct cm_direct_nbc *o, int take)
{
    if (__builtin_expect(freeable_type(o->dt) || freeable_type(o->stype) || freeable_type(o->rtype) ||
                         (o->op && cm_op_index(o->op) >= CM_OP_NUM_PREDEFINED), 0))
        hold_all(o, take);
}

int cm_direct_nbc_report_once(struct cm_direct_nbc *o)
{
    if (!o->mm.on)
        return MPI_SUCCESS;
    o->mm.on = 0;
    return cm_coll_mismatch_report(o->args.comm, o->args.call, &o->mm, o->args.sig_class);
}

static int kept_report(void *state)
{
    return cm_direct_nbc_report_once(&((struct kept *)state)->run);
}

static void kept_free(void *state)
{
    struct kept *k = state;
    kept_hold(&k->pristine, 0);
    free(k);
}

/* Wait/Test of a nonblocking call's request: the mismatch its steps saw. */
/* The first step at the start, when the area has no operation pending (o is
 * its head as soon as queued, and a queued head's first poll would take
 * the same step, cm_request_generic_go): an operation that the step
 * completes (every peer's part was there, or it needs nobody: a root's
 * broadcast, a non-root's reduce) returns a request born complete and
 * frees its record at once, with no queue, hold or generic request; one
 * that does not is queued started.  1: done, *request set.  Not under
 * MPI_THREAD_MULTIPLE (another thread may be advancing the queue) nor for
 * a persistent plan (its record is kept). */
static int eager(struct cm_direct *s, struct cm_direct_nbc *o, MPI_Request *request)
{
    if (cm_mt || s->nbc_head || s->nbc_busy)
        return 0;
    o->s = s;
    if (!step(o, 0))
        return 0;
    o->done = 1;
    if (__builtin_expect(o->mm.on, 0))
        return 0;   /* the generic request reports it (query_op) */
    cm_direct_nbc_free(o);
    struct cm_request *r = cm_request_new(CM_REQ_DONE);
    r->complete = 1;
    *request = cm_request_handle(r);
    return 1;
}

static int query_op(struct cm_request *r)
{
    const struct cm_direct_nbc *o = r->state;
    return o->mm.on ? cm_coll_mismatch_report(o->args.comm, o->args.call, &o->mm, o->args.sig_class) : MPI_SUCCESS;
}

int cm_direct_nbc_queue(struct cm_direct *s, struct cm_direct_nbc *o, MPI_Request *request)
{
    o->args = cm_direct_nbc_next;
    o->args.word = cm_direct_nb_word(o->args.word);   /* never a blocking call's (direct.h) */
    if (cm_coll_capture.on) {
        struct kept *k = malloc(sizeof *k);
        if (!k) {
            cm_direct_nbc_free(o);
            return CM_COLL_NO_SHORTCUT;
        }
        o->s = s;
        k->pristine = *o;
        kept_hold(o, 1);
        cm_direct_nbc_free(o);
        int rc = cm_coll_keep(k, kept_begin, kept_poll, kept_block, kept_free, request);
        cm_coll_capture.req = &k->req;
        cm_coll_capture.report = kept_report;
        return rc;
    }
    if (eager(s, o, request))
        return MPI_SUCCESS;
    kept_hold(o, 1);
    if (!o->done)
        cm_direct_nbc_enqueue(s, o);
    /* Born complete when the protocol needs nobody else now (a root's
     * broadcast, a non-root's reduce): cm_request_generic polls once. */
    struct cm_request *r = cm_request_generic_new(poll_op, free_op, o);
    r->block = block_op;
    r->query = query_op;
    *request = cm_request_generic_go(r);
    return MPI_SUCCESS;
}

int cm_direct_nbc_barrier(MPI_Comm cc, MPI_Request *request)
{
    struct cm_direct *s = cm_direct_nbc_area(cc);
    struct cm_direct_nbc *o = s ? cm_direct_nbc_new() : NULL;
    if (!o)
        return CM_COLL_NO_SHORTCUT;
    o->kind = NBC_BARRIER;
    cm_direct_nbc_lane_note(s, o);
    return cm_direct_nbc_queue(s, o, request);
}

int cm_direct_nbc_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm cc, MPI_Request *request)
{
    size_t bytes = cm_direct_bytes(count, dt, NULL, NULL, NULL);
    /* A count of 0 takes the entry too: the readers compare its word (a
     * rank with 0 where the others have data must meet them, issue 32). */
    struct cm_direct *s = bytes <= CM_DIRECT_BFIFO_BYTES && cm_direct_bfifo_enabled() ? cm_direct_nbc_area(cc) : NULL;
    struct cm_direct_nbc *o = s ? cm_direct_nbc_new() : NULL;
    if (!o)
        return cm_direct_nbc_bcast_pieces(buf, count, dt, root, cc, request);
    cm_direct_nbc_vector(o, NBC_BCAST, NULL, buf, count, dt, MPI_OP_NULL, root, bytes);
    return cm_direct_nbc_queue(s, o, request);
}

/* Reductions take contiguous types only: the FIFO and the slots hold the
 * vector's bytes as they are, and the fold runs on them. */
struct cm_direct_nbc *cm_direct_nbc_reduction(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                                        int root, MPI_Comm cc, size_t max, enum nbc_kind kind, struct cm_direct **s)
{
    int contiguous;
    MPI_Aint tlb;
    size_t bytes = cm_direct_bytes(count, dt, &contiguous, &tlb, NULL);
    *s = contiguous && bytes <= max ? cm_direct_nbc_area(cc) : NULL;   /* 0 bytes too (the FIFO, a sync) */
    struct cm_direct_nbc *o = *s ? cm_direct_nbc_new() : NULL;
    if (!o)
        return NULL;
    cm_direct_nbc_vector(o, kind, sbuf, rbuf, count, dt, op, root, bytes);
    o->tlb = tlb;
    return o;
}

int cm_direct_nbc_reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                      MPI_Comm cc, MPI_Request *request)
{
    struct cm_direct *s;
    struct cm_direct_nbc *o = cm_direct_rfifo_enabled()
                               ? cm_direct_nbc_reduction(sbuf, rbuf, count, dt, op, root, cc, CM_DIRECT_RFIFO_BYTES, NBC_REDUCE, &s)
                               : NULL;
    return o ? cm_direct_nbc_queue(s, o, request) : cm_direct_nbc_reduce_pieces(sbuf, rbuf, count, dt, op, root, cc, request);
}

/* Up to the size from which the blocking allreduce folds in slices (every
 * rank folding every vector costs n times the bytes). */
int cm_direct_nbc_allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm cc,
                         MPI_Request *request)
{
    /* A persistent allreduce keeps a plan of its own (direct/persist_allreduce.c). */
    if (cm_coll_capture.on && cm_direct_persist_allreduce(sbuf, rbuf, count, dt, op, cc, request) == MPI_SUCCESS)
        return MPI_SUCCESS;
    struct cm_direct *s;
    struct cm_direct_nbc *o = cm_direct_nbc_reduction(sbuf, rbuf, count, dt, op, -1, cc, CM_DIRECT_SPLIT_FOLD_MIN, NBC_ALLREDUCE, &s);
    if (o && o->bytes > s->slot_bytes) {
        cm_direct_nbc_free(o);
        o = NULL;
    }
    if (o)
        cm_direct_nbc_lane_note(s, o);
    return o ? cm_direct_nbc_queue(s, o, request) : cm_direct_nbc_allreduce_pieces(sbuf, rbuf, count, dt, op, cc, request);
}
#endif
