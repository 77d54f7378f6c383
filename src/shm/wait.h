/*
 * wait.h -- how a rank waits: spin briefly, then yield, then sleep on its
 * futex doorbell (DESIGN.md §6).  Whoever may unblock a sleeping rank rings
 * its doorbell.
 *
 * The sleep/wake handshake is Dekker-style: the sleeper sets `sleeping`, full
 * fence, re-checks for work; the waker publishes its work, full fence, reads
 * `sleeping`.  With both fences at least one side sees the other, so a wake-up
 * is never lost.  The futex sleep also has a timeout, so a rank still notices
 * a dead peer or an aborted job.
 */
#ifndef CM_SHM_WAIT_H
#define CM_SHM_WAIT_H

#include <stdatomic.h>
#include "segment.h"

struct cm_waiter {
    unsigned spins;
    unsigned yields;
};

/* Set once at init: spin limit is 0 when ranks outnumber cores. */
void cm_wait_configure(int oversubscribed);

/* Polls a waiter may make before it should yield (0 when oversubscribed). */
unsigned cm_wait_spin_limit(void);

static inline void cm_waiter_reset(struct cm_waiter *w) { w->spins = 0; w->yields = 0; }

/* Phase 1 and 2 of waiting: returns 1 while the caller should keep polling
 * without sleeping, 0 when it is time to sleep (cm_wait_sleep). */
int cm_wait_backoff(struct cm_waiter *w);

/*
 * Phase 3: sleep on ctl's doorbell.  `recheck` is called after announcing the
 * sleep; if it returns non-zero the sleep is skipped.  Returns after a wake-up,
 * a timeout (timeout_ms) or a signal.
 */
void cm_wait_sleep(struct cm_rank_ctl *self, int (*recheck)(void *), void *arg, int timeout_ms);

/* Ring peer's doorbell unconditionally. */
void cm_wake(struct cm_rank_ctl *peer);

/* Ring peer's doorbell if it sleeps.  Call after publishing work for it. */
static inline void cm_wake_if_sleeping(struct cm_rank_ctl *peer)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&peer->sleeping, memory_order_relaxed))
        cm_wake(peer);
}

static inline void cm_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

#endif
