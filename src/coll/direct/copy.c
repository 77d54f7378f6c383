/*
 * direct/copy.c -- message counters (seed 003): each rank's progress line
 * counts the bytes it made available, grows forever, and readers wait for
 * it to pass a base they were given; and single-copy reads of another
 * rank's buffer (CMA).
 */
#include <mpi.h>
#ifdef CM_IN_COREMPI  /* corempi only: the host-MPI harness compiles every src/coll file */
#include "coll/direct/direct.h"
#include "coll/direct/layout.h"
#include "coll/direct/await.h"
#include "core/state.h"
#include "core/error.h"
#include "shm/wait.h"

#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "shm/copy.h"
#include "shm/cma.h"
#include "shm/segment.h"

#include <errno.h>

_Atomic uint64_t *cm_direct_progress(struct cm_direct *s, int r)
{
    return &((struct progress_line *)(s->base + progress_off(s->n)))[r].bytes;
}

static struct progress_line *progress_line(struct cm_direct *s, int r)
{
    return (struct progress_line *)(s->base + progress_off(s->n)) + r;
}

/* ---- message counters ----------------------------------------------------- */

void cm_direct_publish(struct cm_direct *s, size_t bytes)
{
    if (cm_direct_mm.on)
        return;
    struct progress_line *l = progress_line(s, s->rank);
    s->progress_mine += bytes;
    CM_FAULT(progress_publish);
    atomic_store_explicit(&l->bytes, s->progress_mine, memory_order_seq_cst);
    if (atomic_load_explicit(&l->waiters, memory_order_seq_cst))
        cm_futex_wake(&l->bytes, INT_MAX);
}

void cm_direct_wait_progress(struct cm_direct *s, int r, uint64_t base, size_t upto)
{
    if (cm_direct_mm.on)
        return;
    struct progress_line *l = progress_line(s, r);
    struct cm_waiter w;
    cm_waiter_reset(&w);
    int announced = 0;
    static const struct timespec counter_nap = { 0, 50 * 1000000L };
    const struct timespec *nap = &counter_nap;
    unsigned polls = 0;
    for (;;) {
        uint64_t v = atomic_load_explicit(&l->bytes, memory_order_acquire);
        if (v - base >= upto) {
            if (announced)
                cm_direct_announce_blocked(0);
            CM_FAULT(progress_waited);
            return;
        }
        if ((polls++ & 63) == 0)
            nap = cm_direct_progress_pending(&counter_nap);
        if (cm_wait_backoff(&w))
            continue;
        if (!announced)
            cm_direct_announce_blocked(announced = 1);
        atomic_fetch_add_explicit(&l->waiters, 1, memory_order_seq_cst);
        v = atomic_load_explicit(&l->bytes, memory_order_seq_cst);
        if (v - base < upto)
            cm_futex_wait(&l->bytes, (uint32_t)v, nap);    /* low half, little-endian */
        polls = 0;   /* after a sleep, pending work first (await.h, cm_direct_nap_sleep) */
        atomic_fetch_sub_explicit(&l->waiters, 1, memory_order_relaxed);
    }
}

/* ---- single copy -------------------------------------------------------- */

void cm_direct_read(struct cm_direct *s, int r, void *dst, uint64_t addr, size_t len)
{
    if (cm_direct_mm.on)
        return;             /* the address may belong to another call's layout */
    if (r == s->rank) {
        if (dst != (void *)(uintptr_t)addr)
            cm_move(dst, (const void *)(uintptr_t)addr, len);
        return;
    }
    pid_t pid = cm_seg_ctl(cm_g.seg, (uint32_t)s->world_of[r])->pid;
    size_t done = cm_cma_read(pid, dst, addr, len);
    if (done < len)
        cm_fatal("MPI collective", "single-copy read of %zu bytes from rank %d failed: %s", len - done,
                 s->world_of[r], strerror(errno));
}
#endif
