/*
 * p2p_gen_checks.c -- the argument checks the front ends of chapters 3 and 4
 * get from the spec (spec/gen_checks.py): one bad argument at a time, under
 * MPI_ERRORS_RETURN, to each call whose checks are generated rather than in
 * its body, must come back as its error class and leave the library usable.
 *
 *   p2p_gen_checks          every case, then a clean exchange (any size)
 *   p2p_gen_checks fatal    MPI_Sendrecv with a bad source under
 *                           MPI_ERRORS_ARE_FATAL: the test reads the text
 */
#include "check.h"

static int rank, size;

static void expect_class(int rc, int expected, const char *what)
{
    int cls = -1;
    CHECK(rc != MPI_SUCCESS, "%s: succeeded, expected error class %d", what, expected);
    CHECK(MPI_Error_class(rc, &cls) == MPI_SUCCESS && cls == expected, "%s: class %d, expected %d", what, cls,
          expected);
}

/* The persistent sends: request pointer, then the message's arguments. */
static void persistent_sends(void)
{
    typedef int (*init_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
    static const struct {
        init_fn fn;
        const char *name;
    } sends[] = { { MPI_Send_init, "Send_init" }, { MPI_Ssend_init, "Ssend_init" },
                  { MPI_Bsend_init, "Bsend_init" }, { MPI_Rsend_init, "Rsend_init" } };
    int buf[4] = { 0 };
    for (size_t i = 0; i < sizeof sends / sizeof sends[0]; i++) {
        MPI_Request r = MPI_REQUEST_NULL;
        const char *n = sends[i].name;
        expect_class(sends[i].fn(buf, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, NULL), MPI_ERR_REQUEST, n);
        expect_class(sends[i].fn(buf, 1, MPI_INT, size, 1, MPI_COMM_WORLD, &r), MPI_ERR_RANK, n);
        expect_class(sends[i].fn(buf, 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &r), MPI_ERR_RANK, n);
        expect_class(sends[i].fn(buf, 1, MPI_INT, 0, -1, MPI_COMM_WORLD, &r), MPI_ERR_TAG, n);
        expect_class(sends[i].fn(buf, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &r), MPI_ERR_TAG, n);
        expect_class(sends[i].fn(buf, -1, MPI_INT, 0, 1, MPI_COMM_WORLD, &r), MPI_ERR_COUNT, n);
        expect_class(sends[i].fn(buf, 1, MPI_DATATYPE_NULL, 0, 1, MPI_COMM_WORLD, &r), MPI_ERR_TYPE, n);
        expect_class(sends[i].fn(NULL, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &r), MPI_ERR_BUFFER, n);
        expect_class(sends[i].fn(buf, 1, MPI_INT, 0, 1, MPI_COMM_NULL, &r), MPI_ERR_COMM, n);
        CHECK(r == MPI_REQUEST_NULL, "%s: a refused call wrote its request", n);
        /* MPI_PROC_NULL and an empty MPI_DATATYPE_NULL transfer to it pass. */
        CHECK_MPI(sends[i].fn(buf, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &r));
        CHECK_MPI(MPI_Request_free(&r));
    }
}

static void receives_and_pairs(void)
{
    int buf[4] = { 0 }, other[4] = { 0 };
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Status st;
    expect_class(MPI_Recv_init(buf, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, NULL), MPI_ERR_REQUEST, "Recv_init");
    expect_class(MPI_Recv_init(buf, 1, MPI_INT, -5, 1, MPI_COMM_WORLD, &r), MPI_ERR_RANK, "Recv_init source");
    expect_class(MPI_Recv_init(buf, 1, MPI_INT, 0, -7, MPI_COMM_WORLD, &r), MPI_ERR_TAG, "Recv_init tag");
    CHECK_MPI(MPI_Recv_init(buf, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r));
    CHECK_MPI(MPI_Request_free(&r));
    expect_class(MPI_Bsend(buf, 1, MPI_INT, size, 1, MPI_COMM_WORLD), MPI_ERR_RANK, "Bsend dest");
    expect_class(MPI_Bsend(buf, 1, MPI_INT, 0, -1, MPI_COMM_WORLD), MPI_ERR_TAG, "Bsend tag");
    /* Sendrecv: each half paired with its own peer, tag and buffer. */
    expect_class(MPI_Sendrecv(buf, 1, MPI_INT, size, 1, other, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &st),
                 MPI_ERR_RANK, "Sendrecv dest");
    expect_class(MPI_Sendrecv(buf, 1, MPI_INT, 0, 1, other, 1, MPI_INT, size + 3, 1, MPI_COMM_WORLD, &st),
                 MPI_ERR_RANK, "Sendrecv source");
    expect_class(MPI_Sendrecv(buf, 1, MPI_INT, 0, MPI_ANY_TAG, other, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &st),
                 MPI_ERR_TAG, "Sendrecv sendtag ANY_TAG");
    expect_class(MPI_Sendrecv(buf, 1, MPI_INT, 0, 1, other, -2, MPI_INT, 0, 1, MPI_COMM_WORLD, &st),
                 MPI_ERR_COUNT, "Sendrecv recvcount");
    expect_class(MPI_Sendrecv(buf, 1, MPI_INT, 0, 1, other, 1, MPI_DATATYPE_NULL, 0, 1, MPI_COMM_WORLD, &st),
                 MPI_ERR_TYPE, "Sendrecv recvtype");
    expect_class(MPI_Sendrecv_replace(buf, 1, MPI_INT, -30, 1, 0, 1, MPI_COMM_WORLD, &st), MPI_ERR_RANK,
                 "Sendrecv_replace dest");
    expect_class(MPI_Sendrecv_replace(buf, 1, MPI_INT, 0, 1, size, 1, MPI_COMM_WORLD, &st), MPI_ERR_RANK,
                 "Sendrecv_replace source");
    expect_class(MPI_Isendrecv(buf, 1, MPI_INT, 0, 1, other, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, NULL),
                 MPI_ERR_REQUEST, "Isendrecv request");
    expect_class(MPI_Isendrecv_replace(buf, 1, MPI_INT, 0, 1, size, 1, MPI_COMM_WORLD, &r), MPI_ERR_RANK,
                 "Isendrecv_replace source");
    /* Both halves to MPI_PROC_NULL pass and complete at once. */
    CHECK_MPI(MPI_Sendrecv(buf, 1, MPI_INT, MPI_PROC_NULL, 1, other, 1, MPI_INT, MPI_PROC_NULL, 1,
                           MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "Sendrecv from MPI_PROC_NULL: source %d", st.MPI_SOURCE);
}

static void request_pointers(void)
{
    int flag;
    MPI_Message msg = MPI_MESSAGE_NULL;
    expect_class(MPI_Wait(NULL, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, "Wait(NULL)");
    expect_class(MPI_Test(NULL, &flag, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, "Test(NULL)");
    expect_class(MPI_Request_free(NULL), MPI_ERR_REQUEST, "Request_free(NULL)");
    expect_class(MPI_Cancel(NULL), MPI_ERR_REQUEST, "Cancel(NULL)");
    expect_class(MPI_Start(NULL), MPI_ERR_REQUEST, "Start(NULL)");
    int buf;
    expect_class(MPI_Imrecv(&buf, 1, MPI_INT, &msg, NULL), MPI_ERR_REQUEST, "Imrecv(NULL request)");
}

/* The probes: their envelope alone (no buffer). */
static void probes(void)
{
    int flag = -1;
    MPI_Message msg = MPI_MESSAGE_NULL;
    MPI_Status st;
    expect_class(MPI_Probe(0, -5, MPI_COMM_WORLD, &st), MPI_ERR_TAG, "Probe tag -5");
    expect_class(MPI_Iprobe(-30, 1, MPI_COMM_WORLD, &flag, &st), MPI_ERR_RANK, "Iprobe source -30");
    expect_class(MPI_Mprobe(size, 1, MPI_COMM_WORLD, &msg, &st), MPI_ERR_RANK, "Mprobe source size");
    expect_class(MPI_Improbe(0, 1, MPI_COMM_NULL, &flag, &msg, &st), MPI_ERR_COMM, "Improbe MPI_COMM_NULL");
    CHECK(flag == -1 && msg == MPI_MESSAGE_NULL, "a refused probe wrote its results");
    CHECK_MPI(MPI_Iprobe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
    CHECK(flag == 1 && st.MPI_SOURCE == MPI_PROC_NULL, "Iprobe MPI_PROC_NULL: flag %d source %d", flag,
          st.MPI_SOURCE);
}

/* After the refusals the library still moves a message around the ring. */
static void exchange(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size, got = -1;
    CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, right, 9, &got, 1, MPI_INT, left, 9, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    CHECK(got == left, "exchange: got %d from %d", got, left);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1 && strcmp(argv[1], "fatal") == 0) {
        int a = 0, b = 0;
        MPI_Sendrecv(&a, 1, MPI_INT, 0, 1, &b, 1, MPI_INT, size + 4, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("p2p_gen_checks: MPI_Sendrecv with a bad source returned\n");
        MPI_Finalize();
        return 0;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    persistent_sends();
    receives_and_pairs();
    request_pointers();
    probes();
    exchange();
    MPI_Finalize();
    if (rank == 0)
        printf("p2p_gen_checks: ok\n");
    return 0;
}
