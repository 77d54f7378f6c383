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

/* COREMPI_SHM_BACKOFF: oversubscribed waiters spin and yield before they
 * sleep (1, the default) or sleep at once (0). */
int cm_direct_backoff_when_oversubscribed(void);

#endif
