/*
 * direct/await.c -- the engine's waits share this: the deadlock watcher's
 * announcement, progress of pending point-to-point and nonblocking work
 * while a rank waits in a blocking collective, and the nap bounds.
 */
#include <mpi.h>
#ifdef CM_IN_COREMPI  /* corempi only: the host-MPI harness compiles every src/coll file */
#include "coll/direct/await.h"
#include "core/state.h"
#include "p2p/match.h"
#include "p2p/blocked.h"
#include "p2p/p2p.h"
#include "shm/segment.h"

/* A rank about to sleep in a collective tells mpirun's deadlock watcher, as
 * point-to-point waits do (peer: any; the call is the one it is in). */
void cm_direct_announce_blocked(int blocked)
{
    if (!cm_g.self_ctl)
        return;
    if (blocked)
        cm_blocked_begin(__atomic_load_n(&cm_g.self_ctl->last_call, __ATOMIC_RELAXED), MPI_ANY_SOURCE, MPI_ANY_TAG, 0);
    else
        cm_blocked_end();
}

int cm_direct_backoff_when_oversubscribed(void)
{
    return cm_config_flag(COREMPI_SHM_BACKOFF, 1);
}

/* A rank waiting in a shared-memory collective still owes progress to its
 * pending nonblocking operations, posted receives and open rendezvous
 * transfers (MPI-4.1 §3.7.4, §6.12): a peer may be blocked until one of our
 * schedules sends its next round, until we drain the ring it fills towards
 * a receive we posted or matched, or until we stream or write the data of a
 * send it matched, and the peer may be the one we wait for
 * (tests/mpi/nbc_progress.c: Ibarrier on one communicator, Bcast on
 * another, 5 ranks deadlocked; tests/mpi/ring_progress.c: 4000 sends to
 * posted receives, then a Bcast from the sender, 2 ranks deadlocked;
 * tests/mpi/rndv_progress.c: Isend or Bsend of 20 KB, then Barrier, against
 * a blocking Recv, deadlocked at 2-4 ranks).  The first test is the
 * rendezvous count, a plain load: the waits' idle path pays 4 instructions
 * for it (docs/polling.md, "Waits in collectives").  So every
 * wait below runs the progress engine while anything is pending, and then
 * sleeps only briefly: a message for us rings our doorbell, not this word.
 * Returns the futex timeout to use. */
const struct timespec cm_direct_long_nap = { 0, 200 * 1000000L };   /* a lost wake-up costs this, not a hang */

const struct timespec *cm_direct_progress_pending(const struct timespec *normal)
{
    static const struct timespec brief = { 0, 100 * 1000L };
    if (cm_progress_quiet() && !cm_p2p_owed && cm_match_idle())   /* quiet first: never under MPI_THREAD_MULTIPLE */
        return normal;
    cm_progress(-1);
    return &brief;
}
#endif
