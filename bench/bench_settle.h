/* Run the job for a moment before measuring anything: right after MPI_Init a
 * launcher may still be busy (I/O forwarding, wire-up, first touches), which
 * would otherwise land on whichever measurement comes first. */
#ifndef BENCH_SETTLE_H
#define BENCH_SETTLE_H

#include <mpi.h>

static inline void bench_settle(double seconds)
{
    double start = MPI_Wtime();
    int more = 1;
    while (more) {
        for (int i = 0; i < 50; i++)
            MPI_Barrier(MPI_COMM_WORLD);
        more = MPI_Wtime() - start < seconds; /* rank 0's clock decides for all */
        MPI_Bcast(&more, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
}

#endif
