/*
 * select.c -- the registry of collective algorithms and the selector.
 *
 * The algorithms are those of algorithms.def, one table {name, function,
 * applies_to} with each collective's rows together.  The selector takes
 * the first row of the tuning table that matches the call; COREMPI_<COLL>=name
 * forces an algorithm instead (if it does not apply to the call, the default
 * is used and COREMPI_VERBOSE says so).  COREMPI_VERBOSE=coll prints the
 * choice once per (collective, communicator, size class).  The environment is
 * read once.
 *
 * The registry is also how anything else reaches a row: cm_coll_row (the
 * shared-memory rows' fallback, CM_COLL_VIA) and the shortcuts' table
 * (cm_coll_shortcuts, whose eligibility cm_coll_shortcut_offer asks), so
 * that no front end or algorithm names another algorithm's function
 * (tests/tools/coll_circle.py).
 */
#include "coll/coll.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef CM_IN_COREMPI
#include "coll/check.h"
#include "coll/direct/direct.h"
#endif

static int cm_coll_needs_commutative(const struct cm_coll_query *q) { return q->commutative; }

/* Every algorithm of algorithms.def, collective after collective. */
static const struct cm_coll_algo algos[] = {
#define CM_ALGO(coll, name, function, applies_to) {#name, (void (*)(void))function, applies_to},
#include "coll/algorithms.def"
};

/* The position of each collective's first row in algos[] (coll.h: a
 * collective's marker takes the next row's number). */
static const unsigned short first_row[CM_COLL_NUM + 1] = {
#define CM_COLL(coll, COLL) CM_FIRST_##coll,
#include "coll/algorithms.def"
    CM_ROWS
};

/* Each row's collective, to check that the list keeps them together. */
enum {
#define CM_COLL(coll, COLL) CM_ID_##coll = CM_COLL_##COLL,
#include "coll/algorithms.def"
};
static const unsigned char row_coll[CM_ROWS] = {
#define CM_ALGO(coll, name, function, applies_to) CM_ID_##coll,
#include "coll/algorithms.def"
};

#ifdef CM_IN_COREMPI
/* 1 for the rows of the direct engine: they attach the communicator's
 * shared-memory area themselves (cm_direct_get); the selector has every
 * other algorithm attach it first (prepare_area below). */
static const unsigned char row_direct[CM_ROWS] = {
#define CM_ALGO(coll, name, function, applies_to) 0,
#define CM_DIRECT(coll, name, function, applies_to) 1,
#include "coll/algorithms.def"
};
#endif

/* The shortcuts (algorithms.def, CM_SHORTCUT): each collective's function
 * and its eligibility. */
void (*const cm_coll_shortcuts[CM_COLL_NUM])(void) = {
#define CM_SHORTCUT(coll, name, function, applies_to) [CM_COLL_ID_##coll] = (void (*)(void))function,
#include "coll/algorithms.def"
};
static cm_coll_shortcut_applies *const shortcut_applies[CM_COLL_NUM] = {
#define CM_SHORTCUT(coll, name, function, applies_to) [CM_COLL_ID_##coll] = applies_to,
#include "coll/algorithms.def"
};

static const char *const coll_name[CM_COLL_NUM] = {
#define CM_COLL(coll, COLL) #coll,
#include "coll/algorithms.def"
};
static const char *const coll_env[CM_COLL_NUM] = {
#define CM_COLL(coll, COLL) "COREMPI_" #COLL,
#include "coll/algorithms.def"
};

/* The tuning table, tuning.def: per collective the first row that matches
 * the call wins (the rules and each row's reason are there; the
 * measurements behind them in docs/tuning.md). */
struct tune_row {
    enum cm_coll_id coll;
    int max_size;
    size_t max_bytes;
    int pow2_only;
    const char *algo;
};
#define ANY_SIZE 0x7fffffff
#define ANY_BYTES ((size_t)-1)
static const struct tune_row tuning[] = {
#define CM_TUNE(coll, max_size, max_bytes, pow2_only, algo, why) \
    {CM_COLL_##coll, max_size, max_bytes, pow2_only, #algo},
#include "coll/tuning.def"
};

/* Second choice when the tuned or forced algorithm does not apply. */
static const char *const fallback[CM_COLL_NUM] = {
    [CM_COLL_ALLREDUCE] = "rabenseifner",
};

#define NROWS (sizeof(tuning) / sizeof(tuning[0]))

static struct {
    int ready;
    const char *forced[CM_COLL_NUM];
    int verbose;
} env;

/* The tuning table resolved once: a collective's rows in table order, each
 * with its algorithm (NULL: not registered here), so that choosing costs a
 * few comparisons and no string compare per call. */
static struct {
    int ready;
    unsigned short first[CM_COLL_NUM], count[CM_COLL_NUM];
    unsigned short row[NROWS];
    const struct cm_coll_algo *algo[NROWS];
    const struct cm_coll_algo *forced[CM_COLL_NUM];
    const struct cm_coll_algo *fallback[CM_COLL_NUM];
} resolved;

static void read_env(void)
{
    if (env.ready)
        return;
    for (int c = 0; c < CM_COLL_NUM; c++)
        env.forced[c] = cm_config_named(coll_env[c]);
    env.verbose = (cm_config_verbose() & CM_VERBOSE_COLL) != 0;
    /* Read here too, though only the hybrid algorithms use it (coll/level.c):
     * a bad value is then warned about at the first collective, whichever
     * algorithm runs, as every other COREMPI_* variable is (mpi.env_warnings). */
    (void)cm_config_size(COREMPI_COLL_LEVEL, 0);
    env.ready = 1;
}

/* COREMPI_<COLL> names no algorithm of that collective: say which exist. */
static void warn_unknown(enum cm_coll_id c)
{
    char names[512];
    size_t len = 0;
    names[0] = 0;
    for (int i = first_row[c]; i < first_row[c + 1] && len < sizeof names; i++)
        len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", i > first_row[c] ? ", " : "",
                                algos[i].name);
    cm_env_warn(coll_env[c], env.forced[c], "names no %s algorithm (there are: %s); using the tuned choice",
                coll_name[c], names);
}

/* An algorithm listed under another collective's CM_COLL line would be
 * called with the wrong arguments, and a collective without algorithms would
 * fall back to its neighbour's first: refuse to start (tests/coll's
 * algorithms.cmake refuses such a list at configure time already). */
static void check_rows(void)
{
    for (int c = 0; c < CM_COLL_NUM; c++) {
        if (first_row[c] == first_row[c + 1]) {
            fprintf(stderr, "corempi: algorithms.def lists no algorithm of %s\n", coll_name[c]);
            abort();
        }
        for (int i = first_row[c]; i < first_row[c + 1]; i++)
            if (row_coll[i] != c) {
                fprintf(stderr, "corempi: algorithms.def lists %s algorithm %s under %s\n", coll_name[row_coll[i]],
                        algos[i].name, coll_name[c]);
                abort();
            }
    }
}

static void resolve(void)
{
    read_env();
    unsigned short next = 0;
    check_rows();
    for (int c = 0; c < CM_COLL_NUM; c++) {
        resolved.first[c] = next;
        for (size_t i = 0; i < NROWS; i++) {
            if (tuning[i].coll != (enum cm_coll_id)c)
                continue;
            resolved.row[next] = (unsigned short)i;
            resolved.algo[next] = cm_coll_find((enum cm_coll_id)c, tuning[i].algo);
            next++;
        }
        resolved.count[c] = (unsigned short)(next - resolved.first[c]);
        resolved.forced[c] = env.forced[c] ? cm_coll_find((enum cm_coll_id)c, env.forced[c]) : NULL;
        if (env.forced[c] && !resolved.forced[c])
            warn_unknown((enum cm_coll_id)c);
        resolved.fallback[c] = fallback[c] ? cm_coll_find((enum cm_coll_id)c, fallback[c]) : NULL;
    }
    __atomic_store_n(&resolved.ready, 1, __ATOMIC_RELEASE);
}

/* MPI_THREAD_MULTIPLE: the first collectives of several threads resolve
 * the table once; a thread that sees it ready sees it whole. */
static pthread_once_t resolve_once = PTHREAD_ONCE_INIT;

const struct cm_coll_algo *cm_coll_list(enum cm_coll_id coll, int *n)
{
    *n = first_row[coll + 1] - first_row[coll];
    return &algos[first_row[coll]];
}

const struct cm_coll_algo *cm_coll_row(enum cm_coll_row row)
{
    return &algos[row];
}

const struct cm_coll_algo *cm_coll_find(enum cm_coll_id coll, const char *name)
{
    for (int i = first_row[coll]; i < first_row[coll + 1]; i++)
        if (strcmp(algos[i].name, name) == 0)
            return &algos[i];
    return NULL;
}

static int applies(const struct cm_coll_algo *a, const struct cm_coll_query *q)
{
    return a && (!a->applies_to || a->applies_to(q));
}

/* Print once per (collective, communicator, size class). */
static void say_once(enum cm_coll_id coll, MPI_Comm comm, const struct cm_coll_query *q, const char *algo,
                     const char *why)
{
    enum { SEEN_MAX = 512 };
    static struct { int coll; intptr_t comm; int cls; } seen[SEEN_MAX];
    static int nseen;
    int cls = 0;
    for (size_t b = q->bytes; b > 1; b >>= 1)
        cls++;
    intptr_t c = (intptr_t)comm;
    for (int i = 0; i < nseen; i++)
        if (seen[i].coll == (int)coll && seen[i].comm == c && seen[i].cls == cls)
            return;
    if (nseen < SEEN_MAX) {
        seen[nseen].coll = coll;
        seen[nseen].comm = c;
        seen[nseen].cls = cls;
        nseen++;
    }
    int rank = 0;
    PMPI_Comm_rank(comm, &rank);
    if (rank == 0)
        fprintf(stderr, "corempi: coll %s size %d bytes %zu%s: %s (%s)\n", coll_name[coll], q->size,
                q->bytes, q->commutative ? "" : " non-commutative", algo, why);
}

/* The last choice per collective.  A choice depends on the query alone (the
 * table, the forced names and every applies_to are fixed after start-up), and
 * a program calls the same collective with the same shape over and over: the
 * table walk and its applies_to calls cost a tiny collective a tenth of its
 * time.  Not used with COREMPI_VERBOSE=coll, which reports per communicator.
 * Two of them: last_choice holds a direct-engine choice, last_p2p a
 * point-to-point one, whose hits also make sure the communicator has its
 * area (prepare_area); a hit in last_choice costs what it did before.  A
 * point-to-point call empties last_choice, so the last call's algorithm is
 * last_choice's if it has one, else last_p2p's (cm_coll_last_algo). */
struct choice {
    struct cm_coll_query q;
    const struct cm_coll_algo *a;
};
/* Per thread (MPI_THREAD_MULTIPLE: one thread's half-written entry must
 * not answer another's query). */
static CM_THREAD_LOCAL struct choice last_choice[CM_COLL_NUM], last_p2p[CM_COLL_NUM];

/* y is the caller's fresh query, just written field by field with 4-byte
 * stores.  Compared plainly, GCC merges two int compares into one 8-byte
 * load, which the store buffer cannot forward from two 4-byte stores: a stall
 * that was a sixth of a tiny scatter's root.  Relaxed atomic loads are never
 * merged, so each reads exactly one stored field. */
static int field(const int *f) { return __atomic_load_n(f, __ATOMIC_RELAXED); }

static int same_query(const struct cm_coll_query *x, const struct cm_coll_query *y)
{
    return x->size == field(&y->size) && x->count == field(&y->count) && x->bytes == y->bytes &&
           x->commutative == field(&y->commutative) && x->contiguous == field(&y->contiguous);
}

static const struct cm_coll_algo *choose(enum cm_coll_id coll, MPI_Comm comm, const struct cm_coll_query *q);

/* Before a point-to-point algorithm runs: the communicator's first
 * blocking collective attaches its shared-memory area on every member,
 * whichever algorithm each one's arguments chose (coll/direct/area.c,
 * cm_direct_prepare).  Returns a. */
static const struct cm_coll_algo *prepare_area(enum cm_coll_id coll, MPI_Comm comm,
                                               const struct cm_coll_query *q, const struct cm_coll_algo *a)
{
#ifdef CM_IN_COREMPI
    last_choice[coll].a = NULL;
    if (q->size > 1 && !cm_direct_prepared(comm))
        cm_direct_prepare(comm, cm_coll_call_name(coll));
#else
    (void)coll, (void)comm, (void)q;
#endif
    return a;
}

static int is_direct(const struct cm_coll_algo *a)
{
#ifdef CM_IN_COREMPI
    return row_direct[a - algos];
#else
    (void)a;
    return 0;
#endif
}

/* A fresh choice a: kept in its cache, and the area prepared for it. */
static const struct cm_coll_algo *remember(enum cm_coll_id coll, MPI_Comm comm, const struct cm_coll_query *q,
                                           const struct cm_coll_algo *a)
{
    struct choice *c = is_direct(a) ? &last_choice[coll] : &last_p2p[coll];
    c->q = *q;
    c->a = a;
    return is_direct(a) ? a : prepare_area(coll, comm, q, a);
}

const struct cm_coll_algo *cm_coll_select(enum cm_coll_id coll, MPI_Comm comm, const struct cm_coll_query *q)
{
    if (__builtin_expect(!__atomic_load_n(&resolved.ready, __ATOMIC_ACQUIRE), 0))
        pthread_once(&resolve_once, resolve);
    if (env.verbose)       /* chooses every time: kept for cm_coll_last_algo only */
        return remember(coll, comm, q, choose(coll, comm, q));
    if (last_choice[coll].a && same_query(&last_choice[coll].q, q))
        return last_choice[coll].a;
    if (last_p2p[coll].a && same_query(&last_p2p[coll].q, q))
        return prepare_area(coll, comm, q, last_p2p[coll].a);
    return remember(coll, comm, q, choose(coll, comm, q));
}

void cm_coll_shortcut_offer(enum cm_coll_id coll, MPI_Comm cc, const struct cm_coll_query *q,
                            const struct cm_coll_algo *a)
{
    if (shortcut_applies[coll] && is_direct(a))
        shortcut_applies[coll](cc, q);
}

int cm_coll_last_algo(enum cm_coll_id coll)
{
    const struct cm_coll_algo *a = last_choice[coll].a ? last_choice[coll].a : last_p2p[coll].a;
    return a ? (int)(a - &algos[first_row[coll]]) : -1;
}

static const struct cm_coll_algo *choose(enum cm_coll_id coll, MPI_Comm comm, const struct cm_coll_query *q)
{
    const struct cm_coll_algo *a = NULL;
    const char *why = "tuned";
    if (env.forced[coll]) {
        a = resolved.forced[coll];
        if (applies(a, q)) {
            why = "forced";
        } else {
            static char warned[CM_COLL_NUM];
            if (env.verbose && !warned[coll]++)
                fprintf(stderr, "corempi: %s=%s %s; using the default\n", coll_env[coll], env.forced[coll],
                        a ? "does not apply to this call" : "is not an algorithm of this collective");
            a = NULL;
            why = "forced one does not apply";
        }
    }
    for (unsigned k = resolved.first[coll], end = k + resolved.count[coll]; !a && k < end; k++) {
        const struct tune_row *r = &tuning[resolved.row[k]];
        if (q->size > r->max_size || q->bytes > r->max_bytes)
            continue;
        if (r->pow2_only && (q->size & (q->size - 1)))
            continue;
        a = resolved.algo[k];
        if (!applies(a, q))
            a = NULL;      /* the next matching row gets its chance (shm rows first) */
    }
    if (!a)
        a = resolved.fallback[coll];
    if (!applies(a, q))
        a = &algos[first_row[coll]];      /* the first of each collective applies to everything */
    if (env.verbose)
        say_once(coll, comm, q, a->name, why);
    return a;
}
