/*
 * osc_allocmem.c -- MPI_Win_create on MPI_Alloc_mem memory.
 *
 * corempi gives Alloc_mem blocks of a page or more from shared memory, so
 * that a window on them is reached by every rank's own loads and stores
 * (docs/osc.md, "Alloc_mem").  Each rank allocates a block and makes a
 * window on part of it (starting 512 bytes in, not on a page), then: Put to
 * the right neighbour and Get back under fence; every rank Accumulates
 * (SUM) into element 0 of every rank and takes a Fetch_and_op ticket from
 * element 1 (exact totals, every ticket once); Compare_and_swap; and
 * Win_shared_query on the neighbour's memory, a store through it seen by the
 * owner after Win_sync.  A small block (64 bytes) gives a window that works
 * the same through the other path.
 *
 * The corempi performance variable osc_direct_targets (targets mapped
 * directly at Win_create) must grow by size - 1 for the big block's window
 * and not at all for the small one's; without it (another MPI) that check
 * and the shared_query part are skipped.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "osc_pvar.h"

#define N 4096   /* long longs in the big window */

static long long direct_targets(void)
{
    return osc_pvar("osc_direct_targets");
}

/* The operations on a window of nelem long longs at mem on every rank. */
static void exercise(MPI_Win win, long long *mem, int nelem, int me, int n, const char *what)
{
    int right = (me + 1) % n, left = (me + n - 1) % n;
    for (int i = 0; i < nelem; i++)
        mem[i] = -1;
    long long *src = malloc((size_t)nelem * sizeof *src), *back = malloc((size_t)nelem * sizeof *back);
    CHECK(src && back, "malloc");
    for (int i = 0; i < nelem; i++)
        src[i] = 100000LL * me + i;
    CHECK_MPI(MPI_Win_fence(0, win));
    /* elements 2.. of the right neighbour from me */
    CHECK_MPI(MPI_Put(src + 2, nelem - 2, MPI_LONG_LONG, right, 2, nelem - 2, MPI_LONG_LONG, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int i = 2; i < nelem; i++)
        CHECK(mem[i] == 100000LL * left + i, "%s: element %d is %lld after the left neighbour's Put", what, i,
              mem[i]);
    CHECK_MPI(MPI_Get(back + 2, nelem - 2, MPI_LONG_LONG, right, 2, nelem - 2, MPI_LONG_LONG, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int i = 2; i < nelem; i++)
        CHECK(back[i] == src[i], "%s: Get of my own Put: element %d is %lld", what, i, back[i]);
    mem[0] = 0;
    mem[1] = 0;
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    /* every rank: 50 x (me + 1) into element 0 of every rank, 50 tickets from element 1 */
    long long *tickets = malloc(50 * (size_t)n * sizeof *tickets);
    CHECK(tickets, "malloc");
    CHECK_MPI(MPI_Win_lock_all(0, win));
    for (int k = 0; k < 50; k++)
        for (int t = 0; t < n; t++) {
            long long add = me + 1, one = 1;
            CHECK_MPI(MPI_Accumulate(&add, 1, MPI_LONG_LONG, t, 0, 1, MPI_LONG_LONG, MPI_SUM, win));
            CHECK_MPI(MPI_Fetch_and_op(&one, &tickets[k * n + t], MPI_LONG_LONG, t, 1, MPI_SUM, win));
        }
    CHECK_MPI(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    long long want = 50LL * n * (n + 1) / 2;
    CHECK(mem[0] == want, "%s: accumulated %lld, expected %lld", what, mem[0], want);
    CHECK(mem[1] == 50LL * n, "%s: %lld tickets taken, expected %lld", what, mem[1], 50LL * n);
    /* tickets of target `right` from every rank: each of 0 .. 50n-1 once */
    long long *mine = malloc(50 * sizeof *mine), *all = malloc(50 * (size_t)n * sizeof *all);
    CHECK(mine && all, "malloc");
    /* gather at `right` the tickets everyone took from it: one Gather per target */
    for (int t = 0; t < n; t++) {
        for (int k = 0; k < 50; k++)
            mine[k] = tickets[k * n + t];
        MPI_Gather(mine, 50, MPI_LONG_LONG, all, 50, MPI_LONG_LONG, t, MPI_COMM_WORLD);
    }
    char *seen = calloc(50 * (size_t)n, 1);
    CHECK(seen, "calloc");
    for (int i = 0; i < 50 * n; i++) {
        CHECK(all[i] >= 0 && all[i] < 50LL * n && !seen[all[i]], "%s: ticket %lld twice or out of range", what,
              all[i]);
        seen[all[i]] = 1;
    }
    /* Compare_and_swap on element 0 of the right neighbour: the total, then 7 */
    long long nv = 7, got = 0;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
    CHECK_MPI(MPI_Compare_and_swap(&nv, &want, &got, MPI_LONG_LONG, right, 0, win));
    CHECK_MPI(MPI_Win_unlock(right, win));
    CHECK(got == want, "%s: Compare_and_swap fetched %lld, expected %lld", what, got, want);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(mem[0] == 7, "%s: element 0 is %lld after the swap", what, mem[0]);
    free(seen);
    free(mine);
    free(all);
    free(tickets);
    free(src);
    free(back);
}

int main(int argc, char **argv)
{
    int me, n;
    osc_pvar_start(&argc, &argv, &me, &n);
    int right = (me + 1) % n, left = (me + n - 1) % n;

    /* the big block: a window on part of it */
    char *block;
    CHECK_MPI(MPI_Alloc_mem(N * 8 + 4096, MPI_INFO_NULL, &block));
    long long *mem = (long long *)(void *)(block + 512);
    long long before = direct_targets();
    MPI_Win win;
    CHECK_MPI(MPI_Win_create(mem, N * 8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    long long after = direct_targets();
    if (before >= 0)
        CHECK(after - before == n - 1, "a window on Alloc_mem memory mapped %lld targets directly, expected %d",
              after - before, n - 1);
    exercise(win, mem, N, me, n, "Alloc_mem window");
    if (before >= 0) {
        /* shared: a store through Win_shared_query reaches the owner */
        MPI_Aint sz;
        int du;
        long long *peer = NULL;
        CHECK_MPI(MPI_Win_shared_query(win, right, &sz, &du, &peer));
        CHECK(peer && sz == N * 8 && du == 8, "Win_shared_query(%d): %p, %ld bytes, unit %d", right, (void *)peer,
              (long)sz, du);
        CHECK_MPI(MPI_Win_lock_all(0, win));
        peer[5] = 424242LL + me;
        CHECK_MPI(MPI_Win_sync(win));
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK_MPI(MPI_Win_sync(win));
        CHECK(mem[5] == 424242LL + left, "a store through Win_shared_query: %lld, expected %lld", mem[5],
              424242LL + left);
        CHECK_MPI(MPI_Win_unlock_all(win));
    }
    CHECK_MPI(MPI_Win_free(&win));
    CHECK_MPI(MPI_Free_mem(block));

    /* a small block: the other path, the same results */
    long long *small;
    CHECK_MPI(MPI_Alloc_mem(8 * 8, MPI_INFO_NULL, &small));
    before = direct_targets();
    CHECK_MPI(MPI_Win_create(small, 8 * 8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    if (before >= 0)
        CHECK(direct_targets() == before, "a 64-byte Alloc_mem block was mapped directly");
    exercise(win, small, 8, me, n, "small Alloc_mem window");
    CHECK_MPI(MPI_Win_free(&win));
    CHECK_MPI(MPI_Free_mem(small));
    if (me == 0)
        printf("osc_allocmem: %d ranks, direct targets %s\n", n, before >= 0 ? "checked" : "not known here");
    MPI_T_finalize();
    MPI_Finalize();
    return 0;
}
