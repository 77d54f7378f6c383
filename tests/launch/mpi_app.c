/* mpi_app.c -- a real MPI program (corempi's library) for the launcher's
 * end-to-end tests:
 *   mpi_app hello           print "hello R/N" and finalize
 *   mpi_app abort R C       rank R calls MPI_Abort(C); the others wait in MPI_Recv
 *   mpi_app kill-in-recv    rank 0 waits in MPI_Recv; rank 1 kills it with SIGSEGV
 *   mpi_app noexit R S      rank R sends one message, then exit(S) without MPI_Finalize
 *   mpi_app deadlock        every rank receives from the next one, tag 5: a cycle
 *   mpi_app bad-dest        rank 0 sends to a rank that does not exist
 *   mpi_app appnum [WORDS]  print "appnum R/N A WORDS" (A: the MPI_APPNUM attribute) */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, x = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "hello";
    int who = argc > 2 ? atoi(argv[2]) : 0;
    int arg = argc > 3 ? atoi(argv[3]) : 1;
    printf("pid %d\n", (int)getpid());
    fflush(stdout);

    if (strcmp(mode, "hello") == 0) {
        printf("hello %d/%d\n", rank, size);
    } else if (strcmp(mode, "appnum") == 0) {
        int *appnum = NULL, flag = 0;
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag);
        printf("appnum %d/%d %d", rank, size, flag ? *appnum : -1);
        for (int i = 2; i < argc; i++)
            printf(" %s", argv[i]);
        printf("\n");
    } else if (strcmp(mode, "abort") == 0) {
        if (rank == who)
            MPI_Abort(MPI_COMM_WORLD, arg);
        MPI_Recv(&x, 1, MPI_INT, who, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "kill-in-recv") == 0) {
        int pid0 = (int)getpid();
        MPI_Bcast(&pid0, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (rank == 1) {
            sleep(1); /* let rank 0 settle in MPI_Recv */
            kill(pid0, SIGSEGV);
        }
        MPI_Recv(&x, 1, MPI_INT, (rank + 1) % size, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "noexit") == 0) {
        if (rank == who) {
            MPI_Send(&x, 1, MPI_INT, (rank + 1) % size, 3, MPI_COMM_WORLD);
            exit(arg);
        }
        MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (strcmp(mode, "deadlock") == 0) {
        MPI_Recv(&x, 1, MPI_INT, (rank + 1) % size, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "coll-deadlock") == 0) {
        /* Rank `who` waits for a message nobody sends; the others wait in an
         * allreduce (forced to a p2p algorithm by the test, or the shm one). */
        int y = 0;
        if (rank == who)
            MPI_Recv(&x, 1, MPI_INT, (rank + 1) % size, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    } else if (strcmp(mode, "bad-dest") == 0) {
        if (rank == 0)
            MPI_Send(&x, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD);
        MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
