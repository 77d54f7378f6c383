/*
 * schedstat.h -- how long this process was runnable, for the tests that check
 * that waiting ranks sleep (poll_idle, tests/osc/osc_idle).  Time on a CPU
 * plus time waiting for one, from /proc/self/schedstat: a spinning rank is
 * runnable all the time even when the machine is loaded (it then waits for a
 * CPU), a sleeping one hardly at all; CPU time alone would not tell them
 * apart on a loaded machine.
 */
#ifndef COREMPI_TESTS_SCHEDSTAT_H
#define COREMPI_TESTS_SCHEDSTAT_H

#include <stdio.h>
#include <time.h>

/* Seconds on a CPU and waiting for one; -1 if unknown. */
static inline double runnable_seconds(void)
{
    unsigned long long run, wait;
    FILE *f = fopen("/proc/self/schedstat", "r");
    if (!f)
        return -1;
    int n = fscanf(f, "%llu %llu", &run, &wait);
    fclose(f);
    return n == 2 ? 1e-9 * (double)(run + wait) : -1;
}

static inline double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
