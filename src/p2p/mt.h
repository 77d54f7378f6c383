/*
 * mt.h -- the point-to-point engine's locks under MPI_THREAD_MULTIPLE
 * (docs/threads.md; none is taken at the other levels, core/thread.h).
 *
 *   progress lock  engine.c: the consumer side of every incoming ring, the
 *                  out-queues' drain, the polled generic requests.  Tried,
 *                  never waited for: a thread that cannot take it waits
 *                  for its own request (the holder completes it).
 *   match[ctx]     match.c: one context's posted and unexpected queues,
 *                  held for one match-or-insert (a message that finds no
 *                  receive is queued under the same hold, so a receive
 *                  posted meanwhile cannot miss it).  One per context id:
 *                  never two held at once.
 *   tx[dst]        send.c: the ring to dst and its out-queue (one producer
 *                  per ring, and sends to dst keep their order).
 *
 * Order: progress -> match[ctx] -> tx[dst] -> the out-queues' active list.
 * Nothing waits (or calls progress) while holding match or tx.
 */
#ifndef CM_P2P_MT_H
#define CM_P2P_MT_H

#include "core/thread.h"

extern pthread_mutex_t *cm_tx_locks;   /* [world size], allocated at MULTIPLE only */

static inline void cm_tx_lock(int dst)
{
    if (__builtin_expect(cm_mt, 0))
        pthread_mutex_lock(&cm_tx_locks[dst]);
}
static inline void cm_tx_unlock(int dst)
{
    if (__builtin_expect(cm_mt, 0))
        pthread_mutex_unlock(&cm_tx_locks[dst]);
}

/* A request was completed outside the progress holder's pass (a cancel, a
 * generalized request): wake this process's threads that wait on theirs. */
void cm_mt_wake_local(void);

#endif
