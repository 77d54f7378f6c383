/*
 * p2p_truncate_fatal.c -- a truncated receive under the default error handler.
 *
 * usage: p2p_truncate_fatal BYTES recv|irecv|bcast
 * Rank 0 sends BYTES bytes with tag 7; rank 1 receives them into 20 bytes
 * (MPI_Recv, or MPI_Irecv + MPI_Wait).  Run through expect_fail.sh: the job
 * fails, and its one line gives the size that was sent, the sender and the
 * buffer's size, as in
 *   corempi: MPI_Recv on rank 1: message truncated: 4194304 bytes from rank 0
 *   (tag 7) do not fit a receive buffer of 20 bytes
 * bcast: the same sizes in an MPI_Bcast from rank 0 (run it with a
 * point-to-point algorithm, COREMPI_BCAST=binomial_ordered): the line names
 * MPI_Bcast, the call the user made, not the receive inside it, and reads
 * as the collectives' size mismatch ("message size differs across ranks").
 */
#include "check.h"

#define ROOM 20

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(argc == 3 && size == 2, "usage: mpirun -n 2 p2p_truncate_fatal BYTES recv|irecv|bcast");
    int bytes = atoi(argv[1]);
    int nonblocking = strcmp(argv[2], "irecv") == 0;
    char *buf = calloc((size_t)bytes + ROOM, 1);
    CHECK(buf != NULL, "out of memory");
    if (strcmp(argv[2], "bcast") == 0) {
        MPI_Bcast(buf, rank == 0 ? bytes : ROOM, MPI_BYTE, 0, MPI_COMM_WORLD);
        CHECK(rank == 0, "MPI_Bcast of a truncated message returned under MPI_ERRORS_ARE_FATAL");
    } else if (rank == 0) {
        MPI_Send(buf, bytes, MPI_BYTE, 1, 7, MPI_COMM_WORLD);
    } else if (nonblocking) {
        MPI_Request req;
        MPI_Irecv(buf, ROOM, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        CHECK(0, "MPI_Wait of a truncated receive returned under MPI_ERRORS_ARE_FATAL");
    } else {
        MPI_Recv(buf, ROOM, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(0, "MPI_Recv of a truncated receive returned under MPI_ERRORS_ARE_FATAL");
    }
    /* Rank 0 waits here for a rank that has ended the job. */
    MPI_Barrier(MPI_COMM_WORLD);
    free(buf);
    MPI_Finalize();
    return 0;
}
