/*
 * seeded.h -- the start of a randomized test: MPI_Init, errors returned on
 * WORLD and SELF, the seed from argv[1], else the environment variable env,
 * else the time, and the iterations from argv[2] (else dflt).  The caller
 * prints the seed so that a failure can be rerun.
 */
#ifndef SEEDED_H
#define SEEDED_H

#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static uint64_t seeded_start(int *argc, char ***argv, const char *env, long dflt, long *iters, int *rank)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    const char *e = getenv(env);
    *iters = *argc > 2 ? atol((*argv)[2]) : dflt;
    return *argc > 1 ? strtoull((*argv)[1], NULL, 0) : e ? strtoull(e, NULL, 0) : (uint64_t)time(NULL);
}

#endif
