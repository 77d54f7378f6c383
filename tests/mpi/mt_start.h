/*
 * mt_start.h -- the start of a seeded MPI_THREAD_MULTIPLE test
 * (thread_storm.c, thread_nbc_queue.c): MPI_Init_thread, which must give
 * MULTIPLE (corempi grants it with COREMPI_THREAD_MULTIPLE=1), the threads
 * and rounds from argv[1] and argv[2] (else as given), and the seed from
 * the environment variable env (else the time), rank 0's for every rank.
 * The caller prints the seed so that a failure can be rerun.
 */
#ifndef MT_START_H
#define MT_START_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static unsigned long long mt_start(int *argc, char ***argv, const char *name, const char *env, int *threads,
                                   int *rounds, int *rank, int *size)
{
    int provided;
    MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    if (provided != MPI_THREAD_MULTIPLE) {
        if (*rank == 0)
            fprintf(stderr, "%s: MPI_THREAD_MULTIPLE not provided (%d; COREMPI_THREAD_MULTIPLE=1?)\n", name,
                    provided);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (*argc > 1)
        *threads = atoi((*argv)[1]);
    if (*argc > 2)
        *rounds = atoi((*argv)[2]);
    if (*threads < 1 || *threads > 64 || *size > 62)
        MPI_Abort(MPI_COMM_WORLD, 2);
    const char *s = getenv(env);
    unsigned long long seed =
        s && *s ? strtoull(s, NULL, 10) : (unsigned long long)time(NULL) ^ ((unsigned long long)clock() << 20);
    /* Point to point, not MPI_Bcast: the threads' first collectives are
     * then the process's first (thread_storm: mutation 84). */
    if (*rank == 0)
        for (int r = 1; r < *size; r++)
            MPI_Send(&seed, 1, MPI_UNSIGNED_LONG_LONG, r, 0, MPI_COMM_WORLD);
    else
        MPI_Recv(&seed, 1, MPI_UNSIGNED_LONG_LONG, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return seed;
}

/* A 64-bit mixer (splitmix64's finaliser): results as a function of
 * (seed, rank, thread, round, index), the same on every rank. */
static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

/* A storm's round: thread t, round number, the operation drawn. */
struct mt_ctx {
    int t, round;
    const char *op;
};

/* A storm's failure: one line naming where, and the seed to rerun. */
static inline void mt_fail(const char *name, const char *env, unsigned long long seed, int rank, const struct mt_ctx *c,
                    const char *what, long long got, long long want)
{
    fprintf(stderr, "%s: rank %d thread %d round %d op %s: %s: got %lld, want %lld (rerun with %s=%llu)\n", name,
            rank, c->t, c->round, c->op, what, got, want, env, seed);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* The operation c's thread runs in its round (the same on every rank),
 * named in c->op; -1 when mask leaves it out. */
static inline int mt_draw(unsigned long long seed, struct mt_ctx *c, const char *const *names, int n, unsigned mask)
{
    int op = (int)(mix(seed ^ mix((uint64_t)c->t << 32 | (uint64_t)c->round)) % (unsigned)n);
    c->op = names[op];
    return mask >> op & 1 ? op : -1;
}

/* A storm's value as a function of (seed, src, t, round, k). */
static inline uint64_t mt_word(unsigned long long seed, int src, int t, int round, int k)
{
    return mix(seed ^ mix(((uint64_t)src << 48) ^ ((uint64_t)t << 40) ^ ((uint64_t)round << 20) ^ (uint64_t)k));
}

#endif
