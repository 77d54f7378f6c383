/*
 * test_report_comms.c -- traffic on derived communicators, for
 * test_report_mpi_ring.sh: ranks number their communicators independently, so
 * coreprof must identify them by members to match and to draw the matrices.
 *
 * 4 ranks.  half = split by parity ({0,2}, {1,3}); dup = dup of world.
 * 5 rounds: half-rank 0 sends 10 B to half-rank 1 on `half` (0->2, 1->3), and
 * rank 0 sends 77 B to rank 3 on `dup` with the same tag, received with
 * MPI_ANY_SOURCE.  Then Bcast of 100 B on `half` from half-rank 0.
 * Expected p2p bytes: [0][2] = 50, [1][3] = 50, [0][3] = 385; 15 messages;
 * collective bytes: [0][2] = 100, [1][3] = 100.
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, hr;
    static char b[1000];
    MPI_Comm half, dup;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_rank(half, &hr);
    for (int i = 0; i < 5; i++) {
        if (hr == 0) MPI_Send(b, 10, MPI_BYTE, 1, 3, half);
        else MPI_Recv(b, sizeof b, MPI_BYTE, 0, 3, half, MPI_STATUS_IGNORE);
        if (rank == 0) MPI_Send(b, 77, MPI_BYTE, 3, 3, dup);
        if (rank == 3) MPI_Recv(b, sizeof b, MPI_BYTE, MPI_ANY_SOURCE, 3, dup, MPI_STATUS_IGNORE);
    }
    MPI_Bcast(b, 100, MPI_BYTE, 0, half);
    MPI_Comm_free(&half);
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
