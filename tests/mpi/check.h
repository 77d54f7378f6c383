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

/* MPI_Init, then this rank and the size of MPI_COMM_WORLD. */
static inline void check_init(int *argc, char ***argv, int *rank, int *size)
{
    CHECK_MPI(MPI_Init(argc, argv));
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
}

/* The end of a test every rank of which got here (a failed CHECK ends the
 * job first): rank 0 says "NAME: ok (N ranks)", then MPI_Finalize.
 * Returns main's exit status. */
static inline int check_done(const char *name)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0)
        printf("%s: ok (%d ranks)\n", name, size);
    MPI_Finalize();
    return 0;
}

/* A status that carries no message: source `source` (MPI_ANY_SOURCE for an
 * empty status, MPI_PROC_NULL for a call with MPI_PROC_NULL), tag
 * MPI_ANY_TAG, count 0. */
static inline void check_status_empty(const MPI_Status *st, int source, const char *what)
{
    int count = -1;
    CHECK(st->MPI_SOURCE == source && st->MPI_TAG == MPI_ANY_TAG, "%s: status source %d tag %d, expected %s and MPI_ANY_TAG",
          what, st->MPI_SOURCE, st->MPI_TAG, source == MPI_PROC_NULL ? "MPI_PROC_NULL" : "MPI_ANY_SOURCE");
    CHECK_MPI(MPI_Get_count(st, MPI_BYTE, &count));
    CHECK(count == 0, "%s: status count %d, expected 0", what, count);
}

#endif
