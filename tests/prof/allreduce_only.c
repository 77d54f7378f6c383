/* Only collectives: ITERS allreduces of 4 doubles on MPI_COMM_WORLD and on a
 * split communicator (odd/even), so the comm table must translate members. */
#include <mpi.h>

#define ITERS 20

int main(int argc, char **argv)
{
    int rank;
    double in[4] = {1, 2, 3, 4}, out[4];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    for (int i = 0; i < ITERS; i++) {
        MPI_Allreduce(in, out, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(in, out, 2, MPI_DOUBLE, MPI_SUM, half);
    }
    MPI_Bcast(in, 4, MPI_DOUBLE, 0, half);   /* root 0 of `half` is world rank 0 or 1 */
    MPI_Comm_free(&half);
    MPI_Finalize();
    return 0;
}
