/* Nonblocking with MPI_ANY_SOURCE: rank 0 posts size-1 Irecvs from ANY_SOURCE;
 * rank r sends 8*r bytes with Isend.  Completion records must carry the matched
 * source and size, and pair with their Irecv/Isend by request id. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char buf[1024];
    if (rank == 0) {
        MPI_Request *r = malloc(sizeof *r * (size_t)size);
        for (int i = 1; i < size; i++)
            MPI_Irecv(buf + 64 * i, 64, MPI_BYTE, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &r[i - 1]);
        MPI_Waitall(size - 1, r, MPI_STATUSES_IGNORE);
        free(r);
    } else {
        MPI_Request r;
        MPI_Isend(buf, 8 * rank, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
