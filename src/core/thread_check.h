/*
 * thread_check.h -- COREMPI_CHECK=1 below MPI_THREAD_MULTIPLE: a call the
 * granted thread level forbids ends the job with one line naming it
 * (docs/threads.md, "Checking the thread level"):
 *
 *   corempi: MPI_Send on rank 0 (thread 2): called while MPI_Recv runs in
 *   thread 1; MPI_Init_thread granted MPI_THREAD_SERIALIZED (COREMPI_CHECK=1)
 *
 * SERIALIZED: two threads inside MPI at once.  FUNNELED and SINGLE: a call
 * from a thread other than the one that initialised MPI.
 *
 * How the front ends get here without a cost when the check is off: each
 * generated front end has a checked twin (spec/gen_frontends.py) that
 * wraps the impl's call in cm_thread_check_enter/leave.  The plain front
 * end records the call through cm_g.call_word (core/state.h), which is
 * NULL while the check is on; only on that rare branch does it read
 * cm_thread_check_on and tail-call the twin.  So the plain path keeps its
 * instructions and its tail call into the impl.
 */
#ifndef CM_CORE_THREAD_CHECK_H
#define CM_CORE_THREAD_CHECK_H

#include "cm_call_ids.h"

/* 1 while the front ends take their checked twins. */
extern int cm_thread_check_on;

/* Turn the check on or off (on: COREMPI_CHECK=1 at MPI_Init, or written
 * through MPI_T); it stays off at MPI_THREAD_MULTIPLE.  granted_by names
 * the call that set the level ("MPI_Init_thread"), for the report; NULL
 * keeps the one given before. */
void cm_thread_check_set(int on, const char *granted_by);

/* The checked twin's way in: records the call as the plain front end does,
 * then, at this thread's outermost MPI call, checks the level (and does not
 * return when the call breaks it).  Calls nested in it on the same thread
 * (callbacks, error handlers, the library's own PMPI_ calls) pass. */
unsigned cm_thread_check_enter(enum cm_call_id id);
/* Its way out (a cleanup: every return of the twin runs it). */
void cm_thread_check_leave(unsigned *unused);

#define CM_THREAD_CHECKED(name) \
    unsigned cm_checked_ __attribute__((cleanup(cm_thread_check_leave), unused)) = cm_thread_check_enter(CM_CALL_##name)

#endif
