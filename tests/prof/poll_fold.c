/* Folding of unsuccessful polls (FORMAT.md, CPT_F_FOLDED): a loop of identical
 * polls that find nothing must leave one record that counts them, and the fold
 * must end at any other call, at a change of arguments, at Pcontrol and at a
 * poll that succeeds.  check_trace "fold" knows this sequence for the default
 * argv[1] = 100000 (the first loop; the Testall / Test loops make half / a fifth
 * of it); the summary-mode test runs it with 2000 and 20000. */
#include <mpi.h>
#include <stdlib.h>

static void probes(int n, int tag)
{
    int flag;
    MPI_Status st;
    for (int i = 0; i < n; i++) MPI_Iprobe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &flag, &st);
}

int main(int argc, char **argv)
{
    int rank, flag = 0, x = 0, y = 42;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    int loops = argc > 1 ? atoi(argv[1]) : 100000;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Irecv(&x, 1, MPI_INT, rank, 5, MPI_COMM_WORLD, &req);   /* from itself, sent at the end */
    probes(loops, 7);                /* nobody has sent tag 7: one fold */
    MPI_Comm_rank(MPI_COMM_WORLD, &rank); /* another call ends it */
    probes(10, 7);
    probes(5, 8);                         /* other arguments: a fold of its own */
    probes(7, 9);
    MPI_Pcontrol(1);                      /* ends a fold too */
    probes(7, 9);
    for (int i = 0; i < loops / 2; i++) MPI_Testall(1, &req, &flag, MPI_STATUSES_IGNORE);
    for (int i = 0; i < loops / 5; i++) MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
    MPI_Send(&y, 1, MPI_INT, rank, 7, MPI_COMM_WORLD);          /* to itself: the next probe succeeds */
    MPI_Status st;
    do MPI_Iprobe(MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &flag, &st); while (!flag);
    MPI_Recv(&x, 1, MPI_INT, rank, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    probes(3, 7);
    MPI_Send(&y, 1, MPI_INT, rank, 5, MPI_COMM_WORLD);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
