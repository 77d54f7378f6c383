/*
 * ring_progress -- a rank blocked in a shared-memory collective must still
 * drain the rings towards receives it has posted (MPI-4.1 §3.7.4).
 *
 * Rank 0 posts 4000 receives from rank 1, then blocks in a Bcast rooted at
 * rank 1 before it waits for them.  Rank 1 sends the 4000 messages with
 * blocking sends (each matches a posted receive, so each must complete),
 * then roots the Bcast.  The messages fill the ring from 1 to 0 long before
 * the last send: if rank 0's Bcast does not run the progress engine, rank 1
 * waits for room and rank 0 for the Bcast (2 ranks hung before 2026-11-25).
 * Every message's payload is checked.  Prints "ring_progress ok".
 */
#include <mpi.h>
#include <stdio.h>

#include "../test_end.h"

#define M 4000
#define W 64

static int buf[M][W];

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Request q[M];
    for (int round = 0; round < 3 && size > 1; round++) {
        int v = -1;
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            for (int i = 0; i < M; i++)
                MPI_Irecv(buf[i], W, MPI_INT, 1, i, MPI_COMM_WORLD, &q[i]);
            MPI_Bcast(&v, 1, MPI_INT, 1, MPI_COMM_WORLD);
            MPI_Waitall(M, q, MPI_STATUSES_IGNORE);
            for (int i = 0; i < M; i++)
                for (int j = 0; j < W; j++)
                    if (buf[i][j] != round * 1000003 + i * W + j && bad++ < 5)
                        fprintf(stderr, "ring_progress: message %d word %d: %d\n", i, j, buf[i][j]);
        } else if (rank == 1) {
            for (int i = 0; i < M; i++) {
                for (int j = 0; j < W; j++)
                    buf[i][j] = round * 1000003 + i * W + j;
                MPI_Send(buf[i], W, MPI_INT, 0, i, MPI_COMM_WORLD);
            }
            v = round;
            MPI_Bcast(&v, 1, MPI_INT, 1, MPI_COMM_WORLD);
        } else {
            MPI_Bcast(&v, 1, MPI_INT, 1, MPI_COMM_WORLD);
        }
        if (v != round && bad++ < 5)
            fprintf(stderr, "ring_progress: rank %d: bcast gave %d\n", rank, v);
    }
    return test_end("ring_progress", bad);
}
