/*
 * part_common.h -- helpers of the partitioned-communication tests: the seed
 * (printed, taken from argv "-seed=N" or COREMPI_TEST_SEED), a random
 * generator every rank draws the same numbers from, and shuffles.
 */
#ifndef COREMPI_TESTS_PART_COMMON_H
#define COREMPI_TESTS_PART_COMMON_H

#include "check.h"
#include <time.h>

static unsigned long part_seed_value;

/* CHECK with the seed in the message, so any failure can be rerun. */
#define PCHECK(cond, ...)                                                               \
    do {                                                                                \
        if (!(cond)) {                                                                  \
            fprintf(stderr, "rank %d: seed %lu (rerun: COREMPI_TEST_SEED=%lu): ",        \
                    check_world_rank(), part_seed_value, part_seed_value);              \
            CHECK(0, __VA_ARGS__);                                                      \
        }                                                                               \
    } while (0)

/* The value of "-name=N" among the arguments, or def. */
static inline long part_arg(int argc, char **argv, const char *name, long def)
{
    size_t n = strlen(name);
    for (int i = 1; i < argc; i++)
        if (argv[i][0] == '-' && !strncmp(argv[i] + 1, name, n) && argv[i][1 + n] == '=')
            return strtol(argv[i] + 2 + n, NULL, 0);
    return def;
}

static inline unsigned long part_seed(int argc, char **argv, const char *prog)
{
    int me;
    const char *env = getenv("COREMPI_TEST_SEED");
    unsigned long seed = (unsigned long)time(NULL) ^ ((unsigned long)clock() << 16);
    if (env && *env)
        seed = strtoul(env, NULL, 0);
    seed = (unsigned long)part_arg(argc, argv, "seed", (long)seed);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG, 0, MPI_COMM_WORLD);   /* rank 0's choice is everyone's */
    part_seed_value = seed;
    if (me == 0) {
        printf("%s: seed %lu (rerun: COREMPI_TEST_SEED=%lu or -seed=%lu)\n", prog, seed, seed, seed);
        fflush(stdout);
    }
    return seed;
}

/* The start of a partitioned test: MPI_Init, this rank and the size, and
 * the seed (part_seed, prog names the test). */
static inline unsigned long part_start(int *argc, char ***argv, const char *prog, int *rank, int *size)
{
    CHECK_MPI(MPI_Init(argc, argv));
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    return part_seed(*argc, *argv, prog);
}

/* xorshift64*: the same sequence on every rank from the same state. */
static inline unsigned long part_rand(unsigned long *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return (*s * 2685821657736338717ull) >> 16;
}

static inline int part_pick(unsigned long *s, int n) { return (int)(part_rand(s) % (unsigned long)n); }

static inline void part_shuffle(int *a, int n, unsigned long *s)
{
    for (int i = 0; i < n; i++)
        a[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = part_pick(s, i + 1), t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

/* Make partitions 0..n-1 of req ready in the order of `order`, in random
 * groups through Pready, Pready_range (runs of consecutive partitions in
 * the order) and Pready_list. */
static inline void part_ready_mixed(MPI_Request req, const int *order, int n, unsigned long *s)
{
    int *list = malloc(sizeof(int) * (size_t)(n ? n : 1));
    for (int i = 0; i < n;) {
        int how = part_pick(s, 3), len = 1 + part_pick(s, n - i < 8 ? n - i : 8);
        if (how == 0) {
            CHECK_MPI(MPI_Pready(order[i], req));
            i++;
        } else if (how == 1) {
            int k = 1;
            while (k < len && order[i + k] == order[i] + k)
                k++;
            CHECK_MPI(MPI_Pready_range(order[i], order[i] + k - 1, req));
            i += k;
        } else {
            for (int k = 0; k < len; k++)
                list[k] = order[i + k];
            CHECK_MPI(MPI_Pready_list(len, list, req));
            i += len;
        }
    }
    free(list);
}

#endif
