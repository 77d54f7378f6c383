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
 * gives way (progress is never quiet under MPI_THREAD_MULTIPLE, asked
 * first: the queues are then another thread's too).  It never sleeps: past the spin budget the general path takes
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

int cm_recv_fast(void *buf, size_t bytes, int src_world, uint16_t ctx, int tag, struct cm_comm *c,
                 MPI_Status *status)
{
    if (!cm_progress_quiet() || !cm_match_idle())
        return 0;
    struct cm_ring_rx *rx = &cm_rx[src_world];
    unsigned limit = cm_wait_spin_limit();
    for (unsigned polls = 0;; polls++) {
        struct cm_msg_hdr *h = cm_ring_peek(rx);
        if (h) {
            if (!takes(h, ctx, tag, bytes))
                return 0;
            uint32_t len = h->len;
            int msg_tag = h->tag;
            cm_copy_small(buf, cm_msg_payload(h), len);
            cm_progress_consumed(src_world, h);
            if (status != MPI_STATUS_IGNORE)
                cm_status_set(status, c, src_world, msg_tag, len);
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
