/*
 * osc_common.h -- what the one-sided tests share: the window kinds, the
 * synchronisation modes, the seed, a lag for ranks that must not be waited on.
 *
 * Written against the MPI-4.1 standard API only (no corempi header or symbol),
 * so scripts/osc_peer_check.sh builds the same programs with MPICH to check
 * the tests themselves.  Every window here holds long long elements; a
 * window's element i of rank t is addressed by osc_disp(w, t, i), which hides
 * the one difference between kinds that an origin sees: a dynamic window is
 * addressed by absolute address (disp_unit 1), the others by element index
 * (disp_unit sizeof(long long)).
 */
#ifndef COREMPI_TESTS_OSC_COMMON_H
#define COREMPI_TESTS_OSC_COMMON_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"

enum osc_kind {
    OSC_CREATE,          /* MPI_Win_create on malloc'd memory */
    OSC_ALLOCATE,        /* MPI_Win_allocate */
    OSC_SHARED,          /* MPI_Win_allocate_shared, one contiguous segment */
    OSC_SHARED_NONCONTIG, /* the same with alloc_shared_noncontig=true */
    OSC_DYNAMIC,         /* MPI_Win_create_dynamic + MPI_Win_attach of malloc'd memory */
    OSC_NKINDS
};

static const char *const osc_kind_name[OSC_NKINDS] = {
    "create", "allocate", "shared", "shared_noncontig", "dynamic"};

struct osc_win {
    MPI_Win win;
    enum osc_kind kind;
    long long *base;     /* this rank's elements */
    int nelem;           /* elements per rank */
    MPI_Aint *addr;      /* dynamic: every rank's attached address */
    void *user_mem;      /* create/dynamic: memory to free after the window */
};

/* A window of nelem long long per rank on comm; every element zero. */
static inline void osc_win_make(struct osc_win *w, enum osc_kind kind, int nelem, MPI_Comm comm)
{
    MPI_Aint bytes = (MPI_Aint)nelem * (MPI_Aint)sizeof(long long);
    int du = (int)sizeof(long long), n;
    MPI_Comm_size(comm, &n);
    memset(w, 0, sizeof *w);
    w->kind = kind;
    w->nelem = nelem;
    switch (kind) {
    case OSC_CREATE:
        w->user_mem = calloc((size_t)nelem + 1, sizeof(long long));
        CHECK(w->user_mem, "calloc");
        w->base = w->user_mem;
        CHECK_MPI(MPI_Win_create(w->base, bytes, du, MPI_INFO_NULL, comm, &w->win));
        break;
    case OSC_ALLOCATE:
        CHECK_MPI(MPI_Win_allocate(bytes, du, MPI_INFO_NULL, comm, &w->base, &w->win));
        break;
    case OSC_SHARED:
    case OSC_SHARED_NONCONTIG: {
        MPI_Info info = MPI_INFO_NULL;
        if (kind == OSC_SHARED_NONCONTIG) {
            CHECK_MPI(MPI_Info_create(&info));
            CHECK_MPI(MPI_Info_set(info, "alloc_shared_noncontig", "true"));
        }
        CHECK_MPI(MPI_Win_allocate_shared(bytes, du, info, comm, &w->base, &w->win));
        if (info != MPI_INFO_NULL)
            MPI_Info_free(&info);
        break;
    }
    case OSC_DYNAMIC: {
        MPI_Aint mine;
        w->user_mem = calloc((size_t)nelem + 1, sizeof(long long));
        CHECK(w->user_mem, "calloc");
        w->base = w->user_mem;
        CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, comm, &w->win));
        CHECK_MPI(MPI_Win_attach(w->win, w->base, bytes));
        w->addr = malloc((size_t)n * sizeof(MPI_Aint));
        CHECK(w->addr, "malloc");
        CHECK_MPI(MPI_Get_address(w->base, &mine));
        CHECK_MPI(MPI_Allgather(&mine, 1, MPI_AINT, w->addr, 1, MPI_AINT, comm));
        break;
    }
    default:
        CHECK(0, "bad window kind %d", (int)kind);
    }
    memset(w->base, 0, (size_t)bytes);
    MPI_Barrier(comm);
}

static inline void osc_win_free(struct osc_win *w)
{
    if (w->kind == OSC_DYNAMIC)
        CHECK_MPI(MPI_Win_detach(w->win, w->base));
    CHECK_MPI(MPI_Win_free(&w->win));
    CHECK(w->win == MPI_WIN_NULL, "MPI_Win_free left the handle set");
    free(w->user_mem);
    free(w->addr);
    memset(w, 0, sizeof *w);
}

/* The target displacement of element i of rank t. */
static inline MPI_Aint osc_disp(const struct osc_win *w, int t, int i)
{
    if (w->kind == OSC_DYNAMIC)
        return MPI_Aint_add(w->addr[t], (MPI_Aint)i * (MPI_Aint)sizeof(long long));
    return (MPI_Aint)i;
}

/* Read or write this rank's own window memory outside any other epoch: a
 * lock on oneself plus Win_sync makes the others' completed updates visible
 * (and ours visible to them) in either memory model. */
static inline void osc_local_begin(const struct osc_win *w)
{
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, w->win));
    CHECK_MPI(MPI_Win_sync(w->win));
}
static inline void osc_local_end(const struct osc_win *w)
{
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    CHECK_MPI(MPI_Win_sync(w->win));
    CHECK_MPI(MPI_Win_unlock(me, w->win));
}

/* ---- the seed: printed, and taken from argv[1] or COREMPI_TEST_SEED ---- */
static inline unsigned long osc_seed(int argc, char **argv, const char *prog)
{
    unsigned long seed = 0;
    int me;
    const char *env = getenv("COREMPI_TEST_SEED");
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (argc > 1 && argv[1][0] >= '0' && argv[1][0] <= '9')
        seed = strtoul(argv[1], NULL, 0);
    else if (env && *env)
        seed = strtoul(env, NULL, 0);
    else
        seed = (unsigned long)time(NULL) ^ ((unsigned long)clock() << 16);
    /* Rank 0's choice is everyone's: the ranks must draw the same program. */
    MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG, 0, MPI_COMM_WORLD);
    if (me == 0) {
        printf("%s: seed %lu (rerun: COREMPI_TEST_SEED=%lu)\n", prog, seed, seed);
        fflush(stdout);
    }
    return seed;
}

/* MPI_Init, the rank and size, the seed: the start of every osc test. */
static inline unsigned long osc_start(int *argc, char ***argv, const char *prog, int *me, int *n)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, me);
    MPI_Comm_size(MPI_COMM_WORLD, n);
    return osc_seed(*argc, *argv, prog);
}

/* xorshift64*: the same sequence on every rank from the same seed. */
static inline uint64_t osc_rand(uint64_t *s)
{
    uint64_t x = *s ? *s : 0x9e3779b97f4a7c15ull;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545f4914f6cdd1dull;
}
static inline int osc_rand_below(uint64_t *s, int n)
{
    return (int)(osc_rand(s) % (uint64_t)n);
}

/* A rank that lags: sleeps outside MPI, so a target that is not calling MPI
 * (passive target) or arrives late (fence, PSCW) is part of every test. */
static inline void osc_nap(long usec)
{
    struct timespec ts = {usec / 1000000, (usec % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

#endif
