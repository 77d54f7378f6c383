/*
 * session_buffer.c -- a buffered-send buffer per session (MPI-4.1 §3.6.1),
 * with the sessions model only (no MPI_Init).  A Bsend on a communicator
 * must use the communicator's buffer, else its session's, else the
 * process's: each step is shown by a Bsend that can only succeed (or only
 * fail) with the buffer it should use.  Also: a communicator dup'ed from a
 * session's communicator uses the session's buffer, another session's
 * communicator does not, Session_iflush/flush/detach, a session that reuses
 * a finalized session's slot starts without a buffer, and bad arguments
 * return clear errors through the session's handler.  Argument "null":
 * MPI_SESSION_NULL, which is fatal (an invalid session has no handler: the
 * error goes to MPI_COMM_SELF's, fatal unless the program changed it).
 */
#include "check.h"

#define OK CHECK_MPI

static MPI_Comm world_of(MPI_Session s, const char *tag)
{
    MPI_Group g;
    MPI_Comm c;
    OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
    OK(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    OK(MPI_Group_free(&g));
    return c;
}

/* A Bsend of n ints to the right neighbour, received from the left: the
 * Bsend's return code (the receive only when it succeeded). */
static int ring_bsend(MPI_Comm c, int n, int tag)
{
    int rank, size;
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &size);
    int *out = malloc((size_t)n * sizeof(int)), *in = malloc((size_t)n * sizeof(int));
    for (int i = 0; i < n; i++)
        out[i] = rank * 1000 + i;
    int rc = MPI_Bsend(out, n, MPI_INT, (rank + 1) % size, tag, c);
    int all_ok = 0, mine = rc == MPI_SUCCESS;
    /* Every rank must agree before anyone waits for a message. */
    OK(MPI_Allreduce(&mine, &all_ok, 1, MPI_INT, MPI_LAND, c));
    if (all_ok) {
        int left = (rank + size - 1) % size;
        OK(MPI_Recv(in, n, MPI_INT, left, tag, c, MPI_STATUS_IGNORE));
        CHECK(in[n - 1] == left * 1000 + n - 1, "tag %d: got %d from %d", tag, in[n - 1], left);
    }
    free(out);
    free(in);
    return rc;
}

int main(int argc, char **argv)
{
    MPI_Session s, s2;
    OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    if (argc > 1 && !strcmp(argv[1], "null")) {
        char b[64];
        MPI_Session_attach_buffer(MPI_SESSION_NULL, b, (int)sizeof b);
        CHECK(0, "MPI_Session_attach_buffer(MPI_SESSION_NULL) returned");
    }
    MPI_Comm c = world_of(s, "session_buffer.c");

    /* No buffer anywhere: refused. */
    CHECK(ring_bsend(c, 4, 1) == MPI_ERR_BUFFER, "Bsend without any buffer");

    /* The session's buffer (room for one 100-int message per rank). */
    int big = 100 * (int)sizeof(int) + MPI_BSEND_OVERHEAD;
    char *sbuf = malloc((size_t)big);
    OK(MPI_Session_attach_buffer(s, sbuf, big));
    OK(ring_bsend(c, 100, 2));
    MPI_Comm d;
    OK(MPI_Comm_dup(c, &d));
    OK(ring_bsend(d, 100, 3));   /* derived from the session too */

    /* A communicator buffer too small for 100 ints wins over the session's. */
    int small = 10 * (int)sizeof(int) + MPI_BSEND_OVERHEAD;
    char *cbuf = malloc((size_t)small);
    OK(MPI_Comm_attach_buffer(d, cbuf, small));
    CHECK(ring_bsend(d, 100, 4) == MPI_ERR_BUFFER, "the communicator's buffer was not used first");
    OK(ring_bsend(d, 10, 5));
    void *addr;
    int sz;
    OK(MPI_Comm_detach_buffer(d, &addr, &sz));
    CHECK(addr == cbuf && sz == small, "Comm_detach_buffer: %p %d", addr, sz);
    OK(ring_bsend(d, 100, 6));   /* back to the session's */

    /* Another session's communicator does not see this session's buffer,
     * but does see the process's. */
    OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s2));
    MPI_Comm c2 = world_of(s2, "session_buffer.c 2");
    CHECK(ring_bsend(c2, 4, 7) == MPI_ERR_BUFFER, "another session's buffer was used");
    char *pbuf = malloc((size_t)big);
    OK(MPI_Buffer_attach(pbuf, big));
    OK(ring_bsend(c2, 100, 8));
    OK(MPI_Buffer_detach(&addr, &sz));
    CHECK(addr == pbuf && sz == big, "Buffer_detach: %p %d", addr, sz);

    /* Nonblocking and blocking flushes; many messages through an automatic buffer. */
    OK(MPI_Session_detach_buffer(s, &addr, &sz));
    CHECK(addr == sbuf && sz == big, "Session_detach_buffer: %p %d", addr, sz);
    OK(MPI_Session_attach_buffer(s, MPI_BUFFER_AUTOMATIC, 0));
    int rank, size;
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &size);
    enum { N = 40, LEN = 2000 };
    static int msgs[N][LEN], in[LEN];
    for (int k = 0; k < N; k++) {
        msgs[k][LEN - 1] = rank * 100 + k;
        OK(MPI_Bsend(msgs[k], LEN, MPI_INT, (rank + 1) % size, 9, c));
    }
    MPI_Request fl;
    OK(MPI_Session_iflush_buffer(s, &fl));
    for (int k = 0; k < N; k++) {
        int left = (rank + size - 1) % size;
        OK(MPI_Recv(in, LEN, MPI_INT, left, 9, c, MPI_STATUS_IGNORE));
        CHECK(in[LEN - 1] == left * 100 + k, "message %d: %d", k, in[LEN - 1]);
    }
    OK(MPI_Wait(&fl, MPI_STATUS_IGNORE));
    OK(MPI_Session_flush_buffer(s));
    OK(MPI_Session_detach_buffer(s, &addr, &sz));
    CHECK(addr == MPI_BUFFER_AUTOMATIC, "automatic buffer not given back");
    OK(MPI_Session_detach_buffer(s, &addr, &sz));   /* nothing attached: NULL, 0 */
    CHECK(addr == NULL && sz == 0, "detach with none attached: %p %d", addr, sz);

    /* Bad arguments: errors through the session's handler (ERRORS_RETURN). */
    CHECK(MPI_Session_attach_buffer(s, sbuf, -1) == MPI_ERR_ARG, "negative size");
    CHECK(MPI_Session_attach_buffer(s, NULL, 8) == MPI_ERR_BUFFER, "NULL buffer");
    OK(MPI_Session_attach_buffer(s, sbuf, big));
    CHECK(MPI_Session_attach_buffer(s, sbuf, big) == MPI_ERR_BUFFER, "second attach");
    CHECK(MPI_Session_detach_buffer(s, NULL, &sz) == MPI_ERR_ARG, "NULL buffer_addr");
    CHECK(MPI_Session_detach_buffer(s, &addr, NULL) == MPI_ERR_ARG, "NULL size");
    CHECK(MPI_Session_iflush_buffer(s, NULL) == MPI_ERR_REQUEST, "NULL request");

    /* Finalize forgets the session's buffer: a new session in the freed
     * slot starts with none.  s2 keeps the process state up. */
    OK(ring_bsend(c, 100, 10));
    OK(MPI_Comm_free(&c));
    OK(MPI_Comm_free(&d));
    OK(MPI_Session_finalize(&s));
    MPI_Session s3;
    OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s3));
    MPI_Comm c3 = world_of(s3, "session_buffer.c 3");
    CHECK(ring_bsend(c3, 4, 11) == MPI_ERR_BUFFER, "a finalized session's buffer is still used");
    OK(MPI_Comm_free(&c3));
    OK(MPI_Comm_free(&c2));
    OK(MPI_Session_finalize(&s3));
    OK(MPI_Session_finalize(&s2));
    free(sbuf);
    free(cbuf);
    free(pbuf);
    if (rank == 0)
        printf("session_buffer: ok (%d ranks)\n", size);
    return 0;
}
