/* match.c -- posted and unexpected queues (see match.h). */
#include "core/status.h"
#include "p2p/match.h"
#include "p2p/p2p.h"
#include "p2p/coll_entry.h"
#include "core/state.h"
#include "core/comm.h"
#include "core/datatype.h"
#include "core/error.h"
#include "shm/ring.h"
#include "shm/copy.h"
#include "p2p/mt.h"

#include <stdlib.h>
#include <string.h>

/* One matching queue per context id: a message matches only a receive of
 * its own context, so contexts never share a walk, and under
 * MPI_THREAD_MULTIPLE each queue has its own lock -- threads receiving on
 * different communicators never contend (docs/threads.md, "Matching per
 * context").  No code holds two queues' locks at once.
 *
 * Per sender, the same unexpected messages: a receive from one source walks
 * only that source's.  When senders run ahead of a busy receiver (many to
 * one, more ranks than cores) the unexpected messages pile up, and a walk of
 * all of them per receive took 89% of the time (8 ranks, 256 B: 16-53 us per
 * round of 7 messages against Open MPI's 1.5-1.9).  Arrival order within a
 * sender is all a specific-source receive needs; MPI_ANY_SOURCE walks the
 * list of all. */
struct src_list { struct cm_unexp *head, *tail; };
struct match_q {
    pthread_mutex_t lock;                  /* MULTIPLE only */
    struct cm_request *posted_head, *posted_tail;
    struct cm_unexp *unexp_head, *unexp_tail;
    struct src_list *by_src;               /* world size entries, made on first use */
    struct match_q *made_next;             /* every queue made, for the finalize */
    uint16_t ctx;
};
/* By context id; a queue is made on its context's first use (an arrival
 * may come before this process made the communicator) and kept to the
 * finalize, published with a release store: lookups take no lock. */
static struct match_q *queues[CM_CTX_MAX];
static struct match_q *made;
static pthread_mutex_t make_lock = PTHREAD_MUTEX_INITIALIZER;   /* leaf */
/* Receives posted and messages on the unexpected queues now, over every
 * context, and the most unexpected at any time (MPI_T).  nposted is kept
 * below MULTIPLE only, where cm_match_idle asks (progress is never quiet
 * under MULTIPLE, so the idle test is never reached there). */
static long nposted;
static uint64_t unexp_now, unexp_most;

static __attribute__((noinline)) struct match_q *queue_make(uint16_t ctx)
{
    cm_mt_lock(&make_lock);
    struct match_q *q = queues[ctx];
    CM_FAULT(mt_queue_make);   /* another thread's queue for ctx must not be replaced */
    if (!q) {
        q = calloc(1, sizeof *q);
        if (!q)
            cm_fatal("progress", "out of memory for the matching queue of context %u", (unsigned)ctx);
        pthread_mutex_init(&q->lock, NULL);
        q->ctx = ctx;
        q->made_next = made;
        made = q;
        __atomic_store_n(&queues[ctx], q, __ATOMIC_RELEASE);
    }
    cm_mt_unlock(&make_lock);
    return q;
}

static inline __attribute__((always_inline)) struct match_q *queue_of(uint16_t ctx)
{
    struct match_q *q = __atomic_load_n(&queues[ctx], __ATOMIC_ACQUIRE);
    return __builtin_expect(q != NULL, 1) ? q : queue_make(ctx);
}

/* The context's queue if it was ever made, else NULL (nothing to find). */
static inline struct match_q *queue_if(uint16_t ctx)
{
    return __atomic_load_n(&queues[ctx], __ATOMIC_ACQUIRE);
}

void cm_p2p_unexpected_stats(uint64_t *now, uint64_t *most)
{
    *now = __atomic_load_n(&unexp_now, __ATOMIC_RELAXED);
    *most = __atomic_load_n(&unexp_most, __ATOMIC_RELAXED);
}

/* The unexpected count moves under one queue's lock: queues of several
 * contexts change it at once under MULTIPLE. */
static void unexp_count(int d)
{
    if (!cm_mt) {
        unexp_now += (uint64_t)(int64_t)d;
        if (unexp_now > unexp_most)
            unexp_most = unexp_now;
        return;
    }
    uint64_t now = __atomic_add_fetch(&unexp_now, (uint64_t)(int64_t)d, __ATOMIC_RELAXED);
    uint64_t most = __atomic_load_n(&unexp_most, __ATOMIC_RELAXED);
    while (now > most && !__atomic_compare_exchange_n(&unexp_most, &most, now, 0, __ATOMIC_RELAXED,
                                                      __ATOMIC_RELAXED))
        ;
}

/* A blocking collective's receive (want_tag carries a word) takes a message
 * of the same base tag with another word (coll_entry.h, "the argument
 * word").  Asked only when the tags differ. */
static inline int other_word(uint16_t ctx, int want_tag, int tag)
{
    /* The receive's tag first: a user's tag (mostly below 2^15) fails at
     * once, and nothing loop-invariant is worth hoisting out of the
     * matching loops (their hit path stays as it was). */
    return (unsigned)want_tag - (CM_P2P_TAG_BASE_MASK + 1) < CM_P2P_TAG_LIMIT - (CM_P2P_TAG_BASE_MASK + 1) &&
           (unsigned)tag < CM_P2P_TAG_LIMIT && (((unsigned)want_tag ^ (unsigned)tag) & CM_P2P_TAG_BASE_MASK) == 0 &&
           (ctx & 1);
}

static inline int fits(uint16_t ctx, int want_src, int want_tag, int src, int tag)
{
    return (want_src == src || want_src == -1) &&
           (want_tag == tag || want_tag == MPI_ANY_TAG || __builtin_expect(other_word(ctx, want_tag, tag), 0));
}

static void posted_unlink(struct match_q *q, struct cm_request *r)
{
    if (r->prev) r->prev->next = r->next; else q->posted_head = r->next;
    if (r->next) r->next->prev = r->prev; else q->posted_tail = r->prev;
    r->prev = r->next = NULL;
    r->on_posted = 0;
    if (!cm_mt)
        nposted--;
}

int cm_match_idle(void)
{
    return nposted == 0 && unexp_now == 0;
}

/* MULTIPLE, for the receive fast path (recv_fast.c): ctx's queue locked and
 * 1 when it holds no posted receive and no unexpected message, else 0 and
 * unlocked.  The caller holds the progress lock (progress -> match[ctx]). */
int cm_match_hold_idle(uint16_t ctx)
{
    struct match_q *q = queue_of(ctx);
    pthread_mutex_lock(&q->lock);
    if (!q->posted_head && !q->unexp_head)
        return 1;
    pthread_mutex_unlock(&q->lock);
    return 0;
}

void cm_match_unhold(uint16_t ctx)
{
    pthread_mutex_unlock(&queues[ctx]->lock);
}

/* The oldest receive posted on q that the message fits, taken off. */
static struct cm_request *match_posted(struct match_q *q, uint16_t ctx, int src_world, int tag)
{
    for (struct cm_request *r = q->posted_head; r; r = r->next) {
        if (fits(ctx, r->peer_world, r->tag, src_world, tag)) {
            posted_unlink(q, r);
            return r;
        }
    }
    return NULL;
}

static struct cm_unexp *unexp_new(struct match_q *q, int src, uint16_t ctx, int tag, size_t len)
{
    struct cm_unexp *u = calloc(1, sizeof *u);
    if (!q->by_src)
        q->by_src = calloc((size_t)cm_g.size, sizeof *q->by_src);
    if (!u || !q->by_src)
        cm_fatal("progress", "out of memory for an unexpected message");
    u->src_world = src;
    u->ctx = ctx;
    u->tag = tag;
    u->len = len;
    u->prev = q->unexp_tail;
    if (q->unexp_tail) q->unexp_tail->next = u; else q->unexp_head = u;
    q->unexp_tail = u;
    struct src_list *l = &q->by_src[src];
    u->src_prev = l->tail;
    if (l->tail) l->tail->src_next = u; else l->head = u;
    l->tail = u;
    unexp_count(1);
    return u;
}

static inline __attribute__((always_inline)) void unexp_unlink(struct match_q *q, struct cm_unexp *u)
{
    if (u->prev) u->prev->next = u->next; else q->unexp_head = u->next;
    if (u->next) u->next->prev = u->prev; else q->unexp_tail = u->prev;
    struct src_list *l = &q->by_src[u->src_world];
    if (u->src_prev) u->src_prev->src_next = u->src_next; else l->head = u->src_next;
    if (u->src_next) u->src_next->src_prev = u->src_prev; else l->tail = u->src_prev;
    u->next = u->prev = u->src_next = u->src_prev = NULL;
    unexp_count(-1);
}

/* A message a blocking collective's algorithm sent on context ctx: its tag
 * carries the argument word above a base below the schedules' (p2p/coll_entry.h). */
static int worded(const struct cm_unexp *u, int with_nbc)
{
    return (unsigned)u->tag > CM_P2P_TAG_BASE_MASK && (unsigned)u->tag < CM_P2P_TAG_LIMIT &&
           (with_nbc || ((unsigned)u->tag & CM_P2P_TAG_BASE_MASK) < CM_P2P_TAG_NBC_FIRST);
}

static void drain_rings(void)
{
    for (int i = 0; i < 64 && cm_progress(-1) > 0; i++)
        ;   /* what has arrived in the rings, into the queue */
}

int cm_unexp_find_worded(uint16_t ctx, int skip_base, int with_nbc, int *src_world, int *tag)
{
    drain_rings();
    struct match_q *q = queue_if(ctx);
    if (!q)
        return 0;
    int found = 0;
    cm_mt_lock(&q->lock);
    for (struct cm_unexp *u = q->unexp_head; u && !found; u = u->next)
        if (worded(u, with_nbc) && ((unsigned)u->tag & CM_P2P_TAG_BASE_MASK) != (unsigned)skip_base) {
            *src_world = u->src_world;
            *tag = u->tag;
            found = 1;
        }
    cm_mt_unlock(&q->lock);
    return found;
}

void cm_unexp_drop_worded(uint16_t ctx, int with_nbc)
{
    drain_rings();
    struct match_q *q = queue_if(ctx);
    if (!q)
        return;
    cm_mt_lock(&q->lock);
    for (struct cm_unexp *u = q->unexp_head, *next; u; u = next) {
        next = u->next;
        if (worded(u, with_nbc) && u->kind == CM_MSG_EAGER && !(u->flags & CM_MSGF_SYNC)) {
            unexp_unlink(q, u);
            free(u->data);
            free(u);
        }
    }
    cm_mt_unlock(&q->lock);
}

struct cm_request *cm_match_eager(int src, uint16_t ctx, int tag, uint8_t flags, uint64_t token,
                                  const void *data, size_t len)
{
    struct match_q *q = queue_of(ctx);
    cm_mt_lock(&q->lock);
    struct cm_request *r = match_posted(q, ctx, src, tag);
    CM_FAULT(mt_match_queue);   /* a receive posted now must find this message */
    if (!r) {
        struct cm_unexp *u = unexp_new(q, src, ctx, tag, len);
        u->kind = CM_MSG_EAGER;
        u->flags = flags;
        u->token = token;
        if (len) {
            u->data = malloc(len);
            if (!u->data)
                cm_fatal("progress", "out of memory for an unexpected message of %zu bytes", len);
            cm_copy(u->data, data, len);
        }
    }
    cm_mt_unlock(&q->lock);
    return r;
}

struct cm_request *cm_match_rts(int src, uint16_t ctx, int tag, uint64_t token, uint64_t addr, size_t len)
{
    struct match_q *q = queue_of(ctx);
    cm_mt_lock(&q->lock);
    struct cm_request *r = match_posted(q, ctx, src, tag);
    if (!r) {
        struct cm_unexp *u = unexp_new(q, src, ctx, tag, len);
        u->kind = CM_MSG_RTS;
        u->token = token;
        u->addr = addr;
    }
    cm_mt_unlock(&q->lock);
    return r;
}

static struct cm_unexp *unexp_find(struct match_q *q, uint16_t ctx, int src_world, int tag, int remove);

/* MPI_THREAD_MULTIPLE: a message only looked at (Probe) may be taken and
 * freed by another thread's receive at once; the caller gets a copy. */
static CM_THREAD_LOCAL struct cm_unexp probed;

struct cm_unexp *cm_unexp_find(uint16_t ctx, int src_world, int tag, int remove)
{
    struct match_q *q = queue_of(ctx);
    if (!__builtin_expect(cm_mt, 0))
        return unexp_find(q, ctx, src_world, tag, remove);
    pthread_mutex_lock(&q->lock);
    struct cm_unexp *u = unexp_find(q, ctx, src_world, tag, remove);
    if (u && !remove) {
        probed = *u;
        probed.next = probed.prev = probed.src_next = probed.src_prev = NULL;
        probed.data = NULL;
        u = &probed;
    }
    pthread_mutex_unlock(&q->lock);
    return u;
}

static struct cm_unexp *unexp_find(struct match_q *q, uint16_t ctx, int src_world, int tag, int remove)
{
    struct cm_unexp *u;
    if (src_world >= 0) {
        u = q->by_src ? q->by_src[src_world].head : NULL;
        while (u && !fits(ctx, src_world, tag, u->src_world, u->tag))
            u = u->src_next;
    } else {
        u = q->unexp_head;
        while (u && !fits(ctx, src_world, tag, u->src_world, u->tag))
            u = u->next;
    }
    if (u && remove)
        unexp_unlink(q, u);
    return u;
}

void cm_status_set(MPI_Status *st, struct cm_comm *c, int src_world, int tag, size_t bytes)
{
    st->MPI_SOURCE = c ? c->peer_comm_of[src_world] : src_world;
    st->MPI_TAG = tag;
    cm_status_set_private(st, (long long)bytes, 0);
}

void cm_recv_matched(struct cm_request *r, int src_world, int tag, size_t len)
{
    struct cm_comm *c = cm_comm_lookup(r->comm, NULL);
    size_t n = len;
    r->status.MPI_ERROR = MPI_SUCCESS;
    if (len > r->bytes) {
        n = r->bytes;
        r->status.MPI_ERROR = MPI_ERR_TRUNCATE;
    }
    r->expected = n;
    r->msg_len = len;
    r->received = 0;
    cm_status_set(&r->status, c, src_world, tag, n);
    /* For a streamed rendezvous, and Cancel.  The owner, waiting in another
     * thread, reads it as its polling hint before the completion
     * (cm_request_wait): either value serves, hence relaxed. */
    __atomic_store_n(&r->peer_world, src_world, __ATOMIC_RELAXED);
}

void cm_recv_complete(struct cm_request *r)
{
    cm_p2p_settle(r);
    int freed = r->freed;   /* before: a waiting thread may then release r */
    __atomic_store_n(&r->complete, 1, __ATOMIC_RELEASE);
    if (freed)
        cm_request_release(r);
}

/* Where received bytes go when the receive buffer is contiguous; NULL when
 * it is not (the data is then unpacked straight into the user's layout). */
static void *recv_target(struct cm_request *r)
{
    struct cm_datatype *t = cm_dt_lookup(r->dtype);
    if (t->contig || r->expected == 0)
        return (char *)r->buf + t->true_lb;
    return NULL;
}

void cm_recv_deliver(struct cm_request *r, int src_world, int tag, const void *data, size_t len)
{
    cm_recv_matched(r, src_world, tag, len);
    if (r->expected) {
        void *target = recv_target(r);
        if (target)
            cm_copy(target, data, r->expected);
        else
            cm_dt_unpack(data, r->expected, r->buf, r->count, cm_dt_lookup(r->dtype));
    }
    cm_recv_complete(r);
}

/* Receive side of a rendezvous whose RTS matched r. */
void cm_rndv_receive_into(struct cm_request *r, void *target, int src_world, uint64_t token,
                          uint64_t addr, size_t len);

void cm_rndv_receive(struct cm_request *r, int src_world, int tag, uint64_t token, uint64_t addr, size_t len)
{
    cm_recv_matched(r, src_world, tag, len);
    cm_rndv_receive_into(r, recv_target(r), src_world, token, addr, len);
}

static void start_from_unexp(struct cm_request *r, struct cm_unexp *u)
{
    if (u->kind == CM_MSG_EAGER) {
        cm_recv_deliver(r, u->src_world, u->tag, u->data, u->len);
        if (u->flags & CM_MSGF_SYNC)
            cm_send_ctrl(u->src_world, CM_MSG_ACK, &u->token, 8);
    } else {
        cm_recv_matched(r, u->src_world, u->tag, u->len);
        cm_rndv_receive_into(r, recv_target(r), u->src_world, u->token, u->addr, u->len);
    }
    free(u->data);
    free(u);
}

void cm_recv_start_matched(struct cm_request *r, struct cm_unexp *u)
{
    struct cm_datatype *t = cm_dt_lookup(r->dtype);
    r->complete = 0;
    r->bytes = (size_t)r->count * t->size;
    start_from_unexp(r, u);
}

void cm_recv_start(struct cm_request *r)
{
    r->complete = 0;
    r->cancelled = 0;
    r->status.MPI_ERROR = MPI_SUCCESS;
    if (r->peer == MPI_PROC_NULL) {
        r->status.MPI_SOURCE = MPI_PROC_NULL;
        r->status.MPI_TAG = MPI_ANY_TAG;
        cm_status_set_private(&r->status, 0, 0);
        r->complete = 1;
        return;
    }
    struct cm_comm *c = cm_comm_lookup(r->comm, &r->ctx);
    struct cm_datatype *t = cm_dt_lookup(r->dtype);
    r->bytes = (size_t)r->count * t->size;
    r->peer_world = r->peer == MPI_ANY_SOURCE ? -1 : c->peer_world_of[r->peer];
    /* Drain what has arrived, so that the unexpected queue is up to date and
     * an older message is never bypassed. */
    cm_progress(r->peer_world);
    /* Find or post under one hold of the lock: a message handled meanwhile
     * by another thread is either found here or finds this receive. */
    struct match_q *q = queue_of(r->ctx);
    cm_mt_lock(&q->lock);
    struct cm_unexp *u = unexp_find(q, r->ctx, r->peer_world, r->tag, 1);
    CM_FAULT(mt_find_post);   /* a message handled now must find this receive */
    if (!u) {
        r->prev = q->posted_tail;
        r->next = NULL;
        if (q->posted_tail) q->posted_tail->next = r; else q->posted_head = r;
        q->posted_tail = r;
        r->on_posted = 1;
        if (!cm_mt)
            nposted++;
    }
    cm_mt_unlock(&q->lock);
    if (u)
        start_from_unexp(r, u);
}

int cm_recv_cancel(struct cm_request *r)
{
    struct match_q *q = queue_of(r->ctx);
    cm_mt_lock(&q->lock);
    int posted = r->on_posted;
    if (posted)
        posted_unlink(q, r);
    cm_mt_unlock(&q->lock);
    if (!posted)
        return 0;
    r->cancelled = 1;
    cm_status_set_cancelled(&r->status, 1);
    r->status.MPI_SOURCE = MPI_ANY_SOURCE;
    r->status.MPI_TAG = MPI_ANY_TAG;
    cm_status_set_bytes(&r->status, 0);
    __atomic_store_n(&r->complete, 1, __ATOMIC_RELEASE);
    if (cm_mt)
        cm_mt_wake_local();   /* another thread may be waiting on r */
    return 1;
}

void cm_match_finalize(void)
{
    while (made) {
        struct match_q *q = made;
        made = q->made_next;
        while (q->unexp_head) {
            struct cm_unexp *u = q->unexp_head;
            q->unexp_head = u->next;
            free(u->data);
            free(u);
        }
        free(q->by_src);
        pthread_mutex_destroy(&q->lock);
        queues[q->ctx] = NULL;
        free(q);
    }
    nposted = 0;
}
