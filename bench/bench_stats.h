/* Small helpers shared by the benchmarks: the median of a batch of samples and
 * the option flags every benchmark understands.  Header-only so that each
 * benchmark stays one translation unit that any mpicc (or cc) can build. */
#ifndef BENCH_STATS_H
#define BENCH_STATS_H

#include <stdlib.h>
#include <string.h>

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median rather than mean: one preempted batch on a 2-core machine must not
 * move the result.  Sorts the samples in place. */
static inline double bench_median(double *samples, int n)
{
    if (n <= 0)
        return 0.0;
    qsort(samples, (size_t)n, sizeof(double), bench_cmp_double);
    if (n % 2)
        return samples[n / 2];
    return 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
}

/* Options common to all benchmarks: -q quick (fewer, shorter batches),
 * -v verbose (full size sweep).  BENCH_QUICK=1 in the environment means -q. */
struct bench_opts {
    int quick;
    int verbose;
};

static inline struct bench_opts bench_parse_opts(int argc, char **argv)
{
    struct bench_opts o = {0, 0};
    const char *env = getenv("BENCH_QUICK");
    if (env && *env && strcmp(env, "0") != 0)
        o.quick = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-q") == 0)
            o.quick = 1;
        else if (strcmp(argv[i], "-v") == 0)
            o.verbose = 1;
    }
    return o;
}

static inline int bench_clamp_iters(double want, int lo, int hi)
{
    if (!(want >= lo))
        return lo;
    if (want > hi)
        return hi;
    return (int)want;
}

#endif
