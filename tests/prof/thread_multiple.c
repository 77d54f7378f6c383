/* MPI_THREAD_MULTIPLE: coreprof must print one warning and record nothing. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("provided=%d multiple=%d\n", provided, provided == MPI_THREAD_MULTIPLE);
    MPI_Finalize();
    return 0;
}
