/* deadlock.h -- the launcher's hang detector (DESIGN.md section 10,
 * docs/mpirun.md "Deadlock watch"). */
#ifndef CM_LAUNCH_DEADLOCK_H
#define CM_LAUNCH_DEADLOCK_H

#include <stdint.h>
#include "launch/launch.h"

/* Without COREMPI_DEADLOCK_TIMEOUT: on, after this many seconds. */
#define CM_DEADLOCK_DEFAULT_S 10.0

struct cm_deadlock_watch {
    double timeout_s;         /* 0: off */
    double since;             /* when the current all-blocked stretch began, -1: none */
    double last_sample;       /* when the previous sample was taken, -1: none */
    int nslots;               /* every slot of the universe is watched, spawned ones too */
    uint64_t *last_progress;  /* per slot, at the previous sample */
};

/* COREMPI_DEADLOCK_TIMEOUT, CM_DEADLOCK_DEFAULT_S when unset; 0: off. */
double cm_deadlock_timeout_from_env(void);
int cm_deadlock_init(struct cm_deadlock_watch *w, int nslots, double timeout_s);
void cm_deadlock_free(struct cm_deadlock_watch *w);
/* Take one sample at time now_s; returns 1 when the job is deadlocked. */
int cm_deadlock_sample(struct cm_deadlock_watch *w, const struct cm_job *job, double now_s);
/* One line per live process, then the verdict. */
void cm_deadlock_report(const struct cm_deadlock_watch *w, const struct cm_job *job);

#endif
