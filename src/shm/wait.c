/* wait.c -- spin, yield, futex sleep (see wait.h). */
#include "wait.h"
#include "futex.h"

#include <errno.h>
#include <stdlib.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Spinning pays only when the peer runs on another core at the same time.
 * 20000 polls are a few tens of microseconds: long enough to catch a
 * ping-pong reply or a rendezvous read, short enough not to burn a core
 * that a sleeping peer could use. */
static unsigned spin_limit = CM_WAIT_SPIN_DEFAULT;
static unsigned yield_limit = 16;
static int crowded;                          /* more ranks than cores */

/* With a core per rank, a blocking wait does not sleep before it is
 * spin_time_ns old: it yields.  A rank that sleeps leaves its vCPU idle,
 * and the hypervisor (or another job) runs something else there -- on a
 * machine whose vCPUs are hyperthreads, on the sibling of the core that
 * does the work: a passive target sleeping in MPI_Barrier made the origin's
 * 1 MiB Put + Win_flush 0.95x Open MPI's bandwidth (whose barrier polls
 * forever), and parity when it polled.  A yield keeps the vCPU busy when
 * nothing else wants it and gives it away when something does.  After the
 * budget the rank sleeps as before, so a long wait costs at most this much
 * CPU (docs/polling.md); with more ranks than cores the budget is 0, and
 * it ends early once a yield shows that another task wanted the core. */
static uint64_t spin_time_ns = (uint64_t)CM_WAIT_SPIN_TIME_DEFAULT * 1000u;
/* A sched_yield that returns with nothing else to run takes ~1 us; one
 * that let another task run takes that task's slice, a millisecond or so. */
#define YIELD_BUSY_NS 50000u

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Polling (wait.h).  With a core per rank an empty poll loop keeps its core
 * as long as any other MPI's would: it yields only after a million empty
 * polls (40 ms and more of finding nothing), naps only after a thousand
 * yields more -- then the nap's wake-up latency is lost in the wait.  With
 * more ranks than cores, a few empty polls in a row already mean that the
 * rank we wait for is not running: yield soon, nap soon after.  Not at the
 * very first empty poll: right after a message the next one is often on
 * its way from a rank that runs, and a yield may hand the core to another
 * process for a whole time slice (measured in docs/polling.md). */
static unsigned poll_spin_limit = 1000000;
static unsigned poll_yield_limit = 1000;
#define POLL_NAP_FIRST_US 50u
#define POLL_NAP_MAX_US 1000u

void cm_wait_configure(int oversubscribed, unsigned spins, unsigned poll_spins, unsigned spin_time_us)
{
    spin_limit = spins;
    /* COREMPI_SPIN=0 asks for a sleep right after the yields (the wake-up
     * tests rely on it): no budget either. */
    spin_time_ns = spins ? (uint64_t)spin_time_us * 1000u : 0;
    if (oversubscribed) {
        spin_limit = 0;
        spin_time_ns = 0;
        yield_limit = 2;
        poll_spin_limit = 16;
        poll_yield_limit = 16;
    }
    if (poll_spins != CM_WAIT_POLL_SPIN_DEFAULT)   /* COREMPI_POLL_SPIN given */
        poll_spin_limit = poll_spins;
    cm_poll_quiet = poll_spin_limit > 64 ? 64 : 1;
    crowded = oversubscribed;
}

unsigned cm_wait_spin_limit(void) { return spin_limit; }

/* The oversubscribed rules of cm_wait_configure (no spin, two yields, no
 * time kept), whatever the job's placement. */
int cm_wait_backoff_crowded(struct cm_waiter *w)
{
    if (w->yields < 2) {
        w->yields++;
        sched_yield();
        return 1;
    }
    return 0;
}

int cm_wait_backoff(struct cm_waiter *w)
{
    if (w->spins < spin_limit) {
        /* No PAUSE here: under KVM a loop of PAUSEs triggers pause-loop
         * exiting, and the hypervisor may deschedule the vCPU right when
         * the peer's message arrives.  The poll itself is a load of a line
         * that stays shared until the writer touches it. */
        w->spins++;
        __asm__ volatile("" ::: "memory");
        return 1;
    }
    if (w->yields < yield_limit) {
        w->yields++;
        sched_yield();
        return 1;
    }
    if (spin_time_ns) {
        /* Two clock reads per yield: ~25 ns each (vDSO) against the
         * system call. */
        uint64_t now = now_ns();
        if (!w->until)
            w->until = now + spin_time_ns;
        if (now < w->until) {
            sched_yield();
            /* A yield that took long let another task run: the core is
             * wanted (other jobs, or a host that preempts the vCPU), so
             * keeping it no longer pays: sleep from now on. */
            if (now_ns() - now > YIELD_BUSY_NS)
                w->until = 1;
            return 1;
        }
    }
    return 0;
}

/* ---- polling (wait.h) ----------------------------------------------------- */

__thread __attribute__((tls_model("initial-exec"))) struct cm_poller cm_poller;

uint64_t cm_poll_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_ia32_rdtsc();
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

/* Longer than the program's own code between two polls of a poll loop
 * (an Iprobe + Recv + Testall round is well under a microsecond), shorter
 * than useful work: ~10 us in TSC ticks, exactly 10 us in nanoseconds. */
#if defined(__x86_64__) || defined(__i386__)
#define POLL_GAP_TICKS 20000u
#else
#define POLL_GAP_TICKS 10000u
#endif

unsigned cm_poll_quiet = 1;
unsigned cm_wait_unrung;

int cm_poll_backoff(unsigned *nap_us)
{
    struct cm_poller *p = &cm_poller;
    unsigned n = p->empty;          /* >= cm_poll_quiet: counted by cm_poll */
    /* The clock is read once in a run of empty polls, at its cm_poll_quiet-th,
     * and once at the end of the spin, not on every empty poll: with a core
     * per rank that spin is the whole wait, and a clock read in it would
     * delay the poll that sees the message. */
    if (n == cm_poll_quiet)
        p->last = cm_poll_ticks();
    if (n <= poll_spin_limit)
        return 0;
    uint64_t now = cm_poll_ticks();
    /* The end of the spin compares with the run's clock start (a gap per
     * poll on average), a later poll with the end of the previous yield or
     * nap. */
    uint64_t allowed = (uint64_t)POLL_GAP_TICKS;
    if (n == poll_spin_limit + 1 && n - cm_poll_quiet > 1)
        allowed *= n - cm_poll_quiet;
    if (now - p->last > allowed) {
        /* The program worked between its polls: a new run starts here. */
        cm_poll_reset();
        p->empty = n = cm_poll_quiet;
        p->last = now;
        if (n <= poll_spin_limit)
            return 0;
    }
    p->last = now;
    if (n - poll_spin_limit <= poll_yield_limit) {
        sched_yield();
        return 1;
    }
    /* A nap would outlast what it waits for.  Another thread may count
     * meanwhile (coll/direct/nbc.h): relaxed, a plain load on x86. */
    if (__atomic_load_n(&cm_wait_unrung, __ATOMIC_RELAXED)) {
        sched_yield();
        return 1;
    }
    unsigned us = POLL_NAP_FIRST_US << (p->naps < 5 ? p->naps : 5);
    *nap_us = us < POLL_NAP_MAX_US ? us : POLL_NAP_MAX_US;
    p->naps++;
    return 2;
}

/* ---- fence-free wakers (wait.h) ------------------------------------------ */

/* Until this process joins, two words that never match: it keeps its
 * fences (a singleton never joins). */
static _Atomic uint32_t never_joined = 0, never_slots = 1;
struct cm_wait_count cm_wait_count = { &never_joined, &never_slots, 0 };
static int sleeper_barrier;                  /* this process registered */

static long membarrier(int cmd)
{
    return syscall(SYS_membarrier, cmd, 0, 0);
}

void cm_wait_join_fence_free(struct cm_seg_header *hdr, struct cm_rank_ctl *self, int allowed)
{
    cm_wait_count.crowded = crowded;
    cm_wait_count.slots = &hdr->slots_used;
    cm_wait_count.joined = &hdr->fence_free_ranks;
    if (!allowed)
        return;
    long can = membarrier(MEMBARRIER_CMD_QUERY);
    if (can < 0 || !(can & MEMBARRIER_CMD_GLOBAL_EXPEDITED) ||
        membarrier(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) != 0)
        return;
    /* Barrier first, count second: a waker that sees the full count must
     * find every sleeper running the barrier.  The mark before the count:
     * mpirun's undo takes back the count of every killed child it finds
     * marked, so a child killed between the two costs the job its
     * fence-free wakes (a count one short), never a fence it needed. */
    sleeper_barrier = 1;
    atomic_store_explicit(&self->fence_joined, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&hdr->fence_free_ranks, 1, memory_order_seq_cst);
}

void cm_wait_sleeper_barrier(void)
{
    if (sleeper_barrier && !crowded)
        membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED);
}

void cm_wait_fifo_sleeper_barrier(void)
{
    if (sleeper_barrier)
        membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED);
}

void cm_wait_sleep_us(struct cm_rank_ctl *self, int (*recheck)(void *), void *arg, unsigned timeout_us)
{
    uint32_t bell = atomic_load_explicit(&self->doorbell, memory_order_acquire);
    atomic_store_explicit(&self->sleeping, 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst);
    cm_wait_sleeper_barrier();
    CM_FAULT(sleep_recheck);
    if (!recheck(arg)) {
        struct timespec ts = { timeout_us / 1000000u, (long)(timeout_us % 1000000u) * 1000L };
        CM_FAULT(sleep_futex);
        cm_futex_wait(&self->doorbell, bell, &ts);
    }
    atomic_store_explicit(&self->sleeping, 0, memory_order_relaxed);
}

void cm_wait_sleep(struct cm_rank_ctl *self, int (*recheck)(void *), void *arg, int timeout_ms)
{
    cm_wait_sleep_us(self, recheck, arg, (unsigned)timeout_ms * 1000u);
}

void cm_wake(struct cm_rank_ctl *peer)
{
    atomic_fetch_add_explicit(&peer->doorbell, 1, memory_order_release);
    cm_futex_wake(&peer->doorbell, 1);
}
