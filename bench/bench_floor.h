/* What the floor benchmarks (floor_*.c: no MPI, plain C11) share: a clock and
 * the CPUs their sides run on.  Header-only; each includes it with
 * _GNU_SOURCE defined before any #include (sched_getaffinity). */
#ifndef BENCH_FLOOR_H
#define BENCH_FLOOR_H

#include <sched.h>
#include <stdio.h>
#include <time.h>

/* Seconds on the monotonic clock. */
static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Runs the calling thread on cpu only: 0, or -1 (errno set). */
static inline int bench_pin_cpu(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set);
}

/* The first two CPUs this process may run on, in *a and *b: 0, or -1 after
 * saying on stderr that prog needs two. */
static inline int bench_two_cpus(const char *prog, int *a, int *b)
{
    cpu_set_t set;
    int found = 0;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        for (int c = 0; c < CPU_SETSIZE && found < 2; c++)
            if (CPU_ISSET(c, &set))
                *(found++ ? b : a) = c;
    if (found == 2)
        return 0;
    fprintf(stderr, "%s: needs two CPUs\n", prog);
    return -1;
}

#endif
