/* What the profiler records as bytes (check_trace bytes), 2 ranks:
 * a probe moves nothing (the receive after it records the message once),
 * Reduce_scatter_block its per-member block, the v-forms the mean per peer of
 * what the rank sends, the large-count (_c) forms count x type size. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, data[10] = {0}, got[10];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        for (int tag = 1; tag <= 4; tag++)
            MPI_Send(data, 10, MPI_INT, 1, tag, MPI_COMM_WORLD);   /* 40 bytes each */
    } else {
        MPI_Status st;
        int flag = 0;
        MPI_Message msg;
        MPI_Probe(0, 1, MPI_COMM_WORLD, &st);
        MPI_Recv(got, 10, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        while (!flag)
            MPI_Iprobe(0, 2, MPI_COMM_WORLD, &flag, &st);
        MPI_Recv(got, 10, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Mprobe(0, 3, MPI_COMM_WORLD, &msg, &st);
        MPI_Mrecv(got, 10, MPI_INT, &msg, MPI_STATUS_IGNORE);
        for (flag = 0; !flag;)
            MPI_Improbe(0, 4, MPI_COMM_WORLD, &flag, &msg, &st);
        MPI_Mrecv(got, 10, MPI_INT, &msg, MPI_STATUS_IGNORE);
    }
    int in[6] = {1, 2, 3, 4, 5, 6}, out[6];
    MPI_Reduce_scatter_block(in, out, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);        /* 12 */
    int rcounts[2] = {2, 4};
    MPI_Reduce_scatter(in, out, rcounts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);         /* 24 / 2 = 12 */
    double dsend[4] = {0}, drecv[8];
    int scounts[2] = {1, 3}, sdispls[2] = {0, 1}, rc2[2], rd2[2];
    rc2[0] = rank == 0 ? 1 : 3;    /* rank r receives scounts[r] from each */
    rc2[1] = rc2[0];
    rd2[0] = 0;
    rd2[1] = rc2[0];
    MPI_Alltoallv(dsend, scounts, sdispls, MPI_DOUBLE, drecv, rc2, rd2, MPI_DOUBLE, MPI_COMM_WORLD); /* 32 / 2 = 16 */
    int wcounts[2] = {1, 1}, wdispls[2] = {0, 8};
    MPI_Datatype wtypes[2] = {MPI_INT, MPI_DOUBLE};
    int wrc[2] = {1, 1};
    MPI_Datatype wrt[2];
    wrt[0] = wrt[1] = rank == 0 ? MPI_INT : MPI_DOUBLE;
    MPI_Alltoallw(dsend, wcounts, wdispls, wtypes, drecv, wrc, wdispls, wrt, MPI_COMM_WORLD);   /* 12 / 2 = 6 */
#if MPI_VERSION >= 4
    MPI_Allreduce_c(dsend, drecv, (MPI_Count)3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);   /* 24 */
    MPI_Reduce_scatter_block_c(in, out, (MPI_Count)2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);   /* 8 */
#endif
    MPI_Finalize();
    return 0;
}
