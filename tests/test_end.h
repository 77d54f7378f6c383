/*
 * test_end.h -- the end the self-checking MPI tests share: each rank counted
 * its failed checks; the job's sum decides.  Rank 0 prints "NAME ok" or
 * "NAME FAILED (N failed checks)".
 */
#ifndef COREMPI_TESTS_TEST_END_H
#define COREMPI_TESTS_TEST_END_H

#include <mpi.h>
#include <stdio.h>

/* Sums failed over MPI_COMM_WORLD, reports, calls MPI_Finalize; returns
 * main's exit status (0 when no rank failed). */
static inline int test_end(const char *name, int failed)
{
    int all = 0, rank;
    MPI_Allreduce(&failed, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        if (all)
            printf("%s FAILED (%d failed checks)\n", name, all);
        else
            printf("%s ok\n", name);
    }
    MPI_Finalize();
    return all != 0;
}

#endif
