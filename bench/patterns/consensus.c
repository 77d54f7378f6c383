/*
 * consensus.c -- the non-blocking consensus exchange (NBX) of sparse codes,
 * timed per round.
 *
 * Each rank Issends one int to each of its k = min(3, size-1) peers
 * (rank+1 .. rank+k), then polls { Iprobe(ANY_SOURCE, tag); Recv if found;
 * Testall(sends) } until its sends are matched, then Ibarrier and polls
 * { Iprobe + Recv; Test(barrier) } until the barrier completes.  The rank
 * does not know who sends to it: the barrier tells it that everyone's sends
 * were matched, hence that it has received everything.
 *
 * Every message is checked: it comes from one of the k ranks that send to
 * this one, carries the current round, and each sender's arrives exactly
 * once per round; anything else ends the job with a non-zero status (the
 * ctest case runs it for correctness).  Rounds alternate between two tags:
 * a rank may start round r+1 while a slower one still polls in round r's
 * barrier, but never round r+2.
 *
 * Prints one line: consensus ranks=N us_per_round=X, X the median over the
 * timed rounds of the slowest rank's time of the round.
 *
 * Usage: consensus [-r ROUNDS] [-w WARMUP]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_PEERS 3
#define TAG_BASE 4200

static int rank, size, npeers;

static void fail(const char *what, int round, int a, int b)
{
    fprintf(stderr, "consensus: rank %d, round %d: %s (%d, %d)\n", rank, round, what, a, b);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Receive the message Iprobe found and check it. */
static void take(const MPI_Status *st, int round, int tag, unsigned *seen, int *got)
{
    int v, src = st->MPI_SOURCE;
    MPI_Recv(&v, 1, MPI_INT, src, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int back = (rank - src + size) % size;   /* src = rank - back */
    if (back < 1 || back > npeers)
        fail("message from a rank that does not send to this one", round, src, v);
    if (v != round * size + src)
        fail("wrong payload", round, src, v);
    if (*seen & (1u << back))
        fail("second message from one sender in one round", round, src, v);
    *seen |= 1u << back;
    (*got)++;
}

static void poll_incoming(int round, int tag, unsigned *seen, int *got)
{
    int flag;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &flag, &st);
    if (flag)
        take(&st, round, tag, seen, got);
}

static void one_round(int round)
{
    int tag = TAG_BASE + (round & 1), out = round * size + rank, got = 0, done = 0;
    unsigned seen = 0;
    MPI_Request sends[MAX_PEERS], barrier;
    for (int j = 0; j < npeers; j++)
        MPI_Issend(&out, 1, MPI_INT, (rank + 1 + j) % size, tag, MPI_COMM_WORLD, &sends[j]);
    while (!done) {
        poll_incoming(round, tag, &seen, &got);
        MPI_Testall(npeers, sends, &done, MPI_STATUSES_IGNORE);
    }
    MPI_Ibarrier(MPI_COMM_WORLD, &barrier);
    done = 0;
    while (!done) {
        poll_incoming(round, tag, &seen, &got);
        MPI_Test(&barrier, &done, MPI_STATUS_IGNORE);
    }
    if (got != npeers)
        fail("messages received", round, got, npeers);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int rounds = 1000, warmup = 50, c;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    while ((c = getopt(argc, argv, "r:w:")) != -1) {
        if (c == 'r')
            rounds = atoi(optarg);
        else if (c == 'w')
            warmup = atoi(optarg);
        else {
            if (rank == 0)
                fprintf(stderr, "usage: consensus [-r ROUNDS] [-w WARMUP]\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (rounds < 1 || warmup < 0) {
        if (rank == 0)
            fprintf(stderr, "consensus: -r must be at least 1 and -w at least 0\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    npeers = size - 1 < MAX_PEERS ? size - 1 : MAX_PEERS;

    double *t = malloc((size_t)rounds * sizeof *t), *slowest = malloc((size_t)rounds * sizeof *t);
    if (!t || !slowest)
        MPI_Abort(MPI_COMM_WORLD, 3);
    for (int i = 0; i < warmup; i++)
        one_round(i);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < rounds; i++) {
        double t0 = MPI_Wtime();
        one_round(warmup + i);
        t[i] = MPI_Wtime() - t0;
    }
    MPI_Reduce(t, slowest, rounds, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        qsort(slowest, (size_t)rounds, sizeof *slowest, cmp_double);
        printf("consensus ranks=%d us_per_round=%.2f\n", size, slowest[rounds / 2] * 1e6);
    }
    free(t);
    free(slowest);
    MPI_Finalize();
    return 0;
}
