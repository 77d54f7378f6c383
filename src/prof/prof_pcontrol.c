/*
 * prof_pcontrol.c -- MPI_Pcontrol, by hand because it is variadic.
 * Pcontrol(0) stops recording, any other level resumes it; the call itself is
 * recorded (tag = level) on the side where recording is on.
 */
#include "prof_internal.h"
#include "cm_prof_call_ids.h"

CM_PROF_EXPORT int MPI_Pcontrol(const int level, ...)
{
    uint64_t t0 = cm_prof_now();
    int rc = PMPI_Pcontrol(level);
    uint64_t t1 = cm_prof_now();
    if (!cm_prof_state.active) return rc;
    cm_prof_fold_end();             /* polls on either side of it are not one loop */
    if (level == 0) {
        if (cm_prof_on) {
            cpt_event *e = cm_prof_begin(CM_PROF_ID_Pcontrol, 0, t0, t1, __builtin_return_address(0));
            e->tag = level;
            cm_prof_commit(e);
        }
        cm_prof_state.paused = 1;
        cm_prof_set_recording();
    } else {
        cm_prof_state.paused = 0;
        cm_prof_set_recording();
        if (cm_prof_on) {
            cpt_event *e = cm_prof_begin(CM_PROF_ID_Pcontrol, 0, t0, t1, __builtin_return_address(0));
            e->tag = level;
            cm_prof_commit(e);
        }
    }
    return rc;
}
