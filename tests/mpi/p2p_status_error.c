/*
 * p2p_status_error.c -- MPI_ERROR of a status is written only by the array
 * completion calls, and only when they return MPI_ERR_IN_STATUS (MPI-4.1
 * 3.2.5): every single-status call (Recv on both paths, Mrecv, Wait of an
 * Imrecv, Sendrecv, Probe and its matched and nonblocking forms, Wait, Test,
 * Waitany, Testany, Request_get_status[_any]) leaves it as it was, and so
 * does a successful Waitall/Waitsome/Testall/Testsome; a Waitall that
 * returns MPI_ERR_IN_STATUS sets it in every status.
 */
#include "check.h"

#define MARK 0x5eed

static MPI_Status fresh(void)
{
    MPI_Status st;
    memset(&st, 0, sizeof st);
    st.MPI_ERROR = MARK;
    return st;
}

#define UNTOUCHED(st, what) CHECK((st).MPI_ERROR == MARK, "%s wrote MPI_ERROR (%d)", what, (st).MPI_ERROR)

int main(int argc, char **argv)
{
    int rank, v = 0, one = 1, flag = 0, idx = -1, out = -1, ind[2];
    CHECK_MPI(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Status st, sts[2];
    MPI_Request r, a[2];
    MPI_Message m;

    /* Recv: the eager fast path (known source, contiguous) and the general one. */
    CHECK_MPI(MPI_Send(&one, 1, MPI_INT, rank, 1, w));
    st = fresh();
    CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, rank, 1, w, &st));
    UNTOUCHED(st, "MPI_Recv");
    CHECK_MPI(MPI_Send(&one, 1, MPI_INT, rank, 1, w));
    st = fresh();
    CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, w, &st));
    UNTOUCHED(st, "MPI_Recv (ANY_SOURCE)");
    /* Probe, Iprobe, Mprobe + Mrecv, Improbe + Imrecv + Wait. */
    CHECK_MPI(MPI_Send(&one, 1, MPI_INT, rank, 2, w));
    st = fresh();
    CHECK_MPI(MPI_Probe(rank, 2, w, &st));
    UNTOUCHED(st, "MPI_Probe");
    st = fresh();
    CHECK_MPI(MPI_Iprobe(rank, 2, w, &flag, &st));
    CHECK(flag, "Iprobe found nothing");
    UNTOUCHED(st, "MPI_Iprobe");
    st = fresh();
    CHECK_MPI(MPI_Mprobe(rank, 2, w, &m, &st));
    UNTOUCHED(st, "MPI_Mprobe");
    st = fresh();
    CHECK_MPI(MPI_Mrecv(&v, 1, MPI_INT, &m, &st));
    UNTOUCHED(st, "MPI_Mrecv");
    CHECK(st.MPI_TAG == 2 && st.MPI_SOURCE == rank, "Mrecv status %d %d", st.MPI_SOURCE, st.MPI_TAG);
    CHECK_MPI(MPI_Send(&one, 1, MPI_INT, rank, 3, w));
    flag = 0;
    st = fresh();
    while (!flag)
        CHECK_MPI(MPI_Improbe(rank, 3, w, &flag, &m, &st));
    UNTOUCHED(st, "MPI_Improbe");
    CHECK_MPI(MPI_Imrecv(&v, 1, MPI_INT, &m, &r));
    st = fresh();
    CHECK_MPI(MPI_Wait(&r, &st));
    UNTOUCHED(st, "MPI_Wait of an Imrecv");
    /* Sendrecv. */
    st = fresh();
    CHECK_MPI(MPI_Sendrecv(&one, 1, MPI_INT, rank, 4, &v, 1, MPI_INT, rank, 4, w, &st));
    UNTOUCHED(st, "MPI_Sendrecv");
    /* Test, Request_get_status, Request_get_status_any, Testany, Waitany. */
    CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, rank, 5, w, &r));
    CHECK_MPI(MPI_Send(&one, 1, MPI_INT, rank, 5, w));
    st = fresh();
    flag = 0;
    while (!flag)
        CHECK_MPI(MPI_Request_get_status(r, &flag, &st));
    UNTOUCHED(st, "MPI_Request_get_status");
    st = fresh();
    CHECK_MPI(MPI_Request_get_status_any(1, &r, &idx, &flag, &st));
    UNTOUCHED(st, "MPI_Request_get_status_any");
    sts[0] = fresh();
    CHECK_MPI(MPI_Request_get_status_all(1, &r, &flag, sts));
    UNTOUCHED(sts[0], "MPI_Request_get_status_all (success)");
    st = fresh();
    CHECK_MPI(MPI_Test(&r, &flag, &st));
    CHECK(flag, "Test");
    UNTOUCHED(st, "MPI_Test");
    CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, rank, 6, w, &a[0]));
    CHECK_MPI(MPI_Send(&one, 1, MPI_INT, rank, 6, w));
    a[1] = MPI_REQUEST_NULL;
    st = fresh();
    CHECK_MPI(MPI_Waitany(2, a, &idx, &st));
    UNTOUCHED(st, "MPI_Waitany");
    CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, rank, 6, w, &a[0]));
    CHECK_MPI(MPI_Send(&one, 1, MPI_INT, rank, 6, w));
    st = fresh();
    flag = 0;
    while (!flag)
        CHECK_MPI(MPI_Testany(2, a, &idx, &flag, &st));
    UNTOUCHED(st, "MPI_Testany");
    /* The array calls, successful: MPI_ERROR untouched too. */
    CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, rank, 7, w, &a[0]));
    CHECK_MPI(MPI_Send(&one, 1, MPI_INT, rank, 7, w));
    sts[0] = sts[1] = fresh();
    CHECK_MPI(MPI_Waitall(2, a, sts));
    UNTOUCHED(sts[0], "MPI_Waitall (success)");
    UNTOUCHED(sts[1], "MPI_Waitall (success, NULL entry)");
    CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, rank, 7, w, &a[0]));
    CHECK_MPI(MPI_Send(&one, 1, MPI_INT, rank, 7, w));
    sts[0] = fresh();
    CHECK_MPI(MPI_Waitsome(2, a, &out, ind, sts));
    UNTOUCHED(sts[0], "MPI_Waitsome (success)");
    /* Waitall returning MPI_ERR_IN_STATUS: every status has its code. */
    MPI_Comm_set_errhandler(w, MPI_ERRORS_RETURN);
    int two[2] = {1, 2};
    CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, rank, 8, w, &a[0]));
    CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, rank, 9, w, &a[1]));
    CHECK_MPI(MPI_Send(&one, 1, MPI_INT, rank, 8, w));
    CHECK_MPI(MPI_Send(two, 2, MPI_INT, rank, 9, w));
    sts[0] = sts[1] = fresh();
    int rc = MPI_Waitall(2, a, sts);
    CHECK(rc == MPI_ERR_IN_STATUS, "Waitall with a truncation: %d", rc);
    CHECK(sts[0].MPI_ERROR == MPI_SUCCESS && sts[1].MPI_ERROR == MPI_ERR_TRUNCATE, "Waitall statuses %d %d",
          sts[0].MPI_ERROR, sts[1].MPI_ERROR);
    CHECK_MPI(MPI_Barrier(w));
    if (rank == 0)
        printf("p2p_status_error: ok\n");
    CHECK_MPI(MPI_Finalize());
    return 0;
}
