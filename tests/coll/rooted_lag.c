/*
 * rooted_lag -- a rooted collective whose root is late, then a loop of
 * another rooted collective in which that late rank sends nothing.
 *
 * Reduce, gather, gatherv and the tiny scans share one FIFO of entries per
 * rank (coll/direct/direct.h, "reduce FIFO"); a rank reuses an entry once an
 * acknowledgement says the call that last used it was consumed.  An
 * acknowledgement is the word of one reader about every earlier call, so it
 * is only true if that reader saw every rank arrive.  Here the root R of
 * gather m is asleep while the others run 200 gathervs to another root in
 * which R contributes zero bytes: if such a call can acknowledge without R,
 * the others wrap around the FIFO and overwrite R's unread entries of call
 * m (wrong data), or the acknowledgement word goes backwards (hang).
 *
 * Runs on WORLD, a dup and an even/odd split with reversed keys; every
 * value is a function of (communicator, call, rank, index), checked by the
 * receiver.  Prints "rooted_lag ok" on rank 0; exits 1 on a wrong value.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../test_end.h"

#define ROUNDS 6
#define LOOP 200
#define MAXC 126

static int value(int comm_id, int call, int rank, int i) { return comm_id * 1000003 + call * 7919 + rank * 131 + i; }

static int bad;

static void expect(const char *what, int comm_id, int call, int at, int got, int want)
{
    if (got != want && bad++ < 10)
        fprintf(stderr, "rooted_lag: %s comm %d call %d rank %d: got %d want %d\n", what, comm_id, call, at, got, want);
}

/* One round on comm: root r0 sleeps, then gathers count ints; then LOOP
 * gathervs (or reduces) to r1 in which r0 sends zero elements. */
static void round_on(MPI_Comm comm, int comm_id, int round, int kind)
{
    int n, me;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    if (n < 2)
        return;
    int r0 = round % n, r1 = (round + 1) % n, count = 1 + (round * 37) % MAXC;
    static int calls[8];   /* per communicator: every member counts the same calls */
    int call = calls[comm_id];
    int sbuf[MAXC], *rbuf = malloc(sizeof(int) * MAXC * (size_t)n), rcounts[64], displs[64];
    call++;
    for (int i = 0; i < count; i++)
        sbuf[i] = value(comm_id, call, me, i);
    if (me == r0)
        usleep(3000);
    if (kind == 0) {
        MPI_Gather(sbuf, count, MPI_INT, rbuf, count, MPI_INT, r0, comm);
        if (me == r0)
            for (int r = 0; r < n; r++)
                for (int i = 0; i < count; i++)
                    expect("MPI_Gather", comm_id, call, me, rbuf[r * count + i], value(comm_id, call, r, i));
    } else {
        int sum;
        MPI_Reduce(sbuf, &sum, 1, MPI_INT, MPI_SUM, r0, comm);
        int want = 0;
        for (int r = 0; r < n; r++)
            want += value(comm_id, call, r, 0);
        if (me == r0)
            expect("MPI_Reduce", comm_id, call, me, sum, want);
    }
    for (int it = 0; it < LOOP; it++) {
        call++;
        for (int i = 0; i < count; i++)
            sbuf[i] = value(comm_id, call, me, i);
        for (int r = 0, at = 0; r < n; r++) {
            rcounts[r] = r == r0 ? 0 : count;
            displs[r] = at;
            at += rcounts[r];
        }
        MPI_Gatherv(sbuf, me == r0 ? 0 : count, MPI_INT, rbuf, rcounts, displs, MPI_INT, r1, comm);
        if (me == r1)
            for (int r = 0; r < n; r++)
                for (int i = 0; i < rcounts[r]; i++)
                    expect("MPI_Gatherv", comm_id, call, me, rbuf[displs[r] + i], value(comm_id, call, r, i));
    }
    calls[comm_id] = call;
    free(rbuf);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm dup, split;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &split);
    for (int round = 0; round < ROUNDS; round++) {
        round_on(MPI_COMM_WORLD, 1, round, round % 2);
        round_on(dup, 2, round, (round + 1) % 2);
        round_on(split, 3 + rank % 2, round, round % 2);
    }
    MPI_Comm_free(&split);
    MPI_Comm_free(&dup);
    return test_end("rooted_lag", bad);
}
