/*
 * p2p_request_repeat.c -- a request named twice in one array (erroneous, but
 * never a crash): every array completion call and Startall refuse it with an
 * error naming both indices, and the request is still usable afterwards; a
 * freed handle given to Wait or Waitall is an error; MPI_REQUEST_NULL and
 * inactive persistent requests in the arrays complete at once.  Under
 * MPI_ERRORS_RETURN, so each refusal is checked by its return and text.
 */
#include "check.h"

static void expect_repeat(int rc, const char *call, const char *text)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0, cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_REQUEST, "%s with a repeated request: %d", call, rc);
    MPI_Error_string(rc, msg, &len);
    CHECK(strstr(msg, call) && strstr(msg, text), "%s: message '%s' lacks '%s'", call, msg, text);
}

int main(int argc, char **argv)
{
    int rank, v = 0, flag = -1, idx = -1, out = -1, ind[4];
    CHECK_MPI(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Status sts[4];
    const char *same = "array_of_requests[1] is the same request as [0]";

    /* A receive from self that completes: q twice. */
    MPI_Request q, a[3];
    CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, rank, 5, MPI_COMM_WORLD, &q));
    int one = 1;
    CHECK_MPI(MPI_Send(&one, 1, MPI_INT, rank, 5, MPI_COMM_WORLD));
    a[0] = a[1] = q;
    expect_repeat(MPI_Waitall(2, a, sts), "MPI_Waitall", same);
    expect_repeat(MPI_Testall(2, a, &flag, sts), "MPI_Testall", same);
    expect_repeat(MPI_Waitany(2, a, &idx, sts), "MPI_Waitany", same);
    expect_repeat(MPI_Testany(2, a, &idx, &flag, sts), "MPI_Testany", same);
    expect_repeat(MPI_Waitsome(2, a, &out, ind, sts), "MPI_Waitsome", same);
    expect_repeat(MPI_Testsome(2, a, &out, ind, sts), "MPI_Testsome", same);
    /* Not consumed by the refusals: completes once, normally. */
    a[1] = MPI_REQUEST_NULL;
    CHECK_MPI(MPI_Waitall(2, a, sts));
    CHECK(v == 1 && a[0] == MPI_REQUEST_NULL && sts[0].MPI_TAG == 5, "receive after refusals: v %d", v);

    /* Persistent: repeated in Startall, then in Waitall once active. */
    MPI_Request p;
    CHECK_MPI(MPI_Recv_init(&v, 1, MPI_INT, rank, 6, MPI_COMM_WORLD, &p));
    a[0] = a[1] = p;
    expect_repeat(MPI_Startall(2, a), "MPI_Startall", same);
    a[1] = MPI_REQUEST_NULL;
    CHECK_MPI(MPI_Send(&one, 1, MPI_INT, rank, 6, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Waitall(2, a, sts));        /* started by the refused Startall's first entry */
    CHECK_MPI(MPI_Start(&p));
    a[0] = MPI_REQUEST_NULL;
    a[1] = a[2] = p;
    expect_repeat(MPI_Waitall(3, a, sts), "MPI_Waitall", "array_of_requests[2] is the same request as [1]");
    CHECK_MPI(MPI_Send(&one, 1, MPI_INT, rank, 6, MPI_COMM_WORLD));
    a[2] = MPI_REQUEST_NULL;
    CHECK_MPI(MPI_Waitall(3, a, sts));
    CHECK(a[1] == p && sts[1].MPI_TAG == 6 && sts[0].MPI_TAG == MPI_ANY_TAG, "persistent Waitall");
    /* Inactive persistent and NULL: complete at once with empty statuses. */
    a[0] = p;
    a[2] = MPI_REQUEST_NULL;
    a[1] = MPI_REQUEST_NULL;
    CHECK_MPI(MPI_Waitany(3, a, &idx, &sts[0]));
    CHECK(idx == MPI_UNDEFINED && sts[0].MPI_SOURCE == MPI_ANY_SOURCE, "Waitany of inactive: %d", idx);
    CHECK_MPI(MPI_Testsome(3, a, &out, ind, sts));
    CHECK(out == MPI_UNDEFINED, "Testsome of inactive: %d", out);
    CHECK_MPI(MPI_Testall(3, a, &flag, sts));
    CHECK(flag == 1, "Testall of inactive");
    CHECK_MPI(MPI_Request_free(&p));

    /* A freed handle waited on: an error, never a crash. */
    MPI_Request r, copy;
    CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, rank, 7, MPI_COMM_WORLD, &r));
    copy = r;
    CHECK_MPI(MPI_Cancel(&r));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    int rc = MPI_Wait(&copy, MPI_STATUS_IGNORE);
    CHECK(rc != MPI_SUCCESS, "Wait on a completed handle: %d", rc);
    a[0] = MPI_REQUEST_NULL;
    a[1] = copy;
    rc = MPI_Waitall(2, a, sts);
    CHECK(rc != MPI_SUCCESS, "Waitall with a completed handle: %d", rc);
    CHECK_MPI(MPI_Isend(&one, 1, MPI_INT, rank, 8, MPI_COMM_WORLD, &r));
    copy = r;
    CHECK_MPI(MPI_Request_free(&r));
    CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, rank, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    rc = MPI_Testany(1, &copy, &idx, &flag, sts);
    CHECK(rc != MPI_SUCCESS, "Testany with a freed handle: %d", rc);

    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("p2p_request_repeat: ok\n");
    CHECK_MPI(MPI_Finalize());
    return 0;
}
