/*
 * osc_idle.c -- with more ranks than cores, ranks that wait in one-sided
 * synchronisation sleep instead of spinning (issue 23 item 4 and its target:
 * "fence and lock/unlock never spin").
 *
 * Three waits of WAIT seconds, each caused by rank 0 sleeping outside MPI:
 *   fence  every other rank is in Win_fence, rank 0 arrives late;
 *   lock   rank 0 holds an exclusive lock on rank 1 (a Put + flush inside, so
 *          it is really held), the others wait for the same lock;
 *   pscw   the others are in Win_start/Win_wait, rank 0 posts late.
 * The check, as in tests/mpi/poll_idle.c: /proc/self/schedstat (time on a
 * CPU plus waiting for one) of the waiters over the wait: a spinning rank is
 * runnable all the time, a sleeping one hardly; on average the waiters must
 * be asleep at least half the time.  Without schedstat: the waiters' CPU
 * time together under 1 s per 2 s of waiting (the figure).
 * Skipped (77) when every rank has a core: then spinning is right.
 * ctest runs it under `taskset -c 0,1`.  Under MPICH (the peer the tests
 * are checked with, which polls) the figures are printed, not checked.
 */
#define _GNU_SOURCE
#include <sched.h>

#include "osc_common.h"
#include "schedstat.h"

#define WAIT 2.0
#define MIN_ASLEEP 0.5

static int me, n;

struct sample { double wall, runnable, cpu; };

static struct sample begin(void)
{
    return (struct sample){MPI_Wtime(), runnable_seconds(), cpu_seconds()};
}
static struct sample since(struct sample s)
{
    struct sample e = begin();
    return (struct sample){e.wall - s.wall, s.runnable < 0 ? -1 : e.runnable - s.runnable, e.cpu - s.cpu};
}

/* Rank 0 gathers the waiters' figures and judges them. */
static void judge(const char *what, struct sample s)
{
    double mine[3] = {s.wall, s.runnable, s.cpu}, all[3 * 64];
    CHECK(n <= 64, "at most 64 ranks");
    MPI_Gather(mine, 3, MPI_DOUBLE, all, 3, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (me != 0)
        return;
    double asleep = 0, cpu = 0, wall = 0;
    int sched = 1, waiters = 0;
    for (int r = 1; r < n; r++) {
        if (r == 1 && strcmp(what, "lock") == 0)
            continue; /* rank 1 is the lock's target, it waits like the others */
        waiters++;
        wall += all[3 * r];
        cpu += all[3 * r + 2];
        if (all[3 * r + 1] < 0)
            sched = 0;
        else
            asleep += 1.0 - all[3 * r + 1] / all[3 * r];
    }
    if (waiters == 0)
        return;
    asleep /= waiters;
    wall /= waiters;
    printf("osc_idle: %s: %d waiters waited %.2f s on average, asleep %.0f%% of it, %.2f CPU s together\n", what,
           waiters, wall, sched ? 100 * asleep : -1.0, cpu);
    fflush(stdout);
    CHECK(wall >= 0.8 * WAIT, "%s: the waiters did not wait (%.2f s): the test is wrong", what, wall);
#ifndef MPICH_VERSION
    if (sched)
        CHECK(asleep >= MIN_ASLEEP, "%s: waiters asleep %.0f%% of the wait, expected at least %.0f%%: they spin", what,
              100 * asleep, 100 * MIN_ASLEEP);
    else
        CHECK(cpu < 0.5 * wall, "%s: waiters used %.2f CPU s in a %.2f s wait: they spin", what, cpu, wall);
#endif
}

int main(int argc, char **argv)
{
    osc_start(&argc, &argv, "osc_idle", &me, &n);
    cpu_set_t cpus;
    CHECK(sched_getaffinity(0, sizeof cpus, &cpus) == 0, "sched_getaffinity");
    if (n <= CPU_COUNT(&cpus) || n < 3) {
        if (me == 0)
            printf("osc_idle: %d ranks on %d CPUs: not oversubscribed, skipped\n", n, CPU_COUNT(&cpus));
        MPI_Finalize();
        return 77;
    }
    struct osc_win w;
    osc_win_make(&w, OSC_ALLOCATE, 4, MPI_COMM_WORLD);
    long long v = 1;
    struct sample s;

    /* fence */
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOPRECEDE, w.win));
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0)
        osc_nap((long)(WAIT * 1e6));
    s = begin();
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win));
    judge("fence", since(s));

    /* lock */
    if (me == 0) {
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, w.win));
        CHECK_MPI(MPI_Put(&v, 1, MPI_LONG_LONG, 1, 0, 1, MPI_LONG_LONG, w.win));
        CHECK_MPI(MPI_Win_flush(1, w.win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    s = begin();
    if (me == 0) {
        osc_nap((long)(WAIT * 1e6));
        CHECK_MPI(MPI_Win_unlock(1, w.win));
    } else if (me != 1) {
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, w.win));
        CHECK_MPI(MPI_Accumulate(&v, 1, MPI_LONG_LONG, 1, 0, 1, MPI_LONG_LONG, MPI_SUM, w.win));
        CHECK_MPI(MPI_Win_unlock(1, w.win));
    }
    struct sample lock_s = since(s);
    MPI_Barrier(MPI_COMM_WORLD);
    judge("lock", lock_s);
    if (me == 1) {
        osc_local_begin(&w);
        CHECK(w.base[0] == n - 1, "lock: the counter is %lld, expected %d", w.base[0], n - 1);
        osc_local_end(&w);
    }

    /* pscw: rank 0 exposes its window late; the others access it */
    MPI_Group world, g0, others;
    int zero = 0;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &zero, &g0);
    MPI_Group_excl(world, 1, &zero, &others);
    MPI_Barrier(MPI_COMM_WORLD);
    s = begin();
    if (me == 0) {
        osc_nap((long)(WAIT * 1e6));
        CHECK_MPI(MPI_Win_post(others, 0, w.win));
        CHECK_MPI(MPI_Win_wait(w.win));
    } else {
        CHECK_MPI(MPI_Win_start(g0, 0, w.win));
        CHECK_MPI(MPI_Accumulate(&v, 1, MPI_LONG_LONG, 0, 1, 1, MPI_LONG_LONG, MPI_SUM, w.win));
        CHECK_MPI(MPI_Win_complete(w.win));
    }
    judge("pscw", since(s));
    if (me == 0) {
        osc_local_begin(&w);
        CHECK(w.base[1] == n - 1, "pscw: the counter is %lld, expected %d", w.base[1], n - 1);
        osc_local_end(&w);
    }
    MPI_Group_free(&world);
    MPI_Group_free(&g0);
    MPI_Group_free(&others);
    MPI_Barrier(MPI_COMM_WORLD);
    osc_win_free(&w);
    MPI_Finalize();
    return 0;
}
