/* allreduce_instr.c -- a loop of N 8-byte MPI_Allreduce (MPI_DOUBLE, MPI_SUM)
 * on MPI_COMM_WORLD, for counting instructions per call with callgrind
 * (bench/allreduce_instr.sh).  N from argv[1], default 60000. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n = argc > 1 ? atoi(argv[1]) : 60000;
    double x, y = 0;
    for (int i = 0; i < n; i++) {
        x = i;
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (y < 0)
        printf("%g\n", y);
    MPI_Finalize();
    return 0;
}
