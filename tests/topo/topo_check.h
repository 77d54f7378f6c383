/*
 * topo_check.h -- the assertion of the topology tests.
 *
 * A failed CHECK prints "rank R: file:line: message" and ends the job with
 * MPI_Abort, so one failing rank never leaves the others waiting.  Standard
 * API only: the same programs run under Open MPI to validate the tests.
 */
#ifndef COREMPI_TESTS_TOPO_CHECK_H
#define COREMPI_TESTS_TOPO_CHECK_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline int topo_world_rank(void)
{
    int initialized = 0, finalized = 0, rank = -1;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized)
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

#define CHECK(cond, ...)                                                               \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "rank %d: %s:%d: ", topo_world_rank(), __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                                              \
            fprintf(stderr, "\n");                                                     \
            fflush(stderr);                                                            \
            MPI_Abort(MPI_COMM_WORLD, 1);                                              \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

/* An MPI call that must succeed. */
#define OK(call)                                                                       \
    do {                                                                               \
        int ok_rc_ = (call);                                                           \
        CHECK(ok_rc_ == MPI_SUCCESS, "%s returned %d", #call, ok_rc_);                 \
    } while (0)

/* Every rank reached the end: rank 0 says so once. */
static inline void topo_pass(const char *name)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (topo_world_rank() == 0)
        printf("%s: PASS\n", name);
}

#endif
