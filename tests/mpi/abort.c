/*
 * abort.c -- one rank calls MPI_Abort(MPI_COMM_WORLD, 7) while the others
 * wait for it forever.  Run through expect_fail.sh: the job must end quickly
 * with exit status 7 and leave no rank behind.
 */
#include "check.h"

int main(int argc, char **argv)
{
    int rank, size, value = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int aborter = size > 1 ? 1 : 0;
    if (rank == aborter) {
        MPI_Abort(MPI_COMM_WORLD, 7);
        fprintf(stderr, "abort: MPI_Abort returned\n");
        return 3; /* a wrong status, should we ever get here */
    }
    MPI_Recv(&value, 1, MPI_INT, aborter, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(0, "Recv from the aborting rank returned");
    MPI_Finalize();
    return 0;
}
