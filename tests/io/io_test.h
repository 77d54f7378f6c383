/*
 * io_test.h -- what the MPI-IO tests share: the failure counter and its
 * CHECK, the per-run directory (mkdtemp under /tmp, made by rank 0, removed
 * by the test), and the group's verdict.
 */
#ifndef IO_TEST_H
#define IO_TEST_H

#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>

static int rank, failures;

#define CHECK(c, ...)                                                                        \
    do {                                                                                     \
        if (!(c)) {                                                                          \
            printf("FAIL rank %d line %d: ", rank, __LINE__);                                \
            printf(__VA_ARGS__);                                                             \
            printf("\n");                                                                    \
            failures++;                                                                      \
        }                                                                                    \
    } while (0)

/* dir holds a template "/tmp/...XXXXXX"; every rank gets rank 0's name. */
static inline void io_test_dir(char *dir, int len)
{
    if (rank == 0 && !mkdtemp(dir)) {
        perror("mkdtemp");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Bcast(dir, len, MPI_CHAR, 0, MPI_COMM_WORLD);
}

/* A test's start: MPI_Init, rank, and the per-run directory (io_test_dir). */
static inline void io_test_init(int *argc, char ***argv, char *dir, int len)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    io_test_dir(dir, len);
}

/* The failures of every rank, summed; rank 0 prints the verdict. */
static inline int io_test_verdict(const char *name)
{
    int all;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        if (all)
            printf("%s: %d failures\n", name, all);
        else
            printf("%s: OK\n", name);
    }
    return all;
}

#endif
