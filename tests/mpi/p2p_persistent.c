/*
 * p2p_persistent.c -- persistent requests of every mode, started many times.
 *
 * Pairs (0,1), (2,3), ... exchange through persistent requests whose buffers
 * get new contents before every start, so a request that kept a stale copy or
 * a stale size is caught.  Every rank also runs a send/receive pair to itself.
 * Inactive persistent requests: Wait/Test return at once with an empty status
 * and leave the handle; Request_free releases them.
 */
#include "check.h"
#include "payload.h"

#define ITERATIONS 40
#define SMALL 100
#define LARGE (300 * 1024)
#define CANARY 0xA5
/* Open MPI 4.1.4's ob1 resends the first start's data when a persistent
 * buffered send above its eager limit is restarted (fixed upstream later);
 * keep it below that limit there so the test still validates the rest. */
#if defined(OPEN_MPI) && OPEN_MPI
#define BSEND_INIT_LEN 3000
#else
#define BSEND_INIT_LEN 5000
#endif
#define CANARY_BYTES 32

enum { T_PLAIN = 21, T_SMALL = 22, T_SYNC = 23, T_BUF = 24, T_LARGE = 25, T_READY = 26,
       T_SIGNAL = 27, T_SELF = 28 };

static uint64_t key_of(int src, int dst, int tag, int it)
{
    return payload_key((uint64_t)src, (uint64_t)dst, (uint64_t)tag, (uint64_t)it);
}

static unsigned char *alloc_buf(size_t n)
{
    unsigned char *b = malloc(n + CANARY_BYTES);
    CHECK(b != NULL, "out of memory");
    memset(b, CANARY, n + CANARY_BYTES);
    return b;
}

static void verify(const unsigned char *buf, int n, const MPI_Status *st, int src, int tag,
                   uint64_t key, const char *what, int it)
{
    int count = -1;
    CHECK(st->MPI_SOURCE == src && st->MPI_TAG == tag,
          "%s iteration %d: status source %d tag %d, expected %d/%d", what, it, st->MPI_SOURCE,
          st->MPI_TAG, src, tag);
    CHECK_MPI(MPI_Get_count(st, MPI_BYTE, &count));
    CHECK(count == n, "%s iteration %d: count %d, expected %d", what, it, count, n);
    size_t bad = payload_mismatch(buf, (size_t)n, key);
    CHECK(bad == (size_t)n, "%s iteration %d: wrong byte at %zu (stale data?)", what, it, bad);
    for (int i = 0; i < CANARY_BYTES; i++)
        CHECK(buf[n + i] == CANARY, "%s iteration %d: wrote past the message", what, it);
}

/* Wait and Test on an inactive persistent request: immediate, empty, handle kept. */
static void check_inactive(MPI_Request *req, const char *what)
{
    MPI_Request before = *req;
    MPI_Status st;
    int flag = 0;
    CHECK_MPI(MPI_Wait(req, &st));
    CHECK(*req == before, "%s: Wait on an inactive persistent request changed the handle", what);
    check_status_empty(&st, MPI_ANY_SOURCE, what);
    CHECK_MPI(MPI_Test(req, &flag, &st));
    CHECK(flag && *req == before, "%s: Test on an inactive persistent request: flag %d", what, flag);
    check_status_empty(&st, MPI_ANY_SOURCE, what);
}

static void free_persistent(MPI_Request *req, const char *what)
{
    CHECK_MPI(MPI_Request_free(req));
    CHECK(*req == MPI_REQUEST_NULL, "%s: Request_free left the handle non-null", what);
}

/* One Send_init / Recv_init pair reused with new data each time. */
static void test_reuse(int me, int peer, int sender, int n, int tag)
{
    int src = sender ? me : peer, dst = sender ? peer : me;
    unsigned char *buf = alloc_buf((size_t)n);
    MPI_Request req;
    MPI_Status st;
    if (sender)
        CHECK_MPI(MPI_Send_init(buf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &req));
    else
        CHECK_MPI(MPI_Recv_init(buf, n + CANARY_BYTES, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &req));
    check_inactive(&req, sender ? "Send_init before Start" : "Recv_init before Start");
    for (int it = 0; it < ITERATIONS; it++) {
        uint64_t key = key_of(src, dst, tag, it);
        if (sender)
            payload_fill(buf, (size_t)n, key);
        else
            memset(buf, CANARY, (size_t)n + CANARY_BYTES);
        CHECK_MPI(MPI_Start(&req));
        CHECK_MPI(MPI_Wait(&req, &st));
        CHECK(req != MPI_REQUEST_NULL, "Wait freed a persistent request");
        if (!sender)
            verify(buf, n, &st, peer, tag, key, "Recv_init", it);
    }
    check_inactive(&req, "persistent request after its last Wait");
    free_persistent(&req, "inactive persistent request");
    free(buf);
}

/* Several modes started together with Startall; Rsend_init after a handshake. */
static void test_startall(int me, int peer, int sender)
{
    enum { N = 4 };
    const int tags[N] = {T_SMALL, T_SYNC, T_BUF, T_LARGE};
    const int lens[N] = {SMALL, SMALL * 7, BSEND_INIT_LEN, LARGE};
    int src = sender ? me : peer, dst = sender ? peer : me;
    unsigned char *bufs[N], *rbuf;
    MPI_Request reqs[N], ready_req;
    MPI_Status st[N];
    void *attached = NULL;
    int attached_size = 0;

    for (int i = 0; i < N; i++)
        bufs[i] = alloc_buf((size_t)lens[i]);
    rbuf = alloc_buf(SMALL);
    if (sender) {
        attached_size = 2 * (lens[2] + MPI_BSEND_OVERHEAD);
        attached = malloc((size_t)attached_size);
        CHECK(attached != NULL, "out of memory");
        CHECK_MPI(MPI_Buffer_attach(attached, attached_size));
        CHECK_MPI(MPI_Send_init(bufs[0], lens[0], MPI_BYTE, peer, tags[0], MPI_COMM_WORLD, &reqs[0]));
        CHECK_MPI(MPI_Ssend_init(bufs[1], lens[1], MPI_BYTE, peer, tags[1], MPI_COMM_WORLD, &reqs[1]));
        CHECK_MPI(MPI_Bsend_init(bufs[2], lens[2], MPI_BYTE, peer, tags[2], MPI_COMM_WORLD, &reqs[2]));
        CHECK_MPI(MPI_Send_init(bufs[3], lens[3], MPI_BYTE, peer, tags[3], MPI_COMM_WORLD, &reqs[3]));
        CHECK_MPI(MPI_Rsend_init(rbuf, SMALL, MPI_BYTE, peer, T_READY, MPI_COMM_WORLD, &ready_req));
    } else {
        for (int i = 0; i < N; i++)
            CHECK_MPI(MPI_Recv_init(bufs[i], lens[i] + CANARY_BYTES, MPI_BYTE,
                                    i == 1 ? MPI_ANY_SOURCE : peer, tags[i], MPI_COMM_WORLD,
                                    &reqs[i]));
        CHECK_MPI(MPI_Recv_init(rbuf, SMALL + CANARY_BYTES, MPI_BYTE, peer, MPI_ANY_TAG,
                                MPI_COMM_WORLD, &ready_req));
    }

    for (int it = 0; it < ITERATIONS; it++) {
        if (sender) {
            for (int i = 0; i < N; i++)
                payload_fill(bufs[i], (size_t)lens[i], key_of(src, dst, tags[i], it));
            payload_fill(rbuf, SMALL, key_of(src, dst, T_READY, it));
            CHECK_MPI(MPI_Startall(N, reqs));
            CHECK_MPI(MPI_Waitall(N, reqs, st));
            /* Ready mode: the peer has started its receive when it signals. */
            CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, peer, T_SIGNAL, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK_MPI(MPI_Start(&ready_req));
            CHECK_MPI(MPI_Wait(&ready_req, MPI_STATUS_IGNORE));
        } else {
            for (int i = 0; i < N; i++)
                memset(bufs[i], CANARY, (size_t)lens[i] + CANARY_BYTES);
            memset(rbuf, CANARY, SMALL + CANARY_BYTES);
            /* Start in reverse order: Startall must not care. */
            MPI_Request rev[N];
            for (int i = 0; i < N; i++)
                rev[i] = reqs[N - 1 - i];
            CHECK_MPI(MPI_Startall(N, rev));
            for (int i = 0; i < N; i++)
                CHECK(rev[i] == reqs[N - 1 - i], "Startall changed a handle");
            CHECK_MPI(MPI_Start(&ready_req));
            CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, peer, T_SIGNAL, MPI_COMM_WORLD));
            CHECK_MPI(MPI_Waitall(N, reqs, st));
            for (int i = 0; i < N; i++)
                verify(bufs[i], lens[i], &st[i], peer, tags[i], key_of(src, dst, tags[i], it),
                       tags[i] == T_SMALL ? "Startall receive (Send_init)" : tags[i] == T_SYNC ? "Startall receive (Ssend_init)" : tags[i] == T_BUF ? "Startall receive (Bsend_init)" : "Startall receive (large Send_init)", it);
            MPI_Status rs;
            CHECK_MPI(MPI_Wait(&ready_req, &rs));
            verify(rbuf, SMALL, &rs, peer, T_READY, key_of(src, dst, T_READY, it), "Rsend_init", it);
        }
    }
    for (int i = 0; i < N; i++)
        free_persistent(&reqs[i], "Startall request");
    free_persistent(&ready_req, "ready-mode request");
    if (sender) {
        void *addr;
        int size;
        CHECK_MPI(MPI_Buffer_detach(&addr, &size));
        CHECK(addr == attached && size == attached_size, "Buffer_detach returned another buffer");
        free(attached);
    }
    for (int i = 0; i < N; i++)
        free(bufs[i]);
    free(rbuf);
}

/* A started Ssend_init cannot complete before the receive is started. */
static void test_ssend_init_sync(int me, int peer, int sender)
{
    unsigned char buf[SMALL + CANARY_BYTES];
    MPI_Request req;
    for (int it = 0; it < 5; it++) {
        if (sender) {
            int flag = 1;
            payload_fill(buf, SMALL, key_of(me, peer, T_SYNC, it));
            if (it == 0)
                CHECK_MPI(MPI_Ssend_init(buf, SMALL, MPI_BYTE, peer, T_SYNC, MPI_COMM_WORLD, &req));
            CHECK_MPI(MPI_Start(&req));
            for (int i = 0; i < 50; i++) {
                CHECK_MPI(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
                CHECK(!flag, "started Ssend_init completed before the receive was posted");
            }
            CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, peer, T_SIGNAL, MPI_COMM_WORLD));
            CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else {
            MPI_Status st;
            memset(buf, CANARY, sizeof buf);
            if (it == 0)
                CHECK_MPI(MPI_Recv_init(buf, SMALL, MPI_BYTE, peer, T_SYNC, MPI_COMM_WORLD, &req));
            CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, peer, T_SIGNAL, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK_MPI(MPI_Start(&req));
            CHECK_MPI(MPI_Wait(&req, &st));
            verify(buf, SMALL, &st, peer, T_SYNC, key_of(peer, me, T_SYNC, it), "Ssend_init", it);
        }
    }
    free_persistent(&req, "Ssend_init request");
}

/* Persistent send and receive to oneself, and requests never started. */
static void test_self(int me)
{
    unsigned char *out = alloc_buf(LARGE), *in = alloc_buf(LARGE);
    MPI_Request reqs[2];
    MPI_Status st[2];
    CHECK_MPI(MPI_Recv_init(in, LARGE + CANARY_BYTES, MPI_BYTE, MPI_ANY_SOURCE, T_SELF,
                            MPI_COMM_WORLD, &reqs[0]));
    CHECK_MPI(MPI_Send_init(out, LARGE, MPI_BYTE, me, T_SELF, MPI_COMM_WORLD, &reqs[1]));
    for (int it = 0; it < ITERATIONS / 4; it++) { /* new data each start */
        payload_fill(out, LARGE, key_of(me, me, T_SELF, it));
        memset(in, CANARY, LARGE + CANARY_BYTES);
        CHECK_MPI(MPI_Startall(2, reqs));
        CHECK_MPI(MPI_Waitall(2, reqs, st));
        verify(in, LARGE, &st[0], me, T_SELF, key_of(me, me, T_SELF, it), "self persistent", it);
    }
    free_persistent(&reqs[0], "self Recv_init");
    free_persistent(&reqs[1], "self Send_init");

    /* Never started: freeing must be fine for every kind. */
    MPI_Request r;
    CHECK_MPI(MPI_Send_init(out, 1, MPI_BYTE, me, T_SELF, MPI_COMM_WORLD, &r));
    free_persistent(&r, "never started Send_init");
    CHECK_MPI(MPI_Ssend_init(out, 1, MPI_BYTE, me, T_SELF, MPI_COMM_WORLD, &r));
    free_persistent(&r, "never started Ssend_init");
    CHECK_MPI(MPI_Bsend_init(out, 1, MPI_BYTE, me, T_SELF, MPI_COMM_WORLD, &r));
    free_persistent(&r, "never started Bsend_init");
    CHECK_MPI(MPI_Rsend_init(out, 1, MPI_BYTE, me, T_SELF, MPI_COMM_WORLD, &r));
    free_persistent(&r, "never started Rsend_init");
    CHECK_MPI(MPI_Recv_init(in, 1, MPI_BYTE, me, T_SELF, MPI_COMM_WORLD, &r));
    check_inactive(&r, "never started Recv_init");
    free_persistent(&r, "never started Recv_init");

    /* PROC_NULL persistent requests complete at once every time. */
    CHECK_MPI(MPI_Recv_init(in, 10, MPI_BYTE, MPI_PROC_NULL, T_SELF, MPI_COMM_WORLD, &reqs[0]));
    CHECK_MPI(MPI_Send_init(out, 10, MPI_BYTE, MPI_PROC_NULL, T_SELF, MPI_COMM_WORLD, &reqs[1]));
    for (int it = 0; it < 3; it++) {
        CHECK_MPI(MPI_Startall(2, reqs));
        CHECK_MPI(MPI_Waitall(2, reqs, st));
        CHECK(st[0].MPI_SOURCE == MPI_PROC_NULL && st[0].MPI_TAG == MPI_ANY_TAG,
              "persistent receive from PROC_NULL: source %d tag %d", st[0].MPI_SOURCE,
              st[0].MPI_TAG);
    }
    free_persistent(&reqs[0], "PROC_NULL Recv_init");
    free_persistent(&reqs[1], "PROC_NULL Send_init");
    free(out);
    free(in);
}

int main(int argc, char **argv)
{
    int me, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int peer = (me % 2 == 0) ? me + 1 : me - 1;

    test_self(me);
    if (peer < size) {
        for (int dir = 0; dir < 2; dir++) {
            int sender = (me % 2 == 0) == (dir == 0);
            test_reuse(me, peer, sender, SMALL, T_PLAIN);
            test_reuse(me, peer, sender, LARGE, T_PLAIN);
            test_reuse(me, peer, sender, 0, T_PLAIN);
            test_startall(me, peer, sender);
            test_ssend_init_sync(me, peer, sender);
        }
    }
    MPI_Finalize();
    return 0;
}
