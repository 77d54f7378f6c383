/* deadlock.h -- the launcher's hang detector (DESIGN.md section 10). */
#ifndef CM_LAUNCH_DEADLOCK_H
#define CM_LAUNCH_DEADLOCK_H

#include <stdint.h>
#include "launch/launch.h"

struct cm_deadlock_watch {
    double timeout_s;         /* 0: off */
    double since;             /* when the current all-blocked stretch began, -1: none */
    uint64_t *last_progress;  /* per rank, at the previous sample */
};

double cm_deadlock_timeout_from_env(void);
int cm_deadlock_init(struct cm_deadlock_watch *w, int nranks, double timeout_s);
void cm_deadlock_free(struct cm_deadlock_watch *w);
/* Take one sample at time now_s; returns 1 when the job is deadlocked. */
int cm_deadlock_sample(struct cm_deadlock_watch *w, const struct cm_job *job, double now_s);
/* One line per live rank, then the verdict. */
void cm_deadlock_report(const struct cm_deadlock_watch *w, const struct cm_job *job);

#endif
