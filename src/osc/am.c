/*
 * am.c -- one-sided operations without single copy: when the kernel refuses
 * process_vm_readv/writev (ptrace settings, containers, or
 * COREMPI_SINGLE_COPY=0), an origin cannot reach memory of a window on user
 * memory (Win_create, Win_create_dynamic).  It then sends the operation as an
 * active message through the point-to-point rings, and the target applies it
 * to its own memory inside its progress: any MPI call it makes, and every
 * wait of an MPI call (point-to-point, collectives, lock, fence, PSCW).
 * docs/osc.md, "Without single copy", argues the protocol.
 *
 * A message: struct am_hdr, nseg struct am_seg (target addresses in the
 * target's address space, byte lengths), then the origin's packed data for
 * those segments (Put, Accumulate), in order.  Each message fits
 * cm_p2p_am_max(): the origin cuts the target datatype's runs into pieces,
 * counting 16 + len bytes for each piece, so the request and its reply
 * (the same bytes of data, one header) both fit.  Accumulate pieces are cut
 * at element boundaries.
 *
 * Completion:
 *   - Put and Accumulate are acknowledged, one ACK per message; the origin
 *     counts messages sent and acknowledged per target, and every call that
 *     must complete operations at the target (flush, unlock, unlock_all,
 *     fence, complete, free) first waits until the two are equal
 *     (cm_osc_am_drain).  The origin's buffer is free at once: the data is
 *     copied into the ring or the destination's FIFO (p2p/outq.c).
 *   - Get, Get_accumulate, Fetch_and_op and Compare_and_swap wait in their
 *     call for the replies, so they are complete when it returns, as on
 *     the single-copy path.
 * Messages from one origin to one target travel in one FIFO ring, so the
 * target applies them in the order they were issued (the standard's
 * default accumulate ordering, and a Get sees the origin's earlier Puts).
 *
 * Atomicity: the target applies an accumulate under its own accumulate
 * lock -- the word in the control area that origins using single copy take
 * for the same target (acc.c) -- so accumulates from both paths and from
 * the target itself exclude each other per target.  The handler takes the
 * lock without progress (it must not run progress): every holder is in a
 * short section that neither waits nor runs progress (acc.c's read-op-write
 * and this handler), so spinning, then yielding, ends.
 */
#include "osc/osc.h"
#include "core/datatype.h"
#include "core/error.h"
#include "core/state.h"
#include "core/remote.h"
#include "p2p/p2p.h"
#include "shm/wait.h"
#include "shm/fault.h"
#include "core/thread.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

enum { AM_PUT = 1, AM_GET, AM_ACC, AM_CAS, AM_ACK, AM_REPLY };

struct am_hdr {
    uint32_t type;
    uint32_t nseg;
    uint64_t win;      /* requests: the target's struct cm_win, in the target */
    uint64_t token;    /* the origin's ack counter (Put, Accumulate) or struct reply */
    uint64_t roff;     /* replies land at this offset of the origin's buffer */
    int64_t op;        /* ACC: MPI_Op; predefined handles are the same in every process */
    int64_t basic;     /* ACC, CAS: the basic MPI_Datatype */
    uint32_t fetch;    /* ACC: reply with the old values (Get_accumulate, Fetch_and_op) */
    uint32_t pad;
};

struct am_seg {
    uint64_t addr;
    uint64_t len;
};

/* The origin's side of a fetching operation: the replies fill buf. */
struct reply {
    char *buf;
    size_t want, got;
};

/* Windows that may receive active messages: only these are trusted as the
 * target of a request (a pointer from another process is checked here). */
static struct cm_win **live;
static int nlive, live_cap;
static int nlisten;   /* live windows that expect messages (am_listen) */
/* MPI_THREAD_MULTIPLE: the list above, changed by windows created and
 * freed in any thread and read by the progressing one's handler.  Leaf. */
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;

uint64_t cm_osc_am_ops;   /* operations sent as active messages (tests read it) */

static struct cm_win *find_live(uint64_t p)
{
    struct cm_win *w = NULL;
    cm_mt_lock(&live_lock);
    for (int i = 0; i < nlive && !w; i++)
        if ((uint64_t)(uintptr_t)live[i] == p)
            w = live[i];
    cm_mt_unlock(&live_lock);
    return w;
}

/* ---- the target's side ------------------------------------------------------ */

static void acc_lock_here(struct cm_win *w)
{
    _Atomic uint32_t *word = &w->rctl[w->rank].acc;
    for (unsigned i = 0;; i++) {
        uint32_t zero = 0;
        if (atomic_compare_exchange_strong(word, &zero, 1))
            return;
        if (i < 100)
            cm_cpu_relax();
        else
            sched_yield();
    }
}

static void acc_unlock_here(struct cm_win *w)
{
    struct cm_osc_rank_ctl *rc = &w->rctl[w->rank];
    atomic_store(&rc->acc, 0);
    cm_osc_wake(&rc->acc, &rc->acc_sleepers);
}

static void send_ack(int src, uint64_t token)
{
    struct am_hdr a = { .type = AM_ACK, .token = token };
    cm_p2p_send_am(src, &a, sizeof a);
}

/* A reply carries a request's header fields token and roff, then data. */
static char *reply_start(const struct am_hdr *h, size_t bytes)
{
    char *m = malloc(sizeof(struct am_hdr) + (bytes ? bytes : 1));
    if (!m)
        cm_fatal("one-sided progress", "out of memory for a %zu-byte reply", bytes);
    struct am_hdr r = { .type = AM_REPLY, .token = h->token, .roff = h->roff };
    memcpy(m, &r, sizeof r);
    return m;
}

static void serve(int src, const struct am_hdr *h, const char *p, uint32_t len)
{
    struct cm_win *w = find_live(h->win);
    if (!w)
        cm_fatal("one-sided progress", "rank %d sent an operation for a window this process does not have", src);
    if ((size_t)h->nseg * sizeof(struct am_seg) > len)
        cm_fatal("one-sided progress", "a corrupt operation from rank %d", src);
    struct am_seg *seg = malloc((h->nseg ? h->nseg : 1) * sizeof *seg);
    if (!seg)
        cm_fatal("one-sided progress", "out of memory");
    memcpy(seg, p, h->nseg * sizeof *seg);
    const char *data = p + h->nseg * sizeof *seg;
    size_t total = 0;
    for (uint32_t i = 0; i < h->nseg; i++)
        total += seg[i].len;
    switch (h->type) {
    case AM_PUT:
        for (uint32_t i = 0; i < h->nseg; i++) {
            memcpy((char *)(uintptr_t)seg[i].addr, data, seg[i].len);
            data += seg[i].len;
        }
        send_ack(src, h->token);
        break;
    case AM_GET: {
        char *m = reply_start(h, total), *d = m + sizeof *h;
        for (uint32_t i = 0; i < h->nseg; i++) {
            memcpy(d, (const char *)(uintptr_t)seg[i].addr, seg[i].len);
            d += seg[i].len;
        }
        cm_p2p_send_am(src, m, (uint32_t)(sizeof *h + total));
        free(m);
        break;
    }
    case AM_ACC: {
        struct cm_osc_elem e;
        MPI_Datatype basic = (MPI_Datatype)(intptr_t)h->basic;
        cm_osc_elem_init(&e, (MPI_Op)(intptr_t)h->op, basic);
        size_t es = cm_dt_lookup(basic)->size;
        int noop = e.op == MPI_NO_OP;
        char *m = h->fetch ? reply_start(h, total) : NULL, *old = m ? m + sizeof *h : NULL;
        acc_lock_here(w);
        for (uint32_t i = 0; i < h->nseg; i++) {
            cm_osc_apply_locked((char *)(uintptr_t)seg[i].addr, noop ? NULL : data, old, seg[i].len / es, es, &e);
            if (!noop)
                data += seg[i].len;
            if (old)
                old += seg[i].len;
        }
        acc_unlock_here(w);
        if (m) {
            cm_p2p_send_am(src, m, (uint32_t)(sizeof *h + total));
            free(m);
        } else {
            send_ack(src, h->token);
        }
        break;
    }
    case AM_CAS: {
        /* one segment; data: the new value, then the compare value */
        size_t es = (size_t)seg[0].len;
        char *t = (char *)(uintptr_t)seg[0].addr;
        char *m = reply_start(h, es);
        acc_lock_here(w);
        memcpy(m + sizeof *h, t, es);
        if (memcmp(t, data + es, es) == 0)
            memcpy(t, data, es);
        acc_unlock_here(w);
        cm_p2p_send_am(src, m, (uint32_t)(sizeof *h + es));
        free(m);
        break;
    }
    default:
        cm_fatal("one-sided progress", "unknown operation %u from rank %d", h->type, src);
    }
    free(seg);
}

static void handler(int src, const void *payload, uint32_t len)
{
    struct am_hdr h;
    if (len < sizeof h)
        cm_fatal("one-sided progress", "a short message (%u bytes) from rank %d", len, src);
    memcpy(&h, payload, sizeof h);
    const char *p = (const char *)payload + sizeof h;
    len -= (uint32_t)sizeof h;
    if (h.type == AM_ACK) {
        uint64_t *count = (uint64_t *)(uintptr_t)h.token;
        (*count)++;
    } else if (h.type == AM_REPLY) {
        struct reply *r = (struct reply *)(uintptr_t)h.token;
        if (len)
            memcpy(r->buf + h.roff, p, len);
        r->got += len;
    } else {
        serve(src, &h, p, len);
    }
}

/* ---- windows ------------------------------------------------------------------ */

void cm_osc_am_open(struct cm_win *w)
{
    __atomic_store_n(&cm_p2p_am_handler, handler, __ATOMIC_RELEASE);
    w->am_sent = calloc((size_t)w->size, sizeof *w->am_sent);
    w->am_acked = calloc((size_t)w->size, sizeof *w->am_acked);
    cm_mt_lock(&live_lock);
    CM_FAULT(mt_osc_live);
    if (nlive == live_cap) {
        live_cap = live_cap ? 2 * live_cap : 8;
        live = realloc(live, (size_t)live_cap * sizeof *live);
    }
    if (!live || !w->am_sent || !w->am_acked)
        cm_fatal("MPI_Win_create", "out of memory");
    live[nlive++] = w;
    /* Without single copy here, every origin most likely lacks it too (the
     * same kernel settings): this process will be a target of messages. */
    if (!cm_g.cma_ok) {
        w->am_listen = 1;
        __atomic_fetch_add(&cm_p2p_am_listeners, 1, __ATOMIC_RELAXED);
        nlisten++;
    }
    cm_mt_unlock(&live_lock);
}

void cm_osc_am_close(struct cm_win *w)
{
    cm_mt_lock(&live_lock);
    for (int i = 0; i < nlive; i++)
        if (live[i] == w)
            live[i] = live[--nlive];
    if (w->am_listen) {
        __atomic_fetch_sub(&cm_p2p_am_listeners, 1, __ATOMIC_RELAXED);
        nlisten--;
        w->am_listen = 0;
    }
    cm_mt_unlock(&live_lock);
    free(w->am_sent);
    free(w->am_acked);
    w->am_sent = w->am_acked = NULL;
}

int cm_osc_am_live(void)
{
    return nlisten > 0 || atomic_load_explicit(&cm_g.self_ctl->am_wanted, memory_order_relaxed);
}

struct drain_arg {
    struct cm_win *w;
    int rank;
};

static int drained(void *p)
{
    struct drain_arg *a = p;
    return a->w->am_acked[a->rank] == a->w->am_sent[a->rank];
}

void cm_osc_am_drain(struct cm_win *w, int rank)
{
    if (!w->am_sent)
        return;
    for (int t = rank < 0 ? 0 : rank; t < (rank < 0 ? w->size : rank + 1); t++) {
        struct drain_arg a = { w, t };
        if (!drained(&a))
            cm_progress_until(drained, &a, w->world_of[t], 0, -1, 0, 0);
    }
}

/* ---- the origin's side -------------------------------------------------------- */

struct build {
    struct cm_win *w;
    int rank, dst;        /* window rank, world rank */
    struct am_hdr h;      /* the template of every message */
    uint64_t addr;        /* the target location's address */
    const char *src;      /* packed origin data, advancing; NULL: none travels */
    size_t es;            /* pieces are multiples of this */
    size_t budget;        /* bytes of segments and data per message */
    struct am_seg *seg;
    uint32_t nseg;
    char *data;
    size_t dlen;
    size_t used;          /* 16 + len per piece so far */
    size_t off, msg_off;  /* packed offset: next byte, this message's first */
    struct reply *reply;  /* fetching operations */
    char *msg;
};

static int queue_empty(void *p)
{
    return !cm_p2p_am_queued(*(int *)p);
}

static void flush_msg(struct build *b)
{
    if (!b->nseg)
        return;
    /* At most one message waits outside the ring: a long Put does not copy
     * itself into the FIFO whole.  Progress meanwhile serves this rank's
     * own targets, so two origins never wait for each other here. */
    if (cm_p2p_am_queued(b->dst))
        cm_progress_until(queue_empty, &b->dst, b->dst, 0, -1, 0, 0);
    struct am_hdr h = b->h;
    h.nseg = b->nseg;
    h.roff = b->msg_off;
    memcpy(b->msg, &h, sizeof h);
    memcpy(b->msg + sizeof h, b->seg, b->nseg * sizeof *b->seg);
    if (b->dlen)
        memcpy(b->msg + sizeof h + b->nseg * sizeof *b->seg, b->data, b->dlen);
    cm_p2p_send_am(b->dst, b->msg, (uint32_t)(sizeof h + b->nseg * sizeof *b->seg + b->dlen));
    if (b->reply)
        b->reply->want += b->off - b->msg_off;
    else
        b->w->am_sent[b->rank]++;
    b->nseg = 0;
    b->dlen = 0;
    b->used = 0;
    b->msg_off = b->off;
}

static int piece(MPI_Aint off, size_t len, void *p)
{
    struct build *b = p;
    uint64_t a = b->addr + (uint64_t)off;
    while (len) {
        size_t need = b->used + sizeof(struct am_seg);
        size_t room = b->budget > need ? b->budget - need : 0;
        room -= room % b->es;
        if (!room) {
            flush_msg(b);
            continue;
        }
        size_t n = len < room ? len : room;
        b->seg[b->nseg].addr = a;
        b->seg[b->nseg].len = n;
        b->nseg++;
        if (b->src) {
            memcpy(b->data + b->dlen, b->src, n);
            b->src += n;
            b->dlen += n;
        }
        b->used += sizeof(struct am_seg) + n;
        b->off += n;
        a += n;
        len -= n;
    }
    return 0;
}

static int reply_done(void *p)
{
    struct reply *r = p;
    return r->got == r->want;
}

/* Send count elements of t at tgt as messages of template h; with a reply
 * buffer, wait for the replies. */
static int run(struct cm_win *w, int rank, const struct cm_osc_tgt *tgt, int count, const struct cm_datatype *t,
               struct am_hdr h, const void *src, size_t es, void *reply_buf)
{
    struct build b = { 0 };
    struct reply r = { reply_buf, 0, 0 };
    size_t max = cm_p2p_am_max();
    b.w = w;
    b.rank = rank;
    b.dst = w->world_of[rank];
    h.win = w->peer[rank].win;
    /* The target may not listen: it had single copy when the window was
     * made, and so did we until the kernel refused one (a ptrace policy
     * change).  Ask it to, before the first message: its waits, even a
     * collective's sleep, then run progress (within a long nap, 200 ms). */
    struct cm_rank_ctl *tc = cm_peer_ctl(b.dst);
    if (!atomic_load_explicit(&tc->am_wanted, memory_order_relaxed)) {
        atomic_store_explicit(&tc->am_wanted, 1, memory_order_seq_cst);
        cm_wake(tc);
    }
    b.addr = tgt->addr;
    b.src = src;
    b.es = es;
    b.budget = max - sizeof(struct am_hdr);
    b.seg = malloc(b.budget / sizeof(struct am_seg) * sizeof *b.seg + sizeof *b.seg);
    b.data = malloc(b.budget);
    b.msg = malloc(max);
    if (reply_buf) {
        b.reply = &r;
        h.token = (uint64_t)(uintptr_t)&r;
    } else {
        h.token = (uint64_t)(uintptr_t)&w->am_acked[rank];
    }
    b.h = h;
    if (!b.seg || !b.data || !b.msg) {
        free(b.seg);
        free(b.data);
        free(b.msg);
        return MPI_ERR_NO_MEM;
    }
    cm_osc_for_each_block(count, t, piece, &b);
    flush_msg(&b);
    free(b.seg);
    free(b.data);
    free(b.msg);
    cm_osc_am_ops++;
    if (reply_buf && !reply_done(&r))
        cm_progress_until(reply_done, &r, b.dst, 0, -1, 0, 0);
    return MPI_SUCCESS;
}

int cm_osc_am_put(struct cm_win *w, int rank, const struct cm_osc_tgt *tgt, int count, const struct cm_datatype *t,
                  const void *packed)
{
    struct am_hdr h = { .type = AM_PUT };
    return run(w, rank, tgt, count, t, h, packed, 1, NULL);
}

int cm_osc_am_get(struct cm_win *w, int rank, const struct cm_osc_tgt *tgt, int count, const struct cm_datatype *t,
                  void *packed)
{
    struct am_hdr h = { .type = AM_GET };
    return run(w, rank, tgt, count, t, h, NULL, 1, packed);
}

int cm_osc_am_acc(struct cm_win *w, int rank, const struct cm_osc_tgt *tgt, int count, const struct cm_datatype *t,
                  const struct cm_osc_elem *e, const void *o, void *result)
{
    struct am_hdr h = { .type = AM_ACC, .op = (int64_t)(intptr_t)e->op, .basic = (int64_t)(intptr_t)e->basic,
                        .fetch = result != NULL };
    size_t es = cm_dt_lookup(e->basic)->size;
    return run(w, rank, tgt, count, t, h, e->op == MPI_NO_OP ? NULL : o, es, result);
}

int cm_osc_am_cas(struct cm_win *w, int rank, const struct cm_osc_tgt *tgt, const struct cm_datatype *t,
                  const void *origin, const void *compare, void *result)
{
    size_t es = t->size, max = sizeof(struct am_hdr) + sizeof(struct am_seg) + 2 * es;
    char msg[sizeof(struct am_hdr) + sizeof(struct am_seg) + 32];
    struct reply r = { result, es, 0 };
    struct am_hdr h = { .type = AM_CAS, .nseg = 1, .win = w->peer[rank].win, .token = (uint64_t)(uintptr_t)&r };
    struct am_seg s = { tgt->addr + (uint64_t)t->true_lb, es };
    memcpy(msg, &h, sizeof h);
    memcpy(msg + sizeof h, &s, sizeof s);
    memcpy(msg + sizeof h + sizeof s, origin, es);
    memcpy(msg + sizeof h + sizeof s + es, compare, es);
    int dst = w->world_of[rank];
    cm_p2p_send_am(dst, msg, (uint32_t)max);
    cm_osc_am_ops++;
    if (!reply_done(&r))
        cm_progress_until(reply_done, &r, dst, 0, -1, 0, 0);
    return MPI_SUCCESS;
}
