/*
 * wait.c -- how a window's synchronisation waits: poll a little, then sleep
 * on a futex in the window's control area, and the window barrier.
 *
 * The sleep handshake is the one of shm/wait.h, on the waited word itself:
 * the sleeper reads the word, announces itself in `sleepers` (a seq_cst
 * RMW: a full fence), re-checks its condition, then sleeps only while the
 * word still holds what it read.  The waker changes the word with a seq_cst
 * RMW, then reads `sleepers`.  In the single order of those seq_cst
 * operations either the re-check comes after the change (and sees it) or
 * the announcement comes before the waker's read (and the waker wakes it;
 * a wake-up before the sleep finds the word changed and the sleep returns
 * at once).  Every sleep is also bounded (a lost wake-up after an ABA on a
 * lock word costs a nap, never a hang) and point-to-point progress runs
 * between sleeps, so a rank waiting here still serves its messages.
 *
 * With more ranks than cores cm_wait_backoff() allows no spinning: the
 * rank yields a few times and sleeps (issue 23: fence and lock never spin
 * there).
 */
#include "osc/osc.h"
#include "core/state.h"
#include "p2p/blocked.h"
#include "p2p/p2p.h"
#include "shm/futex.h"
#include "shm/wait.h"

#include <limits.h>

static const struct timespec nap = { 0, 2000000 };  /* 2 ms */
/* While this process serves active messages (osc/am.c), or a peer's
 * rendezvous waits for it (cm_p2p_owed), those messages do not wake a sleep
 * on a window word: nap as the collectives do then. */
static const struct timespec am_nap = { 0, 100000 };  /* 100 us */

void cm_osc_wake_slow(_Atomic uint32_t *word)
{
    cm_futex_wake((void *)word, INT_MAX);
}

void cm_osc_wait(_Atomic uint32_t *word, _Atomic uint32_t *sleepers, int (*cond)(void *), void *arg, int peer)
{
    struct cm_waiter wt;
    cm_waiter_reset(&wt);
    unsigned polls = 0;
    int announced = 0;
    for (;;) {
        if (cond(arg))
            break;
        if ((++polls & 255) == 0)
            cm_progress(-1);
        if (cm_wait_backoff(&wt)) {
            cm_cpu_relax();
            continue;
        }
        if (!announced) {   /* about to sleep: tell mpirun's deadlock watcher */
            cm_blocked_begin(__atomic_load_n(&cm_g.self_ctl->last_call, __ATOMIC_RELAXED), peer, MPI_ANY_TAG, 0);
            announced = 1;
        }
        uint32_t seen = atomic_load(word);
        atomic_fetch_add(sleepers, 1);
        /* cond may take what it tests (try_acc, try_lock): when the
         * re-check succeeds it holds the lock, so return at once.  Looping
         * back to test again made a rank wait for a lock it held itself
         * (the accumulate word stayed 1 with every rank asleep on it: the
         * osc.atomic and win_acc timeouts) or take a shared hold twice. */
        int done = cond(arg);
        if (!done)
            cm_futex_wait((void *)word, seen, cm_osc_am_live() || cm_p2p_owed ? &am_nap : &nap);
        atomic_fetch_sub(sleepers, 1);
        if (done)
            break;
        cm_progress(-1);
    }
    if (announced)
        cm_blocked_end();
}

struct barrier_arg {
    _Atomic uint32_t *word;
    uint32_t target;
};

static int barrier_done(void *p)
{
    struct barrier_arg *a = p;
    return (int32_t)(atomic_load_explicit(a->word, memory_order_acquire) - a->target) >= 0;
}

/* A counting barrier: the k-th barrier is over when the counter reaches
 * k * size.  The counter only grows, so no reset races with late leavers;
 * the seq_cst increment is also the full fence that makes every store
 * before the barrier visible to every load after it. */
void cm_osc_barrier(struct cm_win *w)
{
    if (w->size == 1)
        return;
    w->fence_epochs++;
    struct barrier_arg a = { &w->ctl->fence_arrived, w->fence_epochs * (uint32_t)w->size };
    uint32_t now = atomic_fetch_add(a.word, 1) + 1;
    if (now == a.target) {
        cm_osc_wake(a.word, &w->ctl->fence_sleepers);
        return;
    }
    cm_osc_wait(a.word, &w->ctl->fence_sleepers, barrier_done, &a, MPI_ANY_SOURCE);
}
