/* deadlock.c -- "every live rank is blocked in MPI and nothing moves".
 *
 * Sampled by the watcher every 100 ms; the verdict needs the condition to
 * hold at every sample, without any process's progress counter changing,
 * for the whole timeout (COREMPI_DEADLOCK_TIMEOUT seconds; 10 when unset,
 * off at 0).  What a rank writes and why this cannot call a slow or a
 * computing job deadlocked: p2p/blocked.h and docs/mpirun.md. */
#include "launch/deadlock.h"
#include "launch/launch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cm_call_ids.h"
#include "mpi.h"
#include "shm/segment.h"

/* A gap between samples longer than this means the watcher itself did not
 * run (mpirun stopped with ^Z, the machine suspended or overloaded): the
 * ranks did not either, so the stretch starts again. */
#define CM_DEADLOCK_MAX_GAP_S 1.0

double cm_deadlock_timeout_from_env(void)
{
    const char *s = cm_launch_cfg.deadlock_timeout;
    if (!s)
        return CM_DEADLOCK_DEFAULT_S;
    if (!strcmp(s, "off"))   /* what the table said before the watch was on by default */
        return 0;
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || v < 0) {
        fprintf(stderr, "mpirun: COREMPI_DEADLOCK_TIMEOUT=%s is not a number of seconds; no deadlock detection\n", s);
        return 0;
    }
    return v;
}

int cm_deadlock_init(struct cm_deadlock_watch *w, int nslots, double timeout_s)
{
    w->timeout_s = timeout_s;
    w->since = -1;
    w->last_sample = -1;
    w->nslots = nslots;
    w->last_progress = calloc((size_t)nslots, sizeof *w->last_progress);
    return w->last_progress ? 0 : -1;
}

void cm_deadlock_free(struct cm_deadlock_watch *w)
{
    free(w->last_progress);
    w->last_progress = NULL;
}

/* Blocked in MPI on something this watcher can see.  A process still
 * starting (a spawn), finalized, or waiting on the world outside the job
 * (CM_BLOCKED_UNSEEN) is not. */
static int blocked_here(const struct cm_rank_ctl *c)
{
    uint32_t call = c->blocked_call;
    return atomic_load_explicit(&c->state, memory_order_acquire) == CM_RANK_RUNNING && call != 0 &&
           !(call & CM_BLOCKED_UNSEEN);
}

static int all_live_ranks_blocked(const struct cm_deadlock_watch *w, const struct cm_job *job)
{
    int live = 0;
    for (int r = 0; r < w->nslots; r++) {
        if (job->pids[r] <= 0)
            continue;
        if (!blocked_here(cm_seg_ctl(job->seg, (uint32_t)r)))
            return 0;
        live++;
    }
    return live > 0;
}

/* A process stopped by a signal or a debugger ('T', 't' in /proc) is not
 * deadlocked: someone holds it. */
static int stopped(pid_t pid)
{
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');   /* the name may hold spaces and parentheses */
    return p && p[1] == ' ' && (p[2] == 'T' || p[2] == 't');
}

static int any_stopped(const struct cm_deadlock_watch *w, const struct cm_job *job)
{
    for (int r = 0; r < w->nslots; r++)
        if (job->pids[r] > 0 && stopped(job->pids[r]))
            return 1;
    return 0;
}

int cm_deadlock_sample(struct cm_deadlock_watch *w, const struct cm_job *job, double now_s)
{
    if (w->timeout_s <= 0)
        return 0;
    int moved = w->last_sample < 0 || now_s - w->last_sample > CM_DEADLOCK_MAX_GAP_S;
    w->last_sample = now_s;
    for (int r = 0; r < w->nslots; r++) {
        const struct cm_rank_ctl *c = cm_seg_ctl(job->seg, (uint32_t)r);
        uint64_t p = atomic_load_explicit(&c->progress, memory_order_relaxed);
        if (p != w->last_progress[r])
            moved = 1;
        w->last_progress[r] = p;
    }
    if (moved || !all_live_ranks_blocked(w, job)) {
        w->since = -1;
        return 0;
    }
    if (w->since < 0)
        w->since = now_s;
    if (now_s - w->since < w->timeout_s)
        return 0;
    if (any_stopped(w, job)) {
        w->since = -1;
        return 0;
    }
    return 1;
}

static void describe_peer(int peer, char *buf, size_t len)
{
    if (peer == MPI_ANY_SOURCE)
        snprintf(buf, len, "MPI_ANY_SOURCE");
    else
        snprintf(buf, len, "%d", peer);
}

static void describe_tag(int tag, char *buf, size_t len)
{
    if (tag == MPI_ANY_TAG)
        snprintf(buf, len, "MPI_ANY_TAG");
    else
        snprintf(buf, len, "%d", tag);
}

void cm_deadlock_report(const struct cm_deadlock_watch *w, const struct cm_job *job)
{
    for (int r = 0; r < w->nslots; r++) {
        if (job->pids[r] <= 0)
            continue;
        const struct cm_rank_ctl *c = cm_seg_ctl(job->seg, (uint32_t)r);
        char callbuf[32], peer[32], tag[32], name[64];
        describe_peer(c->blocked_peer, peer, sizeof peer);
        describe_tag(c->blocked_tag, tag, sizeof tag);
        cm_launch_slot_name(job, r, name, sizeof name);
        fprintf(stderr, "mpirun: deadlock: %s blocked in %s (peer %s, tag %s, context %u)\n", name,
                cm_launch_call_name(c->blocked_call & ~CM_BLOCKED_UNSEEN, callbuf, sizeof callbuf), peer, tag,
                c->blocked_ctx);
    }
    fprintf(stderr, "mpirun: deadlock: every rank blocked in MPI with no progress for %g s "
                    "(COREMPI_DEADLOCK_TIMEOUT=0 turns this off); job aborted with status 124\n", w->timeout_s);
}
