/*
 * bench_op.c -- speed of the predefined reduction loops (prints, asserts nothing).
 *
 *   bench_op [n]      n elements per call (default 1M)
 *
 * GB/s counts the bytes a reduction must move: read in, read inout, write
 * inout (3 x element size per element).  Each figure is the median of 31
 * timed calls after a warm-up.  A plain loop the compiler may not vectorize
 * is timed beside the library's SUM on doubles, to show what vectorizing buys
 * (at 1M doubles the 24 MB touched exceed the caches, so memory bounds both;
 * try n = 4096 to see the loops run from L1).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "mpi.h"
#include "core/op.h"
#include "core/dt_basic.h"
#include "core/datatype.h"
#include "core/error.h"

/* The op sources call these library functions; the benchmark never errs. */
struct cm_datatype **cm_dt_table;
int cm_dt_table_len;
int cm_error(MPI_Comm comm, int errclass, const char *call, const char *fmt, ...)
{
    fprintf(stderr, "bench_op: unexpected error %d in %s\n", errclass, call);
    exit(1);
}
int cm_dt_check(MPI_Comm comm, MPI_Datatype dt, const char *call, const char *argname)
{
    return MPI_ERR_TYPE;
}

enum { REPS = 31 };

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

__attribute__((optimize("no-tree-vectorize"), noinline))
static void scalar_sum_double(const double *in, double *io, size_t n)
{
    for (size_t i = 0; i < n; i++)
        io[i] += in[i];
}

/* Median seconds of one call; op 0 means the scalar loop.  Small n are
 * timed over several back-to-back calls so one sample is well above the
 * clock's resolution. */
static double time_op(MPI_Op op, MPI_Datatype dt, void *in, void *io, size_t n)
{
    double t[REPS];
    size_t calls = n >= ((size_t)1 << 20) ? 1 : ((size_t)1 << 20) / n;
    for (int r = -3; r < REPS; r++) {
        double t0 = now();
        for (size_t c = 0; c < calls; c++) {
            if (op)
                cm_op_apply(op, dt, in, io, n);
            else
                scalar_sum_double(in, io, n);
        }
        double dt_s = (now() - t0) / (double)calls;
        if (r >= 0)
            t[r] = dt_s;
    }
    qsort(t, REPS, sizeof t[0], cmp_double);
    return t[REPS / 2];
}

static void report(const char *what, MPI_Op op, MPI_Datatype dt, size_t n)
{
    size_t ext = cm_dt_basic_extent(dt);
    unsigned char *in = malloc(n * ext), *io = malloc(n * ext);
    if (!in || !io) {
        fprintf(stderr, "bench_op: out of memory\n");
        exit(1);
    }
    /* small values: repeated SUM/PROD stay finite and integer-exact */
    for (size_t i = 0; i < n * ext; i++) {
        in[i] = (unsigned char)(i % 3 == 0);
        io[i] = (unsigned char)(i % 5 == 0);
    }
    if (dt == MPI_DOUBLE)
        for (size_t i = 0; i < n; i++)
            ((double *)in)[i] = 1.0, ((double *)io)[i] = (double)(i % 100);
    double s = time_op(op, dt, in, io, n);
    printf("%-38s n=%-9zu %8.4f ms  %7.2f GB/s  %7.2f Gelem/s\n", what, n, s * 1e3,
           3.0 * (double)(n * cm_dt_basic_size(dt)) / s / 1e9, (double)n / s / 1e9);
    free(in);
    free(io);
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : (size_t)1 << 20;
    if (n == 0)
        n = (size_t)1 << 20;
    report("MPI_SUM    MPI_DOUBLE", MPI_SUM, MPI_DOUBLE, n);
    report("scalar loop (no vectorization) double", 0, MPI_DOUBLE, n);
    report("MPI_SUM    MPI_INT", MPI_SUM, MPI_INT, n);
    report("MPI_SUM    MPI_FLOAT", MPI_SUM, MPI_FLOAT, n);
    report("MPI_MAX    MPI_DOUBLE", MPI_MAX, MPI_DOUBLE, n);
    report("MPI_PROD   MPI_INT", MPI_PROD, MPI_INT, n);
    report("MPI_BXOR   MPI_INT64_T", MPI_BXOR, MPI_INT64_T, n);
    report("MPI_MAX    MPI_INT64_T", MPI_MAX, MPI_INT64_T, n);
    report("MPI_MAXLOC MPI_DOUBLE_INT", MPI_MAXLOC, MPI_DOUBLE_INT, n);
    return 0;
}
