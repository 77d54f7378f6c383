/*
 * test_op.c -- unit tests of the reduction operations (src/core/op*.c, dt_basic.c).
 *
 * Built from the sources directly (not against libcorempi), with stubs for the
 * few library functions they call: cm_error, cm_dt_check and the datatype table.
 *
 * The reference results are computed here independently of the library:
 * integers through 64-bit arithmetic truncated to the type's width, the
 * allowed (op, type) pairs from the type groups of MPI 4.0 section 6.9.2.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <complex.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "mpi.h"
#include "core/op.h"
#include "core/dt_basic.h"
#include "core/datatype.h"
#include "core/error.h"
#include "core/dt_pairs.h"

/* ---- stubs ------------------------------------------------------------- */

static int last_err_class;
static char last_err_msg[512];
static int err_calls;

int cm_error(MPI_Comm comm, int errclass, const char *call, const char *fmt, ...)
{
    va_list ap;
    int n = snprintf(last_err_msg, sizeof last_err_msg, "%s: ", call);
    va_start(ap, fmt);
    vsnprintf(last_err_msg + n, sizeof last_err_msg - n, fmt, ap);
    va_end(ap);
    last_err_class = errclass;
    err_calls++;
    return errclass;
}

/* Two fake derived types just above the predefined ones: DT_DERIVED has
 * extent 24, DT_UNCOMMITTED is registered but uncommitted. */
#define DT_DERIVED cm_dt_handle(CM_DT_NUM_PREDEFINED + 1)
#define DT_UNCOMMITTED cm_dt_handle(CM_DT_NUM_PREDEFINED + 2)
static struct cm_datatype fake_derived = { .size = 20, .extent = 24, .committed = 1 };
static struct cm_datatype fake_uncommitted = { .size = 8, .extent = 8, .committed = 0 };
static struct cm_datatype *fake_table[CM_DT_NUM_PREDEFINED + 3] = {
    [CM_DT_NUM_PREDEFINED + 1] = &fake_derived, [CM_DT_NUM_PREDEFINED + 2] = &fake_uncommitted };
struct cm_datatype **cm_dt_table = fake_table;
int cm_dt_table_len = CM_DT_NUM_PREDEFINED + 3;

int cm_dt_check(MPI_Comm comm, MPI_Datatype dt, const char *call, const char *argname)
{
    struct cm_datatype *t = cm_dt_lookup(dt);
    if (!t || !t->committed)
        return cm_error(comm, MPI_ERR_TYPE, call, "invalid %s", argname);
    return MPI_SUCCESS;
}

#ifdef TEST_WITH_DERIVED_HOOK
/* Stands in for the datatype engine: SUM works on the derived type, BAND does not. */
static int hook_calls;
int cm_dt_reduce_local_derived(const void *inbuf, void *inoutbuf, int count,
                               MPI_Datatype datatype, MPI_Op op)
{
    hook_calls++;
    return op == MPI_SUM && datatype == DT_DERIVED ? MPI_SUCCESS : MPI_ERR_OP;
}
#endif

static void reset_err(void)
{
    last_err_class = MPI_SUCCESS;
    last_err_msg[0] = 0;
    err_calls = 0;
}

/* ---- the standard's type groups (independent of the library's table) ----
 * plus the extensions of docs/ops.md, marked where they are made: MPI_CHAR
 * counts as a C integer, and the multi-language types take logical ops. */

enum group { G_NONE, G_CINT, G_FINT, G_MULTI, G_FLOAT, G_LOGICAL, G_COMPLEX, G_BYTE, G_PAIR };

static enum group group_of(MPI_Datatype dt)
{
    switch (cm_dt_index(dt)) {
    case CM_DTI_MPI_SIGNED_CHAR: case CM_DTI_MPI_UNSIGNED_CHAR: case CM_DTI_MPI_SHORT: case CM_DTI_MPI_UNSIGNED_SHORT:
    case CM_DTI_MPI_INT: case CM_DTI_MPI_UNSIGNED: case CM_DTI_MPI_LONG: case CM_DTI_MPI_UNSIGNED_LONG:
    case CM_DTI_MPI_LONG_LONG_INT: case CM_DTI_MPI_UNSIGNED_LONG_LONG:
    case CM_DTI_MPI_INT8_T: case CM_DTI_MPI_INT16_T: case CM_DTI_MPI_INT32_T: case CM_DTI_MPI_INT64_T:
    case CM_DTI_MPI_UINT8_T: case CM_DTI_MPI_UINT16_T: case CM_DTI_MPI_UINT32_T: case CM_DTI_MPI_UINT64_T:
    case CM_DTI_MPI_CHAR: /* extension */
        return G_CINT;
    case CM_DTI_MPI_INTEGER: case CM_DTI_MPI_INTEGER1: case CM_DTI_MPI_INTEGER2: case CM_DTI_MPI_INTEGER4:
    case CM_DTI_MPI_INTEGER8: case CM_DTI_MPI_INTEGER16:
        return G_FINT;
    case CM_DTI_MPI_AINT: case CM_DTI_MPI_OFFSET: case CM_DTI_MPI_COUNT:
        return G_MULTI;
    case CM_DTI_MPI_FLOAT: case CM_DTI_MPI_DOUBLE: case CM_DTI_MPI_LONG_DOUBLE:
    case CM_DTI_MPI_REAL: case CM_DTI_MPI_DOUBLE_PRECISION: case CM_DTI_MPI_REAL2: case CM_DTI_MPI_REAL4:
    case CM_DTI_MPI_REAL8: case CM_DTI_MPI_REAL16:
    case CM_DTI_MPI_FLOAT16: case CM_DTI_MPI_BFLOAT16: /* not in MPI-4.1: floating point, as MPI_REAL2 */
        return G_FLOAT;
    case CM_DTI_MPI_C_BOOL: case CM_DTI_MPI_CXX_BOOL:
    case CM_DTI_MPI_LOGICAL: case CM_DTI_MPI_LOGICAL1: case CM_DTI_MPI_LOGICAL2: case CM_DTI_MPI_LOGICAL4:
    case CM_DTI_MPI_LOGICAL8: case CM_DTI_MPI_LOGICAL16:
        return G_LOGICAL;
    case CM_DTI_MPI_C_FLOAT_COMPLEX: case CM_DTI_MPI_C_DOUBLE_COMPLEX: case CM_DTI_MPI_C_LONG_DOUBLE_COMPLEX:
    case CM_DTI_MPI_CXX_FLOAT_COMPLEX: case CM_DTI_MPI_CXX_DOUBLE_COMPLEX: case CM_DTI_MPI_CXX_LONG_DOUBLE_COMPLEX:
    case CM_DTI_MPI_COMPLEX: case CM_DTI_MPI_DOUBLE_COMPLEX: case CM_DTI_MPI_COMPLEX4: case CM_DTI_MPI_COMPLEX8:
    case CM_DTI_MPI_COMPLEX16: case CM_DTI_MPI_COMPLEX32:
        return G_COMPLEX;
    case CM_DTI_MPI_BYTE:
        return G_BYTE;
    case CM_DTI_MPI_FLOAT_INT: case CM_DTI_MPI_DOUBLE_INT: case CM_DTI_MPI_LONG_INT: case CM_DTI_MPI_2INT:
    case CM_DTI_MPI_SHORT_INT: case CM_DTI_MPI_LONG_DOUBLE_INT:
    case CM_DTI_MPI_2INTEGER: case CM_DTI_MPI_2REAL: case CM_DTI_MPI_2DOUBLE_PRECISION:
        return G_PAIR;
    default: /* MPI_WCHAR, MPI_PACKED, MPI_CHARACTER */
        return G_NONE;
    }
}

static int ref_allowed(MPI_Op op, MPI_Datatype dt)
{
    enum group g = group_of(dt);
    switch (cm_op_index(op)) {
    case CM_OPI_MPI_MAX: case CM_OPI_MPI_MIN:
        return g == G_CINT || g == G_FINT || g == G_MULTI || g == G_FLOAT;
    case CM_OPI_MPI_SUM: case CM_OPI_MPI_PROD:
        return g == G_CINT || g == G_FINT || g == G_MULTI || g == G_FLOAT || g == G_COMPLEX;
    case CM_OPI_MPI_LAND: case CM_OPI_MPI_LOR: case CM_OPI_MPI_LXOR:
        return g == G_CINT || g == G_LOGICAL || g == G_MULTI /* extension */;
    case CM_OPI_MPI_BAND: case CM_OPI_MPI_BOR: case CM_OPI_MPI_BXOR:
        return g == G_CINT || g == G_FINT || g == G_MULTI || g == G_BYTE;
    case CM_OPI_MPI_MAXLOC: case CM_OPI_MPI_MINLOC:
        return g == G_PAIR;
    case CM_OPI_MPI_REPLACE: case CM_OPI_MPI_NO_OP:
        return 1;
    default:
        return 0;
    }
}

static int is_signed_int(MPI_Datatype dt)
{
    switch (cm_dt_index(dt)) {
    case CM_DTI_MPI_CHAR:
        return CHAR_MIN < 0;
    case CM_DTI_MPI_SIGNED_CHAR: case CM_DTI_MPI_SHORT: case CM_DTI_MPI_INT: case CM_DTI_MPI_LONG: case CM_DTI_MPI_LONG_LONG_INT:
    case CM_DTI_MPI_INT8_T: case CM_DTI_MPI_INT16_T: case CM_DTI_MPI_INT32_T: case CM_DTI_MPI_INT64_T:
    case CM_DTI_MPI_AINT: case CM_DTI_MPI_OFFSET: case CM_DTI_MPI_COUNT:
    case CM_DTI_MPI_INTEGER: case CM_DTI_MPI_INTEGER1: case CM_DTI_MPI_INTEGER2: case CM_DTI_MPI_INTEGER4:
    case CM_DTI_MPI_INTEGER8:
        return 1;
    default:
        return 0;
    }
}

/* ---- reference per element ---------------------------------------------- */

/* Integer element -> 64 bits (sign- or zero-extended), and back (truncated). */
static uint64_t int_load(const unsigned char *p, size_t sz, int sgn)
{
    uint64_t v = 0;
    memcpy(&v, p, sz); /* little-endian */
    if (sgn && sz < 8 && (v >> (8 * sz - 1)) & 1)
        v |= ~(uint64_t)0 << (8 * sz);
    return v;
}

static void int_store(unsigned char *p, size_t sz, uint64_t v)
{
    memcpy(p, &v, sz);
}

/* Integer reference in 128 bits (compared signed: a 64-bit unsigned value
 * stays positive), for every width up to MPI_INTEGER16/MPI_LOGICAL16. */
static unsigned __int128 ref_int128(MPI_Op op, unsigned __int128 a, unsigned __int128 b)
{
    switch (cm_op_index(op)) {
    case CM_OPI_MPI_MAX: return (__int128)a > (__int128)b ? a : b;
    case CM_OPI_MPI_MIN: return (__int128)a < (__int128)b ? a : b;
    case CM_OPI_MPI_SUM: return a + b;
    case CM_OPI_MPI_PROD: return a * b;
    case CM_OPI_MPI_LAND: return a != 0 && b != 0;
    case CM_OPI_MPI_LOR: return a != 0 || b != 0;
    case CM_OPI_MPI_LXOR: return (a != 0) != (b != 0);
    case CM_OPI_MPI_BAND: return a & b;
    case CM_OPI_MPI_BOR: return a | b;
    case CM_OPI_MPI_BXOR: return a ^ b;
    }
    fail_msg("ref_int128: op %ld", (long)(intptr_t)op);
    return 0;
}


static uint64_t ref_int(MPI_Op op, uint64_t a, uint64_t b, int sgn)
{
    unsigned __int128 x = sgn ? (unsigned __int128)(__int128)(int64_t)a : a;
    unsigned __int128 y = sgn ? (unsigned __int128)(__int128)(int64_t)b : b;
    return (uint64_t)ref_int128(op, x, y);
}

static int same_float(long double x, long double y)
{
    return (isnan(x) && isnan(y)) || x == y;
}

/* Complex product written out, compared with a relative tolerance. */
static void check_complex(MPI_Op op, long double ar, long double ai, long double br,
                          long double bi, long double rr, long double ri, long double eps,
                          size_t i)
{
    long double er = op == MPI_SUM ? ar + br : ar * br - ai * bi;
    long double ei = op == MPI_SUM ? ai + bi : ar * bi + ai * br;
    long double scale = fabsl(er) + fabsl(ei) + 1;
    if (fabsl(rr - er) > eps * scale || fabsl(ri - ei) > eps * scale)
        fail_msg("complex op %d at %zu: got (%Lg,%Lg) want (%Lg,%Lg)", op, i, rr, ri, er, ei);
}

/* MAXLOC/MINLOC: NaN value wins, ties go to the lower index. */
static void ref_pair(MPI_Op op, long double av, int ai, long double bv, int bi,
                     long double *rv, int *ri)
{
    int an = isnan(av), bn = isnan(bv);
    int tie = (an && bn) || (!an && !bn && av == bv);
    int a_wins = tie ? ai < bi
                     : (an || (!bn && (op == MPI_MAXLOC ? av > bv : av < bv)));
    if (tie) {
        *rv = bv;
        *ri = ai < bi ? ai : bi;
    } else {
        *rv = a_wins ? av : bv;
        *ri = a_wins ? ai : bi;
    }
}

/* bfloat16 from float, written independently of the library's bit trick:
 * the two neighbours by truncation, the nearer wins, a tie goes to the even
 * one; NaN stays NaN. */
static uint16_t test_to_bf16(float f)
{
    if (isnan(f))
        return 0x7fc0;
    uint32_t u;
    memcpy(&u, &f, 4);
    uint16_t lo = (uint16_t)(u >> 16), hi = (uint16_t)(lo + 1);
    uint32_t ul = (uint32_t)lo << 16, uh = (uint32_t)hi << 16;
    float fl, fh;
    memcpy(&fl, &ul, 4);
    memcpy(&fh, &uh, 4);
    if (isinf(fl) || ul == u)
        return lo;
    double dl = fabs((double)f - fl), dh = isinf(fh) ? INFINITY : fabs((double)fh - f);
    if (isinf(fh) && !isinf(f))
        dh = fabs(0x1.ff8p127 * 2 - (double)f); /* rounding past the largest bfloat16 */
    return dl < dh ? lo : dh < dl ? hi : (lo & 1) ? hi : lo;
}
static float test_bf16_f(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* Floating reference in the element's own type; half floats computed in
 * float and rounded once (docs/ops.md).  1 when r is the reference. */
#define REF_NATIVE(T, W, va, vb, vr)                                                          \
    do {                                                                                   \
        W x_ = (W)(va), y_ = (W)(vb), w_ = 0;                                                   \
        switch (cm_op_index(op)) {                                                         \
        case CM_OPI_MPI_MAX: w_ = (isnan((double)x_) || isnan((double)y_)) ? (W)NAN : (x_ > y_ ? x_ : y_); break; \
        case CM_OPI_MPI_MIN: w_ = (isnan((double)x_) || isnan((double)y_)) ? (W)NAN : (x_ < y_ ? x_ : y_); break; \
        case CM_OPI_MPI_SUM: w_ = x_ + y_; break;                                             \
        case CM_OPI_MPI_PROD: w_ = x_ * y_; break;                                            \
        }                                                                                  \
        T want_ = (T)w_, got_ = (vr);                                                          \
        return (isnan((double)want_) && isnan((double)got_)) || want_ == got_;                 \
    } while (0)
static int float_ok(MPI_Op op, MPI_Datatype dt, const unsigned char *a, const unsigned char *b,
                    const unsigned char *r)
{
    switch (cm_dt_index(dt)) {
    case CM_DTI_MPI_REAL2: case CM_DTI_MPI_FLOAT16: {
        _Float16 x, y, z;
        memcpy(&x, a, 2), memcpy(&y, b, 2), memcpy(&z, r, 2);
        REF_NATIVE(_Float16, float, x, y, z);
    }
    case CM_DTI_MPI_BFLOAT16: {
        uint16_t x, y, z;
        memcpy(&x, a, 2), memcpy(&y, b, 2), memcpy(&z, r, 2);
        float fx = test_bf16_f(x), fy = test_bf16_f(y), w = 0;
        switch (cm_op_index(op)) {
        case CM_OPI_MPI_MAX: if (isnan(fx) || isnan(fy)) return isnan(test_bf16_f(z)); return z == (fx > fy ? x : y);
        case CM_OPI_MPI_MIN: if (isnan(fx) || isnan(fy)) return isnan(test_bf16_f(z)); return z == (fx < fy ? x : y);
        case CM_OPI_MPI_SUM: w = fx + fy; break;
        case CM_OPI_MPI_PROD: w = fx * fy; break;
        }
        return isnan(w) ? isnan(test_bf16_f(z)) : z == test_to_bf16(w);
    }
    case CM_DTI_MPI_REAL16: {
        _Float128 x, y, z;
        memcpy(&x, a, 16), memcpy(&y, b, 16), memcpy(&z, r, 16);
        REF_NATIVE(_Float128, _Float128, x, y, z);
    }
    case CM_DTI_MPI_FLOAT: case CM_DTI_MPI_REAL: case CM_DTI_MPI_REAL4: {
        float x, y, z;
        memcpy(&x, a, 4), memcpy(&y, b, 4), memcpy(&z, r, 4);
        REF_NATIVE(float, float, x, y, z);
    }
    case CM_DTI_MPI_DOUBLE: case CM_DTI_MPI_DOUBLE_PRECISION: case CM_DTI_MPI_REAL8: {
        double x, y, z;
        memcpy(&x, a, 8), memcpy(&y, b, 8), memcpy(&z, r, 8);
        REF_NATIVE(double, double, x, y, z);
    }
    default: {
        long double x, y, z;
        memcpy(&x, a, sizeof x), memcpy(&y, b, sizeof y), memcpy(&z, r, sizeof z);
        REF_NATIVE(long double, long double, x, y, z);
    }
    }
}

/* ---- random data --------------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* A float-ish value: small integers (ties), fractions, signed zeros, NaN. */
static long double rnd_real(void)
{
    switch (rnd() % 10) {
    case 0: return NAN;
    case 1: return -0.0L;
    case 2: return 0.0L;
    case 3: case 4: return (long double)((int)(rnd() % 7) - 3);
    default: return ((long double)(rnd() % 2000000) - 1000000.0L) / 997.0L;
    }
}

/* An integer-ish bit pattern: zero often (logical ops), extremes, random bits. */
static uint64_t rnd_int_bits(void)
{
    switch (rnd() % 8) {
    case 0: return 0;
    case 1: return 1;
    case 2: return ~(uint64_t)0;         /* -1 / max unsigned */
    case 3: return (uint64_t)1 << 63;    /* truncated: min signed of each width, or 0 */
    case 4: return rnd() % 5;            /* 0..4: non-0/1 "true" values */
    default: return rnd();
    }
}

static void fill(MPI_Datatype dt, unsigned char *buf, size_t n)
{
    size_t ext = cm_dt_basic_extent(dt);
    memset(buf, 0, ext * n);
    for (size_t i = 0; i < n; i++) {
        unsigned char *p = buf + i * ext;
        switch (cm_dt_index(dt)) {
        case CM_DTI_MPI_FLOAT: *(float *)p = (float)rnd_real(); break;
        case CM_DTI_MPI_DOUBLE: *(double *)p = (double)rnd_real(); break;
        case CM_DTI_MPI_LONG_DOUBLE: *(long double *)p = rnd_real(); break;
        case CM_DTI_MPI_C_FLOAT_COMPLEX: case CM_DTI_MPI_CXX_FLOAT_COMPLEX: {
            float re = (float)(rnd() % 200) / 8 - 12, im = (float)(rnd() % 200) / 8 - 12;
            *(float _Complex *)p = CMPLXF(re, im);
            break;
        }
        case CM_DTI_MPI_C_DOUBLE_COMPLEX: case CM_DTI_MPI_CXX_DOUBLE_COMPLEX:
            *(double _Complex *)p = CMPLX((double)rnd_real(), (double)(rnd() % 1000) / 7);
            break;
        case CM_DTI_MPI_C_LONG_DOUBLE_COMPLEX: case CM_DTI_MPI_CXX_LONG_DOUBLE_COMPLEX:
            *(long double _Complex *)p = CMPLXL((long double)(rnd() % 1000) / 3, rnd_real());
            break;
        case CM_DTI_MPI_C_BOOL: case CM_DTI_MPI_CXX_BOOL: *p = (unsigned char)(rnd() % 4); break; /* 2 and 3 count as true */
        case CM_DTI_MPI_REAL: case CM_DTI_MPI_REAL4: *(float *)p = (float)rnd_real(); break;
        case CM_DTI_MPI_DOUBLE_PRECISION: case CM_DTI_MPI_REAL8: *(double *)p = (double)rnd_real(); break;
        case CM_DTI_MPI_REAL16: *(_Float128 *)p = (_Float128)rnd_real() / 3; break;
        case CM_DTI_MPI_REAL2: case CM_DTI_MPI_FLOAT16: *(_Float16 *)p = (_Float16)(rnd_real() / 8); break;
        case CM_DTI_MPI_BFLOAT16: {
            uint16_t h = test_to_bf16((float)rnd_real());
            memcpy(p, &h, 2);
            break;
        }
        case CM_DTI_MPI_COMPLEX: case CM_DTI_MPI_COMPLEX8: {
            float re = (float)(rnd() % 200) / 8 - 12, im = (float)(rnd() % 200) / 8 - 12;
            *(float _Complex *)p = CMPLXF(re, im);
            break;
        }
        case CM_DTI_MPI_DOUBLE_COMPLEX: case CM_DTI_MPI_COMPLEX16:
            *(double _Complex *)p = CMPLX((double)rnd_real(), (double)(rnd() % 1000) / 7);
            break;
        case CM_DTI_MPI_COMPLEX4: {
            _Float16 re = (_Float16)((float)(rnd() % 64) / 8 - 4), im = (_Float16)((float)(rnd() % 64) / 8 - 4);
            _Complex _Float16 z = re;
            __imag__ z = im;
            memcpy(p, &z, sizeof z);
            break;
        }
        case CM_DTI_MPI_COMPLEX32: {
            _Complex _Float128 z = (_Float128)(rnd() % 1000) / 3;
            __imag__ z = (_Float128)rnd_real();
            memcpy(p, &z, sizeof z);
            break;
        }
        case CM_DTI_MPI_INTEGER16: case CM_DTI_MPI_LOGICAL16: {
            unsigned __int128 v = rnd_int_bits();
            if (rnd() % 2)
                v |= (unsigned __int128)rnd_int_bits() << 64;
            memcpy(p, &v, 16);
            break;
        }
        case CM_DTI_MPI_2INTEGER: case CM_DTI_MPI_2REAL: case CM_DTI_MPI_2DOUBLE_PRECISION: {
            int v = (int)(rnd() % 4), idx = (int)(rnd() % 6);
            if (dt == MPI_2INTEGER) *(struct cm_pair_2integer *)p = (struct cm_pair_2integer){ v - 1, idx };
            if (dt == MPI_2REAL) *(struct cm_pair_2real *)p = (struct cm_pair_2real){ rnd() % 8 ? (float)v : NAN, (float)idx };
            if (dt == MPI_2DOUBLE_PRECISION)
                *(struct cm_pair_2double_precision *)p = (struct cm_pair_2double_precision){ (double)v / 2, (double)idx };
            break;
        }
        case CM_DTI_MPI_FLOAT_INT: case CM_DTI_MPI_DOUBLE_INT: case CM_DTI_MPI_LONG_DOUBLE_INT:
        case CM_DTI_MPI_LONG_INT: case CM_DTI_MPI_2INT: case CM_DTI_MPI_SHORT_INT: {
            long double v = (long double)(rnd() % 4); /* few values: many ties */
            int idx = (int)(rnd() % 6);
            if (dt == MPI_FLOAT_INT || dt == MPI_DOUBLE_INT || dt == MPI_LONG_DOUBLE_INT)
                if (rnd() % 8 == 0)
                    v = NAN;
            if (dt == MPI_FLOAT_INT) *(struct cm_pair_float_int *)p = (struct cm_pair_float_int){ (float)v, idx };
            if (dt == MPI_DOUBLE_INT) *(struct cm_pair_double_int *)p = (struct cm_pair_double_int){ (double)v, idx };
            if (dt == MPI_LONG_DOUBLE_INT) *(struct cm_pair_long_double_int *)p = (struct cm_pair_long_double_int){ v, idx };
            if (dt == MPI_LONG_INT) *(struct cm_pair_long_int *)p = (struct cm_pair_long_int){ (long)v - 1, idx };
            if (dt == MPI_2INT) *(struct cm_pair_2int *)p = (struct cm_pair_2int){ (int)v - 1, idx };
            if (dt == MPI_SHORT_INT) *(struct cm_pair_short_int *)p = (struct cm_pair_short_int){ (short)v, idx };
            break;
        }
        default: { /* integers, bytes, chars */
            uint64_t v = rnd_int_bits();
            memcpy(p, &v, cm_dt_basic_size(dt));
        }
        }
    }
}

/* Value and index of pair element i, whatever the pair type. */
static void pair_get(MPI_Datatype dt, const unsigned char *buf, size_t i, long double *v, int *idx)
{
#define PAIR_GET(S)                                  \
    do {                                             \
        const S *e = (const S *)buf + i;             \
        *v = (long double)e->val;                    \
        *idx = (int)e->idx;                          \
    } while (0)
    switch (cm_dt_index(dt)) {
    case CM_DTI_MPI_FLOAT_INT: PAIR_GET(struct cm_pair_float_int); break;
    case CM_DTI_MPI_DOUBLE_INT: PAIR_GET(struct cm_pair_double_int); break;
    case CM_DTI_MPI_LONG_DOUBLE_INT: PAIR_GET(struct cm_pair_long_double_int); break;
    case CM_DTI_MPI_LONG_INT: PAIR_GET(struct cm_pair_long_int); break;
    case CM_DTI_MPI_2INT: PAIR_GET(struct cm_pair_2int); break;
    case CM_DTI_MPI_SHORT_INT: PAIR_GET(struct cm_pair_short_int); break;
    case CM_DTI_MPI_2INTEGER: PAIR_GET(struct cm_pair_2integer); break;
    case CM_DTI_MPI_2REAL: PAIR_GET(struct cm_pair_2real); break;
    case CM_DTI_MPI_2DOUBLE_PRECISION: PAIR_GET(struct cm_pair_2double_precision); break;
    }
#undef PAIR_GET
}

static void complex_get(MPI_Datatype dt, const unsigned char *buf, size_t i, long double *re,
                        long double *im)
{
    if (dt == MPI_COMPLEX4) {
        _Complex _Float16 z;
        memcpy(&z, buf + i * sizeof z, sizeof z);
        *re = (long double)__real__ z, *im = (long double)__imag__ z;
    } else if (dt == MPI_COMPLEX32) {
        _Complex _Float128 z;
        memcpy(&z, buf + i * sizeof z, sizeof z);
        *re = (long double)__real__ z, *im = (long double)__imag__ z;
    } else if (dt == MPI_C_FLOAT_COMPLEX || dt == MPI_CXX_FLOAT_COMPLEX || dt == MPI_COMPLEX || dt == MPI_COMPLEX8) {
        float _Complex z = ((const float _Complex *)buf)[i];
        *re = crealf(z), *im = cimagf(z);
    } else if (dt == MPI_C_DOUBLE_COMPLEX || dt == MPI_CXX_DOUBLE_COMPLEX || dt == MPI_DOUBLE_COMPLEX ||
               dt == MPI_COMPLEX16) {
        double _Complex z = ((const double _Complex *)buf)[i];
        *re = creal(z), *im = cimag(z);
    } else {
        long double _Complex z = ((const long double _Complex *)buf)[i];
        *re = creall(z), *im = cimagl(z);
    }
}

/* Check out = in (op) io0 element by element. */
static void check_result(MPI_Op op, MPI_Datatype dt, const unsigned char *in,
                         const unsigned char *io0, const unsigned char *out, size_t n)
{
    size_t ext = cm_dt_basic_extent(dt), sz = cm_dt_basic_size(dt);
    enum group g = group_of(dt);
    for (size_t i = 0; i < n; i++) {
        const unsigned char *a = in + i * ext, *b = io0 + i * ext, *r = out + i * ext;
        if (op == MPI_NO_OP) {
            if (memcmp(r, b, ext) != 0)
                fail_msg("NO_OP changed element %zu of %s", i, cm_dt_basic_name(dt));
            continue;
        }
        if (op == MPI_REPLACE) {
            if (memcmp(r, a, ext) != 0) /* a copy, padding included */
                fail_msg("REPLACE wrong at %zu of %s", i, cm_dt_basic_name(dt));
            continue;
        }
        if (sz == 16 && (g == G_FINT || g == G_LOGICAL)) {
            unsigned __int128 x, y, z, want;
            memcpy(&x, a, 16), memcpy(&y, b, 16), memcpy(&z, r, 16);
            want = ref_int128(op, x, y);
            if (z != want)
                fail_msg("%s on %s at %zu: 128-bit result differs", cm_op_name(op), cm_dt_basic_name(dt), i);
            continue;
        }
        switch (g) {
        case G_CINT: case G_FINT: case G_MULTI: case G_BYTE: {
            int sgn = is_signed_int(dt);
            uint64_t want = ref_int(op, int_load(a, sz, sgn), int_load(b, sz, sgn), sgn);
            unsigned char wbuf[8];
            int_store(wbuf, sz, want);
            if (memcmp(wbuf, r, sz) != 0)
                fail_msg("%s %d on %s at %zu: got 0x%llx want 0x%llx", cm_op_name(op), op,
                         cm_dt_basic_name(dt), i, (unsigned long long)int_load(r, sz, 0),
                         (unsigned long long)int_load(wbuf, sz, 0));
            break;
        }
        case G_LOGICAL: { /* any width: non-zero is true, the result 0 or 1 */
            uint64_t want = ref_int(op, int_load(a, sz, 0), int_load(b, sz, 0), 0);
            if (int_load(r, sz, 0) != want)
                fail_msg("%s on %s at %zu: %llu,%llu -> %llu", cm_op_name(op), cm_dt_basic_name(dt), i,
                         (unsigned long long)int_load(a, sz, 0), (unsigned long long)int_load(b, sz, 0),
                         (unsigned long long)int_load(r, sz, 0));
            break;
        }
        case G_FLOAT:
            if (!float_ok(op, dt, a, b, r))
                fail_msg("%s on %s at %zu: result is not the reference", cm_op_name(op), cm_dt_basic_name(dt), i);
            break;
        case G_COMPLEX: {
            long double ar, ai, br, bi, rr, ri;
            complex_get(dt, a, 0, &ar, &ai);
            complex_get(dt, b, 0, &br, &bi);
            complex_get(dt, r, 0, &rr, &ri);
            size_t part = sz / 2; /* bytes of the real part */
            long double eps = part == 2 ? 4e-3L : part == 4 ? 1e-6L : part == 8 ? 1e-14L : 1e-17L;
            if (isnan(ar) || isnan(br)) {
                if (!isnan(rr))
                    fail_msg("complex NaN lost at %zu", i);
            } else {
                check_complex(op, ar, ai, br, bi, rr, ri, eps, i);
            }
            break;
        }
        case G_PAIR: {
            long double av, bv, rv, wv;
            int ai, bi, ri, wi;
            pair_get(dt, a, 0, &av, &ai);
            pair_get(dt, b, 0, &bv, &bi);
            pair_get(dt, r, 0, &rv, &ri);
            ref_pair(op, av, ai, bv, bi, &wv, &wi);
            if (!same_float(rv, wv) || ri != wi)
                fail_msg("%s on %s at %zu: (%Lg,%d),(%Lg,%d) -> (%Lg,%d) want (%Lg,%d)",
                         cm_op_name(op), cm_dt_basic_name(dt), i, av, ai, bv, bi, rv, ri, wv, wi);
            break;
        }
        default:
            fail_msg("allowed op %d on group-less type %s", op, cm_dt_basic_name(dt));
        }
    }
}

/* ---- tests ------------------------------------------------------------------ */

/* Every predefined op on every predefined type: allowed exactly where the
 * standard says, and computing the reference result where allowed.  n is odd
 * and not a multiple of any vector width, so the vector loops' tails run too. */
static void test_every_op_on_every_type(void **state)
{
    (void)state;
    const size_t n = 1003;
    int checked = 0, rejected = 0;
    for (MPI_Op op = cm_op_handle(1); cm_op_index(op) < CM_OP_NUM_PREDEFINED; op = cm_op_handle(cm_op_index(op) + 1)) {
        for (MPI_Datatype dt = cm_dt_handle(1); cm_dt_index(dt) < CM_DT_NUM_PREDEFINED; dt = cm_dt_handle(cm_dt_index(dt) + 1)) {
            size_t ext = cm_dt_basic_extent(dt);
            unsigned char *in = malloc(ext * n), *io = malloc(ext * n), *io0 = malloc(ext * n);
            assert_non_null(in);
            fill(dt, in, n);
            fill(dt, io, n);
            memcpy(io0, io, ext * n);
            int want = ref_allowed(op, dt);
            if (cm_op_allowed(op, dt) != want)
                fail_msg("cm_op_allowed(%s, %s) = %d, standard says %d", cm_op_name(op),
                         cm_dt_basic_name(dt), !want, want);
            int rc = cm_op_apply(op, dt, in, io, n);
            if (want) {
                assert_int_equal(rc, MPI_SUCCESS);
                check_result(op, dt, in, io0, io, n);
                checked++;
            } else {
                assert_int_equal(rc, MPI_ERR_OP);
                assert_memory_equal(io, io0, ext * n); /* a rejected op touches nothing */
                rejected++;
            }
            free(in), free(io), free(io0);
        }
    }
    /* 14 ops x 72 types (38 C types, 4 C++ ones, 28 Fortran ones, 2 half
     * floats): the counts pin the table's shape */
    assert_int_equal(checked + rejected, 14 * 72);
    print_message("ops checked on %d (op, type) pairs, %d rejected\n", checked, rejected);
}

/* The three-operand twins (out = left op right) must agree with the
 * reference on every allowed pair, and leave both operands untouched. */
static void test_three_operand_kernels(void **state)
{
    (void)state;
    const size_t n = 1003;
    int checked = 0;
    for (MPI_Op op = cm_op_handle(1); cm_op_index(op) < CM_OP_NUM_PREDEFINED; op = cm_op_handle(cm_op_index(op) + 1)) {
        for (MPI_Datatype dt = cm_dt_handle(1); cm_dt_index(dt) < CM_DT_NUM_PREDEFINED; dt = cm_dt_handle(cm_dt_index(dt) + 1)) {
            cm_op_kernel3_fn k3 = cm_op_predefined_kernel3(op, dt);
            if (!ref_allowed(op, dt)) {
                if (k3 && op != MPI_REPLACE && op != MPI_NO_OP)
                    fail_msg("%s on %s has a three-operand loop but is not allowed", cm_op_name(op),
                             cm_dt_basic_name(dt));
                continue;
            }
            if (!k3)
                fail_msg("%s on %s: no three-operand loop", cm_op_name(op), cm_dt_basic_name(dt));
            size_t ext = cm_dt_basic_extent(dt);
            unsigned char *left = malloc(ext * n), *right = malloc(ext * n), *out = malloc(ext * n);
            unsigned char *left0 = malloc(ext * n), *right0 = malloc(ext * n);
            assert_non_null(left);
            fill(dt, left, n);
            fill(dt, right, n);
            memset(out, 0xa5, ext * n);
            memcpy(left0, left, ext * n);
            memcpy(right0, right, ext * n);
            k3(left, right, out, n);
            check_result(op, dt, left0, right0, out, n);
            assert_memory_equal(left, left0, ext * n);
            assert_memory_equal(right, right0, ext * n);
            checked++;
            free(left), free(right), free(out), free(left0), free(right0);
        }
    }
    assert_true(checked > 300);
    print_message("three-operand loops checked on %d (op, type) pairs\n", checked);
}

static void test_rejected_examples(void **state)
{
    (void)state;
    double d[2] = { 1, 2 }, e[2] = { 3, 4 };
    assert_int_equal(cm_op_apply(MPI_SUM, MPI_BYTE, d, e, 2), MPI_ERR_OP);
    assert_int_equal(cm_op_apply(MPI_BAND, MPI_DOUBLE, d, e, 2), MPI_ERR_OP);
    assert_int_equal(cm_op_apply(MPI_SUM, MPI_PACKED, d, e, 2), MPI_ERR_OP);
    assert_int_equal(cm_op_apply(MPI_MAX, MPI_WCHAR, d, e, 2), MPI_ERR_OP);
    assert_int_equal(cm_op_apply(MPI_BOR, MPI_PACKED, d, e, 2), MPI_ERR_OP);
    assert_int_equal(cm_op_apply(MPI_MAX, MPI_C_DOUBLE_COMPLEX, d, e, 1), MPI_ERR_OP);
    assert_int_equal(cm_op_apply(MPI_LAND, MPI_WCHAR, d, e, 1), MPI_ERR_OP);
    assert_int_equal(cm_op_apply(MPI_MAXLOC, MPI_DOUBLE, d, e, 1), MPI_ERR_OP);
    assert_int_equal(cm_op_apply(MPI_SUM, MPI_DOUBLE_INT, d, e, 1), MPI_ERR_OP);
    assert_int_equal(cm_op_apply(MPI_MAX, MPI_C_BOOL, d, e, 1), MPI_ERR_OP);
    /* bad handles */
    assert_int_equal(cm_op_apply(MPI_OP_NULL, MPI_INT, d, e, 1), MPI_ERR_OP);
    assert_int_equal(cm_op_apply(cm_op_handle(CM_OP_NUM_PREDEFINED + 1000), MPI_INT, d, e, 1), MPI_ERR_OP);
    assert_int_equal(cm_op_apply((MPI_Op)(intptr_t)-3, MPI_INT, d, e, 1), MPI_ERR_OP);
    assert_int_equal(cm_op_apply(MPI_SUM, MPI_DATATYPE_NULL, d, e, 1), MPI_ERR_OP);
    assert_int_equal(cm_op_apply(MPI_SUM, cm_dt_handle(CM_DT_NUM_PREDEFINED), d, e, 1), MPI_ERR_OP);
    assert_true(e[0] == 3 && e[1] == 4);
    assert_false(cm_op_is_valid(MPI_OP_NULL));
    assert_false(cm_op_is_valid(cm_op_handle(CM_OP_NUM_PREDEFINED)));
    assert_true(cm_op_is_valid(MPI_NO_OP));
    assert_true(cm_op_is_commutative(MPI_MINLOC));
}

/* Extensions both Open MPI and MPICH make (docs/ops.md): MPI_CHAR as a small
 * integer, logical ops on the multi-language integer types. */
static void test_extensions(void **state)
{
    (void)state;
    char a[3] = { 1, 100, -5 }, b[3] = { 2, 27, 3 };
    assert_int_equal(cm_op_apply(MPI_SUM, MPI_CHAR, a, b, 3), MPI_SUCCESS);
    assert_true(b[0] == 3 && b[1] == 127 && b[2] == -2);
    assert_int_equal(cm_op_apply(MPI_MAX, MPI_CHAR, a, b, 3), MPI_SUCCESS);
    assert_true(b[0] == 3 && b[1] == 127 && b[2] == -2);
    MPI_Count x[3] = { 0, 5, 0 }, y[3] = { 7, 0, 0 };
    assert_int_equal(cm_op_apply(MPI_LOR, MPI_COUNT, x, y, 3), MPI_SUCCESS);
    assert_true(y[0] == 1 && y[1] == 1 && y[2] == 0);
    MPI_Aint p[2] = { 3, 0 }, q[2] = { 4, 4 };
    assert_int_equal(cm_op_apply(MPI_LAND, MPI_AINT, p, q, 2), MPI_SUCCESS);
    assert_true(q[0] == 1 && q[1] == 0);
    MPI_Offset u[2] = { 1, 1 }, v[2] = { 1, 0 };
    assert_int_equal(cm_op_apply(MPI_LXOR, MPI_OFFSET, u, v, 2), MPI_SUCCESS);
    assert_true(v[0] == 0 && v[1] == 1);
}

static void test_minloc_maxloc_ties(void **state)
{
    (void)state;
    struct cm_pair_double_int in[4] = { { 5, 7 }, { 5, 2 }, { 1, 9 }, { NAN, 8 } };
    struct cm_pair_double_int io[4] = { { 5, 3 }, { 5, 4 }, { 2, 0 }, { 100, 1 } };
    assert_int_equal(cm_op_apply(MPI_MAXLOC, MPI_DOUBLE_INT, in, io, 4), MPI_SUCCESS);
    assert_true(io[0].val == 5 && io[0].idx == 3); /* tie: lower index kept */
    assert_true(io[1].val == 5 && io[1].idx == 2); /* tie: lower index taken from in */
    assert_true(io[2].val == 2 && io[2].idx == 0);
    assert_true(isnan(io[3].val) && io[3].idx == 8); /* NaN wins */

    struct cm_pair_2int a[3] = { { -1, 4 }, { 7, 1 }, { 7, 5 } };
    struct cm_pair_2int b[3] = { { -1, 6 }, { 8, 0 }, { 7, 5 } };
    assert_int_equal(cm_op_apply(MPI_MINLOC, MPI_2INT, a, b, 3), MPI_SUCCESS);
    assert_true(b[0].val == -1 && b[0].idx == 4);
    assert_true(b[1].val == 7 && b[1].idx == 1);
    assert_true(b[2].val == 7 && b[2].idx == 5);

    struct cm_pair_long_double_int la = { 3.0L, 2 }, lb = { 3.0L, 1 };
    assert_int_equal(cm_op_apply(MPI_MINLOC, MPI_LONG_DOUBLE_INT, &la, &lb, 1), MPI_SUCCESS);
    assert_true(lb.val == 3.0L && lb.idx == 1);
    struct cm_pair_short_int sa = { -2, 9 }, sb = { -3, 0 };
    assert_int_equal(cm_op_apply(MPI_MAXLOC, MPI_SHORT_INT, &sa, &sb, 1), MPI_SUCCESS);
    assert_true(sb.val == -2 && sb.idx == 9);
}

static void test_logical_on_non_boolean_values(void **state)
{
    (void)state;
    int in[4] = { 2, 0, -5, 0 }, io[4] = { 7, 3, 0, 0 };
    int io2[4], io3[4];
    memcpy(io2, io, sizeof io);
    memcpy(io3, io, sizeof io);
    assert_int_equal(cm_op_apply(MPI_LXOR, MPI_INT, in, io, 4), MPI_SUCCESS);
    assert_int_equal(io[0], 0); /* true xor true */
    assert_int_equal(io[1], 1);
    assert_int_equal(io[2], 1);
    assert_int_equal(io[3], 0);
    assert_int_equal(cm_op_apply(MPI_LAND, MPI_INT, in, io2, 4), MPI_SUCCESS);
    assert_true(io2[0] == 1 && io2[1] == 0 && io2[2] == 0 && io2[3] == 0);
    assert_int_equal(cm_op_apply(MPI_LOR, MPI_INT, in, io3, 4), MPI_SUCCESS);
    assert_true(io3[0] == 1 && io3[1] == 1 && io3[2] == 1 && io3[3] == 0);

    bool bin[4] = { true, true, false, false }, bio[4] = { true, false, true, false };
    assert_int_equal(cm_op_apply(MPI_LXOR, MPI_C_BOOL, bin, bio, 4), MPI_SUCCESS);
    assert_true(!bio[0] && bio[1] && bio[2] && !bio[3]);
    unsigned char raw_in[2] = { 2, 0 }, raw_io[2] = { 1, 0 }; /* bytes that are not 0/1 */
    assert_int_equal(cm_op_apply(MPI_LAND, MPI_C_BOOL, raw_in, raw_io, 2), MPI_SUCCESS);
    assert_true(raw_io[0] == 1 && raw_io[1] == 0);
}

static void test_complex_prod_and_wrap(void **state)
{
    (void)state;
    double _Complex a[2] = { CMPLX(1, 2), CMPLX(0, 1) }, b[2] = { CMPLX(3, -1), CMPLX(0, 1) };
    assert_int_equal(cm_op_apply(MPI_PROD, MPI_C_DOUBLE_COMPLEX, a, b, 2), MPI_SUCCESS);
    assert_true(creal(b[0]) == 5 && cimag(b[0]) == 5); /* (1+2i)(3-i) = 5+5i */
    assert_true(creal(b[1]) == -1 && cimag(b[1]) == 0); /* i*i = -1 */
    float _Complex fa = CMPLXF(2, 0), fb = CMPLXF(0.5f, 4);
    assert_int_equal(cm_op_apply(MPI_SUM, MPI_C_FLOAT_COMPLEX, &fa, &fb, 1), MPI_SUCCESS);
    assert_true(crealf(fb) == 2.5f && cimagf(fb) == 4);

    int big[1] = { INT_MAX }, one[1] = { 1 };
    assert_int_equal(cm_op_apply(MPI_SUM, MPI_INT, big, one, 1), MPI_SUCCESS);
    assert_int_equal(one[0], INT_MIN); /* wraps, not undefined */
    double x[2] = { NAN, 1 }, y[2] = { 1, NAN };
    assert_int_equal(cm_op_apply(MPI_MAX, MPI_DOUBLE, x, y, 2), MPI_SUCCESS);
    assert_true(isnan(y[0]) && isnan(y[1])); /* NaN from either side */
}

/* ---- user ops -------------------------------------------------------------- */

static MPI_Datatype seen_type;
static int seen_calls;

/* Non-commutative: inout = 2*inout + in (on ints). */
static void affine_fn(void *invec, void *inoutvec, int *len, MPI_Datatype *dt)
{
    seen_type = *dt;
    seen_calls++;
    int *in = invec, *io = inoutvec;
    for (int i = 0; i < *len; i++)
        io[i] = 2 * io[i] + in[i];
}

static void sum_fn(void *invec, void *inoutvec, int *len, MPI_Datatype *dt)
{
    seen_type = *dt;
    seen_calls++;
    for (int i = 0; i < *len; i++)
        ((int *)inoutvec)[i] += ((int *)invec)[i];
}

static void test_user_ops(void **state)
{
    (void)state;
    MPI_Op nc = MPI_OP_NULL, c = MPI_OP_NULL;
    assert_int_equal(PMPI_Op_create(affine_fn, 0, &nc), MPI_SUCCESS);
    assert_int_equal(PMPI_Op_create(sum_fn, 1, &c), MPI_SUCCESS);
    assert_true(cm_op_index(nc) >= CM_OP_NUM_PREDEFINED && cm_op_index(c) >= CM_OP_NUM_PREDEFINED && nc != c);
    int flag = -1;
    assert_int_equal(PMPI_Op_commutative(nc, &flag), MPI_SUCCESS);
    assert_int_equal(flag, 0);
    assert_int_equal(PMPI_Op_commutative(c, &flag), MPI_SUCCESS);
    assert_int_equal(flag, 1);
    assert_int_equal(PMPI_Op_commutative(MPI_SUM, &flag), MPI_SUCCESS);
    assert_int_equal(flag, 1);
    assert_true(cm_op_is_valid(nc) && cm_op_allowed(nc, MPI_BYTE) && cm_op_allowed(nc, DT_DERIVED));
    assert_string_equal(cm_op_name(nc), "user-defined operation");

    /* the order matters: in is the left operand */
    int in[3] = { 1, 2, 3 }, io[3] = { 10, 20, 30 };
    seen_calls = 0;
    assert_int_equal(cm_op_apply(nc, MPI_INT, in, io, 3), MPI_SUCCESS);
    assert_int_equal(seen_calls, 1);
    assert_int_equal(seen_type, MPI_INT);
    assert_true(io[0] == 21 && io[1] == 42 && io[2] == 63);
    /* the caller's datatype handle reaches the user function unchanged */
    assert_int_equal(cm_op_apply(c, DT_DERIVED, in, io, 1), MPI_SUCCESS);
    assert_int_equal(seen_type, DT_DERIVED);
    assert_int_equal(io[0], 22);
    /* zero elements: no call */
    seen_calls = 0;
    assert_int_equal(cm_op_apply(c, MPI_INT, in, io, 0), MPI_SUCCESS);
    assert_int_equal(seen_calls, 0);

    /* MPI_Reduce_local with a user op, predefined and derived types */
    assert_int_equal(PMPI_Reduce_local(in, io, 3, MPI_INT, nc), MPI_SUCCESS);
    assert_true(io[0] == 45 && io[1] == 86 && io[2] == 129);
    assert_int_equal(PMPI_Reduce_local(in, io, 1, DT_DERIVED, c), MPI_SUCCESS);
    assert_int_equal(seen_type, DT_DERIVED);
    assert_int_equal(io[0], 46);

    assert_int_equal(PMPI_Op_free(&nc), MPI_SUCCESS);
    assert_int_equal(nc, MPI_OP_NULL);
    assert_int_equal(PMPI_Op_free(&c), MPI_SUCCESS);
}

static void test_op_free_and_reuse(void **state)
{
    (void)state;
    reset_err();
    MPI_Op sum = MPI_SUM;
    assert_int_equal(PMPI_Op_free(&sum), MPI_ERR_OP);
    assert_int_equal(sum, MPI_SUM);
    assert_non_null(strstr(last_err_msg, "MPI_SUM"));
    MPI_Op null = MPI_OP_NULL;
    assert_int_equal(PMPI_Op_free(&null), MPI_ERR_OP);
    assert_int_equal(PMPI_Op_free(NULL), MPI_ERR_ARG);
    MPI_Op h;
    assert_int_equal(PMPI_Op_create(NULL, 1, &h), MPI_ERR_ARG);
    assert_int_equal(PMPI_Op_create(sum_fn, 1, NULL), MPI_ERR_ARG);
    int flag;
    assert_int_equal(PMPI_Op_commutative(MPI_OP_NULL, &flag), MPI_ERR_OP);
    assert_int_equal(PMPI_Op_commutative(MPI_SUM, NULL), MPI_ERR_ARG);

    /* grow the table well past its first size, all handles distinct and valid */
    enum { N = 100 };
    MPI_Op ops[N];
    for (int i = 0; i < N; i++) {
        assert_int_equal(PMPI_Op_create(i % 2 ? sum_fn : affine_fn, i % 2, &ops[i]), MPI_SUCCESS);
        for (int j = 0; j < i; j++)
            assert_int_not_equal(ops[i], ops[j]);
    }
    for (int i = 0; i < N; i++)
        assert_int_equal(cm_op_is_commutative(ops[i]), i % 2);
    MPI_Op freed = ops[37];
    assert_int_equal(PMPI_Op_free(&ops[37]), MPI_SUCCESS);
    assert_false(cm_op_is_valid(freed));
    MPI_Op again = freed;
    assert_int_equal(PMPI_Op_free(&again), MPI_ERR_OP); /* double free */
    int x = 1, y = 2;
    assert_int_equal(cm_op_apply(freed, MPI_INT, &x, &y, 1), MPI_ERR_OP);
    /* the freed handle is reused */
    MPI_Op reused;
    assert_int_equal(PMPI_Op_create(sum_fn, 1, &reused), MPI_SUCCESS);
    assert_int_equal(reused, freed);

    /* a retained op survives MPI_Op_free until released, and its slot is not reused */
    MPI_Op kept = ops[11], kept_handle = ops[11]; /* sum_fn */
    cm_op_retain(kept);
    assert_int_equal(PMPI_Op_free(&kept), MPI_SUCCESS);
    assert_int_equal(kept, MPI_OP_NULL);
    assert_false(cm_op_is_valid(kept_handle)); /* not usable for new calls */
    x = 1, y = 2;
    assert_int_equal(cm_op_apply(kept_handle, MPI_INT, &x, &y, 1), MPI_SUCCESS);
    assert_int_equal(y, 3);
    MPI_Op other;
    assert_int_equal(PMPI_Op_create(sum_fn, 1, &other), MPI_SUCCESS);
    assert_int_not_equal(other, kept_handle);
    cm_op_release(kept_handle);
    assert_int_equal(cm_op_apply(kept_handle, MPI_INT, &x, &y, 1), MPI_ERR_OP);
    MPI_Op takes_slot;
    assert_int_equal(PMPI_Op_create(sum_fn, 1, &takes_slot), MPI_SUCCESS);
    assert_int_equal(takes_slot, kept_handle);

    for (int i = 0; i < N; i++)
        if (i != 37 && i != 11)
            assert_int_equal(PMPI_Op_free(&ops[i]), MPI_SUCCESS);
    assert_int_equal(PMPI_Op_free(&reused), MPI_SUCCESS);
    assert_int_equal(PMPI_Op_free(&other), MPI_SUCCESS);
    assert_int_equal(PMPI_Op_free(&takes_slot), MPI_SUCCESS);
}

/* ---- chunking: user functions take an int count ---------------------------- */

static int chunk_calls;
static int chunk_len[4];
static const char *chunk_in[4];
static char *chunk_io[4];

/* Records its arguments only: the test passes addresses that are never read. */
static void record_fn(void *invec, void *inoutvec, int *len, MPI_Datatype *dt)
{
    if (chunk_calls < 4) {
        chunk_len[chunk_calls] = *len;
        chunk_in[chunk_calls] = invec;
        chunk_io[chunk_calls] = inoutvec;
    }
    chunk_calls++;
}

static void test_user_op_chunking(void **state)
{
    (void)state;
    MPI_Op op;
    assert_int_equal(PMPI_Op_create(record_fn, 0, &op), MPI_SUCCESS);
    const char *in = (const char *)(uintptr_t)0x100000;
    char *io = (char *)(uintptr_t)0x900000000;
    size_t n = (size_t)INT_MAX * 2 + 5;

    chunk_calls = 0;
    assert_int_equal(cm_op_apply(op, MPI_DOUBLE, in, io, n), MPI_SUCCESS);
    assert_int_equal(chunk_calls, 3);
    assert_int_equal(chunk_len[0], INT_MAX);
    assert_int_equal(chunk_len[1], INT_MAX);
    assert_int_equal(chunk_len[2], 5);
    assert_ptr_equal(chunk_in[0], in);
    assert_ptr_equal(chunk_in[1], in + (size_t)INT_MAX * 8);
    assert_ptr_equal(chunk_io[2], io + (size_t)INT_MAX * 16);

    /* a derived type steps by its extent (24 here) */
    chunk_calls = 0;
    assert_int_equal(cm_op_apply(op, DT_DERIVED, in, io, (size_t)INT_MAX + 1), MPI_SUCCESS);
    assert_int_equal(chunk_calls, 2);
    assert_int_equal(chunk_len[1], 1);
    assert_ptr_equal(chunk_io[1], io + (size_t)INT_MAX * 24);

    /* exactly INT_MAX: one call */
    chunk_calls = 0;
    assert_int_equal(cm_op_apply(op, MPI_INT, in, io, INT_MAX), MPI_SUCCESS);
    assert_int_equal(chunk_calls, 1);

    /* unknown extent and too many elements: refused, not called */
    chunk_calls = 0;
    assert_int_equal(cm_op_apply(op, cm_dt_handle(CM_DT_NUM_PREDEFINED), in, io, (size_t)INT_MAX + 1), MPI_ERR_TYPE);
    assert_int_equal(chunk_calls, 0);
    assert_int_equal(PMPI_Op_free(&op), MPI_SUCCESS);
}

/* ---- MPI_Reduce_local -------------------------------------------------------- */

static void test_reduce_local(void **state)
{
    (void)state;
    double in[5] = { 1, 2, 3, 4, 5 }, io[5] = { 10, 20, 30, 40, 50 };
    assert_int_equal(PMPI_Reduce_local(in, io, 5, MPI_DOUBLE, MPI_SUM), MPI_SUCCESS);
    assert_true(io[0] == 11 && io[4] == 55);
    assert_int_equal(PMPI_Reduce_local(in, io, 0, MPI_DOUBLE, MPI_SUM), MPI_SUCCESS);
    assert_int_equal(PMPI_Reduce_local(NULL, NULL, 0, MPI_DOUBLE, MPI_SUM), MPI_SUCCESS);

    reset_err();
    unsigned char b1[2] = { 1, 2 }, b2[2] = { 3, 4 };
    assert_int_equal(PMPI_Reduce_local(b1, b2, 2, MPI_BYTE, MPI_SUM), MPI_ERR_OP);
    assert_int_equal(err_calls, 1);
    assert_string_equal(last_err_msg,
                        "MPI_Reduce_local: operation MPI_SUM is not defined on MPI_BYTE");
    assert_true(b2[0] == 3 && b2[1] == 4);
    assert_int_equal(PMPI_Reduce_local(b1, b2, 2, MPI_BYTE, MPI_BXOR), MPI_SUCCESS);
    assert_true(b2[0] == 2 && b2[1] == 6);

    reset_err();
    assert_int_equal(PMPI_Reduce_local(in, io, -1, MPI_DOUBLE, MPI_SUM), MPI_ERR_COUNT);
    assert_int_equal(PMPI_Reduce_local(in, io, 1, MPI_DOUBLE, MPI_OP_NULL), MPI_ERR_OP);
    assert_int_equal(PMPI_Reduce_local(in, io, 1, MPI_DOUBLE, (MPI_Op)(intptr_t)9999), MPI_ERR_OP);
    assert_int_equal(PMPI_Reduce_local(in, io, 1, MPI_DATATYPE_NULL, MPI_SUM), MPI_ERR_TYPE);
    assert_int_equal(PMPI_Reduce_local(in, io, 1, (MPI_Datatype)(intptr_t)9999, MPI_SUM), MPI_ERR_TYPE);
    assert_int_equal(PMPI_Reduce_local(in, io, 1, DT_UNCOMMITTED, MPI_SUM), MPI_ERR_TYPE);
    assert_int_equal(PMPI_Reduce_local(MPI_IN_PLACE, io, 1, MPI_DOUBLE, MPI_SUM), MPI_ERR_BUFFER);
    assert_int_equal(PMPI_Reduce_local(in, NULL, 1, MPI_DOUBLE, MPI_SUM), MPI_ERR_BUFFER);
    assert_int_equal(err_calls, 8);
    assert_true(io[0] == 11);

#ifdef TEST_WITH_DERIVED_HOOK
    assert_int_equal(PMPI_Reduce_local(in, io, 2, DT_DERIVED, MPI_SUM), MPI_SUCCESS);
    assert_int_equal(hook_calls, 1);
    reset_err();
    assert_int_equal(PMPI_Reduce_local(in, io, 2, DT_DERIVED, MPI_BAND), MPI_ERR_OP);
    assert_int_equal(err_calls, 1);
#else
    /* no datatype engine linked in: a predefined op on a derived type is refused */
    reset_err();
    assert_int_equal(PMPI_Reduce_local(in, io, 2, DT_DERIVED, MPI_SUM), MPI_ERR_TYPE);
    assert_int_equal(err_calls, 1);
#endif
}

/* ---- predefined type table --------------------------------------------------- */

static void test_basic_types(void **state)
{
    (void)state;
    assert_int_equal(cm_dt_basic_size(MPI_INT), sizeof(int));
    assert_int_equal(cm_dt_basic_size(MPI_C_BOOL), 1);
    assert_int_equal(cm_dt_basic_size(MPI_WCHAR), sizeof(wchar_t));
    assert_int_equal(cm_dt_basic_size(MPI_C_LONG_DOUBLE_COMPLEX), sizeof(long double _Complex));
    assert_int_equal(cm_dt_basic_size(MPI_DOUBLE_INT), sizeof(double) + sizeof(int));
    assert_int_equal(cm_dt_basic_extent(MPI_DOUBLE_INT), sizeof(struct { double v; int i; }));
    assert_int_equal(cm_dt_basic_extent(MPI_LONG_DOUBLE_INT), sizeof(struct { long double v; int i; }));
    assert_int_equal(cm_dt_basic_size(MPI_SHORT_INT), sizeof(short) + sizeof(int));
    assert_int_equal(cm_dt_basic_extent(MPI_SHORT_INT), 8);
    assert_int_equal(cm_dt_basic_size(0), 0);
    assert_int_equal(cm_dt_basic_size(cm_dt_handle(CM_DT_NUM_PREDEFINED)), 0);
    assert_string_equal(cm_dt_basic_name(MPI_INT), "MPI_INT");
    assert_string_equal(cm_dt_basic_name(MPI_LONG_LONG), "MPI_LONG_LONG_INT");
    assert_string_equal(cm_dt_basic_name(MPI_C_FLOAT_COMPLEX), "MPI_C_FLOAT_COMPLEX");
    /* the C++ types: sizes of bool and std::complex<T> on x86-64, names of their own */
    assert_int_equal(cm_dt_basic_size(MPI_CXX_BOOL), 1);
    assert_int_equal(cm_dt_basic_size(MPI_CXX_FLOAT_COMPLEX), 8);
    assert_int_equal(cm_dt_basic_size(MPI_CXX_DOUBLE_COMPLEX), 16);
    assert_int_equal(cm_dt_basic_size(MPI_CXX_LONG_DOUBLE_COMPLEX), 32);
    assert_string_equal(cm_dt_basic_name(MPI_CXX_DOUBLE_COMPLEX), "MPI_CXX_DOUBLE_COMPLEX");
    assert_string_equal(cm_dt_basic_name(MPI_DATATYPE_NULL), "MPI_DATATYPE_NULL");
    assert_null(cm_dt_basic_name(cm_dt_handle(CM_DT_NUM_PREDEFINED)));
    for (MPI_Datatype dt = cm_dt_handle(1); cm_dt_index(dt) < CM_DT_NUM_PREDEFINED; dt = cm_dt_handle(cm_dt_index(dt) + 1)) {
        assert_non_null(cm_dt_basic_name(dt));
        assert_true(cm_dt_basic_size(dt) > 0 && cm_dt_basic_size(dt) <= cm_dt_basic_extent(dt));
        assert_true(cm_dt_basic_extent(dt) % cm_dt_basic_align(dt) == 0);
    }
    size_t vb, off;
    assert_true(cm_dt_basic_pair_layout(MPI_LONG_DOUBLE_INT, &vb, &off));
    assert_int_equal(vb, sizeof(long double));
    assert_int_equal(off, offsetof(struct cm_pair_long_double_int, idx));
    assert_false(cm_dt_basic_pair_layout(MPI_DOUBLE, &vb, &off));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basic_types),
        cmocka_unit_test(test_every_op_on_every_type),
        cmocka_unit_test(test_three_operand_kernels),
        cmocka_unit_test(test_rejected_examples),
        cmocka_unit_test(test_extensions),
        cmocka_unit_test(test_minloc_maxloc_ties),
        cmocka_unit_test(test_logical_on_non_boolean_values),
        cmocka_unit_test(test_complex_prod_and_wrap),
        cmocka_unit_test(test_user_ops),
        cmocka_unit_test(test_op_free_and_reuse),
        cmocka_unit_test(test_user_op_chunking),
        cmocka_unit_test(test_reduce_local),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
