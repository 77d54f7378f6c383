/*
 * shm_nbc_nested -- a nonblocking collective on the shared area that starts
 * its protocol while its rank is inside a blocking collective on another
 * communicator (the progress engine runs the queue from there).
 *
 * Rank 0 queues two Ibarriers, an Iallreduce and an Iallgather on a
 * duplicate, then enters a Bcast on WORLD whose root (the last rank) first
 * sleeps and completes its own nonblocking calls.  So rank 0's later operations reach the head
 * of its queue, and start their protocols, only inside the Bcast's wait
 * (its progress runs the queue); the results must be the same.  Rounds
 * repeat with the sleeper's delay varied.  Prints "shm_nbc_nested ok".
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Barrier(dup);                       /* attaches dup's area */
    int root = size - 1;
    for (int round = 0; round < 20; round++) {
        MPI_Request r[4];
        int in = rank + round, sum = -1, msg = rank == root ? round * 7 : -1, all[64];
        MPI_Ibarrier(dup, &r[0]);
        MPI_Ibarrier(dup, &r[1]);
        MPI_Iallreduce(&in, &sum, 1, MPI_INT, MPI_SUM, dup, &r[2]);
        MPI_Iallgather(&in, 1, MPI_INT, all, 1, MPI_INT, dup, &r[3]);
        if (rank == root) {
            usleep(1000 * (unsigned)(round % 5));
            MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
        }
        int rc = MPI_Bcast(&msg, 1, MPI_INT, root, MPI_COMM_WORLD);
        if (rank != root)
            MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
        int want = size * round + size * (size - 1) / 2, gathered = 1;
        for (int i = 0; i < size; i++)
            gathered &= all[i] == i + round;
        if (rc != MPI_SUCCESS || msg != round * 7 || sum != want || !gathered) {
            if (bad++ < 5)
                fprintf(stderr, "rank %d round %d: Bcast rc %d msg %d (want %d) sum %d (want %d)\n", rank, round, rc,
                        msg, round * 7, sum, want);
        }
    }
    int all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_free(&dup);
    if (rank == 0 && all == 0)
        printf("shm_nbc_nested ok\n");
    MPI_Finalize();
    return all != 0;
}
