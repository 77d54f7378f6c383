/*
 * reduce_fifo -- back-to-back tiny reductions with a sometimes slow root:
 * the reduce FIFO (src/coll/direct/reduce.c) lets non-roots run up to its depth
 * ahead, so a non-root that reused an entry before the root of an earlier
 * call had folded it would corrupt that call's result.
 *
 * The root changes every 300 calls (more than the FIFO's 128 entries, so
 * the others can wrap around it) and sleeps now and then.  Each call
 * reduces 1..15 affine maps x -> a*x + b (two unsigned ints, 8..120 bytes:
 * the seq line alone and with its partner line) under composition, which is
 * associative but not commutative, so the result also shows that the fold
 * ran in rank order.  Every rank knows every
 * contribution (a function of rank, call and index) and the root checks
 * against its own fold.  Then the same with tiny scans and exscans, which
 * share the FIFO, with a slow last rank (the one that acknowledges).
 * Prints "reduce_fifo ok" on rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../test_end.h"
#include "affine_op.h"

#define CALLS 2700
#define STINT 300
#define MAXPAIRS 15

static void contribution(int rank, int call, int i, unsigned *pair)
{
    pair[0] = 2u * (unsigned)(rank * 7919 + call * 104729 + i * 31) + 1u; /* odd: never 0 */
    pair[1] = (unsigned)(rank * 13 + call * 17 + i * 19);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_UNSIGNED, &pair);
    MPI_Type_commit(&pair);
    MPI_Op op;
    MPI_Op_create(compose, 0, &op);
    int bad = 0;
    for (int call = 0; call < CALLS; call++) {
        /* The root stays for STINT calls so that the others can run a whole
         * FIFO ahead of it (a new root would wait for the old one's next
         * contribution). */
        int root = (call / STINT) % size, n = 1 + call % MAXPAIRS;
        unsigned mine[2 * MAXPAIRS], out[2 * MAXPAIRS];
        for (int i = 0; i < n; i++)
            contribution(rank, call, i, &mine[2 * i]);
        /* A slow root now and then: the others run ahead and must wait for it
         * before reusing a FIFO entry. */
        if (rank == root && call % 97 == 0)
            usleep(3000);
        int in_place = rank == root && call % 5 == 0;
        if (in_place) {
            for (int i = 0; i < 2 * n; i++)
                out[i] = mine[i];
            MPI_Reduce(MPI_IN_PLACE, out, n, pair, op, root, MPI_COMM_WORLD);
        } else {
            MPI_Reduce(mine, out, n, pair, op, root, MPI_COMM_WORLD);
        }
        if (rank != root)
            continue;
        for (int i = 0; i < n; i++) {
            unsigned acc[2], x[2];
            contribution(size - 1, call, i, acc);
            for (int r = size - 2; r >= 0; r--) {
                int one = 1;
                contribution(r, call, i, x);
                compose(x, acc, &one, NULL);
            }
            if (acc[0] != out[2 * i] || acc[1] != out[2 * i + 1]) {
                if (bad++ < 5)
                    fprintf(stderr, "reduce_fifo: rank %d, call %d, pair %d: got (%u, %u), want (%u, %u)\n",
                            rank, call, i, out[2 * i], out[2 * i + 1], acc[0], acc[1]);
            }
        }
    }
    /* Tiny scans and exscans share the FIFO: rank r reads r - 1's entry and
     * the last rank acknowledges for the whole chain.  The last rank is slow
     * now and then, so the others run the FIFO's depth ahead of it and must
     * not refill an entry it has not read. */
    for (int call = 0; call < CALLS; call++) {
        int n = 1 + call % MAXPAIRS, exclusive = call % 3 == 2;
        unsigned mine[2 * MAXPAIRS], out[2 * MAXPAIRS];
        for (int i = 0; i < n; i++)
            contribution(rank, CALLS + call, i, &mine[2 * i]);
        if (rank == size - 1 && call % 97 == 0)
            usleep(3000);
        if (exclusive)
            MPI_Exscan(mine, out, n, pair, op, MPI_COMM_WORLD);
        else
            MPI_Scan(mine, out, n, pair, op, MPI_COMM_WORLD);
        int upto = exclusive ? rank - 1 : rank;  /* x0 o ... o x(upto) */
        for (int i = 0; i < n && upto >= 0; i++) {
            unsigned acc[2], x[2];
            contribution(upto, CALLS + call, i, acc);
            for (int r = upto - 1; r >= 0; r--) {
                int one = 1;
                contribution(r, CALLS + call, i, x);
                compose(x, acc, &one, NULL);
            }
            if ((acc[0] != out[2 * i] || acc[1] != out[2 * i + 1]) && bad++ < 5)
                fprintf(stderr, "reduce_fifo: rank %d, %s %d, pair %d: got (%u, %u), want (%u, %u)\n", rank,
                        exclusive ? "exscan" : "scan", call, i, out[2 * i], out[2 * i + 1], acc[0], acc[1]);
        }
    }
    MPI_Op_free(&op);
    MPI_Type_free(&pair);
    return test_end("reduce_fifo", bad);
}
