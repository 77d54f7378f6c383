/*
 * prof_overhead -- what coreprof adds per recorded MPI call.
 *
 * Two measurements, each as the median over REPS blocks (the machine is noisy):
 *  - call_ns:     one cheap call (MPI_Comm_rank) in a loop: profiler cost alone
 *  - pingpong_ns: a 1-byte ping-pong between ranks 0 and 1, per round trip;
 *                 a round trip holds 4 recorded calls on its critical path
 * Blocks are short (200 calls) so that most hold neither a buffer hand-over
 * nor a descheduling by the noisy machine: the median is the hot path.
 * Run it once plainly and once with libcoreprof preloaded (prof_overhead.sh),
 * and subtract.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define REPS 1001     /* blocks per measurement */

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return v[n / 2];
}

int main(int argc, char **argv)
{
    int rank, size, x;
    int iters = argc > 1 ? atoi(argv[1]) : 200;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double t_call[REPS], t_pp[REPS];
    char buf[8] = {0};
    for (int r = 0; r < REPS; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++) MPI_Comm_rank(MPI_COMM_WORLD, &x);
        t_call[r] = (MPI_Wtime() - t0) / iters * 1e9;

        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        for (int i = 0; i < iters && size > 1; i++) {
            buf[0] = (char)i;                     /* vary the data between iterations */
            if (rank == 0) {
                MPI_Send(buf, 1, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
                MPI_Recv(buf, 1, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                MPI_Recv(buf, 1, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, 1, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
            }
        }
        t_pp[r] = (MPI_Wtime() - t0) / iters * 1e9;
    }
    if (rank == 0)
        printf("call_ns %.1f\npingpong_ns %.1f\n", median(t_call, REPS), median(t_pp, REPS));
    MPI_Finalize();
    return 0;
}
