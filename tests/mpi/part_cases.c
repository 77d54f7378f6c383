/*
 * part_cases.c -- partitioned communication's corner cases, on a ring
 * (send right, receive left):
 *  - partitions that end inside the other side's elements: ints sent, pairs
 *    of ints received (contiguous), and into a vector type with holes;
 *    a vector type sent into plain ints;
 *  - zero-count partitions; MPI_PROC_NULL on both sides;
 *  - Request_free of inactive requests that never started, then a new pair
 *    with the same tag (must not inherit the freed pair's match);
 *  - ordinary point-to-point on the same tag and communicator meanwhile,
 *    and an MPI_ANY_TAG receive that must not see partitioned traffic;
 *  - a receiver blocked in MPI_Recv while the sender's first round needs
 *    its answer to the hello;
 *  - the _c init forms;
 *  - Parrived of null, inactive, bad partition, send request; Cancel of an
 *    active one;
 *  - bad Pready/Pready_range/Pready_list (nothing applied), unequal totals
 *    (MPI_ERR_TRUNCATE on both sides at every completion, no hang), and
 *    traffic after that still right.
 * -fatal=1: only unequal totals, under MPI_ERRORS_ARE_FATAL (the job must
 * end with the message).
 */
#include "part_common.h"

static int rank, size, right, left;

/* One round of a ring pair whose data is ints: send n ints in sp partitions,
 * receive them in rp partitions of rcount elements of rtype into rbuf. */
static void ring_round(const int *sbuf, int sp, int scount, MPI_Datatype stype, void *rbuf, int rp, int rcount,
                       MPI_Datatype rtype, int tag, int rounds)
{
    MPI_Request rq[2];
    CHECK_MPI(MPI_Psend_init(sbuf, sp, scount, stype, right, tag, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[0]));
    CHECK_MPI(MPI_Precv_init(rbuf, rp, rcount, rtype, left, tag, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[1]));
    for (int r = 0; r < rounds; r++) {
        CHECK_MPI(MPI_Startall(2, rq));
        for (int i = sp - 1; i >= 0; i--)
            CHECK_MPI(MPI_Pready(i, rq[0]));
        for (int j = 0; j < rp; j++) {
            int flag = 0;
            while (!flag)
                CHECK_MPI(MPI_Parrived(rq[1], j, &flag));
        }
        MPI_Status st[2];
        CHECK_MPI(MPI_Waitall(2, rq, st));
        CHECK(st[1].MPI_SOURCE == left && st[1].MPI_TAG == tag, "status source %d tag %d", st[1].MPI_SOURCE,
              st[1].MPI_TAG);
    }
    CHECK_MPI(MPI_Request_free(&rq[0]));
    CHECK_MPI(MPI_Request_free(&rq[1]));
}

static void misaligned(void)
{
    enum { N = 30 };
    int out[N], in[3 * N];
    for (int i = 0; i < N; i++)
        out[i] = 1000 * rank + i;
    /* ints in 6 partitions of 5 into pairs of ints, 5 partitions of 3 pairs: every other boundary inside a pair. */
    MPI_Datatype pair, holes, vec_send;
    CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &pair));
    CHECK_MPI(MPI_Type_commit(&pair));
    memset(in, 0, sizeof in);
    ring_round(out, 6, 5, MPI_INT, in, 5, 3, pair, 11, 2);
    for (int i = 0; i < N; i++)
        CHECK(in[i] == 1000 * left + i, "into pairs: element %d is %d", i, in[i]);
    /* Into a type with holes: {int, hole, int}; 5 partitions of 3. */
    CHECK_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &holes));
    CHECK_MPI(MPI_Type_commit(&holes));
    for (int i = 0; i < 3 * N; i++)
        in[i] = -7;
    ring_round(out, 6, 5, MPI_INT, in, 5, 3, holes, 12, 2);
    MPI_Aint lb, ext;
    MPI_Type_get_extent(holes, &lb, &ext);
    for (int k = 0; k < N; k++) {
        int at = (int)(k / 2 * (ext / (MPI_Aint)sizeof(int))) + (k % 2) * 2;
        CHECK(in[at] == 1000 * left + k, "into holes: int %d (at %d) is %d", k, at, in[at]);
    }
    for (int e = 0; e < N / 2; e++)
        CHECK(in[e * (ext / (MPI_Aint)sizeof(int)) + 1] == -7, "into holes: hole of element %d written", e);
    /* A type with holes sent (every other int of 2N) into 4 partitions... of plain ints in 3 partitions. */
    int src[2 * N];
    for (int i = 0; i < 2 * N; i++)
        src[i] = i % 2 ? -1 : 1000 * rank + i / 2;
    CHECK_MPI(MPI_Type_vector(5, 1, 2, MPI_INT, &vec_send));
    CHECK_MPI(MPI_Type_create_resized(vec_send, 0, 10 * sizeof(int), &vec_send));
    CHECK_MPI(MPI_Type_commit(&vec_send));
    memset(in, 0, sizeof in);
    ring_round(src, 3, 2, vec_send, in, 5, 6, MPI_INT, 13, 2);
    for (int i = 0; i < N; i++)
        CHECK(in[i] == 1000 * left + i, "from holes: element %d is %d", i, in[i]);
    /* Freed types: the requests keep them. */
    MPI_Request rq[2];
    memset(in, 0, sizeof in);
    CHECK_MPI(MPI_Psend_init(out, 6, 5, MPI_INT, right, 14, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[0]));
    CHECK_MPI(MPI_Precv_init(in, 5, 3, pair, left, 14, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[1]));
    CHECK_MPI(MPI_Type_free(&pair));
    CHECK_MPI(MPI_Startall(2, rq));
    CHECK_MPI(MPI_Pready_range(0, 5, rq[0]));
    CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < N; i++)
        CHECK(in[i] == 1000 * left + i, "freed type: element %d is %d", i, in[i]);
    CHECK_MPI(MPI_Request_free(&rq[0]));
    CHECK_MPI(MPI_Request_free(&rq[1]));
    CHECK_MPI(MPI_Type_free(&holes));
    CHECK_MPI(MPI_Type_free(&vec_send));
}

static void empty_and_null(void)
{
    int dummy = 0;
    ring_round(&dummy, 4, 0, MPI_INT, &dummy, 2, 0, MPI_INT, 21, 3);
    ring_round(&dummy, 1, 0, MPI_INT, &dummy, 7, 0, MPI_DOUBLE, 22, 2);
    MPI_Request rq[2];
    int buf[8] = {0};
    CHECK_MPI(MPI_Psend_init(buf, 2, 4, MPI_INT, MPI_PROC_NULL, 23, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[0]));
    CHECK_MPI(MPI_Precv_init(buf, 4, 2, MPI_INT, MPI_PROC_NULL, 23, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[1]));
    for (int r = 0; r < 2; r++) {
        CHECK_MPI(MPI_Startall(2, rq));
        CHECK_MPI(MPI_Pready_range(0, 1, rq[0]));
        int flag = 0;
        CHECK_MPI(MPI_Parrived(rq[1], 3, &flag));
        CHECK(flag, "PROC_NULL partition not arrived");
        MPI_Status st;
        CHECK_MPI(MPI_Wait(&rq[1], &st));
        CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "PROC_NULL receive: source %d", st.MPI_SOURCE);
        CHECK_MPI(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    }
    CHECK_MPI(MPI_Request_free(&rq[0]));
    CHECK_MPI(MPI_Request_free(&rq[1]));
}

/* Pairs freed before they ever started, then a live pair on the same tag. */
static void free_inactive(void)
{
    int out[12], in[12];
    MPI_Request s1, r1, s2, r2;
    for (int i = 0; i < 12; i++) {
        out[i] = 100 * rank + i;
        in[i] = -1;
    }
    CHECK_MPI(MPI_Psend_init(out, 4, 2, MPI_INT, right, 31, MPI_COMM_WORLD, MPI_INFO_NULL, &s1));
    CHECK_MPI(MPI_Request_free(&s1));
    CHECK_MPI(MPI_Precv_init(in, 2, 4, MPI_INT, left, 31, MPI_COMM_WORLD, MPI_INFO_NULL, &r1));
    CHECK_MPI(MPI_Request_free(&r1));
    CHECK(s1 == MPI_REQUEST_NULL && r1 == MPI_REQUEST_NULL, "freed handles not nulled");
    CHECK_MPI(MPI_Psend_init(out, 3, 4, MPI_INT, right, 31, MPI_COMM_WORLD, MPI_INFO_NULL, &s2));
    CHECK_MPI(MPI_Precv_init(in, 6, 2, MPI_INT, left, 31, MPI_COMM_WORLD, MPI_INFO_NULL, &r2));
    CHECK_MPI(MPI_Start(&r2));
    CHECK_MPI(MPI_Start(&s2));
    CHECK_MPI(MPI_Pready_range(0, 2, s2));
    CHECK_MPI(MPI_Wait(&r2, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&s2, MPI_STATUS_IGNORE));
    for (int i = 0; i < 12; i++)
        CHECK(in[i] == 100 * left + i, "after freed pair: element %d is %d", i, in[i]);
    CHECK_MPI(MPI_Request_free(&s2));
    CHECK_MPI(MPI_Request_free(&r2));
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Ordinary messages on the same tag and communicator during a round. */
static void mixed_p2p(void)
{
    enum { N = 4096 };
    static int out[N], in[N];
    int msg = 77 + rank, got = -1, any = -1;
    for (int i = 0; i < N; i++) {
        out[i] = rank * N + i;
        in[i] = -1;
    }
    MPI_Request rq[2], pr, ar;
    CHECK_MPI(MPI_Irecv(&any, 1, MPI_INT, left, MPI_ANY_TAG, MPI_COMM_WORLD, &ar));
    CHECK_MPI(MPI_Psend_init(out, 8, N / 8, MPI_INT, right, 41, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[0]));
    CHECK_MPI(MPI_Precv_init(in, 2, N / 2, MPI_INT, left, 41, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[1]));
    CHECK_MPI(MPI_Irecv(&got, 1, MPI_INT, left, 41, MPI_COMM_WORLD, &pr));
    CHECK_MPI(MPI_Startall(2, rq));
    CHECK_MPI(MPI_Pready_range(0, 3, rq[0]));
    CHECK_MPI(MPI_Send(&msg, 1, MPI_INT, right, 41, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Pready_range(4, 7, rq[0]));
    msg += 1000;
    CHECK_MPI(MPI_Send(&msg, 1, MPI_INT, right, 41, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    MPI_Status st;
    CHECK_MPI(MPI_Wait(&ar, &st));
    CHECK(any == 77 + left && st.MPI_TAG == 41, "ANY_TAG receive got %d tag %d", any, st.MPI_TAG);
    CHECK_MPI(MPI_Wait(&pr, &st));
    CHECK(got == 1077 + left && st.MPI_TAG == 41, "tag-41 receive got %d tag %d", got, st.MPI_TAG);
    for (int i = 0; i < N; i++)
        CHECK(in[i] == left * N + i, "mixed: element %d is %d", i, in[i]);
    CHECK_MPI(MPI_Request_free(&rq[0]));
    CHECK_MPI(MPI_Request_free(&rq[1]));
}

/* The receiver sits in a blocking MPI_Recv while the sender's first round
 * waits for the answer to its hello: any call that progresses must give it. */
static void blocked_receiver(void)
{
    int data[16], token = 0;
    MPI_Request rq;
    if (size < 2 || rank > 1)
        return;
    for (int i = 0; i < 16; i++)
        data[i] = rank ? -1 : 500 + i;
    if (rank == 0) {
        CHECK_MPI(MPI_Psend_init(data, 4, 4, MPI_INT, 1, 45, MPI_COMM_WORLD, MPI_INFO_NULL, &rq));
        CHECK_MPI(MPI_Start(&rq));
        CHECK_MPI(MPI_Pready_range(0, 3, rq));
        CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Send(&token, 1, MPI_INT, 1, 45, MPI_COMM_WORLD));
    } else {
        CHECK_MPI(MPI_Precv_init(data, 2, 8, MPI_INT, 0, 45, MPI_COMM_WORLD, MPI_INFO_NULL, &rq));
        CHECK_MPI(MPI_Recv(&token, 1, MPI_INT, 0, 45, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Start(&rq));
        CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        for (int i = 0; i < 16; i++)
            CHECK(data[i] == 500 + i, "blocked receiver: element %d is %d", i, data[i]);
    }
    CHECK_MPI(MPI_Request_free(&rq));
}

static void large_count_forms(void)
{
    double out[60], in[60];
    for (int i = 0; i < 60; i++) {
        out[i] = rank * 100 + i;
        in[i] = -1;
    }
    MPI_Request rq[2];
    CHECK_MPI(MPI_Psend_init_c(out, 4, (MPI_Count)15, MPI_DOUBLE, right, 51, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[0]));
    CHECK_MPI(MPI_Precv_init_c(in, 6, (MPI_Count)10, MPI_DOUBLE, left, 51, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[1]));
    CHECK_MPI(MPI_Startall(2, rq));
    int list[4] = {3, 1, 0, 2};
    CHECK_MPI(MPI_Pready_list(4, list, rq[0]));
    CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 60; i++)
        CHECK(in[i] == left * 100 + i, "_c: element %d is %.0f", i, in[i]);
    CHECK_MPI(MPI_Request_free(&rq[0]));
    CHECK_MPI(MPI_Request_free(&rq[1]));
    MPI_Request bad;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Precv_init_c(in, 4, (MPI_Count)1 << 31, MPI_DOUBLE, left, 51, MPI_COMM_WORLD, MPI_INFO_NULL, &bad);
    CHECK(rc == MPI_ERR_COUNT, "_c count above INT_MAX elements: %d", rc);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void bad_calls(void)
{
    int out[8] = {0}, in[8] = {0}, flag = 0, rc;
    MPI_Request rq[2];
    CHECK_MPI(MPI_Parrived(MPI_REQUEST_NULL, 0, &flag));
    CHECK(flag, "Parrived of MPI_REQUEST_NULL: flag false");
    CHECK_MPI(MPI_Psend_init(out, 4, 2, MPI_INT, right, 61, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[0]));
    CHECK_MPI(MPI_Precv_init(in, 4, 2, MPI_INT, left, 61, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[1]));
    flag = 0;
    CHECK_MPI(MPI_Parrived(rq[1], 2, &flag));
    CHECK(flag, "Parrived of an inactive request: flag false");
    rc = MPI_Parrived(rq[1], 4, &flag);
    CHECK(rc == MPI_ERR_ARG, "Parrived partition 4 of 4: %d", rc);
    rc = MPI_Parrived(rq[0], 0, &flag);
    CHECK(rc == MPI_ERR_REQUEST, "Parrived of a send request: %d", rc);
    rc = MPI_Pready(0, rq[0]);
    CHECK(rc == MPI_ERR_REQUEST, "Pready before Start: %d", rc);
    CHECK_MPI(MPI_Startall(2, rq));
    rc = MPI_Cancel(&rq[1]);
    CHECK(rc == MPI_ERR_REQUEST, "Cancel of an active partitioned receive: %d", rc);
    CHECK_MPI(MPI_Pready(1, rq[0]));
    rc = MPI_Pready(1, rq[0]);
    CHECK(rc == MPI_ERR_ARG, "Pready twice: %d", rc);
    rc = MPI_Pready_range(3, 2, rq[0]);
    CHECK(rc == MPI_ERR_ARG, "Pready_range 3..2: %d", rc);
    rc = MPI_Pready_range(2, 4, rq[0]);
    CHECK(rc == MPI_ERR_ARG, "Pready_range 2..4 of 4: %d", rc);
    int dup[3] = {2, 3, 2};
    rc = MPI_Pready_list(3, dup, rq[0]);
    CHECK(rc == MPI_ERR_ARG, "Pready_list with a duplicate: %d", rc);
    int fine[3] = {3, 0, 2};   /* none of the refused list went out */
    CHECK_MPI(MPI_Pready_list(3, fine, rq[0]));
    CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    CHECK_MPI(MPI_Request_free(&rq[0]));
    CHECK_MPI(MPI_Request_free(&rq[1]));
}

/* Unequal totals: both sides get MPI_ERR_TRUNCATE at every completion. */
static void unequal(int rounds)
{
    int out[40], in[40];
    for (int i = 0; i < 40; i++)
        out[i] = i;
    for (int c = 0; c < 2; c++) {
        MPI_Request rq[2];
        CHECK_MPI(MPI_Psend_init(out, 4, 10, MPI_INT, right, 71, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[0]));
        CHECK_MPI(MPI_Precv_init(in, c ? 2 : 3, c ? 19 : 10, MPI_INT, left, 71, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[1]));
        for (int r = 0; r < rounds; r++) {
            CHECK_MPI(MPI_Startall(2, rq));
            CHECK_MPI(MPI_Pready_range(0, 3, rq[0]));
            int rc = MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
            CHECK(rc == MPI_ERR_TRUNCATE, "case %d round %d: receive of unequal total gave %d", c, r, rc);
            rc = MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
            CHECK(rc == MPI_ERR_TRUNCATE, "case %d round %d: send of unequal total gave %d", c, r, rc);
        }
        CHECK_MPI(MPI_Request_free(&rq[0]));
        CHECK_MPI(MPI_Request_free(&rq[1]));
    }
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
    if (part_arg(argc, argv, "fatal", 0)) {
        unequal(1);
        CHECK(0, "unequal totals did not end the job");
    }
    misaligned();
    empty_and_null();
    free_inactive();
    mixed_p2p();
    blocked_receiver();
    large_count_forms();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    bad_calls();
    unequal(2);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    misaligned();   /* everything still right after the errors */
    CHECK_MPI(MPI_Finalize());
    return 0;
}
