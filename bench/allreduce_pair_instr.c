/* allreduce_pair_instr.c MODE COUNT N -- N allreduces of COUNT doubles (MPI_SUM) on
 * MPI_COMM_WORLD: MODE 0 MPI_Allreduce, 1 one MPI_Allreduce_init, then MPI_Start +
 * MPI_Wait per call.  For counting instructions per call with callgrind
 * (bench/allreduce_pair_instr.sh; results: bench/results/persist-allreduce.md). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int mode = atoi(argv[1]), count = atoi(argv[2]), n = atoi(argv[3]);
    double *x = calloc((size_t)count, sizeof *x), *y = calloc((size_t)count, sizeof *y);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Request r;
    if (mode)
        MPI_Allreduce_init(x, y, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
    for (int i = 0; i < n; i++) {
        x[0] = i;
        if (mode) {
            MPI_Start(&r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        } else {
            MPI_Allreduce(x, y, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        }
    }
    if (mode)
        MPI_Request_free(&r);
    if (y[0] < 0) printf("%g\n", y[0]);
    MPI_Finalize();
    return 0;
}
