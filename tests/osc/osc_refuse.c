/*
 * osc_refuse.c -- single copy refused after the window was made (issue 23,
 * the fallback's mixed case): every rank had process_vm_readv/writev when
 * the Win_create window was made, so no target expects active messages;
 * then the kernel refuses rank 0's copies (a ptrace policy change; here
 * the refusal point osc_cma of a -DCOREMPI_FAULTS=ON build, run with
 * COREMPI_FAULT_REFUSE=osc_cma@0).  Rank 0 must fall back to active
 * messages (src/osc/am.c) and its targets must serve them while they sit
 * in MPI_Barrier or MPI_Allreduce -- a collective whose waiters sleep on
 * their own words, not on the doorbell the messages ring.
 *
 *   1. rank 0 locks each target in turn: Put, Accumulate, Get, unlock (the
 *      unlock waits for the target's acknowledgements) while the targets
 *      wait in MPI_Barrier for rank 0; then each target checks its memory;
 *   2. the same with Fetch_and_op while the targets wait in MPI_Allreduce;
 *   3. the last rank (not refused) puts into rank 1 by single copy.
 * Fails with a message when rank 0 did not fall back (pvar osc_am_ops is
 * 0: not a fault build, or no refusal asked for), when the last rank did
 * (its copies were not refused), when a collective took more than 5 s
 * (a target that did not serve messages: without the fix it never does,
 * and the test hangs until ctest's timeout), or on wrong data.
 */
#include "osc_common.h"
#include "osc_pvar.h"

#define WORDS 512
#define LIMIT_S 5.0

static long pattern(int t, int i) { return 1000L * t + i; }

/* A collective that rank 0's operations wait behind; returns its seconds. */
static double wait_in(int allreduce)
{
    double t0 = MPI_Wtime();
    if (allreduce) {
        long one = 1, sum = 0;
        CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    } else {
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    }
    return MPI_Wtime() - t0;
}

int main(int argc, char **argv)
{
    int me, n;
    osc_pvar_start(&argc, &argv, &me, &n);
    CHECK(n >= 2, "run with 2 or more ranks");
    long *mem = calloc(2 * WORDS, sizeof *mem);
    CHECK(mem, "calloc");
    MPI_Win win;
    CHECK_MPI(MPI_Win_create(mem, (MPI_Aint)(2 * WORDS * sizeof *mem), sizeof(long), MPI_INFO_NULL,
                             MPI_COMM_WORLD, &win));
    long long am0 = osc_pvar("osc_am_ops");   /* the counter is read as a difference */
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    /* 1. Put, Accumulate, Get under an exclusive lock; targets in a barrier. */
    if (me == 0) {
        long buf[WORDS], got[WORDS], two[WORDS];
        for (int t = 1; t < n; t++) {
            for (int i = 0; i < WORDS; i++) {
                buf[i] = pattern(t, i);
                two[i] = 2;
            }
            CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
            CHECK_MPI(MPI_Put(buf, WORDS, MPI_LONG, t, 0, WORDS, MPI_LONG, win));
            CHECK_MPI(MPI_Accumulate(two, WORDS, MPI_LONG, t, 0, WORDS, MPI_LONG, MPI_SUM, win));
            CHECK_MPI(MPI_Get(got, WORDS, MPI_LONG, t, 0, WORDS, MPI_LONG, win));
            CHECK_MPI(MPI_Win_unlock(t, win));
            for (int i = 0; i < WORDS; i++)
                CHECK(got[i] == pattern(t, i) + 2, "Get from rank %d: word %d is %ld, expected %ld", t, i, got[i],
                      pattern(t, i) + 2);
        }
        long long am = osc_pvar("osc_am_ops") - am0;
        CHECK(am0 >= 0 && am != 0, "rank 0 sent no active messages: its single copies were not refused (run a "
                       "-DCOREMPI_FAULTS=ON build with COREMPI_FAULT_REFUSE=osc_cma@0)");
    }
    double s = wait_in(0);
    CHECK(s < LIMIT_S, "rank %d waited %.1f s in MPI_Barrier while rank 0's messages waited for it", me, s);
    if (me != 0)
        for (int i = 0; i < WORDS; i++)
            CHECK(mem[i] == pattern(me, i) + 2, "rank %d: word %d is %ld after rank 0's Put and Accumulate, "
                                                "expected %ld", me, i, mem[i], pattern(me, i) + 2);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    /* 2. Fetch_and_op under a shared lock; targets in an allreduce. */
    if (me == 0) {
        for (int t = 1; t < n; t++) {
            long one = 1, old = -1;
            CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
            CHECK_MPI(MPI_Fetch_and_op(&one, &old, MPI_LONG, t, WORDS, MPI_SUM, win));
            CHECK_MPI(MPI_Win_unlock(t, win));
            CHECK(old == 0, "Fetch_and_op at rank %d fetched %ld, expected 0", t, old);
        }
    }
    s = wait_in(1);
    CHECK(s < LIMIT_S, "rank %d waited %.1f s in MPI_Allreduce while rank 0's messages waited for it", me, s);
    if (me != 0)
        CHECK(mem[WORDS] == 1, "rank %d: the Fetch_and_op word is %ld, expected 1", me, mem[WORDS]);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    /* 3. A rank whose copies are not refused keeps single copy. */
    if (n > 2 && me == n - 1) {
        long buf[WORDS];
        for (int i = 0; i < WORDS; i++)
            buf[i] = -pattern(me, i);
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win));
        CHECK_MPI(MPI_Put(buf, WORDS - 1, MPI_LONG, 1, WORDS + 1, WORDS - 1, MPI_LONG, win));
        CHECK_MPI(MPI_Win_unlock(1, win));
        long long am = osc_pvar("osc_am_ops") - am0;
        CHECK(am == 0, "rank %d sent %lld active messages: only rank 0's copies were refused", me, am);
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (n > 2 && me == 1)
        for (int i = 0; i < WORDS - 1; i++)
            CHECK(mem[WORDS + 1 + i] == -pattern(n - 1, i), "rank 1: word %d of rank %d's Put is %ld", i, n - 1,
                  mem[WORDS + 1 + i]);

    CHECK_MPI(MPI_Win_free(&win));
    free(mem);
    if (me == 0)
        printf("osc_refuse ok: rank 0 fell back to active messages; targets served them in MPI_Barrier and "
               "MPI_Allreduce\n");
    MPI_Finalize();
    return 0;
}
