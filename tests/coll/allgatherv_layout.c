/*
 * allgatherv_layout -- MPI_Allgatherv with equal counts where each rank lays
 * out the blocks in its own order (the standard makes the counts the same at
 * every rank, the displacements each rank's own).
 *
 * The "regular" algorithm used to decide from the displacements too, so a
 * rank with blocks at 0, n, 2n, ... ran the allgather while the others ran
 * the ring: a hang (found by coll_fuzz).  Rank r puts block i at position
 * (i + r) mod size, with and without MPI_IN_PLACE, counts 0, 1 and 300;
 * rank 0's layout is the regular one.  Prints "allgatherv_layout ok".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "../test_end.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static const int counts_tried[] = {0, 1, 300};
    int *counts = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size);
    for (int t = 0; t < 3; t++)
        for (int in_place = 0; in_place < 2; in_place++) {
            int n = counts_tried[t];
            int *buf = malloc(sizeof(int) * (size_t)(n * size + 1)), *mine = malloc(sizeof(int) * (size_t)(n + 1));
            for (int i = 0; i < size; i++) {
                counts[i] = n;
                displs[i] = ((i + rank) % size) * n;
            }
            for (int j = 0; j < n * size; j++)
                buf[j] = -1;
            for (int j = 0; j < n; j++)
                mine[j] = buf[displs[rank] + j] = rank * 100000 + t * 1000 + j;
            MPI_Allgatherv(in_place ? MPI_IN_PLACE : mine, n, MPI_INT, buf, counts, displs, MPI_INT, MPI_COMM_WORLD);
            for (int i = 0; i < size; i++)
                for (int j = 0; j < n; j++)
                    if (buf[displs[i] + j] != i * 100000 + t * 1000 + j && bad++ < 5)
                        fprintf(stderr, "allgatherv_layout: rank %d count %d in_place %d: block %d[%d] = %d\n", rank,
                                n, in_place, i, j, buf[displs[i] + j]);
            free(buf);
            free(mine);
        }
    free(counts);
    free(displs);
    return test_end("allgatherv_layout", bad);
}
