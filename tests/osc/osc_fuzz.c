/*
 * osc_fuzz.c -- random differential test of one-sided communication (issue 23
 * item 5): random epochs of random operations, applied also to a model of
 * every window that each rank keeps, compared after every epoch.
 *
 * Every rank draws the whole job's program from the same seed, so every rank
 * knows every origin's operations and keeps the same model; each then checks
 * its own window memory and the results of its own fetching operations.
 * The model is exact because the draw keeps an epoch free of races: an
 * element is touched in one epoch either by one operation at most (Put, Get,
 * Get_accumulate, Fetch_and_op, Compare_and_swap, Accumulate with REPLACE, and
 * their request forms), or only by Accumulates with one commutative op, whose
 * result does not depend on their order.
 *
 * Epochs: fence (consecutive fences close and open at once; assert hints when
 * they hold), PSCW among all ranks, lock_all with flushes, a lock (shared or
 * exclusive) around each operation.  Between epochs, ranks store into their
 * own window directly (the unified model: RMA and loads/stores see one copy).
 * Windows: all five kinds, the epoch picks one.  Some targets are strided
 * (a vector type on the target side).
 *
 * usage: osc_fuzz [seed [epochs]]     (COREMPI_TEST_SEED=seed also works)
 */
#include "osc_common.h"

#define S 24          /* elements per rank in each window */
#define MAXOPS 6      /* operations per origin per epoch, at most */

enum { F_FENCE, F_PSCW, F_LOCKALL, F_LOCK, F_NSYNC };
static const char *const sync_name[F_NSYNC] = {"fence", "pscw", "lock_all", "lock"};
enum { T_PUT, T_GET, T_ACC, T_GACC, T_FOP, T_CAS, T_NTYPES };
static const char *const type_name[T_NTYPES] = {
    "Put", "Get", "Accumulate", "Get_accumulate", "Fetch_and_op", "Compare_and_swap"};

/* Commutative ops for shared accumulation; REPLACE and NO_OP only alone. */
static MPI_Op acc_ops[6];
static const char *const acc_name[6] = {"SUM", "BXOR", "MAX", "MIN", "REPLACE", "NO_OP"};

struct rop {
    int type, target, disp, count, stride, opi, request, lock;
    long long val[4], cmp;
    long long want[4]; /* fetched values expected (model before the op) */
    long long got[4];
};

static int me, n;
static long long *model[OSC_NKINDS]; /* model[kind][t * S + i] */

static long long apply(int opi, long long old, long long v)
{
    switch (opi) {
    case 0: return (long long)((unsigned long long)old + (unsigned long long)v);
    case 1: return old ^ v;
    case 2: return old > v ? old : v;
    case 3: return old < v ? old : v;
    case 4: return v;
    default: return old;
    }
}

/* mark: 0 free, -1 used by one exclusive op, 1 + opi shared accumulation */
static int draw_op(uint64_t *rng, int passive, int *mark, struct rop *o)
{
    memset(o, 0, sizeof *o);
    o->type = osc_rand_below(rng, T_NTYPES);
    o->target = osc_rand_below(rng, n);
    o->count = (o->type == T_FOP || o->type == T_CAS) ? 1 : 1 + osc_rand_below(rng, 4);
    o->stride = (o->count > 1 && osc_rand_below(rng, 3) == 0) ? 2 : 1;
    int span = (o->count - 1) * o->stride + 1;
    o->disp = osc_rand_below(rng, S - span + 1);
    o->request = passive && o->type <= T_GACC && osc_rand_below(rng, 2);
    o->lock = osc_rand_below(rng, 2) ? MPI_LOCK_SHARED : MPI_LOCK_EXCLUSIVE;
    if (o->type == T_ACC)
        o->opi = osc_rand_below(rng, 5); /* SUM BXOR MAX MIN REPLACE */
    else if (o->type == T_GACC || o->type == T_FOP)
        o->opi = osc_rand_below(rng, 6); /* ... and NO_OP */
    for (int j = 0; j < o->count; j++)
        o->val[j] = (long long)(osc_rand(rng) >> osc_rand_below(rng, 60)) * (osc_rand_below(rng, 2) ? 1 : -1);
    int shared = o->type == T_ACC && o->opi < 4;
    int *m = mark + o->target * S;
    for (int j = 0; j < o->count; j++) {
        int e = m[o->disp + j * o->stride];
        if (shared ? (e != 0 && e != 1 + o->opi) : e != 0)
            return 0; /* would race: drop this draw */
    }
    for (int j = 0; j < o->count; j++)
        m[o->disp + j * o->stride] = shared ? 1 + o->opi : -1;
    return 1;
}

/* The model after o; o->want gets what o fetches. */
static void model_apply(long long *mod, struct rop *o)
{
    long long *t = mod + o->target * S;
    for (int j = 0; j < o->count; j++) {
        long long *e = &t[o->disp + j * o->stride];
        o->want[j] = *e;
        switch (o->type) {
        case T_PUT: *e = o->val[j]; break;
        case T_GET: break;
        case T_CAS:
            o->cmp = osc_rand_below(&(uint64_t){(uint64_t)o->val[0] | 1}, 2) ? *e : *e + 1;
            if (*e == o->cmp)
                *e = o->val[j];
            break;
        default: *e = apply(o->opi, *e, o->val[j]); break;
        }
    }
}

static void issue(struct osc_win *w, struct rop *o, MPI_Datatype tt, MPI_Request *req)
{
    MPI_Aint d = osc_disp(w, o->target, o->disp);
    MPI_Op op = acc_ops[o->opi];
    int c = o->count, tc = o->stride > 1 ? 1 : c;
    MPI_Datatype ot = MPI_LONG_LONG;
    *req = MPI_REQUEST_NULL;
    for (int j = 0; j < 4; j++)
        o->got[j] = 0x5a5a5a5a;
    switch (o->type) {
    case T_PUT:
        if (o->request)
            CHECK_MPI(MPI_Rput(o->val, c, ot, o->target, d, tc, tt, w->win, req));
        else
            CHECK_MPI(MPI_Put(o->val, c, ot, o->target, d, tc, tt, w->win));
        break;
    case T_GET:
        if (o->request)
            CHECK_MPI(MPI_Rget(o->got, c, ot, o->target, d, tc, tt, w->win, req));
        else
            CHECK_MPI(MPI_Get(o->got, c, ot, o->target, d, tc, tt, w->win));
        break;
    case T_ACC:
        if (o->request)
            CHECK_MPI(MPI_Raccumulate(o->val, c, ot, o->target, d, tc, tt, op, w->win, req));
        else
            CHECK_MPI(MPI_Accumulate(o->val, c, ot, o->target, d, tc, tt, op, w->win));
        break;
    case T_GACC:
        if (o->request)
            CHECK_MPI(MPI_Rget_accumulate(o->val, c, ot, o->got, c, ot, o->target, d, tc, tt, op, w->win, req));
        else
            CHECK_MPI(MPI_Get_accumulate(o->val, c, ot, o->got, c, ot, o->target, d, tc, tt, op, w->win));
        break;
    case T_FOP:
        CHECK_MPI(MPI_Fetch_and_op(o->val, o->got, ot, o->target, d, op, w->win));
        break;
    case T_CAS:
        CHECK_MPI(MPI_Compare_and_swap(o->val, &o->cmp, o->got, ot, o->target, d, w->win));
        break;
    }
}

static void check_window(struct osc_win *w, int direct, unsigned long seed, int epoch)
{
    if (!direct)
        osc_local_begin(w);
    const long long *mod = model[w->kind] + me * S;
    for (int i = 0; i < S; i++)
        CHECK(w->base[i] == mod[i], "seed %lu epoch %d (%s window): element %d of rank %d is %lld, model says %lld",
              seed, epoch, osc_kind_name[w->kind], i, me, w->base[i], mod[i]);
    if (!direct)
        osc_local_end(w);
}

int main(int argc, char **argv)
{
    unsigned long seed = osc_start(&argc, &argv, "osc_fuzz", &me, &n);
    int epochs = argc > 2 ? atoi(argv[2]) : 150;
    uint64_t rng = seed * 0x9e3779b97f4a7c15ull + 12345;
    /* Choices that only this rank makes (waits, flushes) draw from their own
     * sequence: the shared one must stay in step on every rank. */
    uint64_t local_rng = rng ^ (0x1234567ull * (uint64_t)(me + 1));
    acc_ops[0] = MPI_SUM; acc_ops[1] = MPI_BXOR; acc_ops[2] = MPI_MAX;
    acc_ops[3] = MPI_MIN; acc_ops[4] = MPI_REPLACE; acc_ops[5] = MPI_NO_OP;

    struct osc_win win[OSC_NKINDS];
    for (int k = 0; k < OSC_NKINDS; k++) {
        osc_win_make(&win[k], (enum osc_kind)k, S, MPI_COMM_WORLD);
        model[k] = calloc((size_t)n * S, sizeof(long long));
        CHECK(model[k], "calloc");
    }
    MPI_Datatype strided[5];
    for (int c = 1; c <= 4; c++) {
        MPI_Type_vector(c, 1, 2, MPI_LONG_LONG, &strided[c]);
        MPI_Type_commit(&strided[c]);
    }
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int *mark = malloc((size_t)n * S * sizeof(int));
    struct rop *ops = malloc((size_t)n * MAXOPS * sizeof(struct rop));
    int *nops = malloc((size_t)n * sizeof(int));
    CHECK(mark && ops && nops, "malloc");

    int fence_open = -1; /* the kind whose fence epoch is open, or -1 */
    int sync = osc_rand_below(&rng, F_NSYNC), kind = osc_rand_below(&rng, OSC_NKINDS);
    long counted[F_NSYNC] = {0};
    for (int ep = 0; ep < epochs; ep++) {
        struct osc_win *w = &win[kind];
        int passive = sync >= F_LOCKALL;
        /* Direct stores between epochs (never inside an open fence epoch). */
        if (fence_open < 0 && osc_rand_below(&rng, 4) == 0) {
            int i = osc_rand_below(&rng, S), r = osc_rand_below(&rng, n);
            long long v = (long long)osc_rand(&rng);
            model[kind][r * S + i] = v;
            if (r == me) {
                osc_local_begin(w);
                w->base[i] = v;
                osc_local_end(w);
            }
            MPI_Barrier(MPI_COMM_WORLD);
        }
        /* Draw every origin's operations; the model follows them. */
        memset(mark, 0, (size_t)n * S * sizeof(int));
        for (int r = 0; r < n; r++) {
            int want = osc_rand_below(&rng, MAXOPS + 1);
            nops[r] = 0;
            for (int a = 0; a < want; a++)
                if (draw_op(&rng, passive, mark, &ops[r * MAXOPS + nops[r]])) {
                    model_apply(model[kind], &ops[r * MAXOPS + nops[r]]);
                    nops[r]++;
                }
        }
        int lagger = osc_rand_below(&rng, n);
        int next_sync = osc_rand_below(&rng, F_NSYNC), next_kind = osc_rand_below(&rng, OSC_NKINDS);
        if (me == lagger)
            osc_nap(1000 + 500 * osc_rand_below(&(uint64_t){seed + (uint64_t)ep}, 4));

        /* open */
        if (sync == F_FENCE) {
            if (fence_open != kind) {
                if (fence_open >= 0) /* another window's fence epoch: end it */
                    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win[fence_open].win));
                CHECK_MPI(MPI_Win_fence(MPI_MODE_NOPRECEDE, w->win));
            }
        } else {
            if (fence_open >= 0)
                CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win[fence_open].win));
            fence_open = -1;
            if (sync == F_PSCW) {
                CHECK_MPI(MPI_Win_post(world, 0, w->win));
                CHECK_MPI(MPI_Win_start(world, 0, w->win));
            } else if (sync == F_LOCKALL) {
                CHECK_MPI(MPI_Win_lock_all(0, w->win));
            }
        }
        counted[sync]++;

        /* my operations */
        struct rop *mine = &ops[me * MAXOPS];
        MPI_Request reqs[MAXOPS];
        for (int a = 0; a < nops[me]; a++) {
            struct rop *o = &mine[a];
            MPI_Datatype tt = o->stride > 1 ? strided[o->count] : MPI_LONG_LONG;
            if (sync == F_LOCK)
                CHECK_MPI(MPI_Win_lock(o->lock, o->target, 0, w->win));
            issue(w, o, tt, &reqs[a]);
            if (reqs[a] != MPI_REQUEST_NULL && osc_rand_below(&local_rng, 2))
                CHECK_MPI(MPI_Wait(&reqs[a], MPI_STATUS_IGNORE));
            if (sync == F_LOCK)
                CHECK_MPI(MPI_Win_unlock(o->target, w->win));
            else if (sync == F_LOCKALL)
                switch (osc_rand_below(&local_rng, 5)) {
                case 0: CHECK_MPI(MPI_Win_flush(o->target, w->win)); break;
                case 1: CHECK_MPI(MPI_Win_flush_all(w->win)); break;
                case 2: CHECK_MPI(MPI_Win_flush_local(o->target, w->win)); break;
                case 3: CHECK_MPI(MPI_Win_flush_local_all(w->win)); break;
                default: break;
                }
        }
        for (int a = 0; a < nops[me]; a++)
            if (reqs[a] != MPI_REQUEST_NULL)
                CHECK_MPI(MPI_Wait(&reqs[a], MPI_STATUS_IGNORE));

        /* close */
        if (sync == F_FENCE) {
            int fence_next = next_sync == F_FENCE && next_kind == kind;
            CHECK_MPI(MPI_Win_fence(fence_next ? 0 : MPI_MODE_NOSUCCEED, w->win));
            fence_open = fence_next ? kind : -1;
        } else if (sync == F_PSCW) {
            CHECK_MPI(MPI_Win_complete(w->win));
            CHECK_MPI(MPI_Win_wait(w->win));
        } else if (sync == F_LOCKALL) {
            CHECK_MPI(MPI_Win_unlock_all(w->win));
        }
        /* the origin's results */
        for (int a = 0; a < nops[me]; a++) {
            struct rop *o = &mine[a];
            if (o->type == T_PUT || o->type == T_ACC)
                continue;
            for (int j = 0; j < o->count; j++)
                CHECK(o->got[j] == o->want[j],
                      "seed %lu epoch %d (%s, %s window): %s op %s to rank %d element %d: fetched %lld, model says %lld",
                      seed, ep, sync_name[sync], osc_kind_name[kind], type_name[o->type], acc_name[o->opi],
                      o->target, o->disp + j * o->stride, o->got[j], o->want[j]);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        check_window(w, fence_open == kind, seed, ep);
        MPI_Barrier(MPI_COMM_WORLD);
        sync = next_sync;
        kind = next_kind;
    }
    if (fence_open >= 0)
        CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win[fence_open].win));
    for (int k = 0; k < OSC_NKINDS; k++) {
        osc_win_free(&win[k]);
        free(model[k]);
    }
    for (int c = 1; c <= 4; c++)
        MPI_Type_free(&strided[c]);
    MPI_Group_free(&world);
    free(mark);
    free(ops);
    free(nops);
    if (me == 0)
        printf("osc_fuzz: %d epochs passed at %d ranks (fence %ld, pscw %ld, lock_all %ld, lock %ld)\n", epochs, n,
               counted[0], counted[1], counted[2], counted[3]);
    MPI_Finalize();
    return 0;
}
