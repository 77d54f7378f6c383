/*
 * p2p_recv_order.c -- blocking MPI_Recv must match exactly what MPI's rules
 * say whatever sits at the head of the sender's ring.
 *
 * corempi's blocking receive takes a message straight out of the ring when it
 * can (no posted receive, nothing unexpected); every other case must fall back
 * without losing or reordering anything.  Each case below puts the wanted
 * message behind another one, or behind a receive posted earlier, or makes it
 * one the fast path must refuse (synchronous, rendezvous, truncating, on
 * another communicator, into a non-contiguous type).  Every round runs twice:
 * once with the messages already waiting, once with the receiver waiting for
 * them.  Ranks pair up (0-1, 2-3, ...); an odd last rank talks to itself.
 */
#include "check.h"
#include "payload.h"

#include <unistd.h>

#define BIG 100000 /* past the eager limit: a rendezvous */

static int me, partner;
static MPI_Comm other_comm;

static uint64_t key_of(int tag, int seq) { return payload_key((uint64_t)partner, (uint64_t)me, (uint64_t)tag, (uint64_t)seq); }
static uint64_t key_to(int tag, int seq) { return payload_key((uint64_t)me, (uint64_t)partner, (uint64_t)tag, (uint64_t)seq); }

static void send_msg(MPI_Comm comm, int tag, int seq, int n, int sync)
{
    unsigned char *b = malloc((size_t)n + 1);
    CHECK(b != NULL, "out of memory");
    payload_fill(b, (size_t)n, key_to(tag, seq));
    if (sync)
        CHECK(MPI_Ssend(b, n, MPI_BYTE, partner, tag, comm) == MPI_SUCCESS, "Ssend");
    else
        CHECK(MPI_Send(b, n, MPI_BYTE, partner, tag, comm) == MPI_SUCCESS, "Send");
    free(b);
}

/* Receive from the partner with (want_tag) and check it is message (tag, seq) of n bytes. */
static void recv_msg(MPI_Comm comm, int want_tag, int tag, int seq, int n, const char *what)
{
    unsigned char *b = malloc((size_t)n + 16);
    CHECK(b != NULL, "out of memory");
    memset(b, 0xEE, (size_t)n + 16);
    MPI_Status st;
    CHECK(MPI_Recv(b, n + 8, MPI_BYTE, partner, want_tag, comm, &st) == MPI_SUCCESS, "%s: Recv", what);
    int count = -1;
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(st.MPI_SOURCE == partner && st.MPI_TAG == tag, "%s: status source %d tag %d, want %d %d", what,
          st.MPI_SOURCE, st.MPI_TAG, partner, tag);
    CHECK(count == n, "%s: got %d bytes, want %d", what, count, n);
    size_t bad = payload_mismatch(b, (size_t)n, key_of(tag, seq));
    CHECK(bad == (size_t)n, "%s: wrong byte %zu of %d (wrong message or order)", what, bad, n);
    CHECK(b[n] == 0xEE, "%s: wrote past the message", what);
    free(b);
}

/* Which side waits a little before its part: the receiver (messages already
 * queued) or the sender (the receiver is waiting). */
static void lag(int receiver_side, int late_receiver)
{
    if (receiver_side == late_receiver)
        usleep(late_receiver ? 2000 : 30);
}

/* Each case starts with empty rings: the receiver drained the previous one
 * before this barrier, so the head of the ring is this case's first message. */
static void next_case(void) { MPI_Barrier(MPI_COMM_WORLD); }

static void round_(int sender, int late_receiver)
{
    const int sizes[] = { 0, 1, 8, 48, 49, 1000, 16000 };
    const int nsizes = (int)(sizeof sizes / sizeof sizes[0]);
    int self = partner == me;
    int rs = !sender || self; /* this side receives */
    int ss = sender || self;  /* this side sends */

    next_case();
    /* 1. The wanted tag behind another tag. */
    if (ss) { lag(0, late_receiver); send_msg(MPI_COMM_WORLD, 1, 0, 40, 0); send_msg(MPI_COMM_WORLD, 2, 0, 24, 0); }
    if (rs) { lag(1, late_receiver); recv_msg(MPI_COMM_WORLD, 2, 2, 0, 24, "tag behind another tag");
              recv_msg(MPI_COMM_WORLD, 1, 1, 0, 40, "the skipped tag"); }

    next_case();
    /* 2. The wanted communicator behind another with the same tag. */
    if (ss) { lag(0, late_receiver); send_msg(other_comm, 3, 1, 16, 0); send_msg(MPI_COMM_WORLD, 3, 2, 16, 0); }
    if (rs) { lag(1, late_receiver); recv_msg(MPI_COMM_WORLD, 3, 3, 2, 16, "world behind the other communicator");
              recv_msg(other_comm, 3, 3, 1, 16, "the other communicator"); }

    next_case();
    /* 3. A receive posted earlier gets the first message, the blocking one the second. */
    MPI_Request req = MPI_REQUEST_NULL;
    unsigned char early[32];
    if (rs) CHECK(MPI_Irecv(early, 32, MPI_BYTE, partner, 4, MPI_COMM_WORLD, &req) == MPI_SUCCESS, "Irecv");
    if (ss) { lag(0, late_receiver); send_msg(MPI_COMM_WORLD, 4, 3, 32, 0); send_msg(MPI_COMM_WORLD, 4, 4, 32, 0); }
    if (rs) {
        lag(1, late_receiver);
        recv_msg(MPI_COMM_WORLD, 4, 4, 4, 32, "blocking receive after a posted one");
        MPI_Status st;
        CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS, "Wait");
        CHECK(payload_mismatch(early, 32, key_of(4, 3)) == 32, "the posted receive got the wrong message");
    }

    next_case();
    /* 4. Synchronous, rendezvous and ANY_TAG. */
    if (ss && !self) { lag(0, late_receiver); send_msg(MPI_COMM_WORLD, 5, 5, 8, 1); }
    if (rs && !self) { lag(1, late_receiver); recv_msg(MPI_COMM_WORLD, 5, 5, 5, 8, "synchronous"); }
    if (ss) { lag(0, late_receiver); send_msg(MPI_COMM_WORLD, 6, 6, 3, 0); send_msg(MPI_COMM_WORLD, 7, 7, 5, 0); }
    if (rs) { lag(1, late_receiver); recv_msg(MPI_COMM_WORLD, MPI_ANY_TAG, 6, 6, 3, "ANY_TAG first");
              recv_msg(MPI_COMM_WORLD, MPI_ANY_TAG, 7, 7, 5, "ANY_TAG second"); }
    if (!self) {
        if (ss) { lag(0, late_receiver); send_msg(MPI_COMM_WORLD, 8, 8, BIG, 0); }
        if (rs) { lag(1, late_receiver); recv_msg(MPI_COMM_WORLD, 8, 8, 8, BIG, "rendezvous"); }
    }

    next_case();
    /* 5. Every eager size, many in flight, received in order. */
    /* (A rank talking to itself sends one pass only: its sends must all fit the ring.) */
    int burst = self ? nsizes : 3 * nsizes;
    if (ss) { lag(0, late_receiver); for (int i = 0; i < burst; i++) send_msg(MPI_COMM_WORLD, 9, 100 + i, sizes[i % nsizes], 0); }
    if (rs) { lag(1, late_receiver); for (int i = 0; i < burst; i++) recv_msg(MPI_COMM_WORLD, 9, 9, 100 + i, sizes[i % nsizes], "burst"); }

    next_case();
    /* 6. Truncation reported, not written past. */
    int small[2] = { -7, -7 };
    if (ss) { lag(0, late_receiver); send_msg(MPI_COMM_WORLD, 10, 10, 12, 0); }
    if (rs) {
        lag(1, late_receiver);
        int rc = MPI_Recv(small, 1, MPI_INT, partner, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        int cls = -1;
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_TRUNCATE, "12 bytes into 4: error class %d, want MPI_ERR_TRUNCATE", cls);
        CHECK(small[1] == -7, "truncated receive wrote past its buffer");
    }

    next_case();
    /* 7. Into a strided type: every other int. */
    if (ss) {
        lag(0, late_receiver);
        int v[4] = { 11, 22, 33, 44 };
        CHECK(MPI_Send(v, 4, MPI_INT, partner, 11, MPI_COMM_WORLD) == MPI_SUCCESS, "Send ints");
    }
    if (rs) {
        lag(1, late_receiver);
        MPI_Datatype every_other;
        MPI_Type_vector(4, 1, 2, MPI_INT, &every_other);
        MPI_Type_commit(&every_other);
        int w[8] = { 0, -1, 0, -1, 0, -1, 0, -1 };
        CHECK(MPI_Recv(w, 1, every_other, partner, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS, "Recv vector");
        CHECK(w[0] == 11 && w[2] == 22 && w[4] == 33 && w[6] == 44 && w[1] == -1 && w[7] == -1,
              "strided receive: %d %d %d %d / %d %d", w[0], w[2], w[4], w[6], w[1], w[7]);
        MPI_Type_free(&every_other);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_dup(MPI_COMM_WORLD, &other_comm);
    partner = (me ^ 1) < size ? (me ^ 1) : me;
    for (int late = 0; late < 2; late++)
        for (int dir = 0; dir < 2; dir++) {
            /* Both partners play each role; an odd last rank plays both at once. */
            round_((me & 1) == dir, late);
            MPI_Barrier(MPI_COMM_WORLD);
        }
    MPI_Comm_free(&other_comm);
    MPI_Finalize();
    if (me == 0)
        printf("p2p_recv_order: ok\n");
    return 0;
}
