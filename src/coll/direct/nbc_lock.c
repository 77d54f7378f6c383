/*
 * direct/nbc_lock.c -- MPI_THREAD_MULTIPLE: one thread at a time moves an
 * area's nonblocking queue (issue 35, docs/threads.md).
 *
 * The queue of an area (direct.h: nbc_head, nbc_tail) is stepped by
 * whichever thread polls one of its requests: the progress holder (the
 * engine polls generic requests) or the thread that calls the
 * communicator's collectives (a start polls once, a blocking collective
 * first drains the queue, Comm_free drains it too).  MPI lets only one
 * thread at a time call a communicator's collectives, but the progress
 * holder may be any thread.  So under MULTIPLE nbc_busy, the queue's guard
 * against re-entry from a wait below its own advance, becomes the queue's
 * try-lock: 0 free, else the number of the thread that holds it.
 *
 * Like the progress lock, nobody queues on it: a poll that finds it taken
 * returns (the holder moves the queue meanwhile); the collectives' own
 * thread, which must get it (to enqueue, or to finish the queue before a
 * blocking collective starts on the area, rule N1), tries again, yielding
 * in between.  Its only other holders are polls, whose steps never wait,
 * so it is free again soon.  A thread that holds it already (a poll from
 * a shared-memory wait inside its own blocking step) is told so and leaves
 * the queue to the advance below it, as nbc_busy did alone.
 *
 * Below MULTIPLE nothing here is called: nbc.c tests cm_mt once and keeps
 * nbc_busy a plain flag.
 */
#ifdef CM_IN_COREMPI  /* corempi only: the host-MPI harness compiles every src/coll file */
#include "coll/direct/nbc.h"
#include "core/thread.h"
#include "shm/fault.h"

#include <sched.h>

/* This thread's number for nbc_busy: 1, 2, ... in order of first use. */
static int self(void)
{
    static int last;
    static CM_THREAD_LOCAL int me;
    if (!me)
        me = __atomic_add_fetch(&last, 1, __ATOMIC_RELAXED);
    return me;
}

int cm_direct_nbc_lock(struct cm_direct *s, int wait)
{
    int me = self();
    for (;;) {
        int holder = 0;
        if (__atomic_compare_exchange_n(&s->nbc_busy, &holder, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
            CM_FAULT(mt_nbc_lock);   /* the queue is mine: another thread's poll must find it taken */
            return 1;
        }
        if (holder == me)
            return 0;       /* taken by an advance of this thread below us */
        if (!wait)
            return -1;
        sched_yield();
    }
}

void cm_direct_nbc_unlock(struct cm_direct *s)
{
    __atomic_store_n(&s->nbc_busy, 0, __ATOMIC_RELEASE);
}
#endif
