/*
 * topo_check.h -- the assertions of the topology tests: CHECK of the
 * MPI-level tests (tests/mpi/check.h), OK for a call that must succeed, and
 * the start and end the tests share.
 *
 * A failed CHECK prints "rank R: file:line: message" and ends the job with
 * MPI_Abort, so one failing rank never leaves the others waiting.  Standard
 * API only: the same programs run under Open MPI to validate the tests.
 */
#ifndef COREMPI_TESTS_TOPO_CHECK_H
#define COREMPI_TESTS_TOPO_CHECK_H

#include "../mpi/check.h"

/* An MPI call that must succeed. */
#define OK(call) CHECK_MPI(call)

/* MPI_Init, and errors returned rather than fatal: those of calls on a
 * communicator and those of calls without one (MPI_COMM_SELF's handler). */
static inline void topo_init_returning(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
}

/* The class of an error code. */
static inline int topo_error_class(int rc)
{
    int cls;
    MPI_Error_class(rc, &cls);
    return cls;
}

/* Every rank reached the end: rank 0 says so once. */
static inline void topo_pass(const char *name)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (check_world_rank() == 0)
        printf("%s: PASS\n", name);
}

#endif
