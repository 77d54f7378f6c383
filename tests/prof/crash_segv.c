/* Rank 1 dies of SIGSEGV with all its records still in memory (the buffer half
 * is far from full): coreprof's signal handler must write them before the
 * signal goes on to kill the process. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 100; i++) MPI_Comm_rank(MPI_COMM_WORLD, &x);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) *(volatile int *)(argc > 100 ? (void *)&x : (void *)0) = 1;  /* NULL unless argc > 100 */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
