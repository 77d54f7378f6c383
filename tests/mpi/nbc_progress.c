/*
 * nbc_progress -- a pending nonblocking collective must progress while its
 * rank is blocked in another collective (MPI-4.1 §3.7.4 and §6.12).
 *
 * Every rank starts an Ibarrier (or Iallreduce) on a dup of WORLD.  Rank 0
 * then blocks in a collective on WORLD rooted at rank 1 before it waits;
 * everybody else waits first.  Rank 1 reaches the WORLD collective only when
 * its nonblocking one has completed, which needs rank 0's later rounds: if
 * rank 0's blocked collective does not run the progress engine, the job
 * hangs (5 ranks hung in the shared-memory broadcast before 2026-11-25).
 * The blocking collective takes the FIFO (tiny bcast), the epoch sync
 * (barrier, allreduce) and the pipelined pieces (large bcast) in turn.
 * Prints "nbc_progress ok" on rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "../test_end.h"

#define ROUNDS 60
#define BIG (1 << 20)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int root = size > 1 ? 1 : 0;
    MPI_Comm x;
    MPI_Comm_dup(MPI_COMM_WORLD, &x);
    int *big = malloc(sizeof(int) * BIG);
    for (int it = 0; it < ROUNDS; it++) {
        MPI_Request q;
        int mine = rank + it, sum = -1, want = size * it + size * (size - 1) / 2;
        if (it % 2)
            MPI_Iallreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, x, &q);
        else
            MPI_Ibarrier(x, &q);
        int v = rank == root ? it : -1, w = -1;
        if (rank != 0)
            MPI_Wait(&q, MPI_STATUS_IGNORE);
        switch (it % 4) {
        case 0:
            MPI_Bcast(&v, 1, MPI_INT, root, MPI_COMM_WORLD);
            break;
        case 1:
            MPI_Barrier(MPI_COMM_WORLD);
            v = it;
            break;
        case 2:
            MPI_Allreduce(&v, &w, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            v = w;
            break;
        default:
            if (rank == root)
                for (int i = 0; i < BIG; i++)
                    big[i] = it + i;
            MPI_Bcast(big, BIG, MPI_INT, root, MPI_COMM_WORLD);
            v = big[BIG - 1] - (BIG - 1);
        }
        if (rank == 0)
            MPI_Wait(&q, MPI_STATUS_IGNORE);
        if (v != it && bad++ < 5)
            fprintf(stderr, "nbc_progress: rank %d round %d: collective gave %d\n", rank, it, v);
        if (it % 2 && sum != want && bad++ < 5)
            fprintf(stderr, "nbc_progress: rank %d round %d: Iallreduce gave %d, want %d\n", rank, it, sum, want);
    }
    free(big);
    MPI_Comm_free(&x);
    return test_end("nbc_progress", bad);
}
