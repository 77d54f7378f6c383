/* Every kind of request completion: persistent (Startall + Waitall), Waitsome,
 * Testany, a nonblocking collective, Sendrecv on a duplicated communicator.
 * check_trace requests: every completion pairs with an initiation by request
 * id, every nonblocking initiation completes exactly once. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, a[4] = {0}, b[4] = {0}, flag, idx, out, ind[2];
    MPI_Request r[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;

    MPI_Send_init(a, 2, MPI_INT, next, 1, MPI_COMM_WORLD, &r[0]);
    MPI_Recv_init(b, 2, MPI_INT, prev, 1, MPI_COMM_WORLD, &r[1]);
    for (int i = 0; i < 5; i++) {
        MPI_Startall(2, r);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    }
    MPI_Request_free(&r[0]);
    MPI_Request_free(&r[1]);

    MPI_Irecv(b, 4, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(a, 3, MPI_INT, next, 2, MPI_COMM_WORLD, &r[1]);
    int done = 0;
    while (done < 2) {
        MPI_Waitsome(2, r, &out, ind, MPI_STATUSES_IGNORE);
        if (out != MPI_UNDEFINED) done += out;
    }

    MPI_Irecv(b, 4, MPI_INT, prev, 3, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(a, 1, MPI_INT, next, 3, MPI_COMM_WORLD, &r[1]);
    for (done = 0; done < 2;) {
        MPI_Testany(2, r, &idx, &flag, MPI_STATUS_IGNORE);
        if (flag && idx != MPI_UNDEFINED) done++;
    }

    MPI_Iallreduce(a, b, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[0]);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);

    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Sendrecv(a, 4, MPI_INT, next, 4, b, 4, MPI_INT, prev, 4, dup, MPI_STATUS_IGNORE);
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
