/*
 * win_idle.c -- waiting in Win_lock and Win_fence gives the cores away when
 * ranks outnumber them (issue 23: "8 ranks on 2 cores: fence and lock/unlock
 * never spin; idle CPU under 1 s in a 2-second wait").
 *
 * Rank 0 holds an exclusive lock on its window for 2 s (sleeping outside
 * MPI) while every other rank asks for a shared one; then rank 0 sleeps
 * 2 s before a fence the others are already in.  The CPU time the waiting
 * ranks spend in those waits, summed over all of them, must stay under 1 s
 * each time (spinners would burn every core they get: ~4 s on 2 cores).
 * With a core per rank the library rightly polls: the test exits 77
 * (skipped).  ctest runs it under `taskset -c 0,1` where available.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <time.h>
#include "check.h"

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void sleep_2s(void)
{
    struct timespec ts = { 2, 0 };
    while (nanosleep(&ts, &ts) != 0)
        ;
}

int main(int argc, char **argv)
{
    int rank, size;
    check_init(&argc, &argv, &rank, &size);
    cpu_set_t set;
    int cores = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    int most = 0;
    MPI_Allreduce(&cores, &most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (most >= size) {
        if (rank == 0)
            printf("win_idle: %d cores for %d ranks, nothing to check (skipped)\n", most, size);
        MPI_Finalize();
        return 77;
    }
    long *base;
    MPI_Win win;
    MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    double spent[2] = { 0, 0 }, total[2];

    if (rank == 0)
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        sleep_2s();
        MPI_Win_unlock(0, win);
    } else {
        double t = cpu_now();
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        spent[0] = cpu_now() - t;
        MPI_Win_unlock(0, win);
    }

    MPI_Win_fence(0, win);
    if (rank == 0)
        sleep_2s();
    double t = cpu_now();
    MPI_Win_fence(0, win);
    if (rank != 0)
        spent[1] = cpu_now() - t;
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);

    MPI_Reduce(spent, total, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("win_idle: %d ranks on %d cores, CPU while waiting 2 s: lock %.3f s, fence %.3f s\n", size, most,
               total[0], total[1]);
        CHECK(total[0] < 1.0, "ranks waiting in MPI_Win_lock used %.3f s of CPU in 2 s", total[0]);
        CHECK(total[1] < 1.0, "ranks waiting in MPI_Win_fence used %.3f s of CPU in 2 s", total[1]);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
