/*
 * test_report_ring.c -- the MPI program behind test_report_mpi_ring.sh: a ring
 * with known traffic, for any MPI (corempi, Open MPI, MPICH) with libcoreprof.
 *
 * ITERS rounds; in each, rank r sends 100*(r+1) bytes to r+1 (tag 5):
 *   even rounds: Irecv(ANY_SOURCE, ANY_TAG) + Isend + Waitall   (wildcards resolved at completion)
 *   odd rounds:  Sendrecv
 * then one Allreduce and a Barrier.  So the p2p matrix must hold exactly
 * [r][r+1 mod N] = ITERS * 100*(r+1) bytes in ITERS messages, nothing else.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define ITERS 20

static __attribute__((noinline)) void round_nonblocking(char *sb, char *rb, int n, int next, MPI_Comm c)
{
    MPI_Request r[2];
    MPI_Status st[2];
    MPI_Irecv(rb, 4096, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, c, &r[0]);
    MPI_Isend(sb, n, MPI_BYTE, next, 5, c, &r[1]);
    MPI_Waitall(2, r, st);
}

int main(int argc, char **argv)
{
    int rank, size;
    static char sb[4096], rb[4096];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int n = 100 * (rank + 1);
    memset(sb, rank, sizeof sb);
    for (int i = 0; i < ITERS; i++) {
        if (i % 2 == 0)
            round_nonblocking(sb, rb, n, next, MPI_COMM_WORLD);
        else
            MPI_Sendrecv(sb, n, MPI_BYTE, next, 5, rb, 4096, MPI_BYTE, prev, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    double x = rank, y = 0;
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
