/*
 * part_freed_comm.c -- a partitioned receive freed before any send matched
 * it, on a communicator then freed: the communicators made afterwards (which
 * may reuse its handle and its contexts) match their own partitioned pairs,
 * untouched by the freed one.  Rank 1 receives from rank 0.
 *
 *   same_tag   the new pair has the freed receive's tag
 *   other_tag  the new pair has another tag
 *   live       a pair whose communicator is freed right after the inits:
 *              the requests still work (MPI-4.1 7.4.3: the communicator
 *              goes when nothing refers to it any more)
 */
#include "check.h"

#define N 4

static void pair_on_new_comm(int rank, int tag)
{
    MPI_Comm a, b;
    MPI_Request r;
    int in[N], out[N];
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    if (rank == 1) {   /* never matched: no Psend_init on a */
        CHECK_MPI(MPI_Precv_init(in, 1, N, MPI_INT, 0, 7, a, MPI_INFO_NULL, &r));
        CHECK_MPI(MPI_Request_free(&r));
    }
    CHECK_MPI(MPI_Comm_free(&a));
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &b));
    for (int i = 0; i < N; i++) {
        out[i] = 100 + i;
        in[i] = -1;
    }
    if (rank == 0)
        CHECK_MPI(MPI_Psend_init(out, 1, N, MPI_INT, 1, tag, b, MPI_INFO_NULL, &r));
    else if (rank == 1)
        CHECK_MPI(MPI_Precv_init(in, 1, N, MPI_INT, 0, tag, b, MPI_INFO_NULL, &r));
    if (rank <= 1) {
        CHECK_MPI(MPI_Start(&r));
        if (rank == 0)
            CHECK_MPI(MPI_Pready(0, r));
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Request_free(&r));
    }
    for (int i = 0; rank == 1 && i < N; i++)
        CHECK(in[i] == 100 + i, "tag %d: element %d is %d, not %d", tag, i, in[i], 100 + i);
    CHECK_MPI(MPI_Comm_free(&b));
}

static void live(int rank)
{
    MPI_Comm c;
    MPI_Request r;
    int in[N], out[N];
    for (int i = 0; i < N; i++) {
        out[i] = 200 + i;
        in[i] = -1;
    }
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    if (rank == 0)
        CHECK_MPI(MPI_Psend_init(out, 1, N, MPI_INT, 1, 9, c, MPI_INFO_NULL, &r));
    else if (rank == 1)
        CHECK_MPI(MPI_Precv_init(in, 1, N, MPI_INT, 0, 9, c, MPI_INFO_NULL, &r));
    CHECK_MPI(MPI_Comm_free(&c));
    for (int round = 0; rank <= 1 && round < 2; round++) {
        CHECK_MPI(MPI_Start(&r));
        if (rank == 0)
            CHECK_MPI(MPI_Pready(0, r));
        for (int flag = 0; rank == 1 && !flag;)
            CHECK_MPI(MPI_Parrived(r, 0, &flag));
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    }
    if (rank <= 1)
        CHECK_MPI(MPI_Request_free(&r));
    for (int i = 0; rank == 1 && i < N; i++)
        CHECK(in[i] == 200 + i, "live: element %d is %d, not %d", i, in[i], 200 + i);
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *which = argc > 1 ? argv[1] : "same_tag";
    if (!strcmp(which, "live"))
        live(rank);
    else
        pair_on_new_comm(rank, strcmp(which, "other_tag") ? 7 : 8);
    if (rank == 0)
        printf("part_freed_comm %s: ok\n", which);
    MPI_Finalize();
    return 0;
}
