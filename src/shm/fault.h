/*
 * fault.h -- fault injection at the steps of the lock-free protocols
 * (docs/protocols.md): CM_FAULT(site) marks a point between two steps whose
 * order matters (a payload written and its publish, a wait satisfied and
 * the read it allows, an announcement and its re-check, ...).
 *
 * Built without -DCOREMPI_FAULTS=ON the point is nothing at all.  Built with
 * it, and run with COREMPI_FAULTS=<seed>[,<rate>] in the environment, each
 * point draws from a per-rank generator (seed mixed with the world rank) and
 * with probability rate (default 0.05) stalls the rank there: a spin of
 * 0.1-5 us, a sched_yield, or a usleep of 10-200 us.  A stall only stretches
 * a window that a hostile scheduler could open anyway, so a correct protocol
 * gives the same results under any seed; a broken one fails more often.
 * COREMPI_FAULTS=time takes the seed from the clock; every rank prints the
 * seed it was given, so a failing run can be repeated with the same draws.
 */
#ifndef CM_SHM_FAULT_H
#define CM_SHM_FAULT_H

#ifdef CM_FAULTS
/* 0 once the first point found COREMPI_FAULTS unset: later points cost a
 * load and a branch. */
extern int cm_fault_armed;
void cm_fault_point(const char *site);
#define CM_FAULT(site) do { if (cm_fault_armed) cm_fault_point(#site); } while (0)
/* A refusal point: CM_FAULT_REFUSE(site) is 1 where the call it guards
 * must fail as the system would refuse it (process_vm_writev's EPERM
 * after a ptrace policy change, say), in the ranks that
 * COREMPI_FAULT_REFUSE=site[@world rank] names, from MPI_Init on; 0
 * everywhere else.  Independent of COREMPI_FAULTS: a deterministic
 * fallback test, not a random stall. */
int cm_fault_refused(const char *site);
#define CM_FAULT_REFUSE(site) cm_fault_refused(#site)
/* MPI_Init, once the world rank is known: points before it do nothing (the
 * rank goes into the seed).  Told from above, so shm needs nothing of core. */
void cm_fault_start(int world_rank, const char *faults, const char *refuse);
#else
#define CM_FAULT(site) ((void)0)
#define CM_FAULT_REFUSE(site) 0
static inline void cm_fault_start(int world_rank, const char *faults, const char *refuse)
{
    (void)world_rank, (void)faults, (void)refuse;
}
#endif

#endif
