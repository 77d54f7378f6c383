/*
 * comm_storm.c -- create and free many communicators (dup, split, create,
 * create_group) with a message on each, checking sizes, ranks, isolation of
 * contexts (a message on one communicator never matches a receive on another)
 * and that freed context ids are recycled (the loop would run out otherwise).
 *   comm_storm [iterations]   (default 10000)
 */
#include "check.h"
#include <stdlib.h>

static void ring_on(MPI_Comm c, int salt)
{
    int r, n;
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &n);
    int out = r * 1000 + salt, in = -1;
    MPI_Sendrecv(&out, 1, MPI_INT, (r + 1) % n, 3, &in, 1, MPI_INT, (r - 1 + n) % n, 3, c, MPI_STATUS_IGNORE);
    CHECK(in == ((r - 1 + n) % n) * 1000 + salt, "ring on a new communicator got %d", in);
}

int main(int argc, char **argv)
{
    int rank, size;
    check_init(&argc, &argv, &rank, &size);
    int iters = argc > 1 ? atoi(argv[1]) : 10000;

    MPI_Group world_group, evens;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    int ranges[1][3] = { { 0, size - 1, 2 } };
    MPI_Group_range_incl(world_group, 1, ranges, &evens);

    /* A message parked on WORLD must not be taken by receives on the copies. */
    int parked = 4242, got = 0;
    MPI_Request park;
    MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &park);

    for (int i = 0; i < iters; i++) {
        MPI_Comm c = MPI_COMM_NULL;
        switch (i % 4) {
        case 0:
            MPI_Comm_dup(MPI_COMM_WORLD, &c);
            break;
        case 1: {
            MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &c);
            int r, n;
            MPI_Comm_rank(c, &r);
            MPI_Comm_size(c, &n);
            int expect_n = (size + 1 - rank % 2) / 2;
            CHECK(n == expect_n, "split size %d, expected %d", n, expect_n);
            CHECK(r == n - 1 - rank / 2, "split rank %d with reversed keys", r);
            break;
        }
        case 2:
            MPI_Comm_create(MPI_COMM_WORLD, evens, &c);
            CHECK((c != MPI_COMM_NULL) == (rank % 2 == 0), "Comm_create membership");
            break;
        case 3:
            if (rank % 2 == 0)
                MPI_Comm_create_group(MPI_COMM_WORLD, evens, 7, &c);
            break;
        }
        if (c != MPI_COMM_NULL) {
            ring_on(c, i);
            MPI_Comm_free(&c);
            CHECK(c == MPI_COMM_NULL, "Comm_free did not reset the handle");
        }
    }
    int flag;
    MPI_Test(&park, &flag, MPI_STATUS_IGNORE);
    CHECK(!flag, "a message on another communicator matched a receive on WORLD");
    MPI_Send(&parked, 1, MPI_INT, rank, 0, MPI_COMM_WORLD);
    MPI_Wait(&park, MPI_STATUS_IGNORE);
    CHECK(got == parked, "parked receive got %d", got);

    /* Compare and split with MPI_UNDEFINED. */
    MPI_Comm d, none;
    int res;
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    MPI_Comm_compare(MPI_COMM_WORLD, d, &res);
    CHECK(res == MPI_CONGRUENT, "compare WORLD with its dup: %d", res);
    MPI_Comm_compare(d, d, &res);
    CHECK(res == MPI_IDENT, "compare a communicator with itself: %d", res);
    MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 1, 0, &none);
    CHECK((none == MPI_COMM_NULL) == (rank == 0), "split with MPI_UNDEFINED");
    if (none != MPI_COMM_NULL) {
        MPI_Comm_compare(MPI_COMM_WORLD, none, &res);
        CHECK(res == MPI_UNEQUAL, "compare with a smaller communicator: %d", res);
        MPI_Comm_free(&none);
    }
    MPI_Comm_free(&d);
    MPI_Group_free(&evens);
    MPI_Group_free(&world_group);
    MPI_Finalize();
    return 0;
}
