/* What every application-pattern benchmark shares: its options, its timing
 * loop and its way of failing.  Header-only, standard MPI only, so that each
 * pattern stays one file that any mpicc builds (bench/run.sh builds them with
 * corempi's, Open MPI's and MPICH's).
 *
 * A pattern is a step that every rank calls once per round; a round is
 * whatever the pattern times (one halo iteration, one sparse exchange, one
 * batch of master-worker tasks).  pat_measure times batches of rounds and
 * returns the median over batches of the slowest rank's seconds per round.
 *
 * Options (all optional):
 *   -r ROUNDS   at most this many timed rounds in all (default 1000000)
 *   -t SECONDS  stop adding batches after this long (default 1, -q 0.3)
 *   -s SEED     the seed of a pattern's random choices (printed on every line)
 *   -c NAME     only the rows of that name (a collective, a completion, ...)
 *   -q          quick (also BENCH_QUICK=1)
 * A library that needs a scheduler time slice per message still gets a
 * figure within -t: batches shrink to what fits, down to one round. */
#ifndef PATTERN_BENCH_H
#define PATTERN_BENCH_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tests/mpi/payload.h"

struct pat_opts {
    long max_rounds;
    double seconds;
    unsigned long seed;
    const char *only; /* -c: NULL for every row */
    int quick;
};

static int pat_rank, pat_size;
static const char *pat_name = "pattern";

/* The check behind every checksum: a wrong value ends the job, so no library
 * is timed on a transfer it skipped or garbled. */
static inline void pat_expect(long got, long want, const char *what)
{
    if (got != want) {
        fprintf(stderr, "%s: rank %d: %s: got %ld, want %ld\n", pat_name, pat_rank, what, got, want);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

static inline struct pat_opts pat_init(int *argc, char ***argv, const char *name)
{
    struct pat_opts o = {1000000, 1.0, 1, NULL, 0};
    int seconds_given = 0;
    MPI_Init(argc, argv);
    pat_name = name;
    MPI_Comm_rank(MPI_COMM_WORLD, &pat_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &pat_size);
    const char *env = getenv("BENCH_QUICK");
    if (env && *env && strcmp(env, "0") != 0)
        o.quick = 1;
    for (int i = 1; i < *argc; i++) {
        const char *a = (*argv)[i], *v = i + 1 < *argc ? (*argv)[i + 1] : NULL;
        if (strcmp(a, "-q") == 0) {
            o.quick = 1;
        } else if (v && strcmp(a, "-r") == 0) {
            o.max_rounds = atol(v), i++;
        } else if (v && strcmp(a, "-t") == 0) {
            o.seconds = atof(v), seconds_given = 1, i++;
        } else if (v && strcmp(a, "-s") == 0) {
            o.seed = strtoul(v, NULL, 0), i++;
        } else if (v && strcmp(a, "-c") == 0) {
            o.only = v, i++;
        } else {
            if (pat_rank == 0)
                fprintf(stderr, "%s: unknown or incomplete option '%s' (use -r ROUNDS -t SECONDS -s SEED -c NAME -q)\n",
                        name, a);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (o.quick && !seconds_given)
        o.seconds = 0.3;
    if (o.max_rounds < 1 || !(o.seconds > 0)) {
        if (pat_rank == 0)
            fprintf(stderr, "%s: -r needs at least 1 round and -t a positive time\n", name);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return o;
}

/* Whether -c lets the row of this name run. */
static inline int pat_wanted(const struct pat_opts *o, const char *name)
{
    return !o->only || strcmp(o->only, name) == 0;
}

/* The tests' reproducible keys (splitmix64): every rank derives the same
 * graph, sizes and stamps from the seed without any communication.  A
 * stamp is a small positive int of (a, b, c, d), distinct enough that a
 * message from the wrong round, peer or slot fails its check. */
static inline uint64_t pat_mix(uint64_t x) { return payload_mix(x); }
static inline int pat_stamp(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    return (int)(payload_key(a, b, c, d) & 0x3fffffff);
}

/* Arithmetic that the compiler cannot drop: the "compute" of a pattern.
 * Its result is folded into a sink that main prints nowhere but keeps. */
static volatile double pat_sink;
static inline void pat_work(int units)
{
    double x = pat_sink + 1.0;
    for (int i = 0; i < units * 64; i++)
        x = x * 0.999999 + 1e-6;
    pat_sink = x;
}

/* The neighbours of this rank on a 3-D grid of all ranks (MPI_Dims_create):
 * nb[axis][0] below, nb[axis][1] above; with periodic 0, -1 at an edge.
 * Fills dims.  No reordering: grid ranks are world ranks. */
static inline void pat_grid3(int periodic, int dims[3], int nb[3][2])
{
    int periods[3] = {periodic, periodic, periodic};
    MPI_Comm cart;
    dims[0] = dims[1] = dims[2] = 0;
    MPI_Dims_create(pat_size, 3, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
    for (int axis = 0; axis < 3; axis++) {
        MPI_Cart_shift(cart, axis, 1, &nb[axis][0], &nb[axis][1]);
        for (int side = 0; side < 2; side++)
            if (nb[axis][side] == MPI_PROC_NULL)
                nb[axis][side] = -1;
    }
    MPI_Comm_free(&cart);
}

/* Both rank 0's elapsed time and the batch's slowest per-round time in one
 * reduction, so that every rank takes the same decision to go on. */
static inline double pat_slowest(double mine, double *elapsed0)
{
    double in[2] = {mine, pat_rank == 0 ? *elapsed0 : 0.0}, out[2];
    MPI_Allreduce(in, out, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    *elapsed0 = out[1];
    return out[0];
}

static inline int pat_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef void (*pat_step_fn)(void *ctx, long round);

/* Median over batches of the slowest rank's seconds per round.  The first
 * two rounds warm up and size the batches (a batch aims at 1/12 of -t);
 * batches stop at 11 (quick 5), at -r rounds in all, or once -t is spent. */
static inline double pat_measure(pat_step_fn step, void *ctx, const struct pat_opts *o)
{
    static long round; /* never reused across measurements: fresh stamps */
    double start = MPI_Wtime(), elapsed = 0, samples[11];
    int batches = o->quick ? 5 : 11, done = 0;
    long used = 0;

    step(ctx, round++);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    step(ctx, round++);
    double first = pat_slowest(MPI_Wtime() - t0, &elapsed);
    double want = o->seconds / 12 / (first > 1e-9 ? first : 1e-9);
    long per = want < 1 ? 1 : want > 1e6 ? 1000000 : (long)want;
    if (per > o->max_rounds / batches)
        per = o->max_rounds / batches > 0 ? o->max_rounds / batches : 1;

    while (done < batches && used < o->max_rounds) {
        if (per > o->max_rounds - used)
            per = o->max_rounds - used;
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        for (long i = 0; i < per; i++)
            step(ctx, round++);
        elapsed = MPI_Wtime() - start;
        samples[done++] = pat_slowest((MPI_Wtime() - t0) / per, &elapsed);
        used += per;
        if (elapsed > o->seconds)
            break;
    }
    qsort(samples, (size_t)done, sizeof samples[0], pat_cmp);
    return done % 2 ? samples[done / 2] : 0.5 * (samples[done / 2 - 1] + samples[done / 2]);
}

#endif
