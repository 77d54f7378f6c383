/*
 * grequest.c -- generalized requests (MPI_Grequest_start/complete).
 *
 * A generic request with no poll: only MPI_Grequest_complete completes it.
 * Wait/Test call the query function through the request's query hook (its
 * return is the call's error; MPI_ERR_IN_STATUS in the array forms, by the
 * common code of api_wait.c), the free function runs when the request is
 * released (after query in Wait/Test; at Grequest_complete when the user
 * freed the request before), and MPI_Cancel calls the cancel function.
 *
 * Invariant: a request freed by the user before completion keeps its
 * handle until Grequest_complete (which names it by that handle): were the
 * number reused meanwhile -- by another thread's generalized request, say
 * -- the completion would find the wrong request.
 *
 * MPI_THREAD_MULTIPLE: Grequest_complete is typically another thread's
 * (MPI-4.1 13.2).  `lock` orders it against Request_free (one of the two
 * finds the other's mark and releases the request);
 * a completion wakes this process's sleeping threads, since no progress
 * pass sees a generalized request complete.  Callbacks run outside it.
 */
#include "p2p/blocked.h"
#include "p2p/p2p.h"
#include "p2p/mt.h"
#include "p2p/request_wait.h"
#include "core/state.h"
#include "core/request.h"
#include "core/error.h"
#include "core/thread.h"
#include "p2p/mt.h"
#include "shm/fault.h"
#include "shm/wait.h"

#include <stdlib.h>
#include "fe_ext.h"

struct greq {
    MPI_Grequest_query_function *query_fn;
    MPI_Grequest_free_function *free_fn;
    MPI_Grequest_cancel_function *cancel_fn;
    void *extra_state;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

int cm_grequest_query(struct cm_request *r)
{
    struct greq *g = r->state;
    r->has_status = 1;
    return g->query_fn ? g->query_fn(g->extra_state, &r->status) : MPI_SUCCESS;
}

static int greq_cancel(struct cm_request *r)
{
    struct greq *g = r->state;
    return g->cancel_fn ? g->cancel_fn(g->extra_state, r->complete) : MPI_SUCCESS;
}

static void greq_destroy(void *state)
{
    struct greq *g = state;
    if (g->free_fn)
        g->free_fn(g->extra_state);
    free(g);
}

static int never(void *state)
{
    (void)state;
    return 0;
}

int cm_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                      MPI_Grequest_cancel_function *cancel_fn, void *extra_state, MPI_Request *request)
{
    if (!request)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Grequest_start", "request pointer is NULL");
    struct greq *g = calloc(1, sizeof *g);
    if (!g)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, "MPI_Grequest_start", "out of memory");
    g->query_fn = query_fn;
    g->free_fn = free_fn;
    g->cancel_fn = cancel_fn;
    g->extra_state = extra_state;
    /* Not handed to the engine: `never` is only what a generic request must have. */
    struct cm_request *r = cm_request_generic_new(never, greq_destroy, g);
    r->query = cm_grequest_query;
    r->cancel = greq_cancel;
    r->comm = MPI_COMM_WORLD;
    *request = cm_request_handle(r);
    __atomic_fetch_add(&cm_grequests_open, 1, __ATOMIC_RELAXED);
    return MPI_SUCCESS;
}

int cm_Grequest_complete(MPI_Request request)
{
    cm_mt_lock(&lock);
    struct cm_request *r = cm_request_get(request);
    if (r && r->query != cm_grequest_query)
        r = NULL;
    if (!r || r->complete) {
        cm_mt_unlock(&lock);
        if (!r)
            return cm_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Grequest_complete",
                            "request %ld is not a generalized request", (long)(intptr_t)request);
        return cm_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Grequest_complete",
                        "generalized request %ld is already complete", (long)(intptr_t)request);
    }
    int freed = r->freed;   /* before: a waiting thread may then release r */
    CM_FAULT(mt_greq);
    __atomic_store_n(&r->complete, 1, __ATOMIC_RELEASE);
    __atomic_fetch_sub(&cm_grequests_open, 1, __ATOMIC_RELAXED);
    cm_mt_unlock(&lock);
    int err = MPI_SUCCESS;
    if (freed) {     /* Request_free came first: nobody will wait */
        err = cm_grequest_free(r, "MPI_Grequest_complete");
        cm_request_release(r);
    } else if (cm_mt) {
        /* A thread of this process may sleep waiting for it. */
        cm_mt_wake_local();
        cm_wake_if_sleeping(cm_g.self_ctl);
    }
    return err;
}

/* Run free_fn now, once (greq_destroy will not run it again), so that its
 * error reaches the caller: the completion call (MPI-4.1 13.2), Request_free
 * of a complete request, or Grequest_complete of a freed one.  0 for other
 * requests. */
int cm_grequest_free(struct cm_request *r, const char *call)
{
    if (r->query != cm_grequest_query)
        return MPI_SUCCESS;
    struct greq *g = r->state;
    MPI_Grequest_free_function *fn = g->free_fn;
    g->free_fn = NULL;
    int err = fn ? fn(g->extra_state) : MPI_SUCCESS;
    return err ? cm_grequest_raise(r, err, call, "free_fn") : MPI_SUCCESS;
}

/* A callback's error code is the call's error: raised through the handler
 * of the request's communicator like any other (ERRORS_ARE_FATAL ends the
 * job rather than letting the error pass unseen). */
int cm_grequest_raise(struct cm_request *r, int err, const char *call, const char *callback)
{
    return cm_error(r->comm, err, call, "the generalized request's %s returned error %d", callback, err);
}

/* Request_free of a generalized request not seen complete (api_wait.c):
 * marked for Grequest_complete to release (1), or 0 when it completed
 * meanwhile. */
int cm_grequest_orphan(struct cm_request *r)
{
    cm_mt_lock(&lock);
    int pending = !r->complete;   /* else Grequest_complete came first after all */
    if (pending)
        r->freed = 1;
    cm_mt_unlock(&lock);
    return pending;
}
