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
 * Invariant: a request freed by the user before completion has no handle
 * any more (its number may be reused), so such requests are kept on
 * `orphans` under the handle they were born with for Grequest_complete.
 */
#include "p2p/blocked.h"
#include "p2p/p2p.h"
#include "p2p/mt.h"
#include "p2p/request_wait.h"
#include "core/state.h"
#include "core/request.h"
#include "core/error.h"

#include <stdlib.h>
#include "fe_ext.h"

struct greq {
    MPI_Grequest_query_function *query_fn;
    MPI_Grequest_free_function *free_fn;
    MPI_Grequest_cancel_function *cancel_fn;
    void *extra_state;
    MPI_Request born;           /* the handle given at start */
    struct cm_request *self;
    struct greq *next_orphan;
};

static struct greq *orphans;

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
    for (struct greq **link = &orphans; *link; link = &(*link)->next_orphan)
        if (*link == g) {
            *link = g->next_orphan;
            break;
        }
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
    g->self = r;
    *request = g->born = cm_request_handle(r);
    cm_grequests_open++;
    return MPI_SUCCESS;
}

int cm_Grequest_complete(MPI_Request request)
{
    struct cm_request *r = cm_request_get(request);
    if (!r || r->query != cm_grequest_query) {
        r = NULL;
        for (struct greq *g = orphans; g; g = g->next_orphan)
            if (g->born == request)
                r = g->self;
    }
    if (!r)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Grequest_complete",
                        "request %ld is not a generalized request", (long)(intptr_t)request);
    if (r->complete)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Grequest_complete",
                        "generalized request %ld is already complete", (long)(intptr_t)request);
    __atomic_store_n(&r->complete, 1, __ATOMIC_RELEASE);
    if (cm_mt)
        cm_mt_wake_local();   /* another thread may be asleep waiting on r */
    cm_grequests_open--;
    int err = MPI_SUCCESS;
    if (r->freed) {     /* Request_free came first: nobody will wait */
        err = cm_grequest_free(r, "MPI_Grequest_complete");
        cm_request_release(r);
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

/* Request_free of a pending generalized request (api_wait.c): remember it
 * under its birth handle.  Returns 1 if r is one. */
int cm_grequest_orphan(struct cm_request *r)
{
    if (r->query != cm_grequest_query)
        return 0;
    struct greq *g = r->state;
    g->next_orphan = orphans;
    orphans = g;
    return 1;
}
