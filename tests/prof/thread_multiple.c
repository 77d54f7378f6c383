/* MPI_THREAD_MULTIPLE: 3 threads per rank, each on its own communicator, make
 * a known number of sends, receives and allreduces at the same time.  Every
 * call must reach the trace, in the buffer of its thread (check_trace
 * thread_multiple; the runner checks the report's counts).  The threads are
 * joined before MPI_Finalize: their records must outlive them.
 * Run with 2 ranks; argument: ITERS (default 4000, which check_trace
 * expects; with the runner's 16 KB halves each thread hands over ~25). */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NTHREADS 3

static int rank, iters;
static MPI_Comm comms[NTHREADS];

static void *worker(void *arg)
{
    MPI_Comm c = comms[(int)(long)arg];
    int peer = 1 - rank, buf = 0, sum = 0;
    for (int i = 0; i < iters; i++) {
        /* iters sends and iters receives per thread and rank */
        if (rank == 0) {
            MPI_Send(&i, 1, MPI_INT, peer, 7, c);
            MPI_Recv(&buf, 1, MPI_INT, peer, 7, c, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&buf, 1, MPI_INT, peer, 7, c, MPI_STATUS_IGNORE);
            MPI_Send(&buf, 1, MPI_INT, peer, 7, c);
        }
        if (i % 4 == 0) MPI_Allreduce(&i, &sum, 1, MPI_INT, MPI_SUM, c);   /* iters/4 rounded up */
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    iters = argc > 1 ? atoi(argv[1]) : 4000;
    if (rank == 0)
        printf("provided=%d multiple=%d iters=%d threads=%d\n", provided, provided == MPI_THREAD_MULTIPLE,
               iters, NTHREADS);
    if (provided != MPI_THREAD_MULTIPLE || size != 2) {
        MPI_Finalize();
        return 0;
    }
    for (int t = 0; t < NTHREADS; t++) MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
    pthread_t th[NTHREADS];
    for (int t = 0; t < NTHREADS; t++) pthread_create(&th[t], NULL, worker, (void *)(long)t);
    for (int t = 0; t < NTHREADS; t++) pthread_join(th[t], NULL);
    for (int t = 0; t < NTHREADS; t++) MPI_Comm_free(&comms[t]);
    MPI_Finalize();
    return 0;
}
