/*
 * thread_recv_order.c -- under MPI_THREAD_MULTIPLE a blocking receive that
 * the fast path could serve (an 8-byte message from one sender, its first
 * in the ring) still gets the message MPI's order gives it, when its
 * context already holds (docs/threads.md, "The receive fast path under
 * MULTIPLE"):
 *   posted: a receive posted before it (MPI_Irecv of the same thread),
 *           which must take the first of two messages;
 *   unexpected: a message taken off the ring by a probe, older than the one
 *           that arrives while the receive watches the ring.
 * Rank 1 receives; rank 0 sends only after rank 1 says "go" on another
 * communicator, so the watched message arrives while rank 1 sits in
 * MPI_Recv.  Rounds from argv[1] (default 200).  One thread per rank: the
 * order tested is one thread's, which MPI fixes.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define TAG 1

static int rank, bad;

static void expect(const char *what, int round, long got, long want)
{
    if (got != want && bad++ < 5)
        fprintf(stderr, "thread_recv_order: %s round %d: got message %ld, want %ld\n", what, round, got, want);
}

int main(int argc, char **argv)
{
    int provided, rounds = argc > 1 ? atoi(argv[1]) : 200;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (provided != MPI_THREAD_MULTIPLE) {
        if (rank == 0)
            fprintf(stderr, "thread_recv_order: MPI_THREAD_MULTIPLE not provided (COREMPI_THREAD_MULTIPLE=1?)\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Comm data, ctl;
    MPI_Comm_dup(MPI_COMM_WORLD, &data);
    MPI_Comm_dup(MPI_COMM_WORLD, &ctl);
    int go = 0;
    for (int i = 0; i < rounds; i++) {
        long a = 2L * i, b = 2L * i + 1, x = -1, y = -1;
        /* posted */
        if (rank == 0) {
            MPI_Recv(&go, 1, MPI_INT, 1, 0, ctl, MPI_STATUS_IGNORE);
            MPI_Send(&a, 1, MPI_LONG, 1, TAG, data);
            MPI_Send(&b, 1, MPI_LONG, 1, TAG, data);
        } else if (rank == 1) {
            MPI_Request r;
            MPI_Irecv(&x, 1, MPI_LONG, 0, TAG, data, &r);
            MPI_Send(&go, 1, MPI_INT, 0, 0, ctl);
            MPI_Recv(&y, 1, MPI_LONG, 0, TAG, data, MPI_STATUS_IGNORE);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            expect("posted: the MPI_Irecv", i, x, a);
            expect("posted: the MPI_Recv", i, y, b);
        }
        /* unexpected */
        if (rank == 0) {
            MPI_Send(&a, 1, MPI_LONG, 1, TAG, data);
            MPI_Recv(&go, 1, MPI_INT, 1, 0, ctl, MPI_STATUS_IGNORE);
            MPI_Send(&b, 1, MPI_LONG, 1, TAG, data);
        } else if (rank == 1) {
            MPI_Probe(0, TAG, data, MPI_STATUS_IGNORE);
            MPI_Send(&go, 1, MPI_INT, 0, 0, ctl);
            MPI_Recv(&x, 1, MPI_LONG, 0, TAG, data, MPI_STATUS_IGNORE);
            MPI_Recv(&y, 1, MPI_LONG, 0, TAG, data, MPI_STATUS_IGNORE);
            expect("unexpected: the first MPI_Recv", i, x, a);
            expect("unexpected: the second MPI_Recv", i, y, b);
        }
    }
    int all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(all ? "thread_recv_order: %d wrong\n" : "thread_recv_order ok\n", all);
    MPI_Comm_free(&data);
    MPI_Comm_free(&ctl);
    MPI_Finalize();
    return all != 0;
}
