/*
 * p2p_grequest_errors.c -- errors of generalized request callbacks (MPI-4.1
 * 13.2): query_fn's error is returned by Wait, Test, Waitany and
 * Request_get_status and raised through the communicator's error handler;
 * free_fn's error is returned by the completion call, by Request_free of a
 * complete request and by Grequest_complete of a freed one; callbacks that
 * call MPI (query_fn completing another generalized request, cancel_fn
 * completing its own, free_fn waiting on a request of the same Waitall)
 * work, or give an error, never a crash.
 */
#include "check.h"

static int raised;      /* calls of the error handler */

static void count_errors(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
    raised++;
}

struct state { int query_err, free_err; MPI_Request other, *wait_on; };

static int query(void *extra, MPI_Status *st)
{
    struct state *s = extra;
    MPI_Status_set_source(st, MPI_UNDEFINED);
    MPI_Status_set_tag(st, 42);
    MPI_Status_set_elements(st, MPI_BYTE, 0);
    MPI_Status_set_cancelled(st, 0);
    if (s->other != MPI_REQUEST_NULL)
        CHECK_MPI(MPI_Grequest_complete(s->other));
    return s->query_err;
}

static int release(void *extra)
{
    struct state *s = extra;
    if (s->wait_on)
        MPI_Wait(s->wait_on, MPI_STATUS_IGNORE);
    return s->free_err;
}

static MPI_Request self_req;

static int cancel(void *extra, int complete)
{
    (void)extra;
    return complete ? MPI_SUCCESS : MPI_Grequest_complete(self_req);
}

static MPI_Request start(struct state *s, int complete)
{
    MPI_Request r;
    CHECK_MPI(MPI_Grequest_start(query, release, cancel, s, &r));
    if (complete)
        CHECK_MPI(MPI_Grequest_complete(r));
    return r;
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    MPI_Errhandler eh;
    CHECK_MPI(MPI_Comm_create_errhandler(count_errors, &eh));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh));
    MPI_Status st;
    int flag = 0, idx = -1, rc;

    /* query_fn's error: returned by Wait, Test, Waitany, Request_get_status, and raised. */
    struct state q = {MPI_ERR_OTHER, MPI_SUCCESS, MPI_REQUEST_NULL, NULL};
    MPI_Request r = start(&q, 1);
    raised = 0;
    rc = MPI_Request_get_status(r, &flag, &st);
    CHECK(rc == MPI_ERR_OTHER && flag && raised == 1, "Request_get_status: rc %d raised %d", rc, raised);
    rc = MPI_Wait(&r, &st);
    CHECK(rc == MPI_ERR_OTHER && st.MPI_TAG == 42 && raised == 2, "Wait: rc %d raised %d", rc, raised);
    r = start(&q, 1);
    rc = MPI_Test(&r, &flag, &st);
    CHECK(rc == MPI_ERR_OTHER && flag && raised == 3, "Test: rc %d raised %d", rc, raised);
    r = start(&q, 1);
    rc = MPI_Waitany(1, &r, &idx, &st);
    CHECK(rc == MPI_ERR_OTHER && idx == 0 && r == MPI_REQUEST_NULL, "Waitany: rc %d", rc);

    /* free_fn's error: from Wait, Request_free, Grequest_complete of a freed request. */
    struct state f = {MPI_SUCCESS, MPI_ERR_ARG, MPI_REQUEST_NULL, NULL};
    r = start(&f, 1);
    rc = MPI_Wait(&r, &st);
    CHECK(rc == MPI_ERR_ARG, "Wait with a failing free_fn: %d", rc);
    r = start(&f, 1);
    rc = MPI_Request_free(&r);
    CHECK(rc == MPI_ERR_ARG && r == MPI_REQUEST_NULL, "Request_free with a failing free_fn: %d", rc);
    r = start(&f, 0);
    MPI_Request born = r;
    CHECK_MPI(MPI_Request_free(&r));
    rc = MPI_Grequest_complete(born);
    CHECK(rc == MPI_ERR_ARG, "Grequest_complete of a freed request, failing free_fn: %d", rc);
    /* Both fail: free_fn ran last, its error is the call's. */
    struct state qf = {MPI_ERR_OTHER, MPI_ERR_ARG, MPI_REQUEST_NULL, NULL};
    r = start(&qf, 1);
    rc = MPI_Wait(&r, &st);
    CHECK(rc == MPI_ERR_ARG, "Wait, both callbacks failing: %d", rc);

    /* Waitall: MPI_ERR_IN_STATUS, each status with its callback's error. */
    MPI_Request a[3];
    MPI_Status sts[3];
    struct state ok = {MPI_SUCCESS, MPI_SUCCESS, MPI_REQUEST_NULL, NULL};
    a[0] = start(&ok, 1);
    a[1] = start(&q, 1);
    a[2] = start(&f, 1);
    rc = MPI_Waitall(3, a, sts);
    CHECK(rc == MPI_ERR_IN_STATUS && sts[0].MPI_ERROR == MPI_SUCCESS && sts[1].MPI_ERROR == MPI_ERR_OTHER &&
          sts[2].MPI_ERROR == MPI_ERR_ARG, "Waitall: rc %d, errors %d %d %d", rc, sts[0].MPI_ERROR,
          sts[1].MPI_ERROR, sts[2].MPI_ERROR);

    /* Callbacks calling MPI.  query_fn completes another generalized request. */
    struct state chain2 = ok;
    MPI_Request r2 = start(&chain2, 0);
    struct state chain1 = {MPI_SUCCESS, MPI_SUCCESS, r2, NULL};
    r = start(&chain1, 1);
    CHECK_MPI(MPI_Wait(&r, &st));
    CHECK_MPI(MPI_Wait(&r2, &st));
    CHECK(st.MPI_TAG == 42, "second request's status");
    /* cancel_fn completes its own request. */
    struct state c = ok;
    self_req = start(&c, 0);
    CHECK_MPI(MPI_Cancel(&self_req));
    CHECK_MPI(MPI_Wait(&self_req, &st));
    /* free_fn of the first entry of a Waitall waits on the second: no crash. */
    a[1] = start(&ok, 1);
    MPI_Request copy = a[1];
    struct state w = {MPI_SUCCESS, MPI_SUCCESS, MPI_REQUEST_NULL, &copy};
    a[0] = start(&w, 1);
    raised = 0;
    rc = MPI_Waitall(2, a, sts);
    CHECK(a[0] == MPI_REQUEST_NULL && a[1] == MPI_REQUEST_NULL, "Waitall left handles");
    CHECK(rc == MPI_ERR_IN_STATUS && sts[1].MPI_ERROR == MPI_ERR_REQUEST && raised == 1,
          "request waited on by a callback of Waitall: rc %d, status error %d", rc, sts[1].MPI_ERROR);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Errhandler_free(&eh);
    CHECK_MPI(MPI_Finalize());
    return 0;
}
