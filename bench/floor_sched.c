/* The scheduling floor of a job with more ranks than cores: N processes
 * (default 8) pinned round-robin to the CPUs this process may use, each doing
 * nothing but sched_yield.  One round = every process ran once = N / cores
 * context switches per core.
 *
 * A collective in which every rank's result depends on every rank's call
 * (barrier, allreduce, allgather, alltoall, reduce_scatter_block) cannot end
 * on a rank before every other rank has run since that rank's previous call:
 * a loop of them costs at least one round per call, whatever the library.
 * (Rooted and chained collectives can pipeline many calls per time slice;
 * this floor does not bound them.)
 *
 * Prints: floor sched <N> <usec per round>, the median of batches as timed
 * by process 0.  -q quick.  Plain C11, no MPI: build with cc -O2. */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_floor.h"
#include "bench_stats.h"

#define MAX_BATCHES 64

struct shared {
    _Atomic int ready;
    double samples[MAX_BATCHES];
};

/* The i-th CPU (mod their number) this process may run on, or -1. */
static int nth_cpu(const cpu_set_t *allowed, int i)
{
    int n = CPU_COUNT(allowed);
    if (n == 0)
        return -1;
    i %= n;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, allowed) && i-- == 0)
            return c;
    return -1;
}

static void run_child(struct shared *sh, int me, int n, int cpu, int batches, long yields)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0)
        _exit(2);
    atomic_fetch_add(&sh->ready, 1);
    while (atomic_load(&sh->ready) < n)
        sched_yield();
    /* A warm-up batch, then the timed ones; every process yields the same
     * number of times, so all stay runnable until process 0 is done. */
    for (int b = -1; b < batches; b++) {
        double t0 = bench_now();
        for (long i = 0; i < yields; i++)
            sched_yield();
        if (me == 0 && b >= 0)
            sh->samples[b] = (bench_now() - t0) / (double)yields;
    }
    _exit(0);
}

int main(int argc, char **argv)
{
    struct bench_opts o = bench_parse_opts(argc, argv);
    int n = 8;
    for (int i = 1; i < argc; i++)
        if (argv[i][0] != '-')
            n = atoi(argv[i]);
    if (n < 1 || n > 256) {
        fprintf(stderr, "floor_sched: process count must be 1..256\n");
        return 1;
    }
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0 || nth_cpu(&allowed, 0) < 0) {
        fprintf(stderr, "floor_sched: cannot read the CPUs this process may use\n");
        return 1;
    }
    int batches = o.quick ? 7 : 21;
    long yields = o.quick ? 2000 : 5000;
    struct shared *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) {
        perror("floor_sched: mmap");
        return 1;
    }
    pid_t pids[256];
    int started = 0, failed = 0;
    for (; started < n; started++) {
        pids[started] = fork();
        if (pids[started] == 0)
            run_child(sh, started, n, nth_cpu(&allowed, started), batches, yields);
        if (pids[started] < 0) {
            perror("floor_sched: fork");
            break;
        }
    }
    if (started < n)
        for (int i = 0; i < started; i++)
            kill(pids[i], SIGKILL);
    for (int i = 0; i < started; i++) {
        int st;
        if (waitpid(pids[i], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            failed = 1;
    }
    if (started < n || failed) {
        fprintf(stderr, "floor_sched: a process could not run or be pinned\n");
        return 1;
    }
    /* Per round: n / cores switches per core, each yield of process 0 is one
     * round since the others yield in between. */
    printf("floor sched %d %.4f\n", n, bench_median(sh->samples, batches) * 1e6);
    return 0;
}
