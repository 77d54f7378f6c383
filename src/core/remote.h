/*
 * remote.h -- processes of another mpirun job, reached through a bridge
 * (MPI_Comm_connect/accept across jobs, docs/spawn.md "Two jobs").
 *
 * Inside the library a process is addressed by an id ("world rank"):
 * ids [0, cm_g.slots) are the slots of this job's segment; ids
 * [cm_g.slots, cm_g.size) are "remote ids", each naming one process of
 * another job once a connection has registered it.  Every array indexed by
 * world rank (comm_of, p2p's rings and queues, matching by source) has
 * cm_g.size entries, so a remote id is a world rank like any other and the
 * point-to-point layer routes it to the bridge's rings (p2p/remote.c).
 *
 * Invariants:
 *  - A remote id is handed out once per job (shm/dyn.h remote_seq, so all
 *    processes of a job give one remote process the same id) and never
 *    reused: rings of a finished connection may still hold its state.
 *  - An id is polled by progress while it is pinned (its connection is
 *    being made) or some communicator holds it (refs > 0; core/comm.c
 *    counts every communicator except the dynamic-process channel, which
 *    names every id and connects nothing).  A job that never connects has
 *    cm_remote_n == 0 and pays one test per full sweep.
 *  - ctl points into the other job's segment, mapped by this process for
 *    as long as it runs: the peer's pid (single copy, liveness), its state
 *    and its doorbell.
 */
#ifndef CM_CORE_REMOTE_H
#define CM_CORE_REMOTE_H

#include <stdatomic.h>
#include "core/state.h"
#include "shm/segment.h"
#include "shm/wait.h"

/* Remote ids per process (job-wide: every connection of the job uses up
 * the size of the group it connects to). */
#define CM_REMOTE_MAX 256

extern struct cm_rank_ctl *cm_remote_ctl[CM_REMOTE_MAX];
/* The ids progress polls now, in no order; cm_remote_n of them. */
extern int cm_remote_list[CM_REMOTE_MAX];
extern int cm_remote_n;

static inline int cm_is_remote(int w) { return w >= cm_g.slots; }

/* The control block of world rank w, in this job's segment or another's. */
static inline struct cm_rank_ctl *cm_peer_ctl(int w)
{
    if (__builtin_expect(w < cm_g.slots, 1))
        return cm_seg_ctl(cm_g.seg, (uint32_t)w);
    return cm_remote_ctl[w - cm_g.slots];
}

/* Ring w's doorbell if it sleeps, after publishing work for it.  A process
 * of another job may not run this job's sleeper barrier (wait.h): wake it
 * with the full fence always. */
static inline void cm_peer_wake(int w)
{
    if (__builtin_expect(w < cm_g.slots, 1)) {
        cm_wake_if_sleeping(cm_seg_ctl(cm_g.seg, (uint32_t)w));
        return;
    }
    struct cm_rank_ctl *c = cm_remote_ctl[w - cm_g.slots];
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&c->sleeping, memory_order_relaxed))
        cm_wake(c);
}

/* A connection registers remote id w (its control block ctl) pinned:
 * polled from now on. */
void cm_remote_register(int w, struct cm_rank_ctl *ctl);
/* The connection is made (its communicators hold the ids) or failed. */
void cm_remote_unpin(int w);
/* core/comm.c: a communicator naming world[0..n) is made (+1) or freed (-1). */
void cm_remote_ref(const int *world, int n, int delta);
/* A polled remote process that died without finalizing: its id, or -1.
 * Looked at by waits that slept (p2p/engine.c). */
int cm_remote_dead(void);

#endif
