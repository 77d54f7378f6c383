/* nbc_instr.c COLL MODE BYTES N -- N calls of collective COLL (barrier, bcast,
 * allreduce, reduce, allgather, alltoall) of BYTES bytes per rank's block on
 * MPI_COMM_WORLD: MODE 0 the blocking call, 1 MPI_I<coll> + MPI_Wait.  For
 * counting instructions per call with callgrind (bench/iallreduce_instr.sh);
 * rank 0 also prints the wall time per call (a rough figure: one run). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BARRIER, BCAST, ALLREDUCE, REDUCE, ALLGATHER, ALLTOALL };
static const char *names[] = { "barrier", "bcast", "allreduce", "reduce", "allgather", "alltoall" };

static void one(int coll, int nb, char *x, char *y, int bytes)
{
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Request r = MPI_REQUEST_NULL;
    int n = bytes / 8 ? bytes / 8 : 1;
    if (coll == BARRIER)
        nb ? MPI_Ibarrier(w, &r) : MPI_Barrier(w);
    else if (coll == BCAST)
        nb ? MPI_Ibcast(x, bytes, MPI_BYTE, 0, w, &r) : MPI_Bcast(x, bytes, MPI_BYTE, 0, w);
    else if (coll == ALLREDUCE)
        nb ? MPI_Iallreduce(x, y, n, MPI_DOUBLE, MPI_SUM, w, &r) : MPI_Allreduce(x, y, n, MPI_DOUBLE, MPI_SUM, w);
    else if (coll == REDUCE)
        nb ? MPI_Ireduce(x, y, n, MPI_DOUBLE, MPI_SUM, 0, w, &r) : MPI_Reduce(x, y, n, MPI_DOUBLE, MPI_SUM, 0, w);
    else if (coll == ALLGATHER)
        nb ? MPI_Iallgather(x, bytes, MPI_BYTE, y, bytes, MPI_BYTE, w, &r)
           : MPI_Allgather(x, bytes, MPI_BYTE, y, bytes, MPI_BYTE, w);
    else if (coll == ALLTOALL)
        nb ? MPI_Ialltoall(x, bytes, MPI_BYTE, y, bytes, MPI_BYTE, w, &r)
           : MPI_Alltoall(x, bytes, MPI_BYTE, y, bytes, MPI_BYTE, w);
    if (nb)
        MPI_Wait(&r, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 5) {
        fprintf(stderr, "usage: nbc_instr COLL MODE BYTES N\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int coll = 0;
    while (coll < 6 && strcmp(names[coll], argv[1]))
        coll++;
    int size, mode = atoi(argv[2]), bytes = atoi(argv[3]), n = atoi(argv[4]);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char *x = calloc((size_t)size, (size_t)bytes + 8), *y = calloc((size_t)size, (size_t)bytes + 8);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < n; i++) {
        x[0] = (char)i;
        one(coll, mode, x, y, bytes);
    }
    double t = MPI_Wtime() - t0;
    if (MPI_Comm_rank(MPI_COMM_WORLD, &size) == MPI_SUCCESS && size == 0)
        printf("nbc_instr %s %s %d B: %.3f us per call\n", argv[1], mode ? "nonblocking+wait" : "blocking", bytes,
               t * 1e6 / (n ? n : 1));
    if (y[0] == 42)
        printf("%d\n", y[0]);
    free(x);
    free(y);
    MPI_Finalize();
    return 0;
}
