/*
 * request_status.c -- MPI_Request_get_status_any/all/some (MPI-4.1): the
 * array forms of Request_get_status.  Like it they test without freeing or
 * deactivating anything; one progress pass, then the state of the array.
 * A null or inactive request counts as done with an empty status, as in
 * Testall; _any and _some answer MPI_UNDEFINED when no request is active.
 */
#include "p2p/p2p.h"
#include "p2p/request_wait.h"
#include "core/state.h"
#include "core/request.h"
#include "core/status.h"
#include "core/error.h"
#include "fe_p2p.h"


static int check(int count, const MPI_Request reqs[], const char *call)
{
    if (count < 0)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_COUNT, call, "negative count %d", count);
    if (count > 0 && !reqs)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, call, "request array is NULL");
    for (int i = 0; i < count; i++)
        if (reqs[i] != MPI_REQUEST_NULL && !cm_request_get(reqs[i]))
            return cm_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, call, "invalid request handle %ld at index %d",
                            (long)(intptr_t)reqs[i], i);
    cm_progress(-1);
    return MPI_SUCCESS;
}

/* NULL if h needs no waiting (null or inactive persistent), else its request. */
static struct cm_request *active(MPI_Request h)
{
    struct cm_request *r = cm_request_get(h);
    return !r || (r->persistent && !r->active) ? NULL : r;
}

static void empty(MPI_Status *st)
{
    if (st == MPI_STATUS_IGNORE)
        return;
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
    cm_status_set_private(st, 0, 0);
}

/* Status of a complete request without retiring it (MPI_ERROR left to the
 * caller); its error class. */
static int peek(struct cm_request *r, MPI_Status *st, const char *call)
{
    int err = r->query ? r->query(r) : (r->kind == CM_REQ_RECV || r->has_status) ? r->status.MPI_ERROR : 0;
    if (err && r->query == cm_grequest_query)
        err = cm_grequest_raise(r, err, call, "query_fn");
    cm_request_status(r, st);
    return err;
}

int cm_Request_get_status_any(int count, const MPI_Request array_of_requests[], int *index, int *flag,
                              MPI_Status *status)
{
    int rc = check(count, array_of_requests, "MPI_Request_get_status_any");
    if (rc)
        return rc;
    int any_active = 0;
    *flag = 0;
    *index = MPI_UNDEFINED;
    for (int i = 0; i < count; i++) {
        struct cm_request *r = active(array_of_requests[i]);
        if (!r)
            continue;
        any_active = 1;
        if (r->complete) {
            *flag = 1;
            *index = i;
            int err = peek(r, status, "MPI_Request_get_status_any");
            return err ? err : MPI_SUCCESS;
        }
    }
    if (!any_active) {
        *flag = 1;
        empty(status);
    }
    return MPI_SUCCESS;
}

int cm_Request_get_status_all(int count, const MPI_Request array_of_requests[], int *flag,
                              MPI_Status array_of_statuses[])
{
    int rc = check(count, array_of_requests, "MPI_Request_get_status_all");
    if (rc)
        return rc;
    *flag = 1;
    for (int i = 0; i < count && *flag; i++) {
        struct cm_request *r = active(array_of_requests[i]);
        *flag = !r || r->complete;
    }
    if (!*flag)
        return MPI_SUCCESS;
    int err = MPI_SUCCESS;
    for (int i = 0; i < count; i++) {
        MPI_Status *st = array_of_statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &array_of_statuses[i];
        struct cm_request *r = active(array_of_requests[i]);
        int e = MPI_SUCCESS;
        if (!r)
            empty(st);
        else
            e = peek(r, st, "MPI_Request_get_status_all");
        cm_status_error(array_of_statuses, i, e, &err);
    }
    return err;
}

int cm_Request_get_status_some(int incount, const MPI_Request array_of_requests[], int *outcount,
                               int array_of_indices[], MPI_Status array_of_statuses[])
{
    int rc = check(incount, array_of_requests, "MPI_Request_get_status_some");
    if (rc)
        return rc;
    int n = 0, any_active = 0, err = MPI_SUCCESS;
    for (int i = 0; i < incount; i++) {
        struct cm_request *r = active(array_of_requests[i]);
        if (!r)
            continue;
        any_active = 1;
        if (!r->complete)
            continue;
        MPI_Status *st = array_of_statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &array_of_statuses[n];
        cm_status_error(array_of_statuses, n, peek(r, st, "MPI_Request_get_status_some"), &err);
        array_of_indices[n++] = i;
    }
    *outcount = any_active ? n : MPI_UNDEFINED;
    return err;
}
