/*
 * p2p_truncate.c -- a message longer than its receive buffer.
 *
 * With MPI_ERRORS_RETURN the receive returns MPI_ERR_TRUNCATE, never writes
 * past the buffer (guard bytes on both sides stay intact), the sender's side
 * completes normally, and the pair can go on talking afterwards.  Sizes cover
 * eager and rendezvous transfers.  Blocking Recv, Irecv+Wait, and Waitall
 * (MPI_ERR_IN_STATUS with the error in the status) are all checked.  The
 * error text must give the size the sender sent and the buffer's size: 40 B
 * travels inline in a ring slot, 200 B eager, 40 KB streamed and 4 MB single
 * copy (the bounce and rndv variants move them along the other paths).
 */
#include "check.h"
#include "payload.h"

#define GUARD 256
#define CANARY 0xC3
#define T_TRUNC 41
#define T_AFTER 42

struct trunc_case { int sent, room; };
static const struct trunc_case cases[] = {
    {1, 0}, {100, 50}, {4000, 3999}, {70000, 1000}, {200000, 100000}, {1 << 20, 65536},
    {40, 20}, {200, 20}, {40000, 20}, {4 << 20, 20},
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

static int error_class_of(int rc)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

static unsigned char *guarded_alloc(int room)
{
    unsigned char *mem = malloc((size_t)room + 2 * GUARD);
    CHECK(mem != NULL, "out of memory");
    memset(mem, CANARY, (size_t)room + 2 * GUARD);
    return mem;
}

static void check_guards(const unsigned char *mem, int room, const char *what, int sent)
{
    for (int i = 0; i < GUARD; i++) {
        CHECK(mem[i] == CANARY, "%s (%d into %d): byte before the buffer overwritten", what, sent, room);
        CHECK(mem[GUARD + room + i] == CANARY,
              "%s (%d into %d): wrote %d bytes past the receive buffer", what, sent, room, i + 1);
    }
}

/* The detail MPI_Error_string gives for the truncation just seen names both sizes. */
static void check_text(int errcode, int sent, int room, int peer, const char *what)
{
    char text[MPI_MAX_ERROR_STRING] = "", want[160];
    int len = 0;
    CHECK_MPI(MPI_Error_string(errcode, text, &len));
    CHECK(len > 0 && strlen(text) == (size_t)len, "%s: Error_string of a truncation is empty", what);
    snprintf(want, sizeof want, ": %d bytes from rank %d (tag %d) do not fit a receive buffer of %d bytes", sent,
             peer, T_TRUNC, room);
    CHECK(strstr(text, want) != NULL, "%s (%d into %d): Error_string says \"%s\", expected it to contain \"%s\"", what,
          sent, room, text, want);
}

static void check_count(const MPI_Status *st, int room, int sent, const char *what)
{
    int count = -2;
    CHECK_MPI(MPI_Get_count(st, MPI_BYTE, &count));
    /* The standard leaves open whether a truncated receive counts what landed
     * (room) or what was sent; either is sensible, anything else is not. */
    CHECK(count == room || count == sent, "%s (%d into %d): Get_count %d", what, sent, room, count);
}

/* After a truncation the pair must still work. */
static void exchange_after(int me, int peer, int sender)
{
    int value = -1;
    if (sender) {
        value = 1000 + me;
        CHECK_MPI(MPI_Send(&value, 1, MPI_INT, peer, T_AFTER, MPI_COMM_WORLD));
    } else {
        CHECK_MPI(MPI_Recv(&value, 1, MPI_INT, peer, T_AFTER, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(value == 1000 + peer, "message after a truncation: got %d", value);
    }
}

static void run_case(int me, int peer, int sender, const struct trunc_case *c, int how)
{
    static const char *names[] = {"Recv", "Irecv+Wait", "Irecv+Waitall"};
    if (sender) {
        unsigned char *buf = malloc((size_t)c->sent);
        CHECK(buf != NULL, "out of memory");
        payload_fill(buf, (size_t)c->sent, payload_key((uint64_t)me, (uint64_t)c->sent, 0, 0));
        /* The sender's operation completes normally whatever happens at the receiver. */
        if (how == 1) {
            MPI_Request req;
            CHECK_MPI(MPI_Isend(buf, c->sent, MPI_BYTE, peer, T_TRUNC, MPI_COMM_WORLD, &req));
            CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else {
            CHECK_MPI(MPI_Send(buf, c->sent, MPI_BYTE, peer, T_TRUNC, MPI_COMM_WORLD));
        }
        free(buf);
    } else {
        unsigned char *mem = guarded_alloc(c->room);
        MPI_Status st;
        int rc, cls;
        memset(&st, 0, sizeof st);
        if (how == 0) {
            rc = MPI_Recv(mem + GUARD, c->room, MPI_BYTE, peer, T_TRUNC, MPI_COMM_WORLD, &st);
            cls = error_class_of(rc);
        } else if (how == 1) {
            MPI_Request req;
            CHECK_MPI(MPI_Irecv(mem + GUARD, c->room, MPI_BYTE, peer, T_TRUNC, MPI_COMM_WORLD, &req));
            rc = MPI_Wait(&req, &st);
            cls = error_class_of(rc);
            CHECK(req == MPI_REQUEST_NULL, "Wait with an error left the request");
        } else {
            MPI_Request reqs[2];
            MPI_Status sts[2];
            int small = 0;
            CHECK_MPI(MPI_Irecv(mem + GUARD, c->room, MPI_BYTE, peer, T_TRUNC, MPI_COMM_WORLD, &reqs[0]));
            CHECK_MPI(MPI_Irecv(&small, 1, MPI_INT, peer, T_AFTER, MPI_COMM_WORLD, &reqs[1]));
            rc = MPI_Waitall(2, reqs, sts);
            CHECK(error_class_of(rc) == MPI_ERR_IN_STATUS,
                  "Waitall with a truncated receive returned class %d, expected MPI_ERR_IN_STATUS",
                  error_class_of(rc));
            cls = error_class_of(sts[0].MPI_ERROR);
            /* The good receive either completed or was left pending (allowed). */
            if (error_class_of(sts[1].MPI_ERROR) == MPI_ERR_PENDING) {
                CHECK(reqs[1] != MPI_REQUEST_NULL, "Waitall: pending receive has a null handle");
                CHECK_MPI(MPI_Wait(&reqs[1], &sts[1]));
            } else {
                CHECK(sts[1].MPI_ERROR == MPI_SUCCESS, "Waitall: the good receive has error %d",
                      sts[1].MPI_ERROR);
            }
            CHECK(small == 1000 + peer, "Waitall: the good receive got %d", small);
            st = sts[0];
        }
        CHECK(cls == MPI_ERR_TRUNCATE, "%s of %d bytes into %d: error class %d, expected MPI_ERR_TRUNCATE",
              names[how], c->sent, c->room, cls);
        check_text(how == 2 ? st.MPI_ERROR : rc, c->sent, c->room, peer, names[how]);
        CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == T_TRUNC, "%s truncated: status %d/%d",
              names[how], st.MPI_SOURCE, st.MPI_TAG);
        check_count(&st, c->room, c->sent, names[how]);
        check_guards(mem, c->room, names[how], c->sent);
        free(mem);
    }
    /* Waitall's good receive is this very message. */
    if (how == 2 && sender) {
        int value = 1000 + me;
        CHECK_MPI(MPI_Send(&value, 1, MPI_INT, peer, T_AFTER, MPI_COMM_WORLD));
    }
    exchange_after(me, peer, sender);
}

int main(int argc, char **argv)
{
    int me, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

    int peer = (me % 2 == 0) ? me + 1 : me - 1;
    if (peer >= size) {
        /* Unpaired: truncate a message to oneself. */
        unsigned char out[300], *mem = guarded_alloc(100);
        MPI_Request req;
        MPI_Status st;
        memset(out, 7, sizeof out);
        CHECK_MPI(MPI_Isend(out, 300, MPI_BYTE, me, T_TRUNC, MPI_COMM_WORLD, &req));
        int rc = MPI_Recv(mem + GUARD, 100, MPI_BYTE, me, T_TRUNC, MPI_COMM_WORLD, &st);
        CHECK(error_class_of(rc) == MPI_ERR_TRUNCATE, "self truncation: class %d", error_class_of(rc));
        check_text(rc, 300, 100, me, "self Recv");
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        check_count(&st, 100, 300, "self Recv");
        check_guards(mem, 100, "self Recv", 300);
        free(mem);
    } else {
        for (int dir = 0; dir < 2; dir++) {
            int sender = (me % 2 == 0) == (dir == 0);
            for (int i = 0; i < NCASES; i++)
                for (int how = 0; how < 3; how++)
                    run_case(me, peer, sender, &cases[i], how);
        }
    }
    MPI_Finalize();
    return 0;
}
