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
 *
 * The waker's fence is paid on every message and every FIFO collective, and
 * when the reader is polling the very line just written (a loop of tiny
 * collectives) it waits for that line to come back from the reader's cache:
 * about 0.1 us per call when the two cores do not share a cache.  Sleeping is
 * rare when every rank has a core, so there the fence moves to the sleeper:
 * it runs membarrier(GLOBAL_EXPEDITED), a full barrier on every CPU running a
 * registered process, between announcing its sleep and re-checking.  Wherever
 * a waker is between its publish and its read of `sleeping`, that barrier
 * either makes the publish visible to the re-check or the announcement visible
 * to the read.  Wakers skip their fence only once every rank of the job has
 * registered (cm_wait_fence_free), so every possible sleeper runs the barrier.
 * With more ranks than cores ranks sleep all the time: both keep their fences
 * -- except on the collectives' FIFO words (cm_direct_wait32/cm_direct_wake32),
 * whose waiters yield many times before they sleep (0-4 sleeps per 200,000
 * reduces at 8 ranks on 2 cores) while every publish paid the fence: when the
 * cores do not share a cache, that fence waits ~0.3 us for the entry's line
 * to come back, and the FIFO collectives ran 1.6-2.4x slower than with
 * shared caches.  Those sleepers run the barrier (cm_wait_fifo_sleeper_barrier)
 * and those wakers skip the fence (cm_wake_fence_fifo) in every job.
 */
#ifndef CM_SHM_WAIT_H
#define CM_SHM_WAIT_H

#include <stdatomic.h>
#include <stdint.h>
#include "segment.h"
#include "fault.h"

struct cm_waiter {
    unsigned spins;
    unsigned yields;
    uint64_t until;     /* end of the keep-the-core phase (CLOCK_MONOTONIC ns), 0: not started */
};

/* Polls before yielding when each rank has a core (COREMPI_SPIN): 20000
 * polls are a few tens of microseconds, see wait.c. */
#define CM_WAIT_SPIN_DEFAULT 20000u

/* Set once at init (the caller reads COREMPI_SPIN): the spin limit is 0 when
 * ranks outnumber cores. */
/* COREMPI_POLL_SPIN's "not given": the defaults of wait.c apply. */
#define CM_WAIT_POLL_SPIN_DEFAULT 0xffffffffu
/* Microseconds a blocking wait keeps its core, yielding, after the spin and
 * before it sleeps, with a core per rank (COREMPI_SPIN_TIME; wait.c says
 * why, docs/polling.md what it costs). */
#define CM_WAIT_SPIN_TIME_DEFAULT 100000u
void cm_wait_configure(int oversubscribed, unsigned spin_limit, unsigned poll_spins, unsigned spin_time_us);

/* Polls a waiter may make before it should yield (0 when oversubscribed). */
unsigned cm_wait_spin_limit(void);

static inline void cm_waiter_reset(struct cm_waiter *w) { w->spins = 0; w->yields = 0; w->until = 0; }

/* Phase 1 and 2 of waiting: returns 1 while the caller should keep polling
 * without sleeping, 0 when it is time to sleep (cm_wait_sleep).  Phase 2
 * yields at least a few times and, with a core per rank, until the wait is
 * COREMPI_SPIN_TIME old (counted from the end of the spin). */
int cm_wait_backoff(struct cm_waiter *w);
/* The same as in a job with more ranks than cores: for a process whose
 * waiting threads outnumber its share of the cores (MPI_THREAD_MULTIPLE). */
int cm_wait_backoff_crowded(struct cm_waiter *w);

/*
 * Phase 3: sleep on ctl's doorbell.  `recheck` is called after announcing the
 * sleep; if it returns non-zero the sleep is skipped.  Returns after a wake-up,
 * a timeout (timeout_ms, or timeout_us for the _us form) or a signal.
 */
void cm_wait_sleep(struct cm_rank_ctl *self, int (*recheck)(void *), void *arg, int timeout_ms);
void cm_wait_sleep_us(struct cm_rank_ctl *self, int (*recheck)(void *), void *arg, unsigned timeout_us);

/*
 * Polling (MPI_Iprobe, MPI_Test and friends in a loop): the program, not the
 * library, decides how long to wait, so a poll never sleeps indefinitely --
 * it returns "nothing" to the program, which may be waiting for a timer or
 * for something outside MPI.  But with more ranks than cores a rank that
 * keeps finding nothing holds a core the rank it waits for needs.  So an
 * empty poll counts itself: after COREMPI_POLL_SPIN consecutive empty
 * polls it yields, after a few yields it naps on the doorbell with a short
 * timeout (50 us, doubling to 1 ms), woken at once by any rank that writes
 * to it (the same handshake as a blocking wait's sleep, so a wake-up is
 * never lost; a missed one would cost at most the timeout).
 *
 * "Consecutive" means a tight loop: when the spin took more than about
 * 10 us per poll on average, or a later empty poll comes more than 10 us
 * after the previous one ended, the program did some work in between
 * (compute, then MPI_Test to drive progress): the count starts again, so
 * such a program never yields or naps.  Any successful poll and
 * any message this rank handles (in whatever call) reset the count too, so
 * a poll that succeeds costs what it did before.
 *
 * Only the calling thread touches this state (it is thread-local).
 */
struct cm_poller {
    unsigned empty;     /* consecutive empty polls in a tight loop */
    unsigned naps;      /* naps since the count was last reset: the nap grows */
    uint64_t last;      /* cm_poll_ticks(): the run's start while it spins, then
                           the end of the last yield or nap */
};
/* Per thread (initial-exec TLS: the cost of a global), so that threads of
 * an MPI_THREAD_MULTIPLE process count their own polls. */
extern __thread __attribute__((tls_model("initial-exec"))) struct cm_poller cm_poller;

static inline void cm_poll_reset(void)
{
    cm_poller.empty = 0;
    cm_poller.naps = 0;
}

/* A cheap monotonic clock in unspecified ticks (the x86 time-stamp counter
 * runs at 1-4 GHz: cm_poll's "about 10 us" is 20,000 ticks there). */
uint64_t cm_poll_ticks(void);

/* The first empty polls of a run only count themselves (cm_poll, inline):
 * 64 with a core per rank, where the spin is long; 1 otherwise. */
extern unsigned cm_poll_quiet;

/* After an empty poll that brought cm_poller.empty to cm_poll_quiet or
 * more: 0 to return to the program at once, 1 after yielding the core, 2
 * when the caller should nap (cm_wait_sleep_us) for *nap_us.  After 1 or 2
 * and the caller's second look, cm_poll_rested(). */
int cm_poll_backoff(unsigned *nap_us);
/* Pending operations that wait on shared-memory words whose writers ring no
 * doorbell (the nonblocking collectives on the shared area): while there
 * are any, an empty poll yields instead of napping, or it would sleep
 * through their progress until its timeout. */
extern unsigned cm_wait_unrung;
static inline void cm_poll_rested(void) { cm_poller.last = cm_poll_ticks(); }

/* Ring peer's doorbell unconditionally. */
void cm_wake(struct cm_rank_ctl *peer);

/* At MPI_Init, every process of the segment (spawned ones too): register
 * for membarrier, mark self->fence_joined, then count itself in
 * hdr->fence_free_ranks.  allowed == 0 (the caller read
 * COREMPI_FENCE_FREE=0) keeps the fences on both sides. */
void cm_wait_join_fence_free(struct cm_seg_header *hdr, struct cm_rank_ctl *self, int allowed);

/* Wakers may skip their fence while every process of the segment runs the
 * sleeper barrier: fence_free_ranks == slots_used, compared at each wake,
 * not cached.  A spawn raises slots_used before its children start, so a
 * child that cannot register (membarrier refused: seccomp, an old kernel;
 * COREMPI_FENCE_FREE=0) puts every waker back on its fence, and one that
 * registers takes them off again once it counted itself.
 * Why the comparison is enough: a process that may wake child c learned of
 * c (spawn result, a message, a communicator) after mpirun raised
 * slots_used past c, so its loads after that see slots_used > c.  Counted
 * processes are distinct slots below slots_used: each joins once, and
 * mpirun's undo of a failed spawn takes the killed children's counts back
 * (fence_joined) before it lowers slots_used.  So equal counts mean c ran
 * its registration.  fence_free_ranks is read first, with acquire: a count
 * that includes a registration also sees the slots_used raised before that
 * process started, never a smaller one.
 * Processes of another job (core/remote.h) never count here: wakes across
 * jobs always fence (cm_peer_wake). */
struct cm_wait_count {
    _Atomic uint32_t *joined;    /* &hdr->fence_free_ranks, or a word that never matches */
    _Atomic uint32_t *slots;     /* &hdr->slots_used */
    int crowded;                 /* more ranks than cores: the p2p and sync pairs keep fences */
};
extern struct cm_wait_count cm_wait_count;

static inline int cm_wait_all_joined(void)
{
    uint32_t joined = atomic_load_explicit(cm_wait_count.joined, memory_order_acquire);
    return joined == atomic_load_explicit(cm_wait_count.slots, memory_order_relaxed);
}

/* 1 while wakers on doorbells and sync words may skip their fence. */
static inline int cm_wait_fence_free(void)
{
    return !cm_wait_count.crowded && cm_wait_all_joined();
}

/* The waker's half: between publishing work and reading whether anyone
 * sleeps on it. */
static inline void cm_wake_fence(void)
{
    if (cm_wait_fence_free())
        atomic_signal_fence(memory_order_seq_cst);   /* the compiler's order only */
    else
        atomic_thread_fence(memory_order_seq_cst);
}

/* The same for the collectives' FIFO words, whatever the ranks per core. */
static inline void cm_wake_fence_fifo(void)
{
    if (cm_wait_all_joined())
        atomic_signal_fence(memory_order_seq_cst);
    else
        atomic_thread_fence(memory_order_seq_cst);
}

/* The sleeper's half: after announcing the sleep (and its own fence), before
 * re-checking for work.  The _fifo one for sleepers on FIFO words. */
void cm_wait_sleeper_barrier(void);
void cm_wait_fifo_sleeper_barrier(void);

/* Ring peer's doorbell if it sleeps.  Call after publishing work for it. */
static inline void cm_wake_if_sleeping(struct cm_rank_ctl *peer)
{
    cm_wake_fence();
    CM_FAULT(wake_check);
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
