/* late_sender.c -- a known wait pattern for coreprof's wait analysis
 * (tools/coreprof/waits.c): rank 1 computes 300 ms before each of its two
 * sends to rank 0, which waits in MPI_Recv (late sender); rank 2 computes
 * 200 ms and then waits in MPI_Barrier for rank 1, the last to arrive
 * (collective).  waits_test.sh checks the report names rank 1 first, rank
 * 0's late-sender wait, rank 2's barrier wait and rank 1 as the most
 * imbalanced before the barrier. */
#include <mpi.h>
#include <time.h>

static void work(double s)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do /* busy, as a computation is (a sleep would look the same to the trace) */
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) * 1e-9 < s);
}

int main(int argc, char **argv)
{
    int rank, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 2; i++) {
        if (rank == 1) {
            work(0.3);
            MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        } else if (rank == 0) {
            MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
    if (rank == 2)
        work(0.2);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
