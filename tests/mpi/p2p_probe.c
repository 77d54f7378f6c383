/*
 * p2p_probe.c -- Probe/Iprobe and matched probes (Mprobe/Improbe/Mrecv/Imrecv).
 *
 * Every rank (rank 0 too, to itself) sends a series of messages of various
 * sizes to rank 0, which learns each one's source, tag and size only by
 * probing with ANY_SOURCE/ANY_TAG, then receives exactly that.  The series
 * of one sender must be seen in send order.  Pairs (0,1), (2,3)... check that
 * a matched probe takes its message out of matching.  PROC_NULL gives
 * MPI_MESSAGE_NO_PROC and empty statuses.
 */
#include "check.h"
#include "payload.h"

static const int series_sizes[] = {0, 10, 1000, 20000, 200000, 3};
#define SERIES ((int)(sizeof series_sizes / sizeof series_sizes[0]))
#define TAG_OF(src, k) (1000 + (src) * 16 + (k))
#define T_MATCHED 7 /* first of a tag per call: a sender may run ahead */
#define T_NEVER 999999

static uint64_t key_of(int src, int tag) { return payload_key((uint64_t)src, (uint64_t)tag, 17, 0); }

/* Receive exactly what a probe announced and check it. */
static void receive_probed(const MPI_Status *probed, int *next_k, const char *how)
{
    int src = probed->MPI_SOURCE, tag = probed->MPI_TAG, count = -1, count2 = -1;
    CHECK_MPI(MPI_Get_count(probed, MPI_BYTE, &count));
    int k = next_k[src];
    CHECK(k < SERIES, "%s: more messages from %d than sent", how, src);
    CHECK(tag == TAG_OF(src, k), "%s: from %d saw tag %d, expected %d (order broken)", how, src,
          tag, TAG_OF(src, k));
    CHECK(count == series_sizes[k], "%s: message %d from %d: probed count %d, expected %d", how, k,
          src, count, series_sizes[k]);
    unsigned char *buf = malloc(count ? (size_t)count : 1);
    MPI_Status st;
    CHECK(buf != NULL, "out of memory");
    CHECK_MPI(MPI_Recv(buf, count, MPI_BYTE, src, tag, MPI_COMM_WORLD, &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count2));
    CHECK(st.MPI_SOURCE == src && st.MPI_TAG == tag && count2 == count,
          "%s: received %d/%d/%d after probing %d/%d/%d", how, st.MPI_SOURCE, st.MPI_TAG, count2,
          src, tag, count);
    size_t bad = payload_mismatch(buf, (size_t)count, key_of(src, tag));
    CHECK(bad == (size_t)count, "%s: message from %d tag %d: wrong byte at %zu", how, src, tag, bad);
    free(buf);
    next_k[src]++;
}

static void test_probe_gather(int me, int size)
{
    unsigned char *bufs[SERIES];
    MPI_Request reqs[SERIES];
    for (int k = 0; k < SERIES; k++) {
        bufs[k] = malloc((size_t)series_sizes[k] + 1);
        CHECK(bufs[k] != NULL, "out of memory");
        payload_fill(bufs[k], (size_t)series_sizes[k], key_of(me, TAG_OF(me, k)));
        CHECK_MPI(MPI_Isend(bufs[k], series_sizes[k], MPI_BYTE, 0, TAG_OF(me, k), MPI_COMM_WORLD,
                            &reqs[k]));
    }
    if (me == 0) {
        int *next_k = calloc((size_t)size, sizeof(int));
        CHECK(next_k != NULL, "out of memory");
        for (int i = 0; i < size * SERIES; i++) {
            MPI_Status st, again;
            if (i % 2 == 0) {
                CHECK_MPI(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            } else {
                int flag = 0;
                while (!flag)
                    CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
            }
            /* Probing does not consume: a specific probe sees the same message. */
            int flag = 0;
            CHECK_MPI(MPI_Iprobe(st.MPI_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &again));
            CHECK(flag && again.MPI_SOURCE == st.MPI_SOURCE && again.MPI_TAG == st.MPI_TAG,
                  "second probe of a message from %d tag %d found flag %d source %d tag %d",
                  st.MPI_SOURCE, st.MPI_TAG, flag, again.MPI_SOURCE, again.MPI_TAG);
            receive_probed(&st, next_k, i % 2 ? "Iprobe" : "Probe");
        }
        for (int s = 0; s < size; s++)
            CHECK(next_k[s] == SERIES, "got %d messages from %d, sent %d", next_k[s], s, SERIES);
        free(next_k);
        /* Release the others: their later messages must not meet our wildcards. */
        for (int s = 1; s < size; s++)
            CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, s, T_NEVER - 1, MPI_COMM_WORLD));
    } else {
        CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, 0, T_NEVER - 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    CHECK_MPI(MPI_Waitall(SERIES, reqs, MPI_STATUSES_IGNORE));
    for (int k = 0; k < SERIES; k++)
        free(bufs[k]);

    /* Nothing was ever sent with this tag. */
    int flag = 1;
    CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, T_NEVER, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag, "Iprobe found a message with a tag nobody sent");
}

/* A matched probe takes the message out: the next probe sees the one after. */
static void test_matched(int me, int peer, int sender, int n1, int n2, int tag)
{
    uint64_t k1 = payload_key((uint64_t)peer, (uint64_t)n1, 1, 0);
    uint64_t k2 = payload_key((uint64_t)peer, (uint64_t)n2, 2, 0);
    if (sender) {
        unsigned char *a = malloc((size_t)n1 + 1), *b = malloc((size_t)n2 + 1);
        CHECK(a && b, "out of memory");
        /* the receiver derives keys from its peer, i.e. us */
        k1 = payload_key((uint64_t)me, (uint64_t)n1, 1, 0);
        k2 = payload_key((uint64_t)me, (uint64_t)n2, 2, 0);
        payload_fill(a, (size_t)n1, k1);
        payload_fill(b, (size_t)n2, k2);
        MPI_Request reqs[2];
        CHECK_MPI(MPI_Isend(a, n1, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &reqs[0]));
        CHECK_MPI(MPI_Isend(b, n2, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &reqs[1]));
        CHECK_MPI(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
        free(a);
        free(b);
        return;
    }
    MPI_Message m1 = MPI_MESSAGE_NULL, m2 = MPI_MESSAGE_NULL;
    MPI_Status st;
    int count = -1, flag = 0;
    CHECK_MPI(MPI_Mprobe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &m1, &st));
    CHECK(m1 != MPI_MESSAGE_NULL && m1 != MPI_MESSAGE_NO_PROC, "Mprobe returned a null message");
    CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
    CHECK(st.MPI_SOURCE == peer && count == n1, "Mprobe: source %d count %d, expected %d/%d",
          st.MPI_SOURCE, count, peer, n1);
    /* The first message is no longer matchable: probes must find the second. */
    CHECK_MPI(MPI_Probe(peer, tag, MPI_COMM_WORLD, &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
    CHECK(count == n2, "Probe after Mprobe saw %d bytes: the matched message (%d) was still there",
          count, n1);
    while (!flag)
        CHECK_MPI(MPI_Improbe(peer, tag, MPI_COMM_WORLD, &flag, &m2, &st));
    CHECK(m2 != MPI_MESSAGE_NULL && m2 != m1, "Improbe returned message %d (first was %d)",
          (int)(m2 != MPI_MESSAGE_NULL), (int)(m2 == m1));
    CHECK_MPI(MPI_Iprobe(peer, tag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag, "Iprobe found a message after both were matched");

    /* Receive them in the opposite order, one nonblocking. */
    unsigned char *a = malloc((size_t)n1 + 1), *b = malloc((size_t)n2 + 1);
    MPI_Request req;
    CHECK(a && b, "out of memory");
    CHECK_MPI(MPI_Imrecv(b, n2, MPI_BYTE, &m2, &req));
    CHECK(m2 == MPI_MESSAGE_NULL, "Imrecv did not set the message to MPI_MESSAGE_NULL");
    CHECK_MPI(MPI_Mrecv(a, n1, MPI_BYTE, &m1, &st));
    CHECK(m1 == MPI_MESSAGE_NULL, "Mrecv did not set the message to MPI_MESSAGE_NULL");
    CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
    CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == tag && count == n1,
          "Mrecv status %d/%d/%d", st.MPI_SOURCE, st.MPI_TAG, count);
    CHECK_MPI(MPI_Wait(&req, &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
    CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == tag && count == n2,
          "Imrecv status %d/%d/%d", st.MPI_SOURCE, st.MPI_TAG, count);
    size_t bad = payload_mismatch(a, (size_t)n1, k1);
    CHECK(bad == (size_t)n1, "Mrecv of %d bytes: wrong byte at %zu", n1, bad);
    bad = payload_mismatch(b, (size_t)n2, k2);
    CHECK(bad == (size_t)n2, "Imrecv of %d bytes: wrong byte at %zu", n2, bad);
    free(a);
    free(b);
}

static void test_proc_null(void)
{
    MPI_Status st;
    MPI_Message msg = MPI_MESSAGE_NULL;
    MPI_Request req;
    int flag = 0;
    char buf[8] = "intact";

    CHECK_MPI(MPI_Probe(MPI_PROC_NULL, 5, MPI_COMM_WORLD, &st));
    check_status_empty(&st, MPI_PROC_NULL, "Probe(PROC_NULL)");
    CHECK_MPI(MPI_Iprobe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
    CHECK(flag, "Iprobe(PROC_NULL) flag 0");
    check_status_empty(&st, MPI_PROC_NULL, "Iprobe(PROC_NULL)");

    CHECK_MPI(MPI_Mprobe(MPI_PROC_NULL, 5, MPI_COMM_WORLD, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NO_PROC, "Mprobe(PROC_NULL) did not give MPI_MESSAGE_NO_PROC");
    check_status_empty(&st, MPI_PROC_NULL, "Mprobe(PROC_NULL)");
    CHECK_MPI(MPI_Mrecv(buf, 8, MPI_BYTE, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NULL, "Mrecv(MESSAGE_NO_PROC) left the handle");
    check_status_empty(&st, MPI_PROC_NULL, "Mrecv(MESSAGE_NO_PROC)");

    flag = 0;
    msg = MPI_MESSAGE_NULL;
    CHECK_MPI(MPI_Improbe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st));
    CHECK(flag && msg == MPI_MESSAGE_NO_PROC, "Improbe(PROC_NULL): flag %d", flag);
    check_status_empty(&st, MPI_PROC_NULL, "Improbe(PROC_NULL)");
    CHECK_MPI(MPI_Imrecv(buf, 8, MPI_BYTE, &msg, &req));
    CHECK(msg == MPI_MESSAGE_NULL, "Imrecv(MESSAGE_NO_PROC) left the handle");
    CHECK_MPI(MPI_Wait(&req, &st));
    check_status_empty(&st, MPI_PROC_NULL, "Imrecv(MESSAGE_NO_PROC)");
    CHECK(strcmp(buf, "intact") == 0, "a PROC_NULL receive wrote the buffer");
}

int main(int argc, char **argv)
{
    int me, size;
    check_init(&argc, &argv, &me, &size);

    test_proc_null();
    test_probe_gather(me, size);
    int peer = (me % 2 == 0) ? me + 1 : me - 1;
    if (peer < size) {
        for (int dir = 0; dir < 2; dir++) {
            int sender = (me % 2 == 0) == (dir == 0);
            test_matched(me, peer, sender, 100, 7, T_MATCHED + 3 * dir);
            test_matched(me, peer, sender, 150000, 0, T_MATCHED + 3 * dir + 1);
            test_matched(me, peer, sender, 0, 300000, T_MATCHED + 3 * dir + 2);
        }
    }
    MPI_Finalize();
    return 0;
}
