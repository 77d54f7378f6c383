/* p2p_instr.c -- 8-byte MPI_Send / MPI_Recv between 2 ranks, for counting
 * instructions per call with callgrind (bench/p2p_instr.sh).  Rank 0 sends
 * batches of 32 messages and waits for an ack; rank 1 naps (100 ms) before each
 * batch, so all 32 are in its ring when it receives: its MPI_Recv calls find
 * their message at once and the count does not depend on the schedule.
 * Batches from argv[1], default 30.  MPI_Init_thread asks for argv[2]
 * (0..3, default 0: MPI_THREAD_SINGLE). */
#include <mpi.h>
#include <stdlib.h>
#include <time.h>

#include "bench_instr.h"

#define BATCH 32

int main(int argc, char **argv)
{
    int provided, rank;
    static const int levels[] = { MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED,
                                  MPI_THREAD_MULTIPLE };
    int l = argc > 2 ? atoi(argv[2]) : 0;
    int level = levels[l >= 0 && l < 4 ? l : 0];
    MPI_Init_thread(&argc, &argv, level, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int n = argc > 1 ? atoi(argv[1]) : 30;
    double x = 1, ack = 0;
    struct timespec nap = { 0, 100000000 };
    for (int i = 0; i < n; i++) {
        if (rank == 0) {
            for (int k = 0; k < BATCH; k++)
                MPI_Send(&x, 1, MPI_DOUBLE, 1, 5, MPI_COMM_WORLD);
            MPI_Recv(&ack, 1, MPI_DOUBLE, 1, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            nanosleep(&nap, NULL);
            for (int k = 0; k < BATCH; k++)
                MPI_Recv(&x, 1, MPI_DOUBLE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&ack, 1, MPI_DOUBLE, 0, 6, MPI_COMM_WORLD);
        }
    }
    return bench_instr_end(x);
}
