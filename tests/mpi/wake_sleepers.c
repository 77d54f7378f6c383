/*
 * wake_sleepers -- every wake-up reaches a sleeping rank.
 *
 * With a core per rank, wakers publish without a fence and a sleeper runs a
 * global memory barrier before its last look (src/shm/wait.h).  A mistake in
 * that handshake does not corrupt anything: the sleeper just stays asleep
 * until its futex times out after 200 ms.  So this test makes ranks fall
 * asleep again and again (the other side pauses past the spin and yield
 * phases before it publishes; the tests run it with COREMPI_SPIN=0, so a
 * waiter yields a few times and sleeps) and fails if any wait took 150 ms or
 * more.
 * Each round, rank 0 waits for one of: a point-to-point message (p2p
 * doorbell), a broadcast from another root (broadcast FIFO: readers sleep),
 * as the root of a reduce, the others' contributions (reduce FIFO: the
 * root sleeps), or the others' arrival at an allreduce (the epoch sync:
 * arrival words, in the meeting line at 2 ranks, or the arrival counter with
 * more ranks than cores).  Prints "wake_sleepers ok" on rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

#define ROUNDS 320
#define STALL 0.150        /* s: far below any scheduling delay, far above a lost wake's 0.2 */

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int stalls = 0, wrong = 0;
    double worst = 0;
    for (int i = 0; i < ROUNDS; i++) {
        int kind = i % 4, v = i, sum = 0;
        /* The waker pauses 1-3 ms: past the waiter's spin and yields, so
         * the waiter is asleep when the data comes. */
        useconds_t pause = 1000 + (useconds_t)(i * 37 % 2000);
        double t0 = MPI_Wtime();
        if (kind == 0) {
            if (rank == 1) {
                usleep(pause);
                MPI_Send(&v, 1, MPI_INT, 0, i, MPI_COMM_WORLD);
            } else if (rank == 0) {
                MPI_Recv(&v, 1, MPI_INT, 1, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                wrong += v != i;
            }
        } else if (kind == 1) {
            int root = size - 1;
            if (rank == root)
                usleep(pause);
            v = rank == root ? i : -1;
            MPI_Bcast(&v, 1, MPI_INT, root, MPI_COMM_WORLD);
            wrong += v != i;
        } else if (kind == 2) {
            if (rank != 0)
                usleep(pause);
            v = i + rank;
            MPI_Reduce(&v, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
            wrong += rank == 0 && sum != size * i + size * (size - 1) / 2;
        } else {
            if (rank != 0)
                usleep(pause);
            v = i + rank;
            MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            wrong += sum != size * i + size * (size - 1) / 2;
        }
        double t = MPI_Wtime() - t0 - (rank == 0 ? 0 : pause * 1e-6);
        if (t > worst)
            worst = t;
        stalls += t >= STALL;
    }
    int totals[2] = { stalls, wrong }, all[2];
    MPI_Allreduce(totals, all, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    double worst_all;
    MPI_Reduce(&worst, &worst_all, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (all[0] || all[1])
            printf("wake_sleepers FAILED: %d waits of %.0f ms or more (a lost wake-up waits out the 200 ms "
                   "futex timeout), %d wrong values; longest wait %.1f ms\n",
                   all[0], STALL * 1e3, all[1], worst_all * 1e3);
        else
            printf("wake_sleepers ok (%d rounds, longest wait %.1f ms)\n", ROUNDS, worst_all * 1e3);
    }
    MPI_Finalize();
    return all[0] || all[1];
}
