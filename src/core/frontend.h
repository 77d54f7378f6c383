/*
 * frontend.h -- the one enter/exit template of every generated front end.
 *
 * spec/gen_frontends.py writes each MPI_/PMPI_ function of a generated
 * chapter (docs/spec.md, "Front ends") as
 *
 *     int PMPI_X(args)
 *     {
 *         if (CM_FRONT_ENTER(X))       or CM_FRONT_CHECKING() before
 *             return checked_X(args);  CM_FRONT_ENTER_LARGE(X_c)
 *         int cm_rc = cm_X(args);      the hand-written body (its impl)
 *         return CM_FRONT_LEAVE(cm_rc);
 *     }
 *
 * so what every call does on the way in and out is written here once.
 * checked_X, its twin, is the same call between CM_THREAD_CHECKED's enter
 * and leave: COREMPI_CHECK's check of the thread level (core/thread_check.h).
 * It is a function of its own so that the plain front end, whose record
 * tests a word it loads anyway, keeps tail-calling its impl.  A function
 * that any thread may call whatever the level (spec flags anytime and
 * anythread) has no twin and enters with CM_FRONT_ENTER_ANY_THREAD.
 * MPI_THREAD_MULTIPLE takes no lock here: there is no global lock, its
 * locks sit in the layers (docs/threads.md).  Invariant: LEAVE runs on
 * every return of a generated front end (the impl returns into it; the
 * front end has no other return), and the twin's leave on every return
 * of the twin.
 */
#ifndef CM_CORE_FRONTEND_H
#define CM_CORE_FRONTEND_H

#include "core/state.h"
#include "core/thread_check.h"

/* Record the call for crash and deadlock reports ("last MPI call"); 1:
 * take the checked twin instead (which records).  The check costs the plain
 * path nothing: it is behind the test of the record's word, NULL while the
 * check is on (core/state.h, cm_g.call_word). */
static inline int cm_front_enter(enum cm_call_id id)
{
    uint32_t *w = cm_g.call_word;
    if (__builtin_expect(!w, 0))
        return cm_thread_check_on;
    if (!cm_coll_depth)
        __atomic_store_n(w, (uint32_t)id, __ATOMIC_RELAXED);
    return 0;
}
#define CM_FRONT_ENTER(name) cm_front_enter(CM_CALL_##name)
/* The same record for a function without a twin (any thread may call it). */
static inline void cm_front_enter_any_thread(enum cm_call_id id)
{
    if (cm_g.self_ctl && !cm_coll_depth)
        __atomic_store_n(&cm_g.self_ctl->last_call, (uint32_t)id, __ATOMIC_RELAXED);
}
#define CM_FRONT_ENTER_ANY_THREAD(name) cm_front_enter_any_thread(CM_CALL_##name)
/* A _c form tests the check first (it has a frame anyway: the cleanup). */
#define CM_FRONT_CHECKING() __builtin_expect(cm_thread_check_on, 0)
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
 * which records the call, names its errors and is checked by COREMPI_CHECK
 * (core/thread_check.h) under the replacement's name. */
#define CM_FRONT_ENTER_UNRECORDED(name) do { } while (0)
/* The value the front end returns. */
#define CM_FRONT_LEAVE(rc) (rc)

#endif
