/*
 * crash.c -- one rank dies by SIGSEGV while the others wait for it forever.
 *
 * Run through expect_fail.sh: mpirun must notice the death, end the other
 * ranks (blocked in MPI_Recv from the dead one) and exit non-zero quickly.
 */
#include "check.h"

#include <signal.h>

int main(int argc, char **argv)
{
    int rank, size, value = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int victim = size > 1 ? 1 : 0;
    if (rank == victim) {
        fprintf(stderr, "crash: rank %d is about to fault\n", rank);
        fflush(stderr);
        raise(SIGSEGV);
        return 0; /* not reached */
    }
    /* Never satisfied: only the victim could send this. */
    MPI_Recv(&value, 1, MPI_INT, victim, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(0, "Recv from the crashed rank returned");
    MPI_Finalize();
    return 0;
}
