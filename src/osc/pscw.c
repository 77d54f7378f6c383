/*
 * pscw.c -- generalized active target: Win_post, Win_start, Win_complete,
 * Win_wait, Win_test, over counters in the window's control area.
 *
 *   post (target t, origins G):  posted[o][t] += 1 for each o in G, then
 *                                rings o's bell;  t expects |G| more completes.
 *   start (origin o, targets G): waits until posted[o][t] exceeds the posts
 *                                o has consumed from t, for each t in G, and
 *                                consumes one.
 *   complete (origin o):         completed[t] += 1 for each t it started.
 *   wait/test (target t):        completed[t] has reached what t expects.
 * Counters only grow, so a post that arrives before the start it matches is
 * simply counted, and one origin's epochs pair with one target's in order.
 * An operation is complete when its call returns (osc.h), so complete only
 * has to publish its counter after a full fence (the seq_cst increment).
 * MPI_MODE_NOCHECK on post and on start (the standard wants both or
 * neither) skips the post's counter and the start's wait.
 */
#include "osc/osc.h"
#include "core/error.h"
#include "core/group.h"
#include "core/state.h"
#include "fe_osc.h"

#include <stdlib.h>

/* The window ranks of group's members (malloc'ed, *n of them), or NULL
 * with *rc set (an invalid group, a member not in the window's group, no
 * memory).  Each member's world rank is looked up in the window's group
 * directly: MPI_Group_translate_ranks builds a world-sized table per call,
 * some 1700 instructions of every start and post (two per PSCW round). */
static int *ranks_of(struct cm_win *w, MPI_Group group, int *n, const char *call, int *rc)
{
    *rc = MPI_SUCCESS;
    const struct cm_group *g = cm_group_lookup(group), *wg = cm_group_lookup(w->group);
    if (!g || !wg) {
        *rc = cm_win_error(w, MPI_ERR_GROUP, call, "invalid group %ld", (long)(intptr_t)group);
        return NULL;
    }
    *n = g->size;
    int *out = malloc(((size_t)*n + 1) * sizeof *out);
    if (!out) {
        *rc = cm_win_error(w, MPI_ERR_NO_MEM, call, "out of memory");
        return NULL;
    }
    for (int i = 0; i < *n; i++) {
        out[i] = cm_group_rank_of(wg, g->world[i]);
        if (out[i] == MPI_UNDEFINED) {
            *rc = cm_win_error(w, MPI_ERR_GROUP, call, "group member %d is not in the window's group", i);
            free(out);
            return NULL;
        }
    }
    return out;
}

int cm_Win_post(MPI_Group group, int assert, MPI_Win win)
{
    CM_CALL_LOOKUP(struct cm_win, w, "MPI_Win_post", cm_win_enter, win);
    int n;
    /* a fence's exposure epoch starts only if others access this window
     * before the next fence, which this process cannot see: only its own
     * post is checked */
    if (w->post_open)
        return cm_win_error(w, MPI_ERR_RMA_SYNC, call, "window %ld already has an exposure epoch open (MPI_Win_post)",
                            (long)(intptr_t)win);
    int *r = ranks_of(w, group, &n, call, &rc);
    if (!r)
        return rc;
    if (!(assert & MPI_MODE_NOCHECK)) {
        for (int i = 0; i < n; i++) {
            int o = r[i];
            atomic_fetch_add(&w->posted[(size_t)o * (size_t)w->size + (size_t)w->rank], 1);
            atomic_fetch_add(&w->rctl[o].bell, 1);
            cm_osc_wake(&w->rctl[o].bell, &w->rctl[o].bell_sleepers);
        }
    }
    free(r);
    w->wait_expected += (uint32_t)n;
    w->post_open = 1;
    return MPI_SUCCESS;
}

struct posted_arg {
    _Atomic uint32_t *word;
    uint32_t consumed;
};

static int posted(void *p)
{
    struct posted_arg *a = p;
    return (int32_t)(atomic_load(a->word) - a->consumed) > 0;
}

int cm_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    CM_CALL_LOOKUP(struct cm_win, w, "MPI_Win_start", cm_win_enter, win);
    int n;
    if (w->start_ranks || w->fence_used || w->lock_all || w->nlocks)
        return cm_win_error(w, MPI_ERR_RMA_SYNC, call, "window %ld already has an access epoch open (%s)",
                            (long)(intptr_t)win,
                            w->start_ranks ? "MPI_Win_start" : w->fence_used ? "fence, with RMA calls since it"
                                                             : w->lock_all ? "MPI_Win_lock_all" : "MPI_Win_lock");
    int *r = ranks_of(w, group, &n, call, &rc);
    if (!r)
        return rc;
    if (!(assert & MPI_MODE_NOCHECK)) {
        for (int i = 0; i < n; i++) {
            int t = r[i];
            struct posted_arg a = { &w->posted[(size_t)w->rank * (size_t)w->size + (size_t)t], w->started[t] };
            if (!posted(&a))
                cm_osc_wait(&w->rctl[w->rank].bell, &w->rctl[w->rank].bell_sleepers, posted, &a, w->world_of[t]);
            w->started[t]++;
        }
    }
    w->start_ranks = r;
    w->nstart = n;
    return MPI_SUCCESS;
}

int cm_Win_complete(MPI_Win win)
{
    CM_CALL_LOOKUP(struct cm_win, w, "MPI_Win_complete", cm_win_enter, win);
    if (!w->start_ranks)
        return cm_win_error(w, MPI_ERR_RMA_SYNC, call, "no MPI_Win_start epoch is open on window %ld",
                            (long)(intptr_t)win);
    for (int i = 0; i < w->nstart; i++)
        cm_osc_am_drain(w, w->start_ranks[i]);
    for (int i = 0; i < w->nstart; i++) {
        int t = w->start_ranks[i];
        atomic_fetch_add(&w->rctl[t].completed, 1);
        cm_osc_wake(&w->rctl[t].completed, &w->rctl[t].completed_sleepers);
    }
    free(w->start_ranks);
    w->start_ranks = NULL;
    w->nstart = 0;
    return MPI_SUCCESS;
}

struct done_arg {
    _Atomic uint32_t *word;
    uint32_t expected;
};

static int all_completed(void *p)
{
    struct done_arg *a = p;
    return (int32_t)(atomic_load(a->word) - a->expected) >= 0;
}

static int wait_or_test(MPI_Win win, int *flag, const char *call)
{
    int rc;
    struct cm_win *w = cm_win_enter(win, call, &rc);
    if (!w)
        return rc;
    if (!w->post_open)
        return cm_win_error(w, MPI_ERR_RMA_SYNC, call, "no MPI_Win_post epoch is open on window %ld",
                            (long)(intptr_t)win);
    struct done_arg a = { &w->rctl[w->rank].completed, w->wait_expected };
    if (flag) {
        *flag = all_completed(&a);
        if (!*flag)
            return MPI_SUCCESS;
    } else if (!all_completed(&a)) {
        cm_osc_wait(a.word, &w->rctl[w->rank].completed_sleepers, all_completed, &a, MPI_ANY_SOURCE);
    }
    w->post_open = 0;
    return MPI_SUCCESS;
}

int cm_Win_wait(MPI_Win win)
{
    return wait_or_test(win, NULL, "MPI_Win_wait");
}

int cm_Win_test(MPI_Win win, int *flag)
{
    CM_ARG_NOT_NULL(MPI_COMM_WORLD, flag, "MPI_Win_test");
    return wait_or_test(win, flag, "MPI_Win_test");
}
