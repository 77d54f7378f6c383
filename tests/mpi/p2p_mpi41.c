/*
 * p2p_mpi41.c -- the MPI-4.1 point-to-point additions: status accessors,
 * Request_get_status_any/all/some (which must not free), per-communicator
 * and automatic buffers for buffered sends with their (i)flushes, and bad
 * arguments under MPI_ERRORS_RETURN.
 */
#include "check.h"

int main(int argc, char **argv)
{
    int rank, size, v = -1;
    CHECK_MPI(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    /* Status accessors round-trip. */
    MPI_Status st;
    CHECK_MPI(MPI_Status_set_source(&st, 3));
    CHECK_MPI(MPI_Status_set_tag(&st, 44));
    CHECK_MPI(MPI_Status_set_error(&st, MPI_ERR_TAG));
    int s = -1, t = -1, e = -1;
    CHECK_MPI(MPI_Status_get_source(&st, &s));
    CHECK_MPI(MPI_Status_get_tag(&st, &t));
    CHECK_MPI(MPI_Status_get_error(&st, &e));
    CHECK(s == 3 && t == 44 && e == MPI_ERR_TAG, "accessors: %d %d %d", s, t, e);

    /* Request_get_status_*: report without freeing; Waitall frees after. */
    MPI_Request reqs[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    int got = -1, flag = 0, idx = -1, out = -1, indices[3];
    MPI_Status sts[3];
    CHECK_MPI(MPI_Irecv(&got, 1, MPI_INT, left, 5, MPI_COMM_WORLD, &reqs[1]));
    CHECK_MPI(MPI_Request_get_status_all(3, reqs, &flag, sts));
    int sent = rank;
    CHECK_MPI(MPI_Send(&sent, 1, MPI_INT, right, 5, MPI_COMM_WORLD));
    flag = 0;
    while (!flag)
        CHECK_MPI(MPI_Request_get_status_any(3, reqs, &idx, &flag, &st));
    CHECK(idx == 1 && st.MPI_SOURCE == left && st.MPI_TAG == 5, "get_status_any: index %d source %d", idx, st.MPI_SOURCE);
    CHECK(reqs[1] != MPI_REQUEST_NULL, "get_status_any freed the request");
    CHECK_MPI(MPI_Request_get_status_some(3, reqs, &out, indices, sts));
    CHECK(out == 1 && indices[0] == 1 && sts[0].MPI_SOURCE == left, "get_status_some: %d", out);
    CHECK_MPI(MPI_Request_get_status_all(3, reqs, &flag, sts));
    CHECK(flag && sts[1].MPI_TAG == 5 && sts[0].MPI_SOURCE == MPI_ANY_SOURCE, "get_status_all");
    CHECK_MPI(MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE));
    CHECK(got == left && reqs[1] == MPI_REQUEST_NULL, "received %d", got);
    CHECK_MPI(MPI_Request_get_status_some(3, reqs, &out, indices, sts));
    CHECK(out == MPI_UNDEFINED, "all null: outcount %d", out);
    CHECK_MPI(MPI_Request_get_status_any(3, reqs, &idx, &flag, &st));
    CHECK(flag && idx == MPI_UNDEFINED, "all null: any %d %d", flag, idx);

    /* A communicator's own buffer, then the automatic one. */
    MPI_Comm dup;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    int bsize = 4 * (MPI_BSEND_OVERHEAD + 64);
    char *buf = malloc(bsize);
    CHECK_MPI(MPI_Comm_attach_buffer(dup, buf, bsize));
    int data[16];
    for (int i = 0; i < 16; i++)
        data[i] = rank + i;
    CHECK_MPI(MPI_Bsend(data, 16, MPI_INT, right, 1, dup));
    /* The process has no buffer: a Bsend on world fails. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Bsend(data, 1, MPI_INT, right, 1, MPI_COMM_WORLD);
    CHECK(rc == MPI_ERR_BUFFER, "Bsend without a buffer: %d", rc);
    int in[16];
    CHECK_MPI(MPI_Recv(in, 16, MPI_INT, left, 1, dup, MPI_STATUS_IGNORE));
    CHECK(in[15] == left + 15, "comm buffer data %d", in[15]);
    CHECK_MPI(MPI_Comm_flush_buffer(dup));
    void *addr;
    int dsize;
    CHECK_MPI(MPI_Comm_detach_buffer(dup, &addr, &dsize));
    CHECK(addr == buf && dsize == bsize, "Comm_detach_buffer gave %p %d", addr, dsize);

    CHECK_MPI(MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0));
    rc = MPI_Buffer_attach(buf, bsize);
    CHECK(rc == MPI_ERR_BUFFER, "second attach: %d", rc);
    enum { N = 50 };
    static int big[N][1000];
    for (int k = 0; k < N; k++) {
        big[k][999] = rank * 100 + k;
        CHECK_MPI(MPI_Bsend(big[k], 1000, MPI_INT, right, 2, MPI_COMM_WORLD));
    }
    MPI_Request fl;
    CHECK_MPI(MPI_Buffer_iflush(&fl));
    int x[1000];
    for (int k = 0; k < N; k++) {
        CHECK_MPI(MPI_Recv(x, 1000, MPI_INT, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(x[999] == left * 100 + k, "automatic buffer message %d: %d", k, x[999]);
    }
    CHECK_MPI(MPI_Wait(&fl, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Buffer_flush());
    CHECK_MPI(MPI_Buffer_detach(&addr, &dsize));
    CHECK(addr == MPI_BUFFER_AUTOMATIC, "detach of the automatic buffer gave %p", addr);

    /* Bad arguments. */
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    rc = MPI_Status_get_source(MPI_STATUS_IGNORE, &v);
    CHECK(rc == MPI_ERR_ARG, "get_source of STATUS_IGNORE: %d", rc);
    rc = MPI_Status_set_tag(MPI_STATUS_IGNORE, 1);
    CHECK(rc == MPI_ERR_ARG, "set_tag of STATUS_IGNORE: %d", rc);
    rc = MPI_Request_get_status_all(-1, reqs, &flag, sts);
    CHECK(rc == MPI_ERR_COUNT, "negative count: %d", rc);
    MPI_Request bogus[1] = {reqs[0]};
    CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, rank, 99, MPI_COMM_WORLD, &bogus[0]));
    MPI_Request stale = bogus[0];
    CHECK_MPI(MPI_Cancel(&bogus[0]));
    CHECK_MPI(MPI_Wait(&bogus[0], MPI_STATUS_IGNORE));
    rc = MPI_Request_get_status_any(1, &stale, &idx, &flag, &st);
    CHECK(rc == MPI_ERR_REQUEST, "stale handle: %d", rc);
    rc = MPI_Comm_attach_buffer(MPI_COMM_NULL, buf, bsize);
    CHECK(rc == MPI_ERR_COMM, "attach to COMM_NULL: %d", rc);
    rc = MPI_Comm_attach_buffer(dup, buf, -4);
    CHECK(rc == MPI_ERR_ARG, "negative size: %d", rc);
    rc = MPI_Buffer_iflush(NULL);
    CHECK(rc == MPI_ERR_REQUEST, "iflush NULL request: %d", rc);

    CHECK_MPI(MPI_Comm_free(&dup));
    free(buf);
    CHECK_MPI(MPI_Finalize());
    return 0;
}
