/*
 * win_acc.c -- the accumulate family under passive and active target, on
 * user memory (Win_create: the locked path) and shared windows (CPU
 * atomics), checked for atomicity (issue 23 items 2-3).
 *
 * Every rank adds to the same elements of rank 0's window many times, mixing
 * Fetch_and_op, Accumulate and Get_accumulate (SUM on long and double), and
 * takes tickets with Compare_and_swap; the totals must be exact and the
 * tickets distinct.  Then MAX, BXOR, REPLACE, NO_OP, MINLOC (a pair type:
 * always locked) and a strided target type under fence.
 */
#include <stddef.h>
#include "check.h"

#define K 300
#define M 8

static int rank, size;

struct cell {
    long counter;
    long sums[M];
    double dsum;
    long ticket;
    long maxv;
    long bx;
    struct { double v; int i; } loc;
    long strided[2 * M];
};

static void run(MPI_Win win, struct cell *c, const char *kind)
{
    memset(c, 0, sizeof *c);
    c->loc.v = 1e300;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    long one = 1, got, seen_prev = -1;
    long ones[M];
    for (int i = 0; i < M; i++)
        ones[i] = i + 1;
    double half = 0.5;
    for (int k = 0; k < K; k++) {
        MPI_Fetch_and_op(&one, &got, MPI_LONG, 0, offsetof(struct cell, counter), MPI_SUM, win);
        MPI_Win_flush(0, win);
        CHECK(got > seen_prev || k == 0, "%s: fetch_and_op went backwards", kind);
        seen_prev = got;
        if (k % 2)
            MPI_Accumulate(ones, M, MPI_LONG, 0, offsetof(struct cell, sums), M, MPI_LONG, MPI_SUM, win);
        else {
            long old[M];
            MPI_Get_accumulate(ones, M, MPI_LONG, old, M, MPI_LONG, 0, offsetof(struct cell, sums), M, MPI_LONG,
                               MPI_SUM, win);
        }
        MPI_Accumulate(&half, 1, MPI_DOUBLE, 0, offsetof(struct cell, dsum), 1, MPI_DOUBLE, MPI_SUM, win);
    }
    /* tickets: CAS until this rank's increment lands */
    for (int k = 0; k < 10; k++) {
        long cur = 0, res;
        for (;;) {
            long next = cur + 1;
            MPI_Compare_and_swap(&next, &cur, &res, MPI_LONG, 0, offsetof(struct cell, ticket), win);
            MPI_Win_flush(0, win);
            if (res == cur)
                break;
            cur = res;
        }
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        CHECK(c->counter == (long)K * size, "%s: counter %ld, expected %ld", kind, c->counter, (long)K * size);
        for (int i = 0; i < M; i++)
            CHECK(c->sums[i] == (long)(i + 1) * K * size, "%s: sums[%d] = %ld", kind, i, c->sums[i]);
        CHECK(c->dsum == 0.5 * K * size, "%s: dsum %g", kind, c->dsum);
        CHECK(c->ticket == 10L * size, "%s: ticket %ld", kind, c->ticket);
        MPI_Win_unlock(0, win);
    }

    /* other ops under fence */
    MPI_Win_fence(0, win);
    long mine = 100 + rank, bit = 1L << rank, fetched;
    MPI_Accumulate(&mine, 1, MPI_LONG, 0, offsetof(struct cell, maxv), 1, MPI_LONG, MPI_MAX, win);
    MPI_Accumulate(&bit, 1, MPI_LONG, 0, offsetof(struct cell, bx), 1, MPI_LONG, MPI_BXOR, win);
    struct { double v; int i; } loc = { 10.0 - rank, rank };
    MPI_Accumulate(&loc, 1, MPI_DOUBLE_INT, 0, offsetof(struct cell, loc), 1, MPI_DOUBLE_INT, MPI_MINLOC, win);
    MPI_Datatype every_other;
    MPI_Type_vector(M, 1, 2, MPI_LONG, &every_other);
    MPI_Type_commit(&every_other);
    MPI_Accumulate(ones, M, MPI_LONG, 0, offsetof(struct cell, strided), 1, every_other, MPI_SUM, win);
    MPI_Win_fence(0, win);
    if (rank == 0) {
        CHECK(c->maxv == 100 + size - 1, "%s: max %ld", kind, c->maxv);
        CHECK(c->bx == (1L << size) - 1, "%s: bxor %#lx", kind, c->bx);
        CHECK(c->loc.v == 10.0 - (size - 1) && c->loc.i == size - 1, "%s: minloc (%g, %d)", kind, c->loc.v, c->loc.i);
        for (int i = 0; i < 2 * M; i++)
            CHECK(c->strided[i] == (i % 2 ? 0 : (long)(i / 2 + 1) * size), "%s: strided[%d] = %ld", kind, i,
                  c->strided[i]);
    }
    MPI_Win_fence(0, win);
    /* REPLACE then NO_OP reads it back */
    long rep = 7;
    if (rank == size - 1)
        MPI_Accumulate(&rep, 1, MPI_LONG, 0, offsetof(struct cell, maxv), 1, MPI_LONG, MPI_REPLACE, win);
    MPI_Win_fence(0, win);
    MPI_Fetch_and_op(NULL, &fetched, MPI_LONG, 0, offsetof(struct cell, maxv), MPI_NO_OP, win);
    MPI_Win_fence(0, win);
    CHECK(fetched == 7, "%s: NO_OP fetched %ld", kind, fetched);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    MPI_Type_free(&every_other);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    struct cell *c = malloc(sizeof *c);
    MPI_Win win;
    MPI_Win_create(c, sizeof *c, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    run(win, c, "Win_create");
    MPI_Win_free(&win);
    free(c);
    MPI_Win_allocate(sizeof *c, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &c, &win);
    run(win, c, "Win_allocate");
    MPI_Win_free(&win);
    MPI_Win_allocate_shared(sizeof *c, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &c, &win);
    run(win, c, "Win_allocate_shared");
    MPI_Win_free(&win);
    MPI_Finalize();
    if (rank == 0)
        printf("win_acc: %d ranks ok\n", size);
    return 0;
}
