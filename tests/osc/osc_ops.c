/*
 * osc_ops.c -- every predefined reduction op in one-sided accumulates, and
 * MPI_REPLACE / MPI_NO_OP (issue 23 items 2 and 5).
 *
 * Phase A: every rank Accumulates K elements into the same region of every
 * rank, for every valid (type, op) pair; the result is the fold of the
 * initial values and every rank's contribution, whatever the order (the ops
 * are commutative; values keep floating point exact).  REPLACE from all
 * ranks at once leaves every element equal to some one rank's value.
 * Phase B: one origin per region: Get_accumulate (K-1 elements) and
 * Fetch_and_op (the last) with every op, NO_OP included: fetched = old,
 * target = op(old, value).
 * Both phases under lock_all and under fence, on allocate and create windows.
 * Types: int, unsigned, short, long, long long, unsigned char, int64_t,
 * uint16_t, float, double, C bool, byte, and the pairs 2INT, DOUBLE_INT,
 * LONG_INT for MAXLOC/MINLOC.
 */
#include <stdbool.h>

#include "osc_common.h"

#define K 4
#define REGION 64 /* bytes per (type, op) case: K elements of up to 16 bytes */

enum cls { C_INT, C_FLOAT, C_BOOL, C_BYTE, C_PAIR };
struct di { double v; int i; };
struct li { long v; int i; };
struct ii { int v; int i; };

struct tdesc {
    const char *name;
    MPI_Datatype dt;
    int size;
    enum cls cls;
    int id; /* which C type, for the model */
};
enum { T_INT, T_UNS, T_SHORT, T_LONG, T_LL, T_UCHAR, T_I64, T_U16, T_FLOAT, T_DOUBLE, T_BOOL, T_BYTE, T_2INT, T_DI, T_LI,
       T_N };
static struct tdesc T[T_N];

#define NOPS 14
static MPI_Op OPS[NOPS];
static const char *const OPNAME[NOPS] = {"MAX", "MIN", "SUM", "PROD", "LAND", "LOR", "LXOR",
                                         "BAND", "BOR", "BXOR", "MAXLOC", "MINLOC", "REPLACE", "NO_OP"};
enum { O_MAX, O_MIN, O_SUM, O_PROD, O_LAND, O_LOR, O_LXOR, O_BAND, O_BOR, O_BXOR, O_MAXLOC, O_MINLOC, O_REPLACE, O_NOOP };

static void setup(void)
{
    struct tdesc t[T_N] = {
        {"MPI_INT", MPI_INT, sizeof(int), C_INT, T_INT},
        {"MPI_UNSIGNED", MPI_UNSIGNED, sizeof(unsigned), C_INT, T_UNS},
        {"MPI_SHORT", MPI_SHORT, sizeof(short), C_INT, T_SHORT},
        {"MPI_LONG", MPI_LONG, sizeof(long), C_INT, T_LONG},
        {"MPI_LONG_LONG", MPI_LONG_LONG, sizeof(long long), C_INT, T_LL},
        {"MPI_UNSIGNED_CHAR", MPI_UNSIGNED_CHAR, 1, C_INT, T_UCHAR},
        {"MPI_INT64_T", MPI_INT64_T, 8, C_INT, T_I64},
        {"MPI_UINT16_T", MPI_UINT16_T, 2, C_INT, T_U16},
        {"MPI_FLOAT", MPI_FLOAT, sizeof(float), C_FLOAT, T_FLOAT},
        {"MPI_DOUBLE", MPI_DOUBLE, sizeof(double), C_FLOAT, T_DOUBLE},
        {"MPI_C_BOOL", MPI_C_BOOL, sizeof(bool), C_BOOL, T_BOOL},
        {"MPI_BYTE", MPI_BYTE, 1, C_BYTE, T_BYTE},
        {"MPI_2INT", MPI_2INT, sizeof(struct ii), C_PAIR, T_2INT},
        {"MPI_DOUBLE_INT", MPI_DOUBLE_INT, sizeof(struct di), C_PAIR, T_DI},
        {"MPI_LONG_INT", MPI_LONG_INT, sizeof(struct li), C_PAIR, T_LI},
    };
    memcpy(T, t, sizeof t);
    MPI_Op o[NOPS] = {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_LOR, MPI_LXOR,
                      MPI_BAND, MPI_BOR, MPI_BXOR, MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP};
    memcpy(OPS, o, sizeof o);
}

/* Which ops the standard allows on a class (MPI-4.1 6.9.2), REPLACE and
 * NO_OP apart. */
static int valid(enum cls c, int op)
{
    switch (c) {
    case C_INT: return op <= O_BXOR;
    case C_FLOAT: return op <= O_PROD;
    case C_BOOL: return op >= O_LAND && op <= O_LXOR;
    case C_BYTE: return op >= O_BAND && op <= O_BXOR;
    case C_PAIR: return op == O_MAXLOC || op == O_MINLOC;
    }
    return 0;
}

/* A value that keeps every fold exact: small, PROD factors 1 and 2 (0.5 for
 * floats), logical values 0 or non-zero. */
static long long gen(int seed, int op)
{
    unsigned h = (unsigned)seed * 2654435761u;
    h ^= h >> 13;
    if (op == O_PROD)
        return 1 + (h % 2);
    if (op >= O_LAND && op <= O_LXOR)
        return (h % 3) ? (long long)(h % 5) : 0;
    return (long long)(h % 101) - 50;
}

static void set_val(const struct tdesc *t, void *p, int seed, int op)
{
    long long v = gen(seed, op);
#ifdef MPICH_VERSION
    /* MPICH 4.0.2's one-sided MAX/MIN compare MPI_UNSIGNED as signed
     * (4000000001 < 5): unsigned values stay below the sign bit there. */
    if ((t->id == T_UNS || t->id == T_U16 || t->id == T_UCHAR) && v < 0)
        v = -v;
#endif
    switch (t->id) {
    case T_INT: *(int *)p = (int)v; break;
    case T_UNS: *(unsigned *)p = (unsigned)v; break;
    case T_SHORT: *(short *)p = (short)v; break;
    case T_LONG: *(long *)p = (long)v; break;
    case T_LL: *(long long *)p = v; break;
    case T_UCHAR: *(unsigned char *)p = (unsigned char)v; break;
    case T_I64: *(int64_t *)p = v; break;
    case T_U16: *(uint16_t *)p = (uint16_t)v; break;
    case T_FLOAT: *(float *)p = op == O_PROD && v == 1 && seed % 3 == 0 ? 0.5f : (float)v; break;
    case T_DOUBLE: *(double *)p = op == O_PROD && v == 1 && seed % 3 == 0 ? 0.5 : (double)v; break;
    case T_BOOL: *(bool *)p = v != 0; break;
    case T_BYTE: *(unsigned char *)p = (unsigned char)(v * 37); break;
    case T_2INT: { struct ii x; memset(&x, 0, sizeof x); x.v = (int)(v % 7); x.i = (seed * 7) % 13; memcpy(p, &x, sizeof x); break; }
    case T_DI: { struct di x; memset(&x, 0, sizeof x); x.v = (double)(v % 7); x.i = (seed * 7) % 13; memcpy(p, &x, sizeof x); break; }
    case T_LI: { struct li x; memset(&x, 0, sizeof x); x.v = (long)(v % 7); x.i = (seed * 7) % 13; memcpy(p, &x, sizeof x); break; }
    }
}

#define ARITH(CT)                                                                                         \
    do {                                                                                                  \
        CT x, y;                                                                                          \
        memcpy(&x, a, sizeof x);                                                                          \
        memcpy(&y, b, sizeof y);                                                                          \
        switch (op) {                                                                                     \
        case O_MAX: x = x > y ? x : y; break;                                                             \
        case O_MIN: x = x < y ? x : y; break;                                                             \
        case O_SUM: x = (CT)(x + y); break;                                                               \
        case O_PROD: x = (CT)(x * y); break;                                                              \
        case O_LAND: x = (CT)(x && y); break;                                                             \
        case O_LOR: x = (CT)(x || y); break;                                                              \
        case O_LXOR: x = (CT)(!x != !y); break;                                                           \
        case O_REPLACE: x = y; break;                                                                     \
        default: break;                                                                                   \
        }                                                                                                 \
        memcpy(a, &x, sizeof x);                                                                          \
    } while (0)
#define BITS(CT)                                                                                          \
    do {                                                                                                  \
        CT x, y;                                                                                          \
        memcpy(&x, a, sizeof x);                                                                          \
        memcpy(&y, b, sizeof y);                                                                          \
        if (op == O_BAND) x = (CT)(x & y);                                                                \
        else if (op == O_BOR) x = (CT)(x | y);                                                            \
        else if (op == O_BXOR) x = (CT)(x ^ y);                                                           \
        memcpy(a, &x, sizeof x);                                                                          \
    } while (0)
#define INTOP(CT) do { if (op >= O_BAND && op <= O_BXOR) BITS(CT); else ARITH(CT); } while (0)
/* MAXLOC/MINLOC: the better value, on a tie the smaller index. */
#define LOC(ST)                                                                                           \
    do {                                                                                                  \
        ST x, y;                                                                                          \
        memcpy(&x, a, sizeof x);                                                                          \
        memcpy(&y, b, sizeof y);                                                                          \
        if (op == O_REPLACE) x = y;                                                                       \
        else if (x.v == y.v) x.i = x.i < y.i ? x.i : y.i;                                                 \
        else if ((op == O_MAXLOC) == (y.v > x.v)) x = y;                                                  \
        memcpy(a, &x, sizeof x);                                                                          \
    } while (0)

/* a = a op b, in the model */
static void model(const struct tdesc *t, int op, void *a, const void *b)
{
    if (op == O_NOOP)
        return;
    switch (t->id) {
    case T_INT: INTOP(int); break;
    case T_UNS: INTOP(unsigned); break;
    case T_SHORT: INTOP(short); break;
    case T_LONG: INTOP(long); break;
    case T_LL: INTOP(long long); break;
    case T_UCHAR: case T_BYTE: INTOP(unsigned char); break;
    case T_I64: INTOP(int64_t); break;
    case T_U16: INTOP(uint16_t); break;
    case T_FLOAT: ARITH(float); break;
    case T_DOUBLE: ARITH(double); break;
    case T_BOOL: {
        bool x = *(bool *)a, y = *(const bool *)b;
        if (op == O_LAND) x = x && y;
        else if (op == O_LOR) x = x || y;
        else if (op == O_LXOR) x = x != y;
        else if (op == O_REPLACE) x = y;
        *(bool *)a = x;
        break;
    }
    case T_2INT: LOC(struct ii); break;
    case T_DI: LOC(struct di); break;
    case T_LI: LOC(struct li); break;
    }
}

/* Pairs compare by their fields (padding is not data). */
static int same(const struct tdesc *t, const void *a, const void *b)
{
    switch (t->id) {
    case T_2INT: { struct ii x, y; memcpy(&x, a, sizeof x); memcpy(&y, b, sizeof y); return x.v == y.v && x.i == y.i; }
    case T_DI: { struct di x, y; memcpy(&x, a, sizeof x); memcpy(&y, b, sizeof y); return x.v == y.v && x.i == y.i; }
    case T_LI: { struct li x, y; memcpy(&x, a, sizeof x); memcpy(&y, b, sizeof y); return x.v == y.v && x.i == y.i; }
    case T_BOOL: return !*(const bool *)a == !*(const bool *)b;
    default: return memcmp(a, b, (size_t)t->size) == 0;
    }
}

static int me, n;
struct ocase { int t, op; };

static int init_seed(int rank, int c, int k) { return 7919 * rank + 131 * c + k + 1; }
static int val_seed(int r, int target, int c, int k) { return 104729 + 7919 * r + 613 * target + 131 * c + k; }

/* Byte offset of element k in a region.  Phase B's Fetch_and_op element
 * sits at byte 48, a multiple of the window's disp_unit (8). */
#define FOP_AT 48
static int pos(const struct tdesc *t, int k, int phase_b)
{
    return phase_b && k == K - 1 ? FOP_AT : k * t->size;
}

static void fill_init(struct osc_win *w, const struct ocase *cs, int nc, int phase_b)
{
    osc_local_begin(w);
    for (int c = 0; c < nc; c++)
        for (int k = 0; k < K; k++)
            set_val(&T[cs[c].t], (char *)w->base + c * REGION + pos(&T[cs[c].t], k, phase_b), init_seed(me, c, k),
                    cs[c].op);
    osc_local_end(w);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void open_epoch(struct osc_win *w, int fence)
{
    if (fence)
        CHECK_MPI(MPI_Win_fence(MPI_MODE_NOPRECEDE, w->win));
    else
        CHECK_MPI(MPI_Win_lock_all(0, w->win));
}
static void close_epoch(struct osc_win *w, int fence)
{
    if (fence)
        CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, w->win));
    else
        CHECK_MPI(MPI_Win_unlock_all(w->win));
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    osc_start(&argc, &argv, "osc_ops", &me, &n);
    setup();
    struct ocase cs[T_N * NOPS];
    int nc = 0;
    for (int t = 0; t < T_N; t++)
        for (int op = 0; op < NOPS; op++)
            if (valid(T[t].cls, op) || op == O_REPLACE || op == O_NOOP)
                cs[nc++] = (struct ocase){t, op};
    int kinds[2] = {OSC_ALLOCATE, OSC_CREATE};
    unsigned char want[REGION], tmp[16];
    /* Origin buffers stay untouched until their epoch ends: one per operation. */
    unsigned char *obufs = malloc((size_t)nc * (size_t)n * REGION);
    CHECK(obufs, "malloc");
    for (int ki = 0; ki < 2; ki++) {
        struct osc_win w;
        osc_win_make(&w, (enum osc_kind)kinds[ki], nc * REGION / 8, MPI_COMM_WORLD);
        for (int fence = 0; fence < 2; fence++) {
            const char *how = fence ? "fence" : "lock_all";
            /* Phase A: every rank into every rank's region c. */
            fill_init(&w, cs, nc, 0);
            open_epoch(&w, fence);
            for (int c = 0; c < nc; c++) {
                const struct tdesc *t = &T[cs[c].t];
                if (cs[c].op == O_NOOP)
                    continue; /* NO_OP: Get_accumulate and Fetch_and_op only */
                for (int d = 0; d < n; d++) {
                    int target = (me + d) % n;
                    unsigned char *buf = obufs + ((size_t)c * (size_t)n + (size_t)d) * REGION;
                    for (int k = 0; k < K; k++)
                        set_val(t, buf + k * t->size, val_seed(me, target, c, k), cs[c].op);
                    CHECK_MPI(MPI_Accumulate(buf, K, t->dt, target, osc_disp(&w, target, c * REGION / 8), K, t->dt,
                                             OPS[cs[c].op], w.win));
                }
                if (!fence && c % 16 == 0)
                    CHECK_MPI(MPI_Win_flush_all(w.win));
            }
            close_epoch(&w, fence);
            osc_local_begin(&w);
            for (int c = 0; c < nc; c++) {
                const struct tdesc *t = &T[cs[c].t];
                int op = cs[c].op;
                if (op == O_NOOP)
                    continue;
                for (int k = 0; k < K; k++) {
                    const void *got = (char *)w.base + c * REGION + k * t->size;
                    if (op == O_REPLACE) {
                        int found = 0;
                        for (int r = 0; r < n && !found; r++) {
                            set_val(t, tmp, val_seed(r, me, c, k), op);
                            found = same(t, got, tmp);
                        }
                        CHECK(found, "%s window, %s: Accumulate(REPLACE) from all ranks, %s element %d is no rank's value",
                              osc_kind_name[w.kind], how, t->name, k);
                        continue;
                    }
                    set_val(t, want, init_seed(me, c, k), op);
                    for (int r = 0; r < n; r++) {
                        set_val(t, tmp, val_seed(r, me, c, k), op);
                        model(t, op, want, tmp);
                    }
                    CHECK(same(t, got, want), "%s window, %s: Accumulate(%s) of %s from %d ranks: element %d wrong",
                          osc_kind_name[w.kind], how, OPNAME[op], t->name, n, k);
                }
            }
            osc_local_end(&w);
            MPI_Barrier(MPI_COMM_WORLD);

            /* Phase B: rank me alone on region c of rank me+1. */
            int target = (me + 1) % n, from = (me + n - 1) % n;
            fill_init(&w, cs, nc, 1);
            unsigned char *results = calloc((size_t)nc, REGION);
            CHECK(results, "calloc");
            open_epoch(&w, fence);
            for (int c = 0; c < nc; c++) {
                const struct tdesc *t = &T[cs[c].t];
                unsigned char *ob = obufs + (size_t)c * REGION;
                for (int k = 0; k < K; k++)
                    set_val(t, ob + pos(t, k, 1), val_seed(me, target, c, k), cs[c].op);
                MPI_Aint d = osc_disp(&w, target, c * REGION / 8);
                CHECK_MPI(MPI_Get_accumulate(ob, K - 1, t->dt, results + c * REGION, K - 1, t->dt, target, d, K - 1,
                                             t->dt, OPS[cs[c].op], w.win));
                CHECK_MPI(MPI_Fetch_and_op(ob + FOP_AT, results + c * REGION + FOP_AT, t->dt, target,
                                           osc_disp(&w, target, (c * REGION + FOP_AT) / 8), OPS[cs[c].op], w.win));
                if (!fence && c % 8 == 0)
                    CHECK_MPI(MPI_Win_flush(target, w.win));
            }
            close_epoch(&w, fence);
            for (int c = 0; c < nc; c++) {
                const struct tdesc *t = &T[cs[c].t];
                for (int k = 0; k < K; k++) {
                    set_val(t, want, init_seed(target, c, k), cs[c].op);
                    CHECK(same(t, results + c * REGION + pos(t, k, 1), want),
                          "%s window, %s: %s(%s) of %s: fetched element %d is not the old value", osc_kind_name[w.kind],
                          how, k < K - 1 ? "Get_accumulate" : "Fetch_and_op", OPNAME[cs[c].op], t->name, k);
                }
            }
            free(results);
            osc_local_begin(&w);
            for (int c = 0; c < nc; c++) {
                const struct tdesc *t = &T[cs[c].t];
                for (int k = 0; k < K; k++) {
                    set_val(t, want, init_seed(me, c, k), cs[c].op);
                    set_val(t, tmp, val_seed(from, me, c, k), cs[c].op);
                    model(t, cs[c].op, want, tmp);
                    CHECK(same(t, (char *)w.base + c * REGION + pos(t, k, 1), want),
                          "%s window, %s: %s(%s) of %s from rank %d: element %d wrong", osc_kind_name[w.kind], how,
                          k < K - 1 ? "Get_accumulate" : "Fetch_and_op", OPNAME[cs[c].op], t->name, from, k);
                }
            }
            osc_local_end(&w);
            MPI_Barrier(MPI_COMM_WORLD);
        }
        osc_win_free(&w);
    }
    free(obufs);
    if (me == 0)
        printf("osc_ops: %d (type, op) cases passed at %d ranks\n", nc, n);
    MPI_Finalize();
    return 0;
}
