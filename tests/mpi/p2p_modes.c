/*
 * p2p_modes.c -- every send mode, blocking and not, at small and large sizes.
 *
 * Ranks work in pairs (0,1), (2,3), ...; each pair runs every test in both
 * directions.  Every rank, paired or not, also talks to itself and to
 * MPI_PROC_NULL.  Synchronous and buffered semantics are checked by ordering
 * alone (who may wait for whom), never by timing: a wrong implementation either
 * fails a CHECK or deadlocks into the test's timeout.
 */
#include "check.h"
#include "payload.h"

enum { T_DATA = 11, T_SIGNAL = 12, T_SSEND = 13, T_BSEND = 14, T_RSEND = 15,
       T_NONBLOCK = 16, T_SENDRECV = 17, T_REPLACE = 18, T_SELF = 19 };

#define CANARY_BYTES 64
#define CANARY 0xA5

static const int sizes[] = {0, 1, 100, 4096, 65536 + 3, 1 << 20};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

static int world_rank, world_size;

static uint64_t key_of(int src, int dst, int tag, int n, int k)
{
    return payload_key((uint64_t)src << 32 | (uint32_t)dst, (uint64_t)tag, (uint64_t)n, (uint64_t)k);
}

static unsigned char *make_payload(int n, uint64_t key)
{
    unsigned char *buf = malloc((size_t)n + 1);
    CHECK(buf != NULL, "out of memory");
    payload_fill(buf, (size_t)n, key);
    return buf;
}

/* A receive buffer with a guard zone after its n bytes. */
static unsigned char *make_recv_buffer(int n)
{
    unsigned char *buf = malloc((size_t)n + CANARY_BYTES);
    CHECK(buf != NULL, "out of memory");
    memset(buf, CANARY, (size_t)n + CANARY_BYTES);
    return buf;
}

/* Checks status, count, contents and the guard zone of a received message. */
static void verify_received(const unsigned char *buf, int n, const MPI_Status *st, int src,
                            int tag, uint64_t key, const char *what)
{
    int count = -1;
    CHECK(st->MPI_SOURCE == src, "%s (%d bytes): status source %d, expected %d", what, n,
          st->MPI_SOURCE, src);
    CHECK(st->MPI_TAG == tag, "%s (%d bytes): status tag %d, expected %d", what, n, st->MPI_TAG, tag);
    CHECK_MPI(MPI_Get_count(st, MPI_BYTE, &count));
    CHECK(count == n, "%s: Get_count %d, expected %d", what, count, n);
    size_t bad = payload_mismatch(buf, (size_t)n, key);
    CHECK(bad == (size_t)n, "%s (%d bytes): wrong byte at offset %zu", what, n, bad);
    for (int i = 0; i < CANARY_BYTES; i++)
        CHECK(buf[n + i] == CANARY, "%s (%d bytes): wrote past the message at +%d", what, n, i);
}

/* Blocking receive of n bytes (posted with room to spare) and full check. */
static void recv_and_verify(int src, int tag, int n, uint64_t key, const char *what)
{
    unsigned char *buf = make_recv_buffer(n);
    MPI_Status st;
    CHECK_MPI(MPI_Recv(buf, n + CANARY_BYTES, MPI_BYTE, src, tag, MPI_COMM_WORLD, &st));
    verify_received(buf, n, &st, src, tag, key, what);
    free(buf);
}

static void signal_peer(int peer) { CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, peer, T_SIGNAL, MPI_COMM_WORLD)); }
static void await_signal(int peer) { CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, peer, T_SIGNAL, MPI_COMM_WORLD, MPI_STATUS_IGNORE)); }

static void test_send(int me, int peer, int sender, int n)
{
    int src = sender ? me : peer, dst = sender ? peer : me;
    uint64_t key = key_of(src, dst, T_DATA, n, 0);
    if (sender) {
        unsigned char *buf = make_payload(n, key);
        CHECK_MPI(MPI_Send(buf, n, MPI_BYTE, peer, T_DATA, MPI_COMM_WORLD));
        free(buf);
    } else {
        recv_and_verify(peer, T_DATA, n, key, "Send");
    }
}

/* Blocking Ssend, then Issend whose receive is provably not yet posted. */
static void test_ssend(int me, int peer, int sender, int n)
{
    int src = sender ? me : peer, dst = sender ? peer : me;
    uint64_t key0 = key_of(src, dst, T_SSEND, n, 0), key1 = key_of(src, dst, T_SSEND, n, 1);
    if (sender) {
        unsigned char *b0 = make_payload(n, key0), *b1 = make_payload(n, key1);
        CHECK_MPI(MPI_Ssend(b0, n, MPI_BYTE, peer, T_SSEND, MPI_COMM_WORLD));
        MPI_Request req;
        int flag = 1;
        CHECK_MPI(MPI_Issend(b1, n, MPI_BYTE, peer, T_SSEND, MPI_COMM_WORLD, &req));
        /* The peer is blocked waiting for our signal: no receive can match yet. */
        for (int i = 0; i < 100; i++) {
            CHECK_MPI(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
            CHECK(!flag, "Issend of %d bytes completed before the receive was posted", n);
        }
        signal_peer(peer);
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        CHECK(req == MPI_REQUEST_NULL, "Wait left the request non-null");
        free(b0);
        free(b1);
    } else {
        recv_and_verify(peer, T_SSEND, n, key0, "Ssend");
        await_signal(peer);
        recv_and_verify(peer, T_SSEND, n, key1, "Issend");
    }
}

/* Bsend and Ibsend complete before any receive is posted; detach waits for
 * delivery, after which the buffer may be scribbled over. */
static void test_bsend(int me, int peer, int sender, int n)
{
    enum { NMSG = 4 };
    int src = sender ? me : peer, dst = sender ? peer : me;
    if (sender) {
        int bufsize = NMSG * (n + MPI_BSEND_OVERHEAD);
        unsigned char *attached = malloc((size_t)bufsize);
        CHECK(attached != NULL, "out of memory");
        CHECK_MPI(MPI_Buffer_attach(attached, bufsize));
        for (int k = 0; k < NMSG; k++) {
            unsigned char *buf = make_payload(n, key_of(src, dst, T_BSEND, n, k));
            if (k == NMSG - 1) {
                MPI_Request req;
                CHECK_MPI(MPI_Ibsend(buf, n, MPI_BYTE, peer, T_BSEND, MPI_COMM_WORLD, &req));
                CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
            } else {
                CHECK_MPI(MPI_Bsend(buf, n, MPI_BYTE, peer, T_BSEND, MPI_COMM_WORLD));
            }
            /* Buffered: our copy is free to change at once. */
            memset(buf, 0x5A, (size_t)n);
            free(buf);
        }
        signal_peer(peer);
        void *addr = NULL;
        int detached_size = -1;
        CHECK_MPI(MPI_Buffer_detach(&addr, &detached_size));
        CHECK(addr == attached && detached_size == bufsize,
              "Buffer_detach gave %p/%d, attached %p/%d", addr, detached_size, (void *)attached,
              bufsize);
        memset(attached, 0xEE, (size_t)bufsize);
        free(attached);
    } else {
        await_signal(peer);
        for (int k = 0; k < NMSG; k++)
            recv_and_verify(peer, T_BSEND, n, key_of(src, dst, T_BSEND, n, k), "Bsend/Ibsend");
    }
}

/* Ready mode: the receiver pre-posts, then says so. */
static void test_rsend(int me, int peer, int sender, int n)
{
    int src = sender ? me : peer, dst = sender ? peer : me;
    uint64_t key0 = key_of(src, dst, T_RSEND, n, 0), key1 = key_of(src, dst, T_RSEND, n, 1);
    if (sender) {
        unsigned char *b0 = make_payload(n, key0), *b1 = make_payload(n, key1);
        await_signal(peer);
        CHECK_MPI(MPI_Rsend(b0, n, MPI_BYTE, peer, T_RSEND, MPI_COMM_WORLD));
        MPI_Request req;
        CHECK_MPI(MPI_Irsend(b1, n, MPI_BYTE, peer, T_RSEND, MPI_COMM_WORLD, &req));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        free(b0);
        free(b1);
    } else {
        unsigned char *r0 = make_recv_buffer(n), *r1 = make_recv_buffer(n);
        MPI_Request reqs[2];
        MPI_Status st[2];
        CHECK_MPI(MPI_Irecv(r0, n + CANARY_BYTES, MPI_BYTE, peer, T_RSEND, MPI_COMM_WORLD, &reqs[0]));
        CHECK_MPI(MPI_Irecv(r1, n + CANARY_BYTES, MPI_BYTE, peer, T_RSEND, MPI_COMM_WORLD, &reqs[1]));
        signal_peer(peer);
        CHECK_MPI(MPI_Waitall(2, reqs, st));
        verify_received(r0, n, &st[0], peer, T_RSEND, key0, "Rsend");
        verify_received(r1, n, &st[1], peer, T_RSEND, key1, "Irsend");
        free(r0);
        free(r1);
    }
}

/* Isend/Irecv with the receive posted late (unexpected) and early. */
static void test_nonblocking(int me, int peer, int sender, int n)
{
    int src = sender ? me : peer, dst = sender ? peer : me;
    uint64_t key0 = key_of(src, dst, T_NONBLOCK, n, 0), key1 = key_of(src, dst, T_NONBLOCK, n, 1);
    if (sender) {
        unsigned char *b0 = make_payload(n, key0), *b1 = make_payload(n, key1);
        MPI_Request reqs[2];
        CHECK_MPI(MPI_Isend(b0, n, MPI_BYTE, peer, T_NONBLOCK, MPI_COMM_WORLD, &reqs[0]));
        signal_peer(peer);  /* the peer posts its receives only now */
        await_signal(peer); /* ...and has posted them now */
        CHECK_MPI(MPI_Isend(b1, n, MPI_BYTE, peer, T_NONBLOCK, MPI_COMM_WORLD, &reqs[1]));
        CHECK_MPI(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
        free(b0);
        free(b1);
    } else {
        unsigned char *r0 = make_recv_buffer(n), *r1 = make_recv_buffer(n);
        MPI_Request reqs[2];
        MPI_Status st;
        await_signal(peer);
        CHECK_MPI(MPI_Irecv(r0, n + CANARY_BYTES, MPI_BYTE, peer, T_NONBLOCK, MPI_COMM_WORLD, &reqs[0]));
        CHECK_MPI(MPI_Irecv(r1, n + CANARY_BYTES, MPI_BYTE, peer, T_NONBLOCK, MPI_COMM_WORLD, &reqs[1]));
        signal_peer(peer);
        CHECK_MPI(MPI_Wait(&reqs[1], &st));
        verify_received(r1, n, &st, peer, T_NONBLOCK, key1, "Isend (receive posted first)");
        CHECK_MPI(MPI_Wait(&reqs[0], &st));
        verify_received(r0, n, &st, peer, T_NONBLOCK, key0, "Isend (unexpected)");
        free(r0);
        free(r1);
    }
}

/* Both sides at once: Sendrecv, then Sendrecv_replace. */
static void test_sendrecv(int me, int peer, int n)
{
    uint64_t mine = key_of(me, peer, T_SENDRECV, n, 0), theirs = key_of(peer, me, T_SENDRECV, n, 0);
    unsigned char *out = make_payload(n, mine), *in = make_recv_buffer(n);
    MPI_Status st;
    CHECK_MPI(MPI_Sendrecv(out, n, MPI_BYTE, peer, T_SENDRECV, in, n + CANARY_BYTES, MPI_BYTE,
                           peer, T_SENDRECV, MPI_COMM_WORLD, &st));
    verify_received(in, n, &st, peer, T_SENDRECV, theirs, "Sendrecv");
    free(out);
    free(in);

    mine = key_of(me, peer, T_REPLACE, n, 0);
    theirs = key_of(peer, me, T_REPLACE, n, 0);
    unsigned char *buf = make_recv_buffer(n);
    payload_fill(buf, (size_t)n, mine);
    CHECK_MPI(MPI_Sendrecv_replace(buf, n, MPI_BYTE, peer, T_REPLACE, peer, T_REPLACE,
                                   MPI_COMM_WORLD, &st));
    verify_received(buf, n, &st, peer, T_REPLACE, theirs, "Sendrecv_replace");
    free(buf);
}

/* Nonblocking sends to oneself, then the receives. */
static void test_self(int n)
{
    int me = world_rank;
    uint64_t k0 = key_of(me, me, T_SELF, n, 0), k1 = key_of(me, me, T_SELF, n, 1);
    unsigned char *b0 = make_payload(n, k0), *b1 = make_payload(n, k1);
    MPI_Request reqs[2];
    CHECK_MPI(MPI_Isend(b0, n, MPI_BYTE, me, T_SELF, MPI_COMM_WORLD, &reqs[0]));
    CHECK_MPI(MPI_Issend(b1, n, MPI_BYTE, me, T_SELF, MPI_COMM_WORLD, &reqs[1]));
    recv_and_verify(me, T_SELF, n, k0, "Isend to self");
    recv_and_verify(me, T_SELF, n, k1, "Issend to self");
    CHECK_MPI(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
    free(b0);
    free(b1);
    test_sendrecv(me, me, n);
}

static void test_proc_null(void)
{
    unsigned char buf[100];
    MPI_Status st;
    MPI_Request req;
    int flag = 0;
    memset(buf, CANARY, sizeof buf);
    CHECK_MPI(MPI_Send(buf, 100, MPI_BYTE, MPI_PROC_NULL, T_DATA, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Ssend(buf, 100, MPI_BYTE, MPI_PROC_NULL, T_DATA, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Rsend(buf, 100, MPI_BYTE, MPI_PROC_NULL, T_DATA, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Bsend(buf, 100, MPI_BYTE, MPI_PROC_NULL, T_DATA, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Recv(buf, 100, MPI_BYTE, MPI_PROC_NULL, T_DATA, MPI_COMM_WORLD, &st));
    check_status_empty(&st, MPI_PROC_NULL, "Recv from PROC_NULL");
    for (int i = 0; i < 100; i++)
        CHECK(buf[i] == CANARY, "Recv from PROC_NULL wrote the buffer");

    CHECK_MPI(MPI_Isend(buf, 100, MPI_BYTE, MPI_PROC_NULL, T_DATA, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
    CHECK(flag && req == MPI_REQUEST_NULL, "Isend to PROC_NULL not complete at once");
    CHECK_MPI(MPI_Issend(buf, 100, MPI_BYTE, MPI_PROC_NULL, T_DATA, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
    CHECK(flag, "Issend to PROC_NULL not complete at once");
    CHECK_MPI(MPI_Irecv(buf, 100, MPI_BYTE, MPI_PROC_NULL, T_DATA, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Test(&req, &flag, &st));
    CHECK(flag, "Irecv from PROC_NULL not complete at once");
    check_status_empty(&st, MPI_PROC_NULL, "Irecv from PROC_NULL");

    CHECK_MPI(MPI_Sendrecv(buf, 10, MPI_BYTE, MPI_PROC_NULL, T_DATA, buf + 50, 10, MPI_BYTE,
                           MPI_PROC_NULL, T_DATA, MPI_COMM_WORLD, &st));
    check_status_empty(&st, MPI_PROC_NULL, "Sendrecv with PROC_NULL");
    CHECK_MPI(MPI_Sendrecv_replace(buf, 10, MPI_BYTE, MPI_PROC_NULL, T_DATA, MPI_PROC_NULL,
                                   T_DATA, MPI_COMM_WORLD, &st));
    check_status_empty(&st, MPI_PROC_NULL, "Sendrecv_replace with PROC_NULL");
    for (int i = 0; i < 100; i++)
        CHECK(buf[i] == CANARY, "an operation with PROC_NULL wrote the buffer");
}

/* Zero-count messages may come with a NULL buffer. */
static void test_zero_null_buffer(int me, int peer, int sender)
{
    MPI_Status st;
    if (sender) {
        CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, peer, T_DATA, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Ssend(NULL, 0, MPI_INT, peer, T_DATA, MPI_COMM_WORLD));
    } else {
        int count = -1;
        CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, peer, T_DATA, MPI_COMM_WORLD, &st));
        CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
        CHECK(count == 0 && st.MPI_SOURCE == peer && st.MPI_TAG == T_DATA,
              "zero-byte Send: count %d source %d tag %d", count, st.MPI_SOURCE, st.MPI_TAG);
        CHECK_MPI(MPI_Recv(NULL, 0, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
        CHECK(count == 0 && st.MPI_SOURCE == peer && st.MPI_TAG == T_DATA,
              "zero-byte Ssend: count %d source %d tag %d", count, st.MPI_SOURCE, st.MPI_TAG);
    }
    (void)me;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    int me = world_rank;
    int peer = (me % 2 == 0) ? me + 1 : me - 1;
    int paired = peer < world_size;

    test_proc_null();
    for (int i = 0; i < NSIZES; i++)
        test_self(sizes[i]);

    if (paired) {
        for (int dir = 0; dir < 2; dir++) {
            /* dir 0: the even rank sends; dir 1: the odd one. */
            int sender = (me % 2 == 0) == (dir == 0);
            test_zero_null_buffer(me, peer, sender);
            for (int i = 0; i < NSIZES; i++) {
                int n = sizes[i];
                test_send(me, peer, sender, n);
                test_ssend(me, peer, sender, n);
                test_bsend(me, peer, sender, n);
                test_rsend(me, peer, sender, n);
                test_nonblocking(me, peer, sender, n);
            }
        }
        for (int i = 0; i < NSIZES; i++)
            test_sendrecv(me, peer, sizes[i]);
    }
    MPI_Finalize();
    return 0;
}
