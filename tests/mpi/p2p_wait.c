/*
 * p2p_wait.c -- the Wait/Test family over arrays mixing null and active
 * requests, Request_get_status, and Cancel of receives.
 *
 * Pairs (0,1), (2,3), ...: the receiver posts its requests, checks that
 * nothing can be complete yet (the sender waits for a "go"), then lets the
 * sender go and checks indices, statuses and handles as they complete.
 * All-null arrays and cancelled receives need no peer and run on every rank.
 */
#include "check.h"
#include "payload.h"

enum { T_GO = 30, T_A = 31, T_B = 32, T_C = 33, T_BACK = 34, T_NEVER = 35, T_DONE = 36,
       T_LATE = 37, T_SELF = 38 };
#define NREQ 6
#define LARGE (200 * 1024)

/* Slots 1, 3 and 4 of the array are receives; the others stay null. */
static const int slot_tag[NREQ] = {-1, T_A, -1, T_B, T_C, -1};
static const int slot_len[NREQ] = {0, 64, 0, LARGE, 0, 0};

static uint64_t key_of(int src, int tag) { return payload_key((uint64_t)src, (uint64_t)tag, 31, 0); }

static void check_slot_status(const MPI_Status *st, int slot, int peer, const char *what)
{
    int count = -1;
    CHECK(slot >= 0 && slot < NREQ && slot_tag[slot] >= 0, "%s: index %d is not an active slot",
          what, slot);
    CHECK(st->MPI_SOURCE == peer && st->MPI_TAG == slot_tag[slot],
          "%s: slot %d status source %d tag %d, expected %d/%d", what, slot, st->MPI_SOURCE,
          st->MPI_TAG, peer, slot_tag[slot]);
    CHECK_MPI(MPI_Get_count(st, MPI_BYTE, &count));
    CHECK(count == slot_len[slot], "%s: slot %d count %d, expected %d", what, slot, count,
          slot_len[slot]);
}

static void test_all_null(void)
{
    MPI_Request reqs[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Status st, sts[3];
    int idx = -5, flag = 0, outcount = -5, indices[3];

    CHECK_MPI(MPI_Waitany(3, reqs, &idx, &st));
    CHECK(idx == MPI_UNDEFINED, "Waitany over null requests: index %d", idx);
    check_status_empty(&st, MPI_ANY_SOURCE, "Waitany over null requests");
    CHECK_MPI(MPI_Testany(3, reqs, &idx, &flag, &st));
    CHECK(flag && idx == MPI_UNDEFINED, "Testany over null requests: flag %d index %d", flag, idx);
    check_status_empty(&st, MPI_ANY_SOURCE, "Testany over null requests");
    CHECK_MPI(MPI_Waitall(3, reqs, sts));
    for (int i = 0; i < 3; i++)
        check_status_empty(&sts[i], MPI_ANY_SOURCE, "Waitall over null requests");
    flag = 0;
    CHECK_MPI(MPI_Testall(3, reqs, &flag, sts));
    CHECK(flag, "Testall over null requests: flag 0");
    CHECK_MPI(MPI_Waitsome(3, reqs, &outcount, indices, sts));
    CHECK(outcount == MPI_UNDEFINED, "Waitsome over null requests: outcount %d", outcount);
    outcount = -5;
    CHECK_MPI(MPI_Testsome(3, reqs, &outcount, indices, sts));
    CHECK(outcount == MPI_UNDEFINED, "Testsome over null requests: outcount %d", outcount);
    CHECK_MPI(MPI_Wait(&reqs[0], &st));
    check_status_empty(&st, MPI_ANY_SOURCE, "Wait on MPI_REQUEST_NULL");
    CHECK_MPI(MPI_Test(&reqs[0], &flag, &st));
    CHECK(flag, "Test on MPI_REQUEST_NULL: flag 0");
    CHECK_MPI(MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &st));
    CHECK(flag, "Request_get_status(MPI_REQUEST_NULL): flag 0");
    check_status_empty(&st, MPI_ANY_SOURCE, "Request_get_status(MPI_REQUEST_NULL)");
    /* Empty arrays. */
    CHECK_MPI(MPI_Waitall(0, reqs, MPI_STATUSES_IGNORE));
    CHECK_MPI(MPI_Waitany(0, reqs, &idx, MPI_STATUS_IGNORE));
    CHECK(idx == MPI_UNDEFINED, "Waitany over zero requests: index %d", idx);
}

static void test_cancel(int me)
{
    MPI_Request req;
    MPI_Status st;
    int flag = -1;
    char buf[16];

    /* Cancel then Wait. */
    CHECK_MPI(MPI_Irecv(buf, 16, MPI_BYTE, MPI_ANY_SOURCE, T_NEVER, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Cancel(&req));
    CHECK(req != MPI_REQUEST_NULL, "Cancel freed the request");
    CHECK_MPI(MPI_Wait(&req, &st));
    CHECK(req == MPI_REQUEST_NULL, "Wait after Cancel left the request");
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK(flag, "cancelled receive: Test_cancelled false");

    /* Cancel then Test until done. */
    CHECK_MPI(MPI_Irecv(buf, 16, MPI_BYTE, me, T_NEVER, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Cancel(&req));
    flag = 0;
    while (!flag)
        CHECK_MPI(MPI_Test(&req, &flag, &st));
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK(flag, "cancelled receive (Test): Test_cancelled false");

    /* A cancelled receive must not take a message sent afterwards. */
    CHECK_MPI(MPI_Irecv(buf, 16, MPI_BYTE, me, T_LATE, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Cancel(&req));
    CHECK_MPI(MPI_Wait(&req, &st));
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK(flag, "cancelled receive (late): Test_cancelled false");
    int value = 4242, got = 0;
    CHECK_MPI(MPI_Sendrecv(&value, 1, MPI_INT, me, T_LATE, &got, 1, MPI_INT, me, T_LATE,
                           MPI_COMM_WORLD, &st));
    CHECK(got == 4242, "message after a cancelled receive: got %d", got);

    /* Cancel of a receive that has already completed: not cancelled. */
    int in = 0;
    value = 77;
    CHECK_MPI(MPI_Irecv(&in, 1, MPI_INT, me, T_SELF, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Send(&value, 1, MPI_INT, me, T_SELF, MPI_COMM_WORLD));
    flag = 0;
    while (!flag)
        CHECK_MPI(MPI_Request_get_status(req, &flag, MPI_STATUS_IGNORE));
    CHECK(req != MPI_REQUEST_NULL, "Request_get_status freed the request");
    CHECK_MPI(MPI_Cancel(&req));
    CHECK_MPI(MPI_Wait(&req, &st));
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK(!flag && in == 77 && st.MPI_SOURCE == me && st.MPI_TAG == T_SELF,
          "cancel after completion: cancelled %d value %d source %d tag %d", flag, in,
          st.MPI_SOURCE, st.MPI_TAG);
}

static void sender_side(int me, int peer)
{
    unsigned char *bufs[NREQ];
    CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, peer, T_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    /* Largest first: completion order at the receiver is not send order. */
    const int order[3] = {3, 1, 4};
    for (int k = 0; k < 3; k++) {
        int s = order[k];
        bufs[s] = malloc((size_t)slot_len[s] + 1);
        CHECK(bufs[s] != NULL, "out of memory");
        payload_fill(bufs[s], (size_t)slot_len[s], key_of(me, slot_tag[s]));
        CHECK_MPI(MPI_Send(bufs[s], slot_len[s], MPI_BYTE, peer, slot_tag[s], MPI_COMM_WORLD));
    }
    /* Second round: a mixed array of sends and receives on our side too. */
    for (int round = 0; round < 2; round++) {
        MPI_Request reqs[NREQ];
        MPI_Status sts[NREQ];
        int got = -1;
        for (int i = 0; i < NREQ; i++)
            reqs[i] = MPI_REQUEST_NULL;
        CHECK_MPI(MPI_Irecv(&got, 1, MPI_INT, peer, T_BACK, MPI_COMM_WORLD, &reqs[0]));
        for (int k = 0; k < 3; k++) {
            int s = order[k];
            CHECK_MPI(MPI_Isend(bufs[s], slot_len[s], MPI_BYTE, peer, slot_tag[s], MPI_COMM_WORLD,
                                &reqs[s]));
        }
        CHECK_MPI(MPI_Waitall(NREQ, reqs, sts));
        CHECK(got == 1000 + round && sts[0].MPI_SOURCE == peer && sts[0].MPI_TAG == T_BACK,
              "mixed Waitall: got %d from %d tag %d", got, sts[0].MPI_SOURCE, sts[0].MPI_TAG);
    }
    for (int k = 0; k < 3; k++)
        free(bufs[order[k]]);
    CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, peer, T_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
}

static void post_receives(MPI_Request *reqs, unsigned char **bufs, int peer)
{
    for (int i = 0; i < NREQ; i++) {
        reqs[i] = MPI_REQUEST_NULL;
        bufs[i] = NULL;
        if (slot_tag[i] < 0)
            continue;
        bufs[i] = malloc((size_t)slot_len[i] + 1);
        CHECK(bufs[i] != NULL, "out of memory");
        CHECK_MPI(MPI_Irecv(bufs[i], slot_len[i], MPI_BYTE, peer, slot_tag[i], MPI_COMM_WORLD,
                            &reqs[i]));
    }
}

static void verify_slot(unsigned char **bufs, int slot, int peer, const char *what)
{
    size_t bad = payload_mismatch(bufs[slot], (size_t)slot_len[slot], key_of(peer, slot_tag[slot]));
    CHECK(bad == (size_t)slot_len[slot], "%s: slot %d wrong byte at %zu", what, slot, bad);
    free(bufs[slot]);
    bufs[slot] = NULL;
}

static void receiver_side(int peer)
{
    MPI_Request reqs[NREQ], saved[NREQ];
    MPI_Status st, sts[NREQ];
    unsigned char *bufs[NREQ];
    int idx, flag, outcount, indices[NREQ], done[NREQ] = {0};

    /* Round 1: nothing can complete before "go". */
    post_receives(reqs, bufs, peer);
    memcpy(saved, reqs, sizeof reqs);
    flag = 1;
    CHECK_MPI(MPI_Testany(NREQ, reqs, &idx, &flag, &st));
    CHECK(!flag && idx == MPI_UNDEFINED, "Testany before any send: flag %d index %d", flag, idx);
    flag = 1;
    CHECK_MPI(MPI_Testall(NREQ, reqs, &flag, sts));
    CHECK(!flag, "Testall before any send: flag 1");
    CHECK(memcmp(saved, reqs, sizeof reqs) == 0, "Testall returning false changed handles");
    outcount = -1;
    CHECK_MPI(MPI_Testsome(NREQ, reqs, &outcount, indices, sts));
    CHECK(outcount == 0, "Testsome before any send: outcount %d", outcount);
    for (int i = 0; i < NREQ; i++) {
        CHECK_MPI(MPI_Request_get_status(reqs[i], &flag, &st));
        CHECK(flag == (reqs[i] == MPI_REQUEST_NULL), "Request_get_status slot %d: flag %d", i, flag);
    }
    CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, peer, T_GO, MPI_COMM_WORLD));

    /* The large one: Request_get_status until done, without freeing it. */
    flag = 0;
    while (!flag)
        CHECK_MPI(MPI_Request_get_status(reqs[3], &flag, &st));
    CHECK(reqs[3] == saved[3], "Request_get_status changed the handle");
    check_slot_status(&st, 3, peer, "Request_get_status");
    CHECK_MPI(MPI_Wait(&reqs[3], &st));
    CHECK(reqs[3] == MPI_REQUEST_NULL, "Wait did not free the request");
    check_slot_status(&st, 3, peer, "Wait after Request_get_status");
    verify_slot(bufs, 3, peer, "Request_get_status");
    done[3] = 1;

    /* The rest with Waitsome; then nothing is left. */
    for (;;) {
        CHECK_MPI(MPI_Waitsome(NREQ, reqs, &outcount, indices, sts));
        if (outcount == MPI_UNDEFINED)
            break;
        CHECK(outcount >= 1 && outcount <= 2, "Waitsome outcount %d", outcount);
        for (int k = 0; k < outcount; k++) {
            int s = indices[k];
            CHECK(s >= 0 && s < NREQ && !done[s] && slot_tag[s] >= 0, "Waitsome index %d", s);
            CHECK(reqs[s] == MPI_REQUEST_NULL, "Waitsome left slot %d non-null", s);
            check_slot_status(&sts[k], s, peer, "Waitsome");
            verify_slot(bufs, s, peer, "Waitsome");
            done[s] = 1;
        }
    }
    CHECK(done[1] && done[4], "Waitsome ended before every receive completed");

    /* Rounds 2 and 3: mixed send/receive arrays, Waitall then Testany/Testall. */
    for (int round = 0; round < 2; round++) {
        int back = 1000 + round;
        post_receives(reqs, bufs, peer);
        CHECK_MPI(MPI_Isend(&back, 1, MPI_INT, peer, T_BACK, MPI_COMM_WORLD, &reqs[0]));
        if (round == 0) {
            CHECK_MPI(MPI_Waitall(NREQ, reqs, sts));
            for (int i = 0; i < NREQ; i++) {
                CHECK(reqs[i] == MPI_REQUEST_NULL, "Waitall left slot %d", i);
                if (slot_tag[i] >= 0) {
                    check_slot_status(&sts[i], i, peer, "Waitall");
                    verify_slot(bufs, i, peer, "Waitall");
                } else if (i != 0) {
                    check_status_empty(&sts[i], MPI_ANY_SOURCE, "Waitall null slot");
                }
            }
        } else {
            int completed = 0;
            while (completed < 4) { /* 3 receives + the send */
                CHECK_MPI(MPI_Testany(NREQ, reqs, &idx, &flag, &st));
                if (!flag)
                    continue;
                CHECK(idx != MPI_UNDEFINED && reqs[idx] == MPI_REQUEST_NULL,
                      "Testany flag 1 with index %d", idx);
                if (idx != 0) {
                    check_slot_status(&st, idx, peer, "Testany");
                    verify_slot(bufs, idx, peer, "Testany");
                }
                completed++;
            }
            CHECK_MPI(MPI_Testall(NREQ, reqs, &flag, MPI_STATUSES_IGNORE));
            CHECK(flag, "Testall after everything completed: flag 0");
            CHECK_MPI(MPI_Testany(NREQ, reqs, &idx, &flag, &st));
            CHECK(flag && idx == MPI_UNDEFINED, "Testany after everything: flag %d index %d", flag, idx);
        }
    }
    CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, peer, T_DONE, MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    int me, size;
    check_init(&argc, &argv, &me, &size);

    test_all_null();
    test_cancel(me);
    int peer = (me % 2 == 0) ? me + 1 : me - 1;
    if (peer < size) {
        for (int dir = 0; dir < 2; dir++) {
            if ((me % 2 == 0) == (dir == 0))
                sender_side(me, peer);
            else
                receiver_side(peer);
        }
    }
    MPI_Finalize();
    return 0;
}
