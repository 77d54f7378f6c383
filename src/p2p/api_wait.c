/*
 * api_wait.c -- completion: Wait/Test and their any/all/some forms,
 * Request_free, Request_get_status, Cancel, Test_cancelled.
 */
#include "core/status.h"
#include "p2p/p2p.h"
#include "p2p/check.h"
#include "core/state.h"
#include "core/comm.h"
#include "core/request.h"
#include "core/thread.h"
#include "core/error.h"
#include "shm/wait.h"
#include "p2p/coll_entry.h"
#include "fe_p2p.h"


static void empty_status(MPI_Status *st)
{
    if (st == MPI_STATUS_IGNORE || !st)
        return;
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
    cm_status_set_private(st, 0, 0);
}

/* Nothing to wait for: a NULL handle, an inactive persistent request, or
 * (no request behind a handle that was valid when the call began) a request
 * a callback of this same call completed or freed; the array calls report
 * the last (stale()). */
static int is_inactive(MPI_Request h, struct cm_request *r)
{
    (void)h;
    return !r || (r->persistent && !r->active);
}

static int lookup(MPI_Request h, struct cm_request **r, const char *call)
{
    *r = NULL;
    if (h == MPI_REQUEST_NULL)
        return MPI_SUCCESS;
    *r = cm_request_get(h);
    if (!*r)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, call, "invalid request handle %ld", (long)(intptr_t)h);
    return MPI_SUCCESS;
}

/* Finish a completed request: status out, handle retired, error (if any) returned. */
static int finish(struct cm_request *r, MPI_Request *h, MPI_Status *st, const char *call)
{
    int err = MPI_SUCCESS;
    if (r->query) { /* generic request with a result: its own error, status from the hook */
        err = r->query(r);
        if (r->query == cm_grequest_query) {
            /* query_fn's error is the call's; free_fn runs last and its
             * error, if any, wins (MPI-4.1 13.2). */
            if (err)
                err = cm_grequest_raise(r, err, call, "query_fn");
            int ferr = cm_grequest_free(r, call);
            if (ferr)
                err = ferr;
        }
    }
    cm_request_status(r, st);
    if (!r->query && (r->kind == CM_REQ_RECV || r->has_status))
        err = r->status.MPI_ERROR;
    if (err == MPI_ERR_TRUNCATE && !r->query)
        err = cm_recv_report(r, call);
    r->in_array = 0;
    cm_request_retire(r, h);
    return err;
}

int cm_wait_request(MPI_Request *request, MPI_Status *status, unsigned call_id, const char *call)
{
    struct cm_request *r;
    int rc = lookup(*request, &r, call);
    if (rc)
        return rc;
    /* A persistent collective (quick_finish) once complete, whether its
     * Start finished it or the wait below did: what finish() would do for
     * it, without finish()'s questions (~30 of the ~330 instructions of a
     * started 8-byte persistent allreduce). */
    if (!r || !r->quick_finish || !cm_request_done(r)) {
        if (is_inactive(*request, r)) {
            empty_status(status);
            return MPI_SUCCESS;
        }
        cm_request_wait(r, call_id);
        if (!r->quick_finish)
            return finish(r, request, status, call);
    }
    empty_status(status);
    r->active = 0;
    return MPI_SUCCESS;
}

int cm_Wait(MPI_Request *request, MPI_Status *status)
{
    return cm_wait_request(request, status, CM_CALL_Wait, "MPI_Wait");
}

static int request_complete(void *r)
{
    return cm_request_done((struct cm_request *)r);
}

/* Test one request: an already complete one costs no progress call, as
 * before; otherwise one counted poll (cm_poll). */
static int poll_request(struct cm_request *r)
{
    if (cm_request_done(r)) {
        cm_poll_reset();
        return 1;
    }
    return cm_poll(request_complete, r, cm_request_hint(r));
}

int cm_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    struct cm_request *r;
    int rc = lookup(*request, &r, "MPI_Test");
    if (rc)
        return rc;
    if (is_inactive(*request, r)) {
        *flag = 1;
        empty_status(status);
        return MPI_SUCCESS;
    }
    if (!poll_request(r)) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    *flag = 1;
    return finish(r, request, status, "MPI_Test");
}

/* Clear the marks check_array() set on the first count entries (requests
 * retired meanwhile left NULL handles: no lookup for them). */
static void unmark(int count, const MPI_Request reqs[])
{
    for (int i = 0; i < count; i++) {
        struct cm_request *r = reqs[i] == MPI_REQUEST_NULL ? NULL : cm_request_get(reqs[i]);
        if (r)
            r->in_array = 0;
    }
}

/* Validate the array and mark its active requests for the length of the
 * call, so that a request named twice (erroneous, MPI-4.1 3.7.5) is an error
 * here, before it completes once and its retired handle is looked at again:
 * one pass, O(count).  finish() clears a request's mark; calls that may
 * leave marked requests unfinished unmark() when done.  (An inactive
 * persistent request named twice is harmless: both entries are empty.) */
static int check_array(int count, const MPI_Request reqs[], const char *call)
{
    if (count < 0)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_COUNT, call, "negative count %d", count);
    if (count > 0 && !reqs)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, call, "request array is NULL");
    for (int i = 0; i < count; i++) {
        if (reqs[i] == MPI_REQUEST_NULL)
            continue;
        struct cm_request *r = cm_request_get(reqs[i]);
        if (!r || r->in_array) {
            unmark(i, reqs);
            int j = 0;
            while (j < i && reqs[j] != reqs[i])
                j++;
            if (!r)
                return cm_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, call,
                                "array_of_requests[%d] is not a request (handle %ld: already freed or completed?)", i,
                                (long)(intptr_t)reqs[i]);
            if (j < i)
                return cm_error(r->comm, MPI_ERR_REQUEST, call, "array_of_requests[%d] is the same request as [%d]", i, j);
            return cm_error(r->comm, MPI_ERR_REQUEST, call,
                            "array_of_requests[%d] is in the array of another completion call in progress", i);
        }
        r->in_array = !is_inactive(reqs[i], r);
    }
    return MPI_SUCCESS;
}

/* A live handle with no request behind it any more: a callback of this call
 * (a generalized request's query_fn or free_fn) completed or freed it. */
static int stale(int i, const char *call)
{
    return cm_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, call,
                    "array_of_requests[%d] was completed or freed during this call (by a callback?)", i);
}

/* MPI_ERROR of the statuses is written only when the call returns
 * MPI_ERR_IN_STATUS (MPI-4.1 3.2.5): from the first error on, each status
 * gets its request's code, and the ones filled before it MPI_SUCCESS.
 * statuses[n] is the status just filled, e its error; *err the call's. */
void cm_status_error(MPI_Status statuses[], int n, int e, int *err)
{
    if (e && !*err) {
        *err = MPI_ERR_IN_STATUS;
        for (int k = 0; statuses != MPI_STATUSES_IGNORE && k < n; k++)
            statuses[k].MPI_ERROR = MPI_SUCCESS;
    }
    if (*err && statuses != MPI_STATUSES_IGNORE)
        statuses[n].MPI_ERROR = e;
}

/* Progress until pred(arg) holds, sleeping when nothing moves. */
static void wait_until(int (*pred)(void *), void *arg, unsigned call_id)
{
    cm_progress_until(pred, arg, -1, call_id, MPI_ANY_SOURCE, MPI_ANY_TAG, 0);
}

struct req_array {
    int count;
    MPI_Request *reqs;
};

static int active_done(MPI_Request h)
{
    struct cm_request *r = cm_request_get(h);
    return is_inactive(h, r) || cm_request_done(r);
}

static int all_done(void *arg)
{
    struct req_array *a = arg;
    for (int i = 0; i < a->count; i++)
        if (!active_done(a->reqs[i]))
            return 0;
    return 1;
}

static int some_done(void *arg)
{
    struct req_array *a = arg;
    int any_active = 0;
    for (int i = 0; i < a->count; i++) {
        struct cm_request *r = cm_request_get(a->reqs[i]);
        if (is_inactive(a->reqs[i], r))
            continue;
        any_active = 1;
        if (cm_request_done(r))
            return 1;
    }
    return !any_active;
}

/* Retire every completed active request of the array (all of them for Waitall). */
static int finish_all(int count, MPI_Request reqs[], MPI_Status statuses[], const char *call)
{
    int err = MPI_SUCCESS;
    for (int i = 0; i < count; i++) {
        MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
        struct cm_request *r = cm_request_get(reqs[i]);
        int e = MPI_SUCCESS;
        if (is_inactive(reqs[i], r)) {
            empty_status(st);
            if (reqs[i] != MPI_REQUEST_NULL && !r) {
                e = stale(i, call);
                reqs[i] = MPI_REQUEST_NULL;
            }
        } else {
            e = finish(r, &reqs[i], st, call);
        }
        if (e || err)
            cm_status_error(statuses, i, e, &err);
    }
    return err;
}

int cm_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
    int rc = check_array(count, array_of_requests, "MPI_Waitall");
    if (rc)
        return rc;
    /* Every marked request is finished, so unmarked: no unmark() pass. */
    return cm_waitall_requests(count, array_of_requests, array_of_statuses, CM_CALL_Waitall, "MPI_Waitall");
}

int cm_waitall_requests(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[],
                        unsigned call_id, const char *call)
{
    /* Requests that know how to wait (nonblocking collectives on the shared
     * area) wait their way, sleeping on the words their protocols wait on;
     * every such wait runs the progress engine, so the others move
     * meanwhile, as in the loop below. */
    for (int i = 0; CM_RACY_LOAD(cm_wait_unrung) && i < count; i++) {     /* any pending at all? */
        struct cm_request *r = cm_request_get(array_of_requests[i]);
        if (r && r->kind == CM_REQ_GENERIC && r->block && !cm_request_done(r) && !is_inactive(array_of_requests[i], r))
            cm_request_wait(r, call_id);
    }
    struct req_array a = { count, array_of_requests };
    wait_until(all_done, &a, call_id);
    return finish_all(count, array_of_requests, array_of_statuses, call);
}

int cm_Testall(int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[])
{
    int rc = check_array(count, array_of_requests, "MPI_Testall");
    if (rc)
        return rc;
    rc = cm_testall_requests(count, array_of_requests, flag, array_of_statuses, "MPI_Testall");
    if (!*flag)     /* all finished (unmarked) otherwise */
        unmark(count, array_of_requests);
    return rc;
}

int cm_testall_requests(int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[],
                        const char *call)
{
    struct req_array a = { count, array_of_requests };
    *flag = cm_poll(all_done, &a, -1);
    if (!*flag)
        return MPI_SUCCESS;
    return finish_all(count, array_of_requests, array_of_statuses, call);
}

static int first_complete(int count, MPI_Request reqs[], int *index)
{
    int any_active = 0;
    for (int i = 0; i < count; i++) {
        struct cm_request *r = cm_request_get(reqs[i]);
        if (is_inactive(reqs[i], r))
            continue;
        any_active = 1;
        if (cm_request_done(r)) {
            *index = i;
            return 1;
        }
    }
    if (!any_active) {
        *index = MPI_UNDEFINED;
        return 1;
    }
    return 0;
}

/* Waitany/Testany once index is known: that request finished, the marks cleared. */
static int finish_any(int count, MPI_Request reqs[], int index, MPI_Status *status, const char *call)
{
    int rc = MPI_SUCCESS;
    if (index == MPI_UNDEFINED)
        empty_status(status);
    else
        rc = finish(cm_request_get(reqs[index]), &reqs[index], status, call);
    unmark(count, reqs);
    return rc;
}

int cm_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status)
{
    int rc = check_array(count, array_of_requests, "MPI_Waitany");
    if (rc)
        return rc;
    struct req_array a = { count, array_of_requests };
    wait_until(some_done, &a, CM_CALL_Waitany);
    first_complete(count, array_of_requests, index);
    return finish_any(count, array_of_requests, *index, status, "MPI_Waitany");
}

int cm_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status)
{
    int rc = check_array(count, array_of_requests, "MPI_Testany");
    if (rc)
        return rc;
    struct req_array a = { count, array_of_requests };
    *flag = cm_poll(some_done, &a, -1);
    if (*flag)
        first_complete(count, array_of_requests, index);
    if (!*flag) {
        *index = MPI_UNDEFINED;
        unmark(count, array_of_requests);
        return MPI_SUCCESS;
    }
    return finish_any(count, array_of_requests, *index, status, "MPI_Testany");
}

static int collect_some(int count, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[], const char *call)
{
    int n = 0, any_active = 0, err = MPI_SUCCESS;
    for (int i = 0; i < count; i++) {
        struct cm_request *r = cm_request_get(reqs[i]);
        if (is_inactive(reqs[i], r))
            continue;
        any_active = 1;
        if (!cm_request_done(r))
            continue;
        MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[n];
        int e = finish(r, &reqs[i], st, call);
        if (e || err)
            cm_status_error(statuses, n, e, &err);
        indices[n++] = i;
    }
    *outcount = any_active ? n : MPI_UNDEFINED;
    unmark(count, reqs);
    return err;
}

int cm_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[], MPI_Status array_of_statuses[])
{
    int rc = check_array(incount, array_of_requests, "MPI_Waitsome");
    if (rc)
        return rc;
    struct req_array a = { incount, array_of_requests };
    wait_until(some_done, &a, CM_CALL_Waitsome);
    return collect_some(incount, array_of_requests, outcount, array_of_indices, array_of_statuses, "MPI_Waitsome");
}

int cm_Testsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[], MPI_Status array_of_statuses[])
{
    int rc = check_array(incount, array_of_requests, "MPI_Testsome");
    if (rc)
        return rc;
    struct req_array a = { incount, array_of_requests };
    cm_poll(some_done, &a, -1);
    return collect_some(incount, array_of_requests, outcount, array_of_indices, array_of_statuses, "MPI_Testsome");
}

int cm_Request_free(MPI_Request *request)
{
    struct cm_request *r;
    int rc = lookup(*request, &r, "MPI_Request_free");
    if (rc)
        return rc;
    if (!r)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Request_free", "request is MPI_REQUEST_NULL");
    int err = MPI_SUCCESS;
    if (cm_request_done(r) || (r->persistent && !r->active)) {
        err = cm_grequest_free(r, "MPI_Request_free");
        cm_request_release(r);
    } else if (r->query == cm_grequest_query) {
        /* Still in flight: Grequest_complete releases it, unless it came
         * first after all (another thread's). */
        if (!cm_grequest_orphan(r)) {
            err = cm_grequest_free(r, "MPI_Request_free");
            cm_request_release(r);
        }
    } else if (r->persistent) {
        cm_request_release_handle(r);
        r->freed = 1;
    } else {
        /* Still in flight: released when it completes. */
        cm_request_orphan(r);
    }
    if (cm_mt)   /* the requests freed before that have completed since */
        cm_request_reap();
    *request = MPI_REQUEST_NULL;
    return err;
}

int cm_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    struct cm_request *r;
    int rc = lookup(request, &r, "MPI_Request_get_status");
    if (rc)
        return rc;
    if (is_inactive(request, r)) {
        *flag = 1;
        empty_status(status);
        return MPI_SUCCESS;
    }
    *flag = poll_request(r);
    int err = MPI_SUCCESS;
    if (*flag && r->query && (err = r->query(r)) && r->query == cm_grequest_query)
        err = cm_grequest_raise(r, err, "MPI_Request_get_status", "query_fn");
    if (*flag)
        cm_request_status(r, status);
    if (err)
        return err;
    return MPI_SUCCESS;
}

int cm_Cancel(MPI_Request *request)
{
    struct cm_request *r;
    int rc = lookup(*request, &r, "MPI_Cancel");
    if (rc)
        return rc;
    if (!r)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Cancel", "request is MPI_REQUEST_NULL");
    /* Only receives that have not matched can be cancelled; a send always
     * completes normally (cancelling sends is deprecated in MPI 4). */
    if (r->cancel)
        return r->cancel(r);
    if (r->kind == CM_REQ_RECV && !cm_request_done(r))
        cm_recv_cancel(r);
    return MPI_SUCCESS;
}

int cm_Test_cancelled(const MPI_Status *status, int *flag)
{
    if (!status || status == MPI_STATUS_IGNORE)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Test_cancelled", "status is NULL or MPI_STATUS_IGNORE");
    *flag = cm_status_cancelled(status);
    return MPI_SUCCESS;
}
