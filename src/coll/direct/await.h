/*
 * await.h -- what every wait of the engine does besides polling its word
 * (direct/await.c): tell mpirun's deadlock watcher, keep point-to-point and
 * nonblocking progress going, and bound each futex sleep so that a lost
 * wake-up costs a nap, never a hang.  Private to src/coll/direct/.
 */
#ifndef CM_COLL_DIRECT_AWAIT_H
#define CM_COLL_DIRECT_AWAIT_H

#include <time.h>
#include "shm/futex.h"   /* every sleep of the engine: cm_futex_wait/wake */

/* 1 before sleeping in a collective, 0 after (peer: any). */
void cm_direct_announce_blocked(int blocked);

/* The futex timeout for a waiter that normally naps `normal`: shorter while
 * point-to-point or nonblocking work is pending (it runs that work first). */
const struct timespec *cm_direct_progress_pending(const struct timespec *normal);

/* A lost wake-up costs this, not a hang. */
extern const struct timespec cm_direct_long_nap;

/* A waiter's futex bound and its count of empty polls.  Every 64th empty
 * poll runs pending point-to-point and nonblocking work
 * (cm_direct_progress_pending: a call, so not on every spin) and picks the
 * next sleep's bound: the long nap, or a brief one while work is pending.
 * After any sleep the next empty poll runs progress again at once, not 64
 * naps later (a passive target's active messages, osc/am.c).  Inline, on
 * the waiter's stack: the spin path costs what it did when each wait kept
 * these two variables itself. */
struct cm_direct_nap {
    const struct timespec *bound;
    unsigned polls;
};

static inline void cm_direct_nap_start(struct cm_direct_nap *n)
{
    n->bound = &cm_direct_long_nap;
    n->polls = 0;
}

/* An empty poll. */
static inline void cm_direct_nap_poll(struct cm_direct_nap *n)
{
    if ((n->polls++ & 63) == 0)
        n->bound = cm_direct_progress_pending(&cm_direct_long_nap);
}

/* Sleep on the futex word while it holds seen, for the bound at most.  The
 * caller announced its sleep and re-checked its condition just before. */
static inline void cm_direct_nap_sleep(struct cm_direct_nap *n, void *word, uint32_t seen)
{
    cm_futex_wait(word, seen, n->bound);
    /* After any sleep, look for pending work at once, not 64 sleeps later:
     * a brief nap means something is pending, and a long one may end
     * because work came that rings no word of ours (a one-sided origin that
     * lost single copy, osc/am.c: cm_progress_quiet). */
    n->polls = 0;
}

/* COREMPI_SHM_BACKOFF: oversubscribed waiters spin and yield before they
 * sleep (1, the default) or sleep at once (0). */
int cm_direct_backoff_when_oversubscribed(void);

#endif
