/*
 * blocked.h -- how a rank tells mpirun's deadlock watcher (launch/deadlock.c)
 * that it waits inside MPI, and that it moved.
 *
 * A wait announces itself once, when it is about to sleep (never per poll):
 * a few plain stores to line A of the rank's control block, which only the
 * owner writes.  A wait that may end by something the watcher cannot see
 * (another job, a spawn, a generalized request the program completes)
 * carries CM_BLOCKED_UNSEEN: the watcher never calls a job with
 * such a rank deadlocked.  Ending an announced wait counts as progress, so a
 * job whose waits keep ending is moving even when no message is counted.
 */
#ifndef CM_P2P_BLOCKED_H
#define CM_P2P_BLOCKED_H

#include "shm/segment.h"

/* Generalized requests started and not yet completed: only the program
 * completes them (MPI_Grequest_complete, often from a thread doing I/O), so
 * while one is open no wait of this rank is in the watcher's sight. */
extern _Atomic int cm_grequests_open;

/* call_id: the cm_call_id waited in (0: do not announce), optionally or-ed
 * with CM_BLOCKED_UNSEEN; peer: a world rank or MPI_ANY_SOURCE. */
void cm_blocked_begin(uint32_t call_id, int peer, int tag, unsigned ctx);
void cm_blocked_end(void);

#endif
