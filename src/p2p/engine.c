/*
 * engine.c -- the progress engine: polls incoming rings, dispatches arrivals,
 * drains the per-destination queues of sends that did not fit, and waits.
 */
#include "p2p/p2p.h"
#include "p2p/blocked.h"
#include "p2p/outq.h"
#include "p2p/match.h"
#include "p2p/part.h"
#include "p2p/mt.h"
#include "shm/futex.h"
#include "core/state.h"
#include "core/remote.h"
#include "core/comm.h"
#include "core/error.h"
#include "shm/ring.h"
#include "shm/wait.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <unistd.h>
#include <errno.h>
#include <stdio.h>

struct cm_ring_tx *cm_tx;   /* [world size]: rings this rank writes */
struct cm_ring_rx *cm_rx;   /* [world size]: rings this rank reads */

/* Generic requests (nonblocking collectives) are polled by every progress call. */
static struct cm_request **generics;
static int ngenerics, generics_cap;
static int in_generic_poll;

/* MPI_THREAD_MULTIPLE (p2p/mt.h).  generics[] belongs to the progress
 * holder; other threads hand new generic requests over through `incoming`
 * (under incoming_lock), which the holder takes in before each poll. */
static pthread_mutex_t progress_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t *cm_tx_locks;
static pthread_mutex_t incoming_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cm_request **incoming;
static int nincoming, incoming_cap;
/* One thread at a time sleeps on the rank's doorbell (the peers' wakes
 * reach one futex waiter): the holder of doorbell_lock.  The others sleep
 * each on a word of its own (struct sleeper, on its stack), listed under
 * sleepers_lock; see "Sleeping threads" in docs/threads.md. */
static pthread_mutex_t doorbell_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic int ngenerics_hint;   /* incoming may hold requests */
static void add_generic_held(struct cm_request *r);
static void core_share_init(void);

static void view_init(struct cm_ring_view *v, int src, int dst)
{
    v->slots = cm_seg_ring(cm_g.seg, (uint32_t)src, (uint32_t)dst);
    v->ctl = cm_seg_ringctl(cm_g.seg, (uint32_t)src, (uint32_t)dst);
    v->nslots = cm_g.hdr->ring_bytes / CM_SLOT;
}

/* Single copy works when we may read another process's memory.  Reading our
 * own memory proves the syscall is allowed (no seccomp filter); peers are
 * reachable because every rank names the launcher (their common ancestor) as
 * allowed tracer below.  A peer refusal at run time falls back per message. */
static int probe_single_copy(void)
{
    if (!cm_config_flag(COREMPI_SINGLE_COPY, 1))
        return 0;
    if (cm_g.hdr->launcher_pid > 0)
        prctl(PR_SET_PTRACER, (unsigned long)cm_g.hdr->launcher_pid, 0, 0, 0);
    char src[64] = "probe", dst[64];
    struct iovec l = { dst, sizeof dst }, r = { src, sizeof src };
    if (process_vm_readv(getpid(), &l, 1, &r, 1, 0) != (ssize_t)sizeof dst) {
        if (cm_g.verbose)
            fprintf(stderr, "corempi: rank %d: process_vm_readv refused (%s); large messages use the bounce-buffer path\n",
                    cm_g.rank, strerror(errno));
        return 0;
    }
    return 1;
}

int cm_p2p_init(void)
{
    int n = cm_g.size;
    cm_tx = calloc((size_t)n, sizeof *cm_tx);
    cm_rx = calloc((size_t)n, sizeof *cm_rx);
    cm_rndv_out = calloc((size_t)n, sizeof *cm_rndv_out);
    if (!cm_tx || !cm_rx || !cm_rndv_out)
        return MPI_ERR_NO_MEM;
    /* Remote ids (core/remote.h) get their views when a bridge is attached. */
    for (int p = 0; p < cm_g.slots; p++) {
        view_init(&cm_tx[p].v, cm_g.rank, p);
        view_init(&cm_rx[p].v, p, cm_g.rank);
    }
    int rc = cm_p2p_reuse_init(); /* rings of reused slots start at their bases */
    if (rc != MPI_SUCCESS)
        return rc;
    cm_outq_init(n);
    if (cm_mt) {
        /* Another thread may queue work at any moment: progress is never
         * quiet, so the receive fast path and the collectives' quiet waits
         * (which assume nobody else adds work) are never taken.  Counted
         * here rather than tested on those paths: they stay as they were. */
        cm_p2p_am_listeners = 1;
        core_share_init();
        cm_tx_locks = calloc((size_t)n, sizeof *cm_tx_locks);
        if (!cm_tx_locks)
            return MPI_ERR_NO_MEM;
        for (int p = 0; p < n; p++)
            pthread_mutex_init(&cm_tx_locks[p], NULL);
    }
    cm_g.cma_ok = probe_single_copy();
    /* Eager up to 16 KiB by default: past that a single copy beats two copies
     * through the ring (measured with bench/pingpong; see README). */
    uint32_t ring_max = cm_ring_max_payload(cm_tx[0].v.nslots);
    cm_g.eager_max = cm_config_size(COREMPI_EAGER_MAX, 16384);
    if (cm_g.eager_max > ring_max - 8)
        cm_g.eager_max = ring_max - 8;
    /* Streamed fragments of 8 KiB: small enough that the receiver copies
     * fragment k out of L1/L2 while the sender fills k + 1 (4-12 KiB measured
     * best with bench/pingpong at 64 KiB-4 MiB, 64 KiB was 1.5x slower). */
    cm_g.frag_max = cm_config_size(COREMPI_FRAGMENT, 8192);
    /* Rendezvous messages below this are streamed, not read single-copy:
     * ping-pong 64 KiB 18-20 GB/s, 256 KiB 21-23, 1 MiB 23 against 8-10 and
     * 16.5 for the single/split copy (same session, bench/pingpong), and 1 MiB
     * gather/scatter/alltoall at 2 ranks 5-10% faster too; at 4 MiB the two
     * are even (20-26 GB/s) and the split copy costs each side one copy, not
     * two, which leaves cache to the program.  With more ranks than cores
     * the second copy is not free (no idle core does it): 1 MiB bcast,
     * scatter and reduce at 8 ranks on 2 cores were 15-55% slower streamed,
     * so there the split copy starts at 512 KiB. */
    cm_g.stream_max = cm_config_size(COREMPI_STREAM_MAX, cm_g.oversubscribed ? 524288 : 2097152);
    /* Collectives that only move data take the split copy from 1 MiB: see
     * stream_max_for() in rndv.c. */
    cm_g.coll_stream_max = cm_config_size(COREMPI_COLL_STREAM_MAX, 1048576);
    if (cm_g.frag_max > ring_max - 8)
        cm_g.frag_max = ring_max - 8;
    if (cm_g.frag_max < 64)
        cm_g.frag_max = 64;
    return MPI_SUCCESS;
}

void cm_p2p_attach_remote(int w, void *tx_slots, struct cm_ring_ctl *tx_ctl, void *rx_slots,
                          struct cm_ring_ctl *rx_ctl, uint64_t ring_bytes)
{
    memset(&cm_tx[w], 0, sizeof cm_tx[w]);
    memset(&cm_rx[w], 0, sizeof cm_rx[w]);
    cm_tx[w].v = (struct cm_ring_view){ tx_slots, tx_ctl, ring_bytes / CM_SLOT };
    cm_rx[w].v = (struct cm_ring_view){ rx_slots, rx_ctl, ring_bytes / CM_SLOT };
}

void cm_p2p_finalize(void)
{
    cm_part_finalize();
    cm_p2p_reuse_finalize();
    cm_match_finalize();
    cm_outq_finalize();
    free(cm_tx);
    free(cm_rx);
    free(cm_rndv_out);
    cm_rndv_out = NULL;
    free(cm_tx_locks);
    cm_tx_locks = NULL;
    free(incoming);
    incoming = NULL;
    nincoming = incoming_cap = 0;
    cm_tx = NULL;
    cm_rx = NULL;
}

static void complete_send_token(uint64_t token)
{
    struct cm_request *r = (struct cm_request *)(uintptr_t)token;
    cm_send_complete(r);
}

static void handle(int src, struct cm_msg_hdr *h)
{
    char *p = cm_msg_payload(h);
    switch (h->kind) {
    case CM_MSG_EAGER: {
        uint64_t token = 0;
        uint32_t len = h->len;
        if (h->flags & CM_MSGF_SYNC) {
            memcpy(&token, p, 8);
            p += 8;
            len -= 8;
        }
        struct cm_request *r = cm_match_eager(src, h->ctx, h->tag, h->flags, token, p, len);
        if (r) {
            cm_recv_deliver(r, src, h->tag, p, len);
            if (h->flags & CM_MSGF_SYNC)
                cm_send_ctrl(src, CM_MSG_ACK, &token, 8);
        }
        break;
    }
    case CM_MSG_RTS: {
        struct cm_rts rts;
        memcpy(&rts, p, sizeof rts);
        /* A non-contiguous sender has no address to read from: it streams. */
        if (h->flags & CM_MSGF_STREAM)
            rts.addr = 0;
        struct cm_request *r = cm_match_rts(src, h->ctx, h->tag, rts.token, rts.addr, (size_t)rts.len);
        if (r)
            cm_rndv_receive(r, src, h->tag, rts.token, rts.addr, (size_t)rts.len);
        break;
    }
    case CM_MSG_FIN:
    case CM_MSG_ACK: {
        uint64_t token;
        memcpy(&token, p, 8);
        complete_send_token(token);
        break;
    }
    case CM_MSG_CTS: {
        struct cm_cts cts;
        memcpy(&cts, p, sizeof cts);
        cm_send_stream((struct cm_request *)(uintptr_t)cts.sender_token, cts.receiver_token);
        break;
    }
    case CM_MSG_DATA:
        cm_rndv_data(p, h->len);
        break;
    case CM_MSG_WCTS: {
        struct cm_wcts w;
        memcpy(&w, p, sizeof w);
        cm_rndv_write_part(&w, src);
        break;
    }
    case CM_MSG_WDONE: {
        struct cm_wdone d;
        memcpy(&d, p, sizeof d);
        cm_rndv_part_done(&d, src);
        break;
    }
    case CM_MSG_AM:
        if (!cm_p2p_am_handler)
            cm_fatal("progress", "an active message from rank %d and no layer to take it", src);
        cm_p2p_am_handler(src, p, h->len);
        break;
    default:
        cm_fatal("progress", "corrupt message kind %u from rank %d", h->kind, src);
    }
}

void (*cm_p2p_am_handler)(int src_world, const void *payload, uint32_t len);

void cm_p2p_send_am(int dst_world, const void *payload, uint32_t len)
{
    cm_send_ctrl(dst_world, CM_MSG_AM, payload, len);
}

/* A quarter of the ring at most (cm_ring_max_payload), and no more than an
 * eager message (at least 4 KiB whatever COREMPI_EAGER_MAX says): larger
 * ones would wait for a ring almost empty. */
uint32_t cm_p2p_am_max(void)
{
    uint32_t m = cm_ring_max_payload(cm_tx[0].v.nslots) - 8;
    size_t e = cm_g.eager_max < 4096 ? 4096 : cm_g.eager_max;
    return e < m ? (uint32_t)e : m;
}

int cm_p2p_am_queued(int dst_world)
{
    return !cm_outq_empty(dst_world);
}

static void count_progress(void)
{
    cm_poll_reset();   /* something moved: a poll loop starts counting anew */
    cm_progress_bump(cm_g.self_ctl);
}

static int poll_ring(int src)
{
    struct cm_ring_rx *rx = &cm_rx[src];
    struct cm_msg_hdr *h;
    int n = 0, published = 0;
    while ((h = cm_ring_peek(rx)) != NULL) {
        handle(src, h);
        published |= cm_ring_consume(rx, h);
        n++;
    }
    if (published) /* the producer may be waiting for the room just freed */
        cm_peer_wake(src);
    if (n)
        count_progress();
    return n;
}

void cm_progress_consumed(int src, struct cm_msg_hdr *h)
{
    if (cm_ring_consume(&cm_rx[src], h))
        cm_peer_wake(src);
    count_progress();
}

int cm_p2p_am_listeners;
unsigned cm_p2p_owed;
unsigned *cm_rndv_out;

int cm_progress_quiet(void)
{
    return !CM_RACY_LOAD(ngenerics) && !cm_outq_active() && !cm_p2p_am_listeners &&
           !(cm_g.self_ctl && atomic_load_explicit(&cm_g.self_ctl->am_wanted, memory_order_relaxed));
}

/* MULTIPLE: the same test, but cm_p2p_am_listeners counts the 1 that
 * cm_p2p_init added to keep cm_progress_quiet false (the receive fast path
 * asks this one only when it holds what makes it safe: recv_fast.c). */
int cm_progress_quiet_mt(void)
{
    return !CM_RACY_LOAD(ngenerics) && !atomic_load_explicit(&ngenerics_hint, memory_order_relaxed) &&
           !cm_outq_active() && __atomic_load_n(&cm_p2p_am_listeners, __ATOMIC_RELAXED) == 1 &&
           !(cm_g.self_ctl && atomic_load_explicit(&cm_g.self_ctl->am_wanted, memory_order_relaxed));
}

/* The progress holder takes in the generic requests other threads added. */
static void take_incoming(void)
{
    pthread_mutex_lock(&incoming_lock);
    for (int i = 0; i < nincoming; i++)
        add_generic_held(incoming[i]);
    nincoming = 0;
    pthread_mutex_unlock(&incoming_lock);
}

static void poll_generics(void)
{
    if (in_generic_poll)
        return;
    in_generic_poll = 1;
    for (int i = 0; i < ngenerics;) {
        struct cm_request *r = generics[i];
        if (r->poll(r->state)) {
            int freed = r->freed;   /* before: a waiting thread may then release r */
            __atomic_store_n(&r->complete, 1, __ATOMIC_RELEASE);
            int last = ngenerics - 1;
            generics[i] = generics[last];
            __atomic_store_n(&ngenerics, last, __ATOMIC_RELAXED);   /* as in list_add */
            if (freed)
                cm_request_release(r);
        } else {
            i++;
        }
    }
    in_generic_poll = 0;
}

int cm_progress_drop_generic(struct cm_request *r)
{
    /* Another thread may be polling the list: it stays there. */
    if (in_generic_poll || cm_mt)
        return 0;
    for (int i = ngenerics - 1; i >= 0; i--) {
        if (generics[i] == r) {
            generics[i] = generics[--ngenerics];
            return 1;
        }
    }
    return 0;
}

/* Append r to a growing list of requests. */
static void list_add(struct cm_request ***list, int *n, int *cap, struct cm_request *r)
{
    int i = *n;
    if (i == *cap) {
        *cap = *cap ? 2 * *cap : 16;
        *list = realloc(*list, (size_t)*cap * sizeof **list);
        if (!*list)
            cm_fatal("progress", "out of memory");
    }
    (*list)[i] = r;
    CM_FAULT(mt_list_add);   /* nobody else may take or drop an entry meanwhile */
    __atomic_store_n(n, i + 1, __ATOMIC_RELAXED);   /* cm_progress_quiet reads ngenerics unlocked */
}

void cm_progress_add_generic(struct cm_request *r)
{
    if (cm_mt) {
        pthread_mutex_lock(&incoming_lock);
        list_add(&incoming, &nincoming, &incoming_cap, r);
        atomic_store_explicit(&ngenerics_hint, 1, memory_order_release);
        pthread_mutex_unlock(&incoming_lock);
        return;
    }
    add_generic_held(r);
}

static void add_generic_held(struct cm_request *r)
{
    list_add(&generics, &ngenerics, &generics_cap, r);
}

static inline int progress_pass(int hint);

/* A thread asleep on a word of its own (MPI_THREAD_MULTIPLE).  flag: the
 * completion word of the request it waits for (a waker wakes it once that
 * is set), or NULL: it waits for something else (a probe, several
 * requests), and any progress pass that moved something wakes it. */
struct sleeper {
    _Atomic uint32_t word;
    const int *flag;
    struct sleeper *prev, *next;
    int heir;   /* rung to take the doorbell over: under sleepers_lock */
};
static pthread_mutex_t sleepers_lock = PTHREAD_MUTEX_INITIALIZER;   /* leaf */
static struct sleeper *sleepers;
static _Atomic int nsleepers;   /* on the list: a waker with none skips the lock */

static void ring(struct sleeper *z)
{
    atomic_fetch_add_explicit(&z->word, 1, memory_order_relaxed);
    cm_futex_wake((_Atomic uint32_t *)&z->word, 1);
}

/* Wake the sleepers whose request is complete and those that wait for
 * anything; handover: the doorbell is free and one of them must take it,
 * so also an heir -- one whose request is not complete, else the first.
 * Not simply the first: one woken for its completion leaves at once, and
 * the threads still waiting slept on with nobody on the doorbell (the
 * leaving rounds of thread_wake: 2-3 waits of 200 ms in 60).  The heir
 * carries the duty on: if it stops waiting without having taken the
 * doorbell, it hands over in turn (sleep_mt).  After the completions: the
 * fence pairs with the sleeper's registration (a read-modify-write) before
 * it looks at its flag, so one of the two sees the other. */
static void wake_sleepers(int handover)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (!atomic_load_explicit(&nsleepers, memory_order_relaxed))
        return;
    pthread_mutex_lock(&sleepers_lock);
    struct sleeper *heir = NULL;
    for (struct sleeper *z = sleepers; z; z = z->next)
        if (!z->flag || __atomic_load_n(z->flag, __ATOMIC_ACQUIRE))
            ring(z);
        else if (!heir)
            heir = z;
    if (handover && !heir)
        heir = sleepers;   /* every one rung: the first carries the duty */
    if (handover && heir) {
        heir->heir = 1;
        ring(heir);
    }
    pthread_mutex_unlock(&sleepers_lock);
}

void cm_mt_wake_local(void)
{
    wake_sleepers(0);
    /* The doorbell's sleeper may be the one waiting (a generalized
     * request completed by another thread). */
    cm_wake_if_sleeping(cm_g.self_ctl);
}

static CM_THREAD_LOCAL int progressing;   /* this thread holds progress_lock (progress_mt) */

/* MPI_THREAD_MULTIPLE: one thread progresses at a time; the others find
 * the lock taken and go back to watching their own request. */
static __attribute__((noinline)) int progress_mt(int hint)
{
    if (pthread_mutex_trylock(&progress_lock) != 0)
        return 0;
    progressing = 1;
    if (atomic_load_explicit(&ngenerics_hint, memory_order_acquire)) {
        atomic_store_explicit(&ngenerics_hint, 0, memory_order_relaxed);
        take_incoming();
    }
    int n = progress_pass(hint);
    progressing = 0;
    pthread_mutex_unlock(&progress_lock);
    if (n)
        wake_sleepers(0);
    return n;
}

/* MULTIPLE: the progress lock tried for a step that is not a pass (the
 * receive fast path's peek and take of one message for its own caller). */
int cm_progress_hold(void)
{
    if (pthread_mutex_trylock(&progress_lock) != 0)
        return 0;
    progressing = 1;
    return 1;
}

void cm_progress_unhold(void)
{
    progressing = 0;
    pthread_mutex_unlock(&progress_lock);
}

void cm_progress_fence(void)
{
    if (!cm_mt || progressing)
        return;     /* no other thread is in a pass while this one is */
    while (pthread_mutex_trylock(&progress_lock) != 0)
        sched_yield();      /* a pass never waits: it ends soon */
    pthread_mutex_unlock(&progress_lock);
}

int cm_progress(int hint)
{
    if (__builtin_expect(cm_mt, 0))
        return progress_mt(hint);
    return progress_pass(hint);
}

static inline __attribute__((always_inline)) int progress_pass(int hint)
{
    static unsigned sweep;
    int n = 0;
    if (cm_outq_active())
        n += cm_outq_drain();
    /* Poll the ring we expect a message on; sweep all of them regularly so that
     * no sender waits long for room in a ring we are not watching. */
    if (hint >= 0 && (++sweep & 15) != 0) {
        n += poll_ring(hint);
    } else {
        int used = cm_slots_used();
        cm_p2p_reuse_check(); /* a slot may have a new process: p2p/reuse.c */
        for (int s = 0; s < used; s++)
            n += poll_ring(s);
        for (int k = 0; k < cm_remote_n; k++)
            n += poll_ring(cm_remote_list[k]);
    }
    if (n && cm_outq_active())
        n += cm_outq_drain();
    if (ngenerics)
        poll_generics();
    return n;
}

/* Before sleeping: publish every read position not yet published, and wake
 * producers that sleep waiting for that room. */
static void publish_all(void)
{
    int used = cm_slots_used();
    for (int s = 0; s < used; s++)
        if (cm_ring_rx_publish(&cm_rx[s]))
            cm_wake_if_sleeping(cm_seg_ctl(cm_g.seg, (uint32_t)s));
    for (int k = 0; k < cm_remote_n; k++)
        if (cm_ring_rx_publish(&cm_rx[cm_remote_list[k]]))
            cm_peer_wake(cm_remote_list[k]);
}

static int ring_has_message(int s)
{
    struct cm_msg_hdr *h = cm_ring_slot(&cm_rx[s].v, cm_rx[s].rpos);
    return atomic_load_explicit(&h->seq, memory_order_acquire) == (uint32_t)(cm_rx[s].rpos + 1);
}

int cm_progress_pending(void *unused)
{
    (void)unused;
    /* Before sleeping: a slot's new process may be what wakes us. */
    cm_p2p_reuse_check();
    publish_all();
    int used = cm_slots_used();
    for (int s = 0; s < used; s++)
        if (ring_has_message(s))
            return 1;
    for (int k = 0; k < cm_remote_n; k++)
        if (ring_has_message(cm_remote_list[k]))
            return 1;
    return cm_outq_active() && cm_outq_room();
}

CM_THREAD_LOCAL int (*cm_progress_stall)(void *arg);
CM_THREAD_LOCAL void *cm_progress_stall_arg;

/* MPI_THREAD_MULTIPLE: the re-check before a doorbell sleep reads and
 * publishes the rings' consumer state, which only the progress holder may
 * touch; a thread that cannot take the lock does not sleep (someone is
 * progressing). */
static int pending_mt(void *unused)
{
    if (pthread_mutex_trylock(&progress_lock) != 0)
        return 1;
    int p = cm_progress_pending(unused);
    pthread_mutex_unlock(&progress_lock);
    return p;
}

static int flag_set(void *flag);

/* Threads of this process in a blocking wait's back-off, and the cores
 * this process may count on (those it may run on, shared among the job's
 * ranks): more waiting threads than that are oversubscribed, and wait as
 * oversubscribed processes do -- yield at once, sleep soon -- rather than
 * spin on a core another of them needs. */
static _Atomic int nwaiting;
static int core_share = 1;

static void core_share_init(void)
{
    cpu_set_t set;
    int cores = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    core_share = cores / (cm_g.size > 0 ? cm_g.size : 1);
    if (core_share < 1)
        core_share = 1;
}

static int backoff_mt(struct cm_waiter *w, int *counted)
{
    if (!*counted) {
        *counted = 1;
        atomic_fetch_add_explicit(&nwaiting, 1, memory_order_relaxed);
    }
    if (cm_g.oversubscribed || atomic_load_explicit(&nwaiting, memory_order_relaxed) > core_share)
        return cm_wait_backoff_crowded(w);
    return cm_wait_backoff(w);
}

static void sleepers_add(struct sleeper *z)
{
    pthread_mutex_lock(&sleepers_lock);
    z->prev = NULL;
    z->next = sleepers;
    if (sleepers)
        sleepers->prev = z;
    sleepers = z;
    atomic_fetch_add_explicit(&nsleepers, 1, memory_order_seq_cst);
    pthread_mutex_unlock(&sleepers_lock);
}

static void sleepers_remove(struct sleeper *z)
{
    pthread_mutex_lock(&sleepers_lock);
    if (z->prev) z->prev->next = z->next; else sleepers = z->next;
    if (z->next) z->next->prev = z->prev;
    atomic_fetch_sub_explicit(&nsleepers, 1, memory_order_relaxed);
    pthread_mutex_unlock(&sleepers_lock);
}

/* Sleep for at most timeout_us: on the doorbell if no other thread of this
 * process does, else on a word of its own until its request completes (or,
 * waiting for something else, until a progress pass moves something).
 * Returns SLEPT_FOUND when it found done(arg) true: the caller must not
 * ask again (a matched probe's done takes the message); SLEPT_ON_DOORBELL
 * when it slept on the doorbell or was rung as the heir of a thread that
 * left it: the caller hands the doorbell over (wake_sleepers(1)) once it
 * stops waiting, or its wakes would reach no thread while the others sleep
 * on their words.  leaving: the caller
 * returns to the program after this sleep whatever it finds (a poll's
 * nap): handed over here. */
#define SLEPT_FOUND 1
#define SLEPT_ON_DOORBELL 2
static int sleep_mt(int (*done)(void *), void *arg, unsigned timeout_us, int leaving)
{
    /* Generic requests need a poll without any message arriving: whoever
     * sleeps comes back soon to poll them (as cm_progress_until's 1 ms). */
    if ((CM_RACY_LOAD(ngenerics) || atomic_load_explicit(&ngenerics_hint, memory_order_relaxed)) &&
        timeout_us > 1000)
        timeout_us = 1000;
    struct sleeper z = { .flag = done == flag_set ? arg : NULL };
    sleepers_add(&z);
    uint32_t seen = atomic_load_explicit(&z.word, memory_order_relaxed);
    if (pthread_mutex_trylock(&doorbell_lock) == 0) {
        /* Tried after joining the list: a holder that leaves after this
         * try found taken sees this sleeper and hands over. */
        sleepers_remove(&z);
        cm_wait_sleep_us(cm_g.self_ctl, pending_mt, NULL, timeout_us);
        pthread_mutex_unlock(&doorbell_lock);
        int found = done && done(arg);
        if (leaving)
            wake_sleepers(1);
        return (found ? SLEPT_FOUND : 0) | SLEPT_ON_DOORBELL;
    }
    int found = done && done(arg);
    if (!found) {
        struct timespec ts = { (time_t)(timeout_us / 1000000u), (long)(timeout_us % 1000000u) * 1000L };
        CM_FAULT(mt_sleep_word);   /* a completion now must still wake this sleeper */
        cm_futex_wait((_Atomic uint32_t *)&z.word, seen, &ts);
    }
    sleepers_remove(&z);   /* takes the lock: z.heir is final */
    if (z.heir && leaving)
        wake_sleepers(1);
    return (found ? SLEPT_FOUND : 0) | (z.heir ? SLEPT_ON_DOORBELL : 0);
}

void cm_progress_until(int (*done)(void *), void *arg, int hint, unsigned call_id, int peer, int tag,
                       uint16_t ctx)
{
    int (*stall)(void *) = cm_progress_stall;
    cm_progress_stall = NULL;
    struct cm_waiter w;
    struct cm_rank_ctl *me = cm_g.self_ctl;
    int announced = 0, slept = 0, counted = 0;
    cm_waiter_reset(&w);
    while (!done(arg)) {
        if (cm_progress(hint)) {
            cm_waiter_reset(&w);
            continue;
        }
        if (done(arg))
            break;
        if (__builtin_expect(cm_mt, 0) ? backoff_mt(&w, &counted) : cm_wait_backoff(&w))
            continue;
        if (!announced && call_id) {
            /* Only a rank that is about to sleep tells the deadlock watcher. */
            cm_blocked_begin(call_id, peer, tag, ctx);
            announced = 1;
        }
        if (stall && stall(cm_progress_stall_arg))
            break;
        /* Generic requests may need a poll without any message arriving. */
        if (__builtin_expect(cm_mt, 0)) {
            slept |= sleep_mt(done, arg, 200000, 0);
            if (slept & SLEPT_FOUND)
                break;
        } else
            cm_wait_sleep(me, cm_progress_pending, NULL, ngenerics ? 1 : 200);
        hint = -1;
        if (cm_remote_n) {
            /* A process of another job cannot be watched by our mpirun. */
            int gone = cm_remote_dead();
            if (gone >= 0)
                cm_fatal(call_id ? cm_call_name(call_id) : "MPI",
                         "a process of the connected mpirun job (pid %d, gone) died while this rank waited in "
                         "this call; its job ended without disconnecting", (int)cm_peer_ctl(gone)->pid);
        }
    }
    if (announced)
        cm_blocked_end();
    if (slept & SLEPT_ON_DOORBELL)
        wake_sleepers(1);
    if (counted)
        atomic_fetch_sub_explicit(&nwaiting, 1, memory_order_relaxed);
}

int cm_poll_empty(int (*found)(void *), void *arg)
{
    unsigned nap_us;
    switch (cm_poll_backoff(&nap_us)) {
    case 0:
        return 0;
    case 2:
        if (__builtin_expect(cm_mt, 0)) {
            if (sleep_mt(found, arg, nap_us, 1) & SLEPT_FOUND) {
                cm_poll_reset();
                cm_poll_rested();
                return 1;
            }
        } else {
            cm_wait_sleep_us(cm_g.self_ctl, cm_progress_pending, NULL, nap_us);
        }
        break;
    }
    /* The core was away: what it waited for may have come meanwhile. */
    cm_progress(-1);
    int hit = found(arg);
    if (hit)
        cm_poll_reset();
    cm_poll_rested();
    return hit;
}

static int flag_set(void *flag)
{
    return __atomic_load_n((int *)flag, __ATOMIC_ACQUIRE) != 0;
}

void cm_progress_wait(volatile int *flag, int hint, unsigned call_id, int peer, int tag, uint16_t ctx)
{
    if (!__atomic_load_n((int *)flag, __ATOMIC_ACQUIRE))
        cm_progress_until(flag_set, (void *)flag, hint, call_id, peer, tag, ctx);
}
