/*
 * env_settings.c -- a little of everything that reads a COREMPI_* setting:
 * start-up (p2p sizes, spinning, fences), a 4 MiB message (single or split
 * copy), and small and large collectives on the shared-memory engine and the
 * point-to-point algorithms.  Every result is checked; env_warnings.sh runs
 * it with bad settings and reads what the library says about them.
 */
#include "check.h"

#define BIG (1 << 20) /* ints: 4 MiB */

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *a = malloc(sizeof(int) * BIG), *b = malloc(sizeof(int) * BIG);
    int *all = malloc(sizeof(int) * (size_t)BIG / 4 * (size_t)size);
    CHECK(a && b && all, "out of memory");

    if (size > 1 && rank < 2) {
        for (int i = 0; i < BIG; i++)
            a[i] = i ^ rank;
        if (rank == 0)
            MPI_Send(a, BIG, MPI_INT, 1, 3, MPI_COMM_WORLD);
        else
            MPI_Recv(b, BIG, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; rank == 1 && i < BIG; i++)
            CHECK(b[i] == i, "4 MiB message: element %d is %d", i, b[i]);
    }

    for (int n = 1; n <= BIG; n *= 64) {
        for (int i = 0; i < n; i++)
            a[i] = rank + i;
        MPI_Allreduce(a, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++)
            CHECK(b[i] == size * (size - 1) / 2 + size * i, "allreduce of %d: element %d is %d", n, i, b[i]);
        for (int i = 0; i < n; i++)
            b[i] = rank == 0 ? 7 * i : -1;
        MPI_Bcast(b, n, MPI_INT, 0, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++)
            CHECK(b[i] == 7 * i, "bcast of %d: element %d is %d", n, i, b[i]);
        for (int i = 0; i < n; i++)
            a[i] = rank - i;
        MPI_Reduce(a, b, n, MPI_INT, MPI_MAX, size - 1, MPI_COMM_WORLD);
        for (int i = 0; rank == size - 1 && i < n; i++)
            CHECK(b[i] == size - 1 - i, "reduce of %d: element %d is %d", n, i, b[i]);
        int block = n / 4 > 0 ? n / 4 : 1;
        for (int r = 0; r < size && block * size <= BIG; r++)
            for (int i = 0; i < block; i++)
                a[r * block + i] = 1000 * rank + r;
        if (block * size <= BIG) {
            MPI_Alltoall(a, block, MPI_INT, all, block, MPI_INT, MPI_COMM_WORLD);
            for (int r = 0; r < size; r++)
                CHECK(all[r * block] == 1000 * r + rank, "alltoall of %d: block %d is %d", block, r, all[r * block]);
            MPI_Allgather(a, block, MPI_INT, all, block, MPI_INT, MPI_COMM_WORLD);
            for (int r = 0; r < size; r++)
                CHECK(all[r * block] == 1000 * r, "allgather of %d: block %d is %d", block, r, all[r * block]);
            MPI_Gather(a + block, block, MPI_INT, all, block, MPI_INT, 0, MPI_COMM_WORLD);
            for (int r = 0; rank == 0 && size > 1 && r < size; r++)
                CHECK(all[r * block] == 1000 * r + 1, "gather of %d: block %d is %d", block, r, all[r * block]);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("env_settings: %d ranks, all results right\n", size);
    free(a);
    free(b);
    free(all);
    MPI_Finalize();
    return 0;
}
