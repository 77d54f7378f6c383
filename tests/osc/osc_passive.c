/*
 * osc_passive.c -- passive target on user memory while the target sits in
 * another MPI call.  Without single copy (COREMPI_SINGLE_COPY=0, ctest
 * osc.passive.nocma.*) corempi's origins send their operations as messages that the
 * target applies inside its own progress (docs/osc.md, "Without single
 * copy"); this program checks that a target blocked in MPI_Recv, in
 * MPI_Barrier and in MPI_Win_fence's neighbour call (MPI_Allreduce) serves
 * them: rank 0 locks every other rank in turn and does Put (vector target
 * type, more bytes than one message holds), Get, Accumulate, Get_accumulate,
 * Fetch_and_op and Compare_and_swap on a Win_create window and on a dynamic
 * window, checks what came back, and only then releases the targets, which
 * check their memory.
 *
 * With the corempi performance variable osc_am_ops (operations sent as
 * messages) the test also checks which path was taken: some operations
 * when COREMPI_SINGLE_COPY=0 is set, none otherwise.  Other MPI libraries
 * lack the variable and skip that check.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "osc_pvar.h"

#define N 6000   /* long longs per rank: a stride-2 Put of N/2 is 24000 bytes */

enum { IN_RECV, IN_BARRIER, IN_ALLREDUCE, NWAYS };
static const char *const way_name[NWAYS] = {"MPI_Recv", "MPI_Barrier", "MPI_Allreduce"};

static long long am_ops(void)
{
    return osc_pvar("osc_am_ops");
}

/* Rank 0's operations on target t of win; base is disp 0 (dynamic: the
 * target's attached address), du the displacement unit. */
static void operate(MPI_Win win, int t, MPI_Aint base, int du, int round)
{
    MPI_Datatype every2;
    CHECK_MPI(MPI_Type_vector(N / 2, 1, 2, MPI_LONG_LONG, &every2));
    CHECK_MPI(MPI_Type_commit(&every2));
    long long *src = malloc(N / 2 * sizeof *src), *back = malloc(N * sizeof *back);
    CHECK(src && back, "malloc");
    for (int i = 0; i < N / 2; i++)
        src[i] = 1000000LL * t + 10 * i + round;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
    /* even elements from src; odd elements stay as the target set them */
    CHECK_MPI(MPI_Put(src, N / 2, MPI_LONG_LONG, t, base, 1, every2, win));
    CHECK_MPI(MPI_Get(back, N, MPI_LONG_LONG, t, base, N, MPI_LONG_LONG, win));
    for (int i = 0; i < N; i++) {
        long long want = i % 2 ? -(long long)i : src[i / 2];
        CHECK(back[i] == want, "round %d target %d: element %d is %lld after Put+Get, expected %lld", round, t, i,
              back[i], want);
    }
    /* element 1 (odd, -1): +5 by Accumulate, then Get_accumulate +7 fetches 4 */
    long long five = 5, seven = 7, got = 0, one = 1, old = 0, cmp = 0, nv = 42;
    MPI_Aint d1 = base + (du == 1 ? (MPI_Aint)sizeof(long long) : 1);
    MPI_Aint d3 = base + (du == 1 ? 3 * (MPI_Aint)sizeof(long long) : 3);
    CHECK_MPI(MPI_Accumulate(&five, 1, MPI_LONG_LONG, t, d1, 1, MPI_LONG_LONG, MPI_SUM, win));
    CHECK_MPI(MPI_Get_accumulate(&seven, 1, MPI_LONG_LONG, &got, 1, MPI_LONG_LONG, t, d1, 1, MPI_LONG_LONG, MPI_SUM,
                                 win));
    CHECK(got == 4, "round %d target %d: Get_accumulate fetched %lld, expected 4", round, t, got);
    CHECK_MPI(MPI_Fetch_and_op(&one, &old, MPI_LONG_LONG, t, d1, MPI_SUM, win));
    CHECK(old == 11, "round %d target %d: Fetch_and_op fetched %lld, expected 11", round, t, old);
    /* element 3 is -3: a failing compare leaves it, a matching one swaps */
    CHECK_MPI(MPI_Compare_and_swap(&nv, &cmp, &got, MPI_LONG_LONG, t, d3, win));
    CHECK(got == -3, "round %d target %d: Compare_and_swap fetched %lld, expected -3", round, t, got);
    cmp = -3;
    CHECK_MPI(MPI_Compare_and_swap(&nv, &cmp, &got, MPI_LONG_LONG, t, d3, win));
    CHECK(got == -3, "round %d target %d: Compare_and_swap fetched %lld, expected -3", round, t, got);
    CHECK_MPI(MPI_Win_unlock(t, win));
    CHECK_MPI(MPI_Type_free(&every2));
    free(src);
    free(back);
}

/* The target's check after it was released. */
static void verify(const long long *mem, int me, int round)
{
    for (int i = 0; i < N; i++) {
        long long want = i % 2 ? -(long long)i : 1000000LL * me + 10 * (i / 2) + round;
        if (i == 1)
            want = 12;
        if (i == 3)
            want = 42;
        CHECK(mem[i] == want, "round %d: my element %d is %lld, expected %lld", round, i, mem[i], want);
    }
}

static void reset(long long *mem)
{
    for (int i = 0; i < N; i++)
        mem[i] = -(long long)i;
}

/* One round: rank 0 operates on every target while they wait in `way`. */
static void round_on(MPI_Win win, long long *mem, MPI_Aint *bases, int du, int way, int round, int me, int n)
{
    reset(mem);
    MPI_Barrier(MPI_COMM_WORLD);   /* every target's memory is reset */
    if (me == 0) {
        for (int t = 1; t < n; t++)
            operate(win, t, bases[t], du, round);
    }
    int token = 0, sum = 0;
    switch (way) {
    case IN_RECV:
        if (me == 0)
            for (int t = 1; t < n; t++)
                MPI_Send(&token, 1, MPI_INT, t, 7, MPI_COMM_WORLD);
        else
            MPI_Recv(&token, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        break;
    case IN_BARRIER:
        MPI_Barrier(MPI_COMM_WORLD);
        break;
    default:
        MPI_Allreduce(&token, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        break;
    }
    if (me != 0)
        verify(mem, me, round);
}

int main(int argc, char **argv)
{
    int me, n;
    osc_pvar_start(&argc, &argv, &me, &n);
    long long before = am_ops();

    /* Win_create: displacements in elements */
    long long *mem = malloc(N * sizeof *mem);
    CHECK(mem, "malloc");
    MPI_Win win;
    CHECK_MPI(MPI_Win_create(mem, N * (MPI_Aint)sizeof *mem, (int)sizeof *mem, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Aint *zero = calloc((size_t)n, sizeof *zero);
    CHECK(zero, "calloc");
    for (int way = 0; way < NWAYS; way++)
        round_on(win, mem, zero, (int)sizeof *mem, way, way, me, n);
    CHECK_MPI(MPI_Win_free(&win));

    /* dynamic: absolute addresses */
    MPI_Aint mine, *bases = malloc((size_t)n * sizeof *bases);
    CHECK(bases, "malloc");
    CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_MPI(MPI_Win_attach(win, mem, N * (MPI_Aint)sizeof *mem));
    MPI_Get_address(mem, &mine);
    MPI_Allgather(&mine, 1, MPI_AINT, bases, 1, MPI_AINT, MPI_COMM_WORLD);
    for (int way = 0; way < NWAYS; way++)
        round_on(win, mem, bases, 1, way, 10 + way, me, n);
    CHECK_MPI(MPI_Win_detach(win, mem));
    CHECK_MPI(MPI_Win_free(&win));

    long long after = am_ops();
    if (me == 0 && n > 1 && before >= 0) {
        const char *sc = getenv("COREMPI_SINGLE_COPY");
        if (sc && strcmp(sc, "0") == 0)
            CHECK(after > before, "COREMPI_SINGLE_COPY=0 and no operation went as a message (osc_am_ops %lld)",
                  after);
        else
            CHECK(after == before, "single copy works and %lld operations went as messages", after - before);
    }
    if (me == 0)
        printf("osc_passive: %d ranks, targets served in %s, %s and %s; osc_am_ops %lld\n", n, way_name[0],
               way_name[1], way_name[2], after - before);
    free(zero);
    free(bases);
    free(mem);
    MPI_T_finalize();
    MPI_Finalize();
    return 0;
}
