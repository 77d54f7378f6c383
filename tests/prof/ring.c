/* A ring: ITERS rounds, each rank sends (1 + rank) ints to rank+1 and receives
 * from rank-1.  The trace must hold exactly these sends (check_trace ring). */
#include <mpi.h>
#include <stdio.h>

#define ITERS 50

int main(int argc, char **argv)
{
    int rank, size, buf[64] = {0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    for (int i = 0; i < ITERS; i++) {
        if (rank == 0) {
            MPI_Send(buf, 1 + rank, MPI_INT, next, 10 + i, MPI_COMM_WORLD);
            MPI_Recv(buf, 64, MPI_INT, prev, 10 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, 64, MPI_INT, prev, 10 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, 1 + rank, MPI_INT, next, 10 + i, MPI_COMM_WORLD);
        }
    }
    MPI_Finalize();
    return 0;
}
