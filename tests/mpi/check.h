/*
 * check.h -- the one assertion of the MPI-level tests.
 *
 * A failed CHECK prints "rank R: file:line: message" on stderr and ends the
 * whole job with MPI_Abort, so a failure in one rank can never leave the
 * others hanging and always turns into a non-zero exit status of mpirun.
 * Written against the standard API only, so the same tests run under Open MPI
 * and MPICH to validate the tests themselves.
 */
#ifndef COREMPI_TESTS_CHECK_H
#define COREMPI_TESTS_CHECK_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The world rank if MPI is usable, else -1 (a CHECK may fire before Init). */
static inline int check_world_rank(void)
{
    int initialized = 0, finalized = 0, rank = -1;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized)
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

static inline void check_fail_end(void)
{
    int initialized = 0, finalized = 0;
    fflush(stderr);
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized)
        MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "rank %d: %s:%d: ", check_world_rank(), __FILE__,  \
                    __LINE__);                                                  \
            fprintf(stderr, __VA_ARGS__);                                       \
            fprintf(stderr, "\n");                                              \
            check_fail_end();                                                   \
        }                                                                       \
    } while (0)

/* An MPI call that must succeed; names the call and the error on failure. */
#define CHECK_MPI(call)                                                         \
    do {                                                                        \
        int check_rc_ = (call);                                                 \
        if (check_rc_ != MPI_SUCCESS) {                                         \
            char check_msg_[MPI_MAX_ERROR_STRING] = "";                         \
            int check_len_ = 0;                                                 \
            MPI_Error_string(check_rc_, check_msg_, &check_len_);               \
            CHECK(0, "%s returned %d (%s)", #call, check_rc_, check_msg_);      \
        }                                                                       \
    } while (0)

#endif
