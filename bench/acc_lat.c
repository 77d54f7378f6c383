/*
 * acc_lat.c -- MPI_Accumulate latency (issue 38 item 1): rank 0 locks rank
 * 1's window exclusively, accumulates N doubles (MPI_SUM), unlocks; the
 * median of many such epochs, per size and window flavour.  Plain MPI, so
 * the same source runs under corempi and under Open MPI.
 * usage: mpirun -n 2 acc_lat [iters]
 * prints: flavour bytes median_us
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int iters = argc > 1 ? atoi(argv[1]) : 200;
    const size_t sizes[] = { 4096, 65536, 1 << 20 };
    const size_t max = 1 << 20;
    double *src = malloc(max), *t = malloc(sizeof(double) * (size_t)iters);
    for (size_t i = 0; i < max / sizeof(double); i++)
        src[i] = 1.0;
    for (int flav = 0; flav < 2; flav++) {
        MPI_Win win;
        void *base;
        if (flav == 0) {
            MPI_Win_allocate((MPI_Aint)max, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
        } else {
            base = malloc(max);
            MPI_Win_create(base, (MPI_Aint)max, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        }
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            int cnt = (int)(sizes[s] / sizeof(double));
            MPI_Barrier(MPI_COMM_WORLD);
            if (me == 0) {
                for (int i = -iters / 10; i < iters; i++) {
                    double t0 = MPI_Wtime();
                    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
                    MPI_Accumulate(src, cnt, MPI_DOUBLE, 1, 0, cnt, MPI_DOUBLE, MPI_SUM, win);
                    MPI_Win_unlock(1, win);
                    if (i >= 0)
                        t[i] = MPI_Wtime() - t0;
                }
                qsort(t, (size_t)iters, sizeof *t, cmp);
                printf("%s %zu %.3f\n", flav ? "create" : "allocate", sizes[s], t[iters / 2] * 1e6);
                fflush(stdout);
            }
            MPI_Barrier(MPI_COMM_WORLD);
        }
        MPI_Win_free(&win);
        if (flav == 1)
            free(base);
    }
    free(src);
    free(t);
    MPI_Finalize();
    return 0;
}
