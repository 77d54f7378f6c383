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
#include "p2p/request_wait.h"
#include "core/state.h"
#include "core/request.h"
#include "core/error.h"

#include <stdlib.h>

#pragma weak MPI_Grequest_start = PMPI_Grequest_start
#pragma weak MPI_Grequest_complete = PMPI_Grequest_complete

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

static int greq_query(struct cm_request *r)
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

int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn, void *extra_state, MPI_Request *request)
{
    CM_ENTER(Grequest_start);
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
    r->query = greq_query;
    r->cancel = greq_cancel;
    r->comm = MPI_COMM_WORLD;
    g->self = r;
    *request = g->born = cm_request_handle(r);
    cm_grequests_open++;
    return MPI_SUCCESS;
}

int PMPI_Grequest_complete(MPI_Request request)
{
    CM_ENTER(Grequest_complete);
    struct cm_request *r = cm_request_get(request);
    if (!r || r->query != greq_query) {
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
    r->complete = 1;
    cm_grequests_open--;
    if (r->freed)       /* Request_free came first: nobody will wait */
        cm_request_release(r);
    return MPI_SUCCESS;
}

/* Request_free of a pending generalized request (api_wait.c): remember it
 * under its birth handle.  Returns 1 if r is one. */
int cm_grequest_orphan(struct cm_request *r)
{
    if (r->query != greq_query)
        return 0;
    struct greq *g = r->state;
    g->next_orphan = orphans;
    orphans = g;
    return 1;
}
