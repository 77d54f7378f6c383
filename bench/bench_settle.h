/* Run the job for a moment before measuring anything: right after MPI_Init a
 * launcher may still be busy (I/O forwarding, wire-up, first touches), which
 * would otherwise land on whichever measurement comes first. */
#ifndef BENCH_SETTLE_H
#define BENCH_SETTLE_H

#include <mpi.h>
#include <stdio.h>

#include "bench_stats.h"

static inline void bench_settle(double seconds)
{
    double start = MPI_Wtime();
    int more = 1;
    while (more) {
        for (int i = 0; i < 50; i++)
            MPI_Barrier(MPI_COMM_WORLD);
        more = MPI_Wtime() - start < seconds; /* rank 0's clock decides for all */
        MPI_Bcast(&more, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
}

/* The start of a benchmark between ranks 0 and 1: MPI_Init, the common
 * options into *o, this rank into *rank, then a settled job.  Returns 0, or 1
 * after MPI_Finalize when the job has fewer than 2 ranks (rank 0 says so,
 * naming prog): main returns what this returns. */
static inline int bench_start_pair(int *argc, char ***argv, const char *prog, struct bench_opts *o, int *rank)
{
    int size;
    MPI_Init(argc, argv);
    *o = bench_parse_opts(*argc, *argv);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        if (*rank == 0)
            fprintf(stderr, "%s: needs at least 2 ranks\n", prog);
        MPI_Finalize();
        return 1;
    }
    bench_settle(o->quick ? 0.1 : 0.3);
    return 0;
}

/* Median seconds per iteration of run(ctx, iters), which every rank calls,
 * over `batches` batches of about `target` seconds each.  warm iterations
 * first double as calibration: the batch length (at most most iterations)
 * adapts to the library's speed, and rank 0's choice is shared so that all
 * sides agree.  The median is rank 0's; other ranks' is their own. */
static inline double bench_measure_batches(void (*run)(void *ctx, int iters), void *ctx, int warm, int most,
                                           int batches, double target)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    run(ctx, warm);
    double per = (MPI_Wtime() - t0) / warm;
    int iters = bench_clamp_iters(target / per, 1, most);
    MPI_Bcast(&iters, 1, MPI_INT, 0, MPI_COMM_WORLD);
    double samples[64];
    if (batches > 64)
        batches = 64;
    for (int b = 0; b < batches; b++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double s = MPI_Wtime();
        run(ctx, iters);
        samples[b] = (MPI_Wtime() - s) / iters;
    }
    return bench_median(samples, batches);
}

/* The usual batches: 5 of about 4 ms with -q, else 15 of 20 ms. */
static inline double bench_measure(void (*run)(void *ctx, int iters), void *ctx, int warm, int most,
                                   const struct bench_opts *o)
{
    return bench_measure_batches(run, ctx, warm, most, o->quick ? 5 : 15, o->quick ? 0.004 : 0.02);
}

#endif
