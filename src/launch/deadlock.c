/* deadlock.c -- "every live rank is blocked in MPI and nothing moves".
 *
 * Sampled by the watcher; the verdict needs the condition to hold without a
 * break, and without any rank's progress counter changing, for the whole
 * timeout (COREMPI_DEADLOCK_TIMEOUT seconds, off when unset or 0). */
#include "launch/deadlock.h"

#include <stdio.h>
#include <stdlib.h>
#include "cm_call_ids.h"
#include "mpi.h"
#include "shm/segment.h"

double cm_deadlock_timeout_from_env(void)
{
    const char *s = getenv("COREMPI_DEADLOCK_TIMEOUT");
    if (!s || !*s)
        return 0;
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || v < 0) {
        fprintf(stderr, "mpirun: COREMPI_DEADLOCK_TIMEOUT=%s is not a number of seconds; no deadlock detection\n", s);
        return 0;
    }
    return v;
}

int cm_deadlock_init(struct cm_deadlock_watch *w, int nranks, double timeout_s)
{
    w->timeout_s = timeout_s;
    w->since = -1;
    w->last_progress = calloc((size_t)nranks, sizeof *w->last_progress);
    return w->last_progress ? 0 : -1;
}

void cm_deadlock_free(struct cm_deadlock_watch *w)
{
    free(w->last_progress);
    w->last_progress = NULL;
}

static int all_live_ranks_blocked(const struct cm_job *job)
{
    int live = 0;
    for (int r = 0; r < job->nranks; r++) {
        if (job->pids[r] <= 0)
            continue;
        const struct cm_rank_ctl *c = cm_seg_ctl(job->seg, (uint32_t)r);
        if (atomic_load_explicit(&c->state, memory_order_acquire) != CM_RANK_RUNNING || c->blocked_call == 0)
            return 0;
        live++;
    }
    return live > 0;
}

int cm_deadlock_sample(struct cm_deadlock_watch *w, const struct cm_job *job, double now_s)
{
    if (w->timeout_s <= 0)
        return 0;
    int moved = 0;
    for (int r = 0; r < job->nranks; r++) {
        const struct cm_rank_ctl *c = cm_seg_ctl(job->seg, (uint32_t)r);
        uint64_t p = atomic_load_explicit(&c->progress, memory_order_relaxed);
        if (p != w->last_progress[r])
            moved = 1;
        w->last_progress[r] = p;
    }
    if (moved || !all_live_ranks_blocked(job)) {
        w->since = -1;
        return 0;
    }
    if (w->since < 0)
        w->since = now_s;
    return now_s - w->since >= w->timeout_s;
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
    for (int r = 0; r < job->nranks; r++) {
        if (job->pids[r] <= 0)
            continue;
        const struct cm_rank_ctl *c = cm_seg_ctl(job->seg, (uint32_t)r);
        char callbuf[32], peer[32], tag[32];
        describe_peer(c->blocked_peer, peer, sizeof peer);
        describe_tag(c->blocked_tag, tag, sizeof tag);
        fprintf(stderr, "mpirun: deadlock: rank %d blocked in %s (peer %s, tag %s, context %u)\n", r,
                cm_launch_call_name(c->blocked_call, callbuf, sizeof callbuf), peer, tag, c->blocked_ctx);
    }
    fprintf(stderr, "mpirun: deadlock: every rank blocked in MPI with no progress for %g s "
                    "(COREMPI_DEADLOCK_TIMEOUT); job aborted with status 124\n", w->timeout_s);
}
