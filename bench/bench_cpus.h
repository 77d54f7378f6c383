/* The two CPUs a floor benchmark pins its two sides to.  Header-only, plain
 * C11 with _GNU_SOURCE defined before any #include (sched_getaffinity). */
#ifndef BENCH_CPUS_H
#define BENCH_CPUS_H

#include <sched.h>
#include <stdio.h>

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
