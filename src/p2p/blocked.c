/* blocked.c -- the announcement of a blocking wait (blocked.h). */
#include "p2p/blocked.h"

#include <mpi.h>
#include "cm_call_ids.h"
#include "core/remote.h"
#include "core/state.h"

/* Calls that wait on the world outside the job: another job's processes
 * (which this job's mpirun does not watch) or processes still starting. */
static int waits_outside(uint32_t call_id)
{
    switch (call_id) {
    case CM_CALL_Comm_accept:
    case CM_CALL_Comm_connect:
    case CM_CALL_Comm_join:
    case CM_CALL_Comm_spawn:
    case CM_CALL_Comm_spawn_multiple:
        return 1;
    default:
        return 0;
    }
}

_Atomic int cm_grequests_open;

void cm_blocked_begin(uint32_t call_id, int peer, int tag, unsigned ctx)
{
    struct cm_rank_ctl *me = cm_g.self_ctl;
    uint32_t call = call_id & ~CM_BLOCKED_UNSEEN;
    /* MPI_THREAD_MULTIPLE: another thread of ours may be what this one
     * waits for, and the rank has one record for all its threads: none is
     * announced (mpirun's deadlock watch does not judge such a rank). */
    if (!me || !call || cm_mt)
        return;
    /* Connected to another job, its messages may be what we wait for. */
    if (waits_outside(call) || cm_remote_n > 0 || cm_grequests_open > 0)
        call_id |= CM_BLOCKED_UNSEEN;
    me->blocked_peer = peer;
    me->blocked_tag = tag;
    me->blocked_ctx = ctx;
    me->blocked_call = call_id;
}

void cm_blocked_end(void)
{
    struct cm_rank_ctl *me = cm_g.self_ctl;
    if (!me || cm_mt)
        return;
    me->blocked_call = 0;
    cm_progress_bump(me);
}
