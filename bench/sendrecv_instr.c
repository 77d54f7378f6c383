/* sendrecv_instr.c -- a ping-pong of N 8-byte MPI_Send/MPI_Recv pairs between
 * ranks 0 and 1 of MPI_COMM_WORLD, for counting instructions per call with
 * callgrind (bench/sendrecv_instr.sh).  N from argv[1], default 60000. */
#include <mpi.h>
#include <stdlib.h>

#include "bench_instr.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n = argc > 1 ? atoi(argv[1]) : 60000;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double x = 0;
    for (int i = 0; i < n; i++) {
        if (rank == 0) {
            x = i;
            MPI_Send(&x, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(&x, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&x, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&x, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
        }
    }
    return bench_instr_end(x);
}
