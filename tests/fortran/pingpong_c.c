/* pingpong_c.c -- the C half of f08_pingpong.f90: the same 8-byte
 * ping-pong from C, so that both run in one job on the same pair of cores. */
#include <mpi.h>

/* Called from Fortran: iters round trips between ranks 0 and 1; the time. */
double cm_c_pingpong_(const int *iters)
{
    int rank;
    double buf = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < *iters; i++) {
        if (rank == 0) {
            MPI_Send(&buf, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(&buf, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(&buf, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&buf, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
        }
    }
    return MPI_Wtime() - t0;
}

/* The binding's own cost without the noise of a peer: iters calls of
 * MPI_Comm_rank (the cheapest call with a handle in and an int out). */
double cm_c_rank_loop_(const int *iters)
{
    int rank = 0;
    double t0 = MPI_Wtime();
    for (int i = 0; i < *iters; i++)
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return MPI_Wtime() - t0;
}

/* A call with a choice buffer, without a peer: iters sends of 8 bytes to
 * MPI_PROC_NULL. */
double cm_c_procnull_loop_(const int *iters)
{
    double buf = 0;
    double t0 = MPI_Wtime();
    for (int i = 0; i < *iters; i++)
        MPI_Send(&buf, 1, MPI_DOUBLE, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    return MPI_Wtime() - t0;
}
