/*
 * epoch.c -- the checks every RMA operation makes first: a valid window, a
 * target in it, an access epoch that covers that target.
 *
 * An access epoch to target t is open when: Win_lock_all is held; or
 * Win_lock(t) is held; or Win_start's group names t; or a fence without
 * MPI_MODE_NOSUCCEED was the last fence and no other epoch is open.  Anything
 * else is MPI_ERR_RMA_SYNC, raised on the window.
 *
 * A fence only starts an access epoch when RMA calls follow it before the
 * next fence (MPI-4.1 section 12.5), so the first operation that falls to
 * the fence marks it (fence_used): from then on a lock, lock_all or start
 * before the closing fence would overlap two epochs and is refused
 * (sync.c, pscw.c), as is Win_free (create.c).
 */
#include "osc/osc.h"
#include "core/error.h"
#include "core/request.h"
#include "core/state.h"

int cm_osc_epoch_check(struct cm_win *w, int rank)
{
    if (w->lock_all || w->lock[rank])
        return 0;
    for (int i = 0; i < w->nstart; i++)
        if (w->start_ranks[i] == rank)
            return 0;
    if (w->fence_open && !w->nlocks && !w->start_ranks) {
        w->fence_used = 1;
        return 0;
    }
    return MPI_ERR_RMA_SYNC;
}

struct cm_win *cm_osc_begin(MPI_Win win, int rank, const char *call, int *rc)
{
    if ((*rc = cm_check_initialized(call)) != MPI_SUCCESS)
        return NULL;
    struct cm_win *w = cm_win_check(win, call, rc);
    if (!w)
        return NULL;
    if (rank == MPI_PROC_NULL)
        return w;
    if (rank < 0 || rank >= w->size) {
        *rc = cm_win_error(w, MPI_ERR_RANK, call, "target rank %d is not in the window (size %d)", rank, w->size);
        return NULL;
    }
    if (cm_osc_epoch_check(w, rank)) {
        *rc = cm_win_error(w, MPI_ERR_RMA_SYNC, call,
                           "no access epoch to target %d is open on window %ld (call MPI_Win_fence, "
                           "MPI_Win_start, MPI_Win_lock or MPI_Win_lock_all first)",
                           rank, (long)(intptr_t)win);
        return NULL;
    }
    return w;
}

int cm_osc_done_request(MPI_Request *request)
{
    struct cm_request *r = cm_request_new(CM_REQ_DONE);
    r->complete = 1;
    r->status.MPI_SOURCE = MPI_ANY_SOURCE;
    r->status.MPI_TAG = MPI_ANY_TAG;
    r->status.MPI_ERROR = MPI_SUCCESS;
    *request = cm_request_handle(r);
    return MPI_SUCCESS;
}
