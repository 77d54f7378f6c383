/*
 * fatal.c -- the default error handler (MPI_ERRORS_ARE_FATAL) ends the job.
 *
 * One rank sends to rank 4242, which no test job has; the others wait for it.
 * Run through expect_fail.sh: exit status non-zero, and stderr carries one
 * line naming the call (MPI_Send), the rank and the bad argument.
 */
#include "check.h"

#define BAD_RANK 4242

int main(int argc, char **argv)
{
    int rank, size, value = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size < BAD_RANK, "job too large for this test");
    int offender = size > 1 ? 1 : 0;
    if (rank == offender) {
        MPI_Send(&value, 1, MPI_INT, BAD_RANK, 5, MPI_COMM_WORLD);
        fprintf(stderr, "fatal: MPI_Send to an invalid rank returned under ERRORS_ARE_FATAL\n");
        return 0; /* exit 0 without Finalize: the launcher must still fail the job */
    }
    MPI_Recv(&value, 1, MPI_INT, offender, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(0, "Recv from the offending rank returned");
    MPI_Finalize();
    return 0;
}
