/* wait.c -- spin, yield, futex sleep (see wait.h). */
#include "wait.h"

#include <errno.h>
#include <stdlib.h>
#include <linux/futex.h>
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
static unsigned spin_limit = 20000;
static unsigned yield_limit = 16;
static int crowded;                          /* more ranks than cores */

void cm_wait_configure(int oversubscribed)
{
    const char *spin = getenv("COREMPI_SPIN");
    if (spin && *spin)
        spin_limit = (unsigned)strtoul(spin, NULL, 0);
    if (oversubscribed) {
        spin_limit = 0;
        yield_limit = 2;
    }
    crowded = oversubscribed;
}

unsigned cm_wait_spin_limit(void) { return spin_limit; }

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
    return 0;
}

/* ---- fence-free wakers (wait.h) ------------------------------------------ */

int cm_wait_fence_free_all;
int cm_wait_fifo_fence_free_all;
static int sleeper_barrier;                  /* this rank registered */
static _Atomic uint32_t *joined;             /* hdr->fence_free_ranks */
static uint32_t job_ranks;

static long membarrier(int cmd)
{
    return syscall(SYS_membarrier, cmd, 0, 0);
}

void cm_wait_join_fence_free(struct cm_seg_header *hdr)
{
    const char *env = getenv("COREMPI_FENCE_FREE");
    joined = &hdr->fence_free_ranks;
    job_ranks = hdr->nranks;
    if (env && *env && strtoul(env, NULL, 0) == 0)
        return;
    long can = membarrier(MEMBARRIER_CMD_QUERY);
    if (can < 0 || !(can & MEMBARRIER_CMD_GLOBAL_EXPEDITED) ||
        membarrier(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) != 0)
        return;
    /* Barrier first, count second: a waker that sees the full count must
     * find every sleeper running the barrier. */
    sleeper_barrier = 1;
    atomic_fetch_add_explicit(joined, 1, memory_order_seq_cst);
}

int cm_wait_fifo_fence_free_slow(void)
{
    if (joined && atomic_load_explicit(joined, memory_order_acquire) == job_ranks)
        cm_wait_fifo_fence_free_all = 1;
    return cm_wait_fifo_fence_free_all;
}

int cm_wait_fence_free_slow(void)
{
    if (!crowded && cm_wait_fifo_fence_free_slow())
        cm_wait_fence_free_all = 1;
    return cm_wait_fence_free_all;
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

static long futex(_Atomic uint32_t *addr, int op, uint32_t val, const struct timespec *ts)
{
    return syscall(SYS_futex, (uint32_t *)addr, op, val, ts, NULL, 0);
}

void cm_wait_sleep(struct cm_rank_ctl *self, int (*recheck)(void *), void *arg, int timeout_ms)
{
    uint32_t bell = atomic_load_explicit(&self->doorbell, memory_order_acquire);
    atomic_store_explicit(&self->sleeping, 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst);
    cm_wait_sleeper_barrier();
    CM_FAULT(sleep_recheck);
    if (!recheck(arg)) {
        struct timespec ts = { timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L };
        CM_FAULT(sleep_futex);
        futex(&self->doorbell, FUTEX_WAIT, bell, &ts);
    }
    atomic_store_explicit(&self->sleeping, 0, memory_order_relaxed);
}

void cm_wake(struct cm_rank_ctl *peer)
{
    atomic_fetch_add_explicit(&peer->doorbell, 1, memory_order_release);
    futex(&peer->doorbell, FUTEX_WAKE, 1, NULL);
}
