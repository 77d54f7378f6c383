/* Rank 1 kills itself with SIGKILL mid-run, after enough calls that several
 * blocks were flushed (run with COREPROF_BUFFER_KB=4).  Every file must stay
 * readable; rank 1's must be reported incomplete. */
#include <mpi.h>
#include <signal.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 2000; i++) MPI_Comm_rank(MPI_COMM_WORLD, &x);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        usleep(200 * 1000);      /* let the writer thread finish the handed-over blocks */
        raise(SIGKILL);
    }
    MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);  /* never satisfied */
    MPI_Finalize();
    return 0;
}
