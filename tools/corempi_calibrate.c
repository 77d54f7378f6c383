/*
 * corempi_calibrate -- the ranks `mpirun --calibrate` starts (docs/placement.md).
 *
 *   mpirun -n CORES --bind-to core corempi_calibrate LEVEL:A:B ...
 *
 * For each LEVEL:A:B, ranks A and B (bound to cores A and B) ping-pong
 * through MPI while the others wait in a barrier: 8-byte messages for the
 * latency (half the round trip), 1 MiB messages for the bandwidth (bytes
 * over the one-way time less the latency).  Each figure is the best of
 * 30 batches of 100 round trips (latency) or of 40 single round trips
 * (bandwidth): on a shared machine a batch is often cut by the scheduler,
 * and the model wants the machine's cost, not its load.  Rank 0 prints one line per
 * pair, "LEVEL latency_ns bandwidth_GB/s", which mpirun stores.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIG (1 << 20)

/* Seconds per round trip of `bytes` between a and b (valid on a). */
static double round_trip(int me, int a, int b, char *buf, int bytes, int iters, int runs)
{
    double best = 1e30;
    for (int run = 0; run < runs; run++) {
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++) {
            if (me == a) {
                MPI_Send(buf, bytes, MPI_BYTE, b, 0, MPI_COMM_WORLD);
                MPI_Recv(buf, bytes, MPI_BYTE, b, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, bytes, MPI_BYTE, a, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, bytes, MPI_BYTE, a, 0, MPI_COMM_WORLD);
            }
        }
        double t = (MPI_Wtime() - t0) / iters;
        if (t < best)
            best = t;
    }
    return best;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char *buf = calloc(BIG, 1);
    for (int k = 1; k < argc; k++) {
        char level[32];
        int a, b;
        if (sscanf(argv[k], "%31[^:]:%d:%d", level, &a, &b) != 3 || a < 0 || b < 0 || a >= size || b >= size ||
            a == b) {
            if (me == 0)
                fprintf(stderr, "corempi_calibrate: bad pair '%s' (LEVEL:A:B, ranks below %d)\n", argv[k], size);
            continue;
        }
        MPI_Barrier(MPI_COMM_WORLD);
        double res[2] = {0, 0};
        if (me == a || me == b) {
            round_trip(me, a, b, buf, 8, 200, 1); /* warm up: code, caches, the buffer's pages */
            round_trip(me, a, b, buf, BIG, 2, 1);
            double small = round_trip(me, a, b, buf, 8, 100, 30) / 2;
            double big = round_trip(me, a, b, buf, BIG, 1, 40) / 2;
            res[0] = small * 1e9;
            res[1] = big > small ? BIG / ((big - small) * 1e9) : 0;
        }
        if (a != 0 && me == a)
            MPI_Send(res, 2, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
        if (a != 0 && me == 0)
            MPI_Recv(res, 2, MPI_DOUBLE, a, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (me == 0) {
            printf("%s %.1f %.3f\n", level, res[0], res[1]);
            fflush(stdout);
        }
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
