/*
 * recv_fast.c -- the blocking receive's fast path: watch the one ring the
 * message must come through and copy an eager payload straight from its slot
 * into the user's buffer, with no request, no posted-queue entry and no
 * unexpected copy.
 *
 * Why it is safe: it runs only when no receive is posted, nothing waits
 * unmatched and no send or nonblocking collective needs progress.  The first
 * message in src's ring is then the oldest message from src that this rank
 * has not matched, so if it fits (context, tag) it is exactly the one MPI's
 * ordering gives this receive.  Anything else (another context or tag, a
 * rendezvous, a synchronous send, a message that would truncate) is left in
 * the ring untouched for the general path, which handles every case.  While
 * it spins it sweeps the other rings now and then so that their senders are
 * never starved of room; should that sweep queue anything, the fast path
 * gives way.  Under MPI_THREAD_MULTIPLE, where other threads share the
 * rings and queues, a variant holds the locks that make the same argument
 * hold (recv_fast_mt).  It never sleeps: past the spin budget the general path takes
 * over the waiting, with its yield, futex sleep and deadlock report.
 */
#include "p2p/p2p.h"
#include "p2p/match.h"
#include "core/state.h"
#include "core/comm.h"
#include "shm/ring.h"
#include "shm/wait.h"

#include <string.h>

extern struct cm_ring_rx *cm_rx;

/* Sweep every ring once per this many polls of the watched one (as cm_progress does). */
#define SWEEP_EVERY 16u

/* A few cycles between polls of the watched line.  Polling back to back keeps
 * so many loads of that line in flight that the sender's write, when it comes,
 * costs the reader a pipeline flush and the writer a second ownership
 * transfer: a 1-byte MPI_Send/MPI_Recv ping-pong at 2 bound ranks measured
 * 85-97 ns one way with no gap, 71-73 ns with 15-30 empty iterations and
 * 75-86 ns with 45-60.  PAUSE would do it too but its length varies by CPU
 * and under KVM a run of them invites pause-loop exiting (see wait.c). */
#define POLL_GAP_ITERATIONS 24

static inline void poll_gap(void)
{
    for (int i = 0; i < POLL_GAP_ITERATIONS; i++)
        __asm__ volatile("" ::: "memory");
}

static inline int takes(const struct cm_msg_hdr *h, uint16_t ctx, int tag, size_t bytes)
{
    return h->kind == CM_MSG_EAGER && h->flags == 0 && h->ctx == ctx &&
           (tag == MPI_ANY_TAG || h->tag == tag) && h->len <= bytes;
}

/* The message h, which takes() accepted, copied out and consumed. */
static inline __attribute__((always_inline)) void take(struct cm_msg_hdr *h, void *buf, int src_world,
                                                       struct cm_comm *c, MPI_Status *status)
{
    uint32_t len = h->len;
    int msg_tag = h->tag;
    cm_copy_small(buf, cm_msg_payload(h), len);
    cm_progress_consumed(src_world, h);
    if (status != MPI_STATUS_IGNORE)
        cm_status_set(status, c, src_world, msg_tag, len);
}

/* MPI_THREAD_MULTIPLE (docs/threads.md, "The receive fast path under
 * MULTIPLE").  Each poll holds the progress lock (tried: a thread that
 * cannot take it leaves the waiting to the general path), so nobody else
 * consumes a ring or adds an unexpected message; a message found is taken
 * only under its context's matching lock too, with that context holding no
 * posted receive and no unexpected message, so nobody posts a receive or
 * finds a message there meanwhile.  The first message in src's ring is
 * then, as below MULTIPLE, the oldest unmatched one from src in ctx.  The
 * other contexts' queues do not matter: a message matches only its own. */
static __attribute__((noinline)) int recv_fast_mt(void *buf, size_t bytes, int src_world, uint16_t ctx, int tag,
                                                  struct cm_comm *c, MPI_Status *status)
{
    struct cm_ring_rx *rx = &cm_rx[src_world];
    unsigned limit = cm_wait_spin_limit();
    for (unsigned polls = 0;; polls++) {
        if (!cm_progress_quiet_mt() || !cm_progress_hold())
            return 0;
        int done = -1;   /* -1: no message yet; 0: give way; 1: taken */
        struct cm_msg_hdr *h = cm_ring_peek(rx);
        if (h) {
            done = takes(h, ctx, tag, bytes) && cm_match_hold_idle(ctx);
            if (done) {
                take(h, buf, src_world, c, status);
                cm_match_unhold(ctx);
            }
        }
        cm_progress_unhold();
        if (done >= 0)
            return done;
        if (polls >= limit)
            return 0;
        poll_gap();
        /* A sweep that moved anything may have taken our message to the
         * unexpected queue, which the polls do not look at: give way. */
        if (polls % SWEEP_EVERY == SWEEP_EVERY - 1 && cm_progress(-1))
            return 0;
    }
}

int cm_recv_fast(void *buf, size_t bytes, int src_world, uint16_t ctx, int tag, struct cm_comm *c,
                 MPI_Status *status)
{
    /* Never quiet under MULTIPLE (cm_p2p_init): the test costs the other
     * levels nothing. */
    if (!cm_progress_quiet() || !cm_match_idle())
        return __builtin_expect(cm_mt, 0) ? recv_fast_mt(buf, bytes, src_world, ctx, tag, c, status) : 0;
    struct cm_ring_rx *rx = &cm_rx[src_world];
    unsigned limit = cm_wait_spin_limit();
    for (unsigned polls = 0;; polls++) {
        struct cm_msg_hdr *h = cm_ring_peek(rx);
        if (h) {
            if (!takes(h, ctx, tag, bytes))
                return 0;
            take(h, buf, src_world, c, status);
            return 1;
        }
        if (polls >= limit)
            return 0;
        poll_gap();
        if (polls % SWEEP_EVERY == SWEEP_EVERY - 1) {
            cm_progress(-1);
            if (!cm_progress_quiet() || !cm_match_idle())
                return 0;
        }
    }
}
