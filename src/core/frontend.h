/*
 * frontend.h -- the one enter/exit template of every generated front end.
 *
 * spec/gen_frontends.py writes each MPI_/PMPI_ function of a generated
 * chapter (docs/spec.md, "Front ends") as
 *
 *     int PMPI_X(args)
 *     {
 *         CM_FRONT_ENTER(X);           or CM_FRONT_ENTER_LARGE(X_c), or a
 *                                      layer's (coll/frontend.h)
 *         int cm_rc = cm_X(args);      the hand-written body (its impl)
 *         return CM_FRONT_LEAVE(cm_rc);
 *     }
 *
 * so what every call does on the way in and out is written here once.
 * MPI_THREAD_MULTIPLE takes no lock here: there is no global lock, its
 * locks sit in the layers (docs/threads.md).  What a per-call thread hook
 * would still do (COREMPI_CHECK naming two threads of a SERIALIZED program
 * that call at once, issue 35) goes into these two macros: ENTER takes it,
 * LEAVE gives it back.  Invariant: LEAVE runs on every return of a
 * generated front end (the impl returns into it; the front end has no
 * other return).
 */
#ifndef CM_CORE_FRONTEND_H
#define CM_CORE_FRONTEND_H

#include "core/state.h"

/* Record the call for crash and deadlock reports ("last MPI call"). */
#define CM_FRONT_ENTER(name) CM_ENTER(name)
/* A _c form: errors its int twin raises are named after it and the twin
 * records nothing (core/state.h, cm_enter_large); left when the scope ends.
 * Called inside another _c call (mpi/large.c builds MPI_Send_c's temporary
 * type with MPI_Type_contiguous_c), it leaves the outer call's name on the
 * errors, as core/error.c expects of that helper. */
static inline unsigned cm_front_enter_large(enum cm_call_id id)
{
    unsigned outer = cm_large_call;
    cm_enter(id);
    cm_coll_depth++;
    if (!outer)
        cm_large_call = (unsigned)id;
    return outer;
}
#define CM_FRONT_ENTER_LARGE(name) \
    unsigned cm_large_ __attribute__((cleanup(cm_leave_large), unused)) = cm_front_enter_large(CM_CALL_##name)
/* A front end that records nothing (flag norecord): an old name whose impl
 * is the front end of its replacement (MPI_Attr_put is PMPI_Comm_set_attr),
 * which records the call and names its errors.  Empty today; the thread
 * hook goes here too, so that every front end enters and leaves. */
#define CM_FRONT_ENTER_UNRECORDED(name) do { } while (0)
/* The value the front end returns. */
#define CM_FRONT_LEAVE(rc) (rc)

#endif
