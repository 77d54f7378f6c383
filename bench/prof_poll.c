/* prof_poll.c -- the polling pattern that made coreprof's traces explode: each
 * rank polls with MPI_Iprobe until a message arrives that its left neighbour
 * sends 0.2 s after the start, then polls an Irecv with MPI_Testall until a
 * second message, again sent 0.2 s later, completes it.  The clock is read with
 * clock_gettime, not MPI_Wtime, so that only the polls are MPI calls (an
 * MPI_Wtime in the loop is a call of its own and ends every fold).
 * Prints the number of polls of each kind per rank.  argv[1]: the delay in
 * seconds instead of 0.2 (a longer run makes a bigger trace). */
#include <stdlib.h>
#include <mpi.h>
#include <stdio.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    int rank, size, flag = 0, x = 1, y = 0;
    MPI_Init(&argc, &argv);
    double delay = argc > 1 ? atof(argv[1]) : 0.2;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    long iprobes = 0, testalls = 0;
    MPI_Request send;

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now();
    int sent = 0;
    while (!flag) {                      /* Iprobe until the message is there */
        if (!sent && now() - t0 >= delay) { MPI_Isend(&x, 1, MPI_INT, next, 1, MPI_COMM_WORLD, &send); sent = 1; }
        MPI_Iprobe(prev, 1, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        iprobes++;
    }
    MPI_Recv(&y, 1, MPI_INT, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    while (!sent) { if (now() - t0 >= delay) { MPI_Isend(&x, 1, MPI_INT, next, 1, MPI_COMM_WORLD, &send); sent = 1; } }
    MPI_Wait(&send, MPI_STATUS_IGNORE);

    MPI_Request recv;
    MPI_Irecv(&y, 1, MPI_INT, prev, 2, MPI_COMM_WORLD, &recv);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = now();
    sent = 0;
    flag = 0;
    while (!flag) {                      /* Testall until the receive completed */
        if (!sent && now() - t0 >= delay) { MPI_Isend(&x, 1, MPI_INT, next, 2, MPI_COMM_WORLD, &send); sent = 1; }
        MPI_Testall(1, &recv, &flag, MPI_STATUSES_IGNORE);
        testalls++;
    }
    while (!sent) { if (now() - t0 >= delay) { MPI_Isend(&x, 1, MPI_INT, next, 2, MPI_COMM_WORLD, &send); sent = 1; } }
    MPI_Wait(&send, MPI_STATUS_IGNORE);
    printf("rank %d: %ld Iprobe, %ld Testall\n", rank, iprobes, testalls);
    MPI_Finalize();
    return 0;
}
