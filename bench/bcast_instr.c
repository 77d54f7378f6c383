/* bcast_instr.c -- a loop of N MPI_Bcast of BYTES bytes from rank 0 on
 * MPI_COMM_WORLD, for counting the front end's and the selector's
 * instructions per call with callgrind (bench/bcast_instr.sh).
 * usage: bcast_instr N BYTES */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n = argc > 1 ? atoi(argv[1]) : 20000, bytes = argc > 2 ? atoi(argv[2]) : 8;
    char *buf = calloc(1, bytes > 0 ? (size_t)bytes : 1);
    for (int i = 0; buf && i < n; i++)
        MPI_Bcast(buf, bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
    free(buf);
    MPI_Finalize();
    return 0;
}
