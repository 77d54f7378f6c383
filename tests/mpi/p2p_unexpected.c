/*
 * p2p_unexpected.c -- many messages from several senders waiting unmatched at
 * one receiver, taken in an order that mixes every way of asking: one source
 * and one tag, one source and MPI_ANY_TAG, MPI_ANY_SOURCE with a tag or
 * without, Probe then Recv, Mprobe then Mrecv.
 *
 * corempi keeps waiting messages on a list per sender beside the list of all
 * (src/p2p/match.c); a message taken through one must leave the other too.
 * Each received message is checked against MPI's rules: it fits the request,
 * it was not received before, and no older message of its sender fits the
 * request (non-overtaking).  At the end nothing may be left over.
 */
#include "check.h"

#define PER_SENDER 60
#define NTAGS 3
#define BYTES 200 /* past the one-line eager message */

static int size;
static unsigned char taken[64][PER_SENDER];

static int tag_of(int seq) { return seq % NTAGS; }

static void fill(unsigned char *b, int src, int seq)
{
    for (int i = 0; i < BYTES; i++)
        b[i] = (unsigned char)(src * 31 + seq * 7 + i);
}

/* The oldest message of src not yet taken that fits tag, or -1. */
static int oldest(int src, int tag)
{
    for (int q = 0; q < PER_SENDER; q++)
        if (!taken[src][q] && (tag == MPI_ANY_TAG || tag_of(q) == tag))
            return q;
    return -1;
}

/* A source with something left, starting the search at hint. */
static int some_source(int hint)
{
    for (int i = 0; i < size - 1; i++) {
        int s = 1 + (hint + i) % (size - 1);
        if (oldest(s, MPI_ANY_TAG) >= 0)
            return s;
    }
    return -1;
}

static int any_left_with_tag(int tag)
{
    for (int s = 1; s < size; s++)
        if (oldest(s, tag) >= 0)
            return 1;
    return 0;
}

/* Check one received message against what was asked for. */
static void accept(const unsigned char *b, const MPI_Status *st, int want_src, int want_tag, const char *how)
{
    int src = st->MPI_SOURCE, tag = st->MPI_TAG, count;
    MPI_Get_count(st, MPI_BYTE, &count);
    CHECK(src >= 1 && src < size, "%s: source %d", how, src);
    CHECK(want_src == MPI_ANY_SOURCE || src == want_src, "%s: asked for source %d, got %d", how, want_src, src);
    CHECK(want_tag == MPI_ANY_TAG || tag == want_tag, "%s: asked for tag %d, got %d", how, want_tag, tag);
    CHECK(count == BYTES + 1, "%s: %d bytes", how, count);
    int seq = b[BYTES];   /* the sender's sequence number rides after the pattern */
    CHECK(seq >= 0 && seq < PER_SENDER && tag_of(seq) == tag, "%s: sequence %d with tag %d", how, seq, tag);
    CHECK(!taken[src][seq], "%s: message %d of rank %d received twice", how, seq, src);
    int first = oldest(src, want_tag == MPI_ANY_TAG ? MPI_ANY_TAG : tag);
    CHECK(first == seq, "%s: got message %d of rank %d before its older message %d", how, seq, src, first);
    unsigned char want[BYTES];
    fill(want, src, seq);
    CHECK(memcmp(b, want, BYTES) == 0, "%s: payload of message %d of rank %d corrupted", how, seq, src);
    taken[src][seq] = 1;
}

static void recv_checked(int src, int tag, const char *how)
{
    unsigned char b[BYTES + 1];
    MPI_Status st;
    CHECK_MPI(MPI_Recv(b, BYTES + 1, MPI_BYTE, src, tag, MPI_COMM_WORLD, &st));
    accept(b, &st, src, tag, how);
}

static void receive_all(void)
{
    unsigned char b[BYTES + 1];
    MPI_Status st;
    /* Let every message arrive and be moved off the rings unmatched. */
    int flag;
    CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, &st));
    CHECK(!flag, "a message with tag 99 that nobody sent");
    for (int step = 0;; step++) {
        int s = some_source(step);
        if (s < 0)
            break;
        int tag = tag_of(step / 5);
        switch (step % 6) {
        case 0: /* one source, one tag, mostly not the tag of its oldest message */
            tag = tag_of(oldest(s, MPI_ANY_TAG) + 1 + (step / 6) % 2);
            if (oldest(s, tag) < 0)
                tag = tag_of(oldest(s, MPI_ANY_TAG));
            recv_checked(s, tag, "Recv(source, tag)");
            break;
        case 1:
            recv_checked(s, MPI_ANY_TAG, "Recv(source, ANY_TAG)");
            break;
        case 2:
            if (!any_left_with_tag(tag))
                continue;
            recv_checked(MPI_ANY_SOURCE, tag, "Recv(ANY_SOURCE, tag)");
            break;
        case 3:
            recv_checked(MPI_ANY_SOURCE, MPI_ANY_TAG, "Recv(ANY_SOURCE, ANY_TAG)");
            break;
        case 4: { /* Probe names a message; Recv of its source and tag must get that one */
            MPI_Status pst;
            CHECK_MPI(MPI_Probe(s, MPI_ANY_TAG, MPI_COMM_WORLD, &pst));
            CHECK_MPI(MPI_Recv(b, BYTES + 1, MPI_BYTE, pst.MPI_SOURCE, pst.MPI_TAG, MPI_COMM_WORLD, &st));
            accept(b, &st, s, MPI_ANY_TAG, "Probe + Recv");
            break;
        }
        default: {
            MPI_Message m;
            CHECK_MPI(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &m, &st));
            CHECK_MPI(MPI_Mrecv(b, BYTES + 1, MPI_BYTE, &m, &st));
            accept(b, &st, MPI_ANY_SOURCE, MPI_ANY_TAG, "Mprobe + Mrecv");
            break;
        }
        }
    }
    CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
    CHECK(!flag, "a message left over from rank %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
}

int main(int argc, char **argv)
{
    int rank;
    CHECK_MPI(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size <= 64, "at most 64 ranks");
    for (int round = 0; round < 3; round++) {
        memset(taken, 0, sizeof taken);
        if (rank == 0) {
            CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
            receive_all();
        } else {
            MPI_Request req[PER_SENDER];
            static unsigned char bufs[PER_SENDER][BYTES + 1];
            for (int q = 0; q < PER_SENDER; q++) {
                fill(bufs[q], rank, q);
                bufs[q][BYTES] = (unsigned char)q;
                CHECK_MPI(MPI_Isend(bufs[q], BYTES + 1, MPI_BYTE, 0, tag_of(q), MPI_COMM_WORLD, &req[q]));
            }
            CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
            CHECK_MPI(MPI_Waitall(PER_SENDER, req, MPI_STATUSES_IGNORE));
        }
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    }
    MPI_Finalize();
    return 0;
}
