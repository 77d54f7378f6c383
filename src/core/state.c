/* state.c -- process-wide state, call names. */
#include "core/state.h"
#include "core/error.h"
#include "shm/segment.h"

#include <stdlib.h>
#include <string.h>

struct cm_state cm_g = { .rank = -1, .size = 0 };
CM_THREAD_LOCAL unsigned cm_coll_depth;
CM_THREAD_LOCAL unsigned cm_large_call;

static const char *const call_names[] = {
    "MPI call",
#define CM_CALL_NAME_(n) "MPI_" #n,
    CM_CALL_LIST(CM_CALL_NAME_)
#undef CM_CALL_NAME_
};

const char *cm_call_name(unsigned id)
{
    return id < sizeof call_names / sizeof call_names[0] ? call_names[id] : "MPI call";
}

unsigned cm_user_code_begins(void)
{
    struct cm_rank_ctl *me = cm_g.self_ctl;
    unsigned blocked = me ? me->blocked_call : 0;
    if (blocked)
        me->blocked_call = 0;
    return blocked;
}

void cm_user_code_ends(unsigned blocked)
{
    struct cm_rank_ctl *me = cm_g.self_ctl;
    if (blocked) {
        cm_progress_bump(me);
        me->blocked_call = blocked;
    }
}

int cm_check_initialized_fail(const char *call)
{
    cm_fatal(call, "%s", cm_g.finalized == CM_BETWEEN_SESSIONS ? "called with no session open (after the last MPI_Session_finalize)"
                         : cm_g.finalized ? "called after MPI_Finalize" : "called before MPI_Init");
}
