/*
 * p2p_isendrecv.c -- MPI_Isendrecv and MPI_Isendrecv_replace on a ring:
 * small (eager) and large (rendezvous) messages, each round completed by a
 * different completion call, mixed with blocking Sendrecv; MPI_PROC_NULL;
 * bad arguments under MPI_ERRORS_RETURN.
 */
#include "check.h"

#define LARGE (300 * 1024)   /* ints: above every eager limit */

enum { WAIT, TEST, WAITANY, TESTANY, WAITSOME, TESTSOME, WAITALL, TESTALL, NMODES };

/* Complete *req with completion call `mode`; returns its status. */
static MPI_Status complete(MPI_Request *req, int mode)
{
    MPI_Status st;
    int flag = 0, idx = -1, out = 0;
    switch (mode) {
    case WAIT: CHECK_MPI(MPI_Wait(req, &st)); break;
    case TEST: while (!flag) CHECK_MPI(MPI_Test(req, &flag, &st)); break;
    case WAITANY: CHECK_MPI(MPI_Waitany(1, req, &idx, &st)); CHECK(idx == 0, "Waitany index %d", idx); break;
    case TESTANY:
        while (!flag) CHECK_MPI(MPI_Testany(1, req, &idx, &flag, &st));
        CHECK(idx == 0, "Testany index %d", idx);
        break;
    case WAITSOME: CHECK_MPI(MPI_Waitsome(1, req, &out, &idx, &st)); CHECK(out == 1 && idx == 0, "Waitsome"); break;
    case TESTSOME:
        while (!out) CHECK_MPI(MPI_Testsome(1, req, &out, &idx, &st));
        CHECK(out == 1 && idx == 0, "Testsome %d %d", out, idx);
        break;
    case WAITALL: CHECK_MPI(MPI_Waitall(1, req, &st)); break;
    case TESTALL: while (!flag) CHECK_MPI(MPI_Testall(1, req, &flag, &st)); break;
    }
    CHECK(*req == MPI_REQUEST_NULL, "mode %d: request not freed", mode);
    return st;
}

static void fill(int *b, int n, int rank, int round)
{
    for (int i = 0; i < n; i++)
        b[i] = rank * 1000003 + round * 7919 + i;
}

static void check_data(const int *b, int n, int rank, int round, const char *what)
{
    for (int i = 0; i < n; i++)
        CHECK(b[i] == rank * 1000003 + round * 7919 + i, "%s round %d: element %d is %d", what, round, i, b[i]);
}

int main(int argc, char **argv)
{
    int rank, size;
    CHECK_MPI(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int *a = malloc(LARGE * sizeof *a), *b = malloc(LARGE * sizeof *b);
    CHECK(a && b, "malloc");

    for (int round = 0; round < 2 * NMODES; round++) {
        int mode = round % NMODES, n = round < NMODES ? 17 : LARGE, count = -1;
        MPI_Request req;
        /* Isendrecv: to the right, from the left. */
        fill(a, n, rank, round);
        CHECK_MPI(MPI_Isendrecv(a, n, MPI_INT, right, round, b, n, MPI_INT, left, round, MPI_COMM_WORLD, &req));
        MPI_Status st = complete(&req, mode);
        CHECK(st.MPI_SOURCE == left && st.MPI_TAG == round, "Isendrecv status %d/%d", st.MPI_SOURCE, st.MPI_TAG);
        CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
        CHECK(count == n, "Isendrecv count %d, expected %d", count, n);
        check_data(b, n, left, round, "Isendrecv");
        /* Isendrecv_replace: the other way, with a strided type on large rounds. */
        fill(a, n, rank, round + 100);
        CHECK_MPI(MPI_Isendrecv_replace(a, n, MPI_INT, left, 7, right, 7, MPI_COMM_WORLD, &req));
        st = complete(&req, (mode + 3) % NMODES);
        CHECK(st.MPI_SOURCE == right && st.MPI_TAG == 7, "replace status %d/%d", st.MPI_SOURCE, st.MPI_TAG);
        check_data(a, n, right, round + 100, "Isendrecv_replace");
        /* Mixed with blocking calls: a Sendrecv in between two pending Isendrecvs. */
        MPI_Request two[2];
        fill(a, 5, rank, round);
        CHECK_MPI(MPI_Isendrecv(a, 5, MPI_INT, right, 1, b, 5, MPI_INT, left, 1, MPI_COMM_WORLD, &two[0]));
        int x = rank, y = -1;
        CHECK_MPI(MPI_Sendrecv(&x, 1, MPI_INT, left, 2, &y, 1, MPI_INT, right, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(y == right, "Sendrecv got %d", y);
        int z = -1;
        CHECK_MPI(MPI_Isendrecv(&x, 1, MPI_INT, left, 3, &z, 1, MPI_INT, right, 3, MPI_COMM_WORLD, &two[1]));
        MPI_Status sts[2];
        CHECK_MPI(MPI_Waitall(2, two, sts));
        CHECK(z == right && sts[1].MPI_SOURCE == right, "second Isendrecv got %d", z);
        check_data(b, 5, left, round, "first Isendrecv");
    }

    /* MPI_PROC_NULL on both sides: complete at once, empty receive. */
    MPI_Request req;
    MPI_Status st;
    int v = 5;
    CHECK_MPI(MPI_Isendrecv_replace(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Wait(&req, &st));
    int count = -1;
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && count == 0 && v == 5, "PROC_NULL: source %d count %d", st.MPI_SOURCE, count);

    /* Bad arguments: the error class, no request. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Isendrecv(&v, 1, MPI_INT, size, 0, &v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &req);
    CHECK(rc == MPI_ERR_RANK, "bad dest: %d", rc);
    rc = MPI_Isendrecv(&v, 1, MPI_INT, 0, 0, &v, 1, MPI_INT, 0, -5, MPI_COMM_WORLD, &req);
    CHECK(rc == MPI_ERR_TAG, "bad recvtag: %d", rc);
    rc = MPI_Isendrecv_replace(&v, -1, MPI_INT, 0, 0, 0, 0, MPI_COMM_WORLD, &req);
    CHECK(rc == MPI_ERR_COUNT, "bad count: %d", rc);
    rc = MPI_Isendrecv_replace(&v, 1, MPI_DATATYPE_NULL, 0, 0, 0, 0, MPI_COMM_WORLD, &req);
    CHECK(rc == MPI_ERR_TYPE, "bad type: %d", rc);
    rc = MPI_Isendrecv(&v, 1, MPI_INT, 0, 0, &v, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &req);
    CHECK(rc == MPI_ERR_COMM, "null comm: %d", rc);
    rc = MPI_Isendrecv(&v, 1, MPI_INT, 0, 0, &v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, NULL);
    CHECK(rc == MPI_ERR_REQUEST, "NULL request: %d", rc);
    /* Truncation of the receive half is the request's error. */
    int big[4] = {1, 2, 3, 4}, small = 0;
    CHECK_MPI(MPI_Isendrecv(big, 4, MPI_INT, rank, 9, &small, 1, MPI_INT, rank, 9, MPI_COMM_WORLD, &req));
    rc = MPI_Wait(&req, &st);
    CHECK(rc == MPI_ERR_TRUNCATE, "truncated receive half: %d", rc);

    free(a);
    free(b);
    CHECK_MPI(MPI_Finalize());
    return 0;
}
