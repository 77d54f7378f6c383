/* MPI_Pcontrol(0) must suppress records until MPI_Pcontrol(1): the sends with
 * tag 99 (paused) must not be in the trace, those with tag 1 must. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int peer = rank ^ 1;
    MPI_Pcontrol(0);
    for (int i = 0; i < 5 && peer < size; i++)
        MPI_Sendrecv_replace(&x, 1, MPI_INT, peer, 99, peer, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Pcontrol(1);
    for (int i = 0; i < 3 && peer < size; i++)
        MPI_Sendrecv_replace(&x, 1, MPI_INT, peer, 1, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
