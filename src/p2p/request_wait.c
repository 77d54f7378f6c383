/*
 * request_wait.c -- waiting on requests: test, wait, and the generic
 * (polled) requests that the progress engine keeps moving.
 *
 * Requests as objects (allocation, handles, status) are core/request.c;
 * everything here calls the progress engine, so it lives in p2p.
 */
#include "p2p/request_wait.h"
#include "p2p/p2p.h"
#include "p2p/outq.h"

MPI_Request cm_request_generic(int (*poll)(void *state), void (*destroy)(void *state), void *state)
{
    return cm_request_generic_blocking(poll, destroy, NULL, state);
}

MPI_Request cm_request_generic_blocking(int (*poll)(void *state), void (*destroy)(void *state),
                                        void (*block)(void *state), void *state)
{
    struct cm_request *r = cm_request_generic_new(poll, destroy, state);
    r->block = block;
    return cm_request_generic_go(r);
}

struct cm_request *cm_request_generic_new(int (*poll)(void *state), void (*destroy)(void *state), void *state)
{
    struct cm_request *r = cm_request_new(CM_REQ_GENERIC);
    r->poll = poll;
    r->destroy = destroy;
    r->state = state;
    r->peer_world = -1;
    r->status.MPI_SOURCE = MPI_ANY_SOURCE;
    r->status.MPI_TAG = MPI_ANY_TAG;
    return r;
}

MPI_Request cm_request_generic_go(struct cm_request *r)
{
    if (r->poll(r->state))
        r->complete = 1;
    else
        cm_progress_add_generic(r);
    return cm_request_handle(r);
}

int cm_request_test(struct cm_request *r)
{
    if (__atomic_load_n(&r->complete, __ATOMIC_ACQUIRE))
        return 1;
    cm_progress(cm_request_hint(r));
    return __atomic_load_n(&r->complete, __ATOMIC_ACQUIRE);
}

void cm_request_wait(struct cm_request *r, unsigned call_id)
{
    if (__atomic_load_n(&r->complete, __ATOMIC_ACQUIRE))
        return;
    /* MPI_THREAD_MULTIPLE: the request stays on the progress list (another
     * thread may be polling it), so its blocking steps are not run here. */
    if (r->kind == CM_REQ_GENERIC && r->block && !cm_mt) {
        /* Off the progress list while its own blocking steps run: a
         * shared-memory wait then runs the progress engine only when other
         * work is pending, not for this request, which it would find busy
         * (~140 instructions of a started 8-byte persistent allreduce).
         * Done after the block: complete it here rather than through a
         * progress pass (a fifth of a small nonblocking collective's own
         * cost). */
        int listed = cm_progress_drop_generic(r);
        r->block(r->state);
        if (listed) {
            if (r->poll(r->state)) {
                r->complete = 1;
                return;
            }
            cm_progress_add_generic(r);
        }
    }
    int peer = CM_RACY_LOAD(r->peer_world);   /* cm_request_hint: a receive's may change */
    cm_progress_wait(&r->complete, r->kind == CM_REQ_RECV ? peer : -1, call_id, peer, r->tag, r->ctx);
}
