/*
 * coll_fuzz_types.c -- the datatypes and operations of the collective fuzz
 * test, described as units (coll_fuzz.h), and the value ranges that keep
 * every reference result exact (sums and products that cannot overflow the
 * type, integers only in floating point, no zero in products so that no
 * -0.0 appears).
 */
#include "coll_fuzz.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fz_type fz_types[FZ_NTYPES];
struct fz_opdef fz_ops[FZ_NOPS] = {
    {"MPI_SUM", MPI_SUM, 0},     {"MPI_PROD", MPI_PROD, 0},   {"MPI_MAX", MPI_MAX, 0},
    {"MPI_MIN", MPI_MIN, 0},     {"MPI_BAND", MPI_BAND, 0},   {"MPI_BOR", MPI_BOR, 0},
    {"MPI_BXOR", MPI_BXOR, 0},   {"MPI_LAND", MPI_LAND, 0},   {"MPI_LOR", MPI_LOR, 0},
    {"MPI_MAXLOC", MPI_MAXLOC, 1}, {"MPI_MINLOC", MPI_MINLOC, 1}, {"affine(user, non-commutative)", MPI_OP_NULL, 1},
    {"sum(user, commutative)", MPI_OP_NULL, 0},
};

void fz_put_unit(void *buf, const struct fz_type *t, long u, int64_t v)
{
    char *p = (char *)buf + (u / t->k) * t->extent + t->off[u % t->k];
    switch (t->base[u % t->k]) {
    case FZ_B_INT: { int32_t x = (int32_t)(uint32_t)v; memcpy(p, &x, 4); break; }
    case FZ_B_UNSIGNED: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
    case FZ_B_LLONG: memcpy(p, &v, 8); break;
    case FZ_B_SHORT: { int16_t x = (int16_t)(uint16_t)v; memcpy(p, &x, 2); break; }
    case FZ_B_UCHAR: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); break; }
    case FZ_B_DOUBLE: { double x = (double)v; memcpy(p, &x, 8); break; }
    case FZ_B_FLOAT: { float x = (float)v; memcpy(p, &x, 4); break; }
    }
}

int64_t fz_get_unit(const void *buf, const struct fz_type *t, long u)
{
    const char *p = (const char *)buf + (u / t->k) * t->extent + t->off[u % t->k];
    switch (t->base[u % t->k]) {
    case FZ_B_INT: { int32_t x; memcpy(&x, p, 4); return x; }
    case FZ_B_UNSIGNED: { uint32_t x; memcpy(&x, p, 4); return x; }
    case FZ_B_LLONG: { int64_t x; memcpy(&x, p, 8); return x; }
    case FZ_B_SHORT: { int16_t x; memcpy(&x, p, 2); return x; }
    case FZ_B_UCHAR: { uint8_t x; memcpy(&x, p, 1); return x; }
    case FZ_B_DOUBLE: { double x; memcpy(&x, p, 8); return (int64_t)x; }
    case FZ_B_FLOAT: { float x; memcpy(&x, p, 4); return (int64_t)x; }
    }
    return 0;
}

/* The user ops get the caller's datatype and must walk its layout: find it. */
static const struct fz_type *type_of(MPI_Datatype dt)
{
    for (int i = 0; i < FZ_NTYPES; i++)
        if (fz_types[i].dt == dt)
            return &fz_types[i];
    fprintf(stderr, "coll_fuzz: seed %llu case %ld rank %d: a user op was called with datatype %ld, not the caller's\n",
            (unsigned long long)fz_ctx.seed, fz_ctx.case_no, fz_ctx.world_rank, (long)(intptr_t)dt);
    fz_ctx.errors++;
    return NULL;
}

/* inout = in o inout on each unit pair (x -> a*x + b), in 32-bit unsigned arithmetic. */
static void affine_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const struct fz_type *t = type_of(*dt);
    if (!t)
        return;
    for (long u = 0; u < (long)*len * t->k; u += 2) {
        uint32_t x0 = (uint32_t)fz_get_unit(in, t, u), x1 = (uint32_t)fz_get_unit(in, t, u + 1);
        uint32_t y0 = (uint32_t)fz_get_unit(inout, t, u), y1 = (uint32_t)fz_get_unit(inout, t, u + 1);
        fz_put_unit(inout, t, u, (uint32_t)(x0 * y0));
        fz_put_unit(inout, t, u + 1, (uint32_t)(x0 * y1 + x1));
    }
}

static void usum_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const struct fz_type *t = type_of(*dt);
    if (!t)
        return;
    for (long u = 0; u < (long)*len * t->k; u++)
        fz_put_unit(inout, t, u, (uint32_t)fz_get_unit(in, t, u) + (uint32_t)fz_get_unit(inout, t, u));
}

static void set_type(int i, const char *name, MPI_Datatype dt, int group, MPI_Aint extent, int k, ...)
{
    struct fz_type *t = &fz_types[i];
    t->name = name;
    t->dt = dt;
    t->group = group;
    t->extent = extent;
    t->k = k;
    va_list ap;
    va_start(ap, k);
    for (int j = 0; j < k; j++) {
        t->base[j] = (unsigned char)va_arg(ap, int);
        t->off[j] = va_arg(ap, int);
    }
    va_end(ap);
    MPI_Aint lb, ext;
    MPI_Type_get_extent(dt, &lb, &ext);
    if (lb != 0 || ext != extent) {
        fprintf(stderr, "coll_fuzz: datatype %s has lb %ld extent %ld, expected 0 and %ld\n", name, (long)lb,
                (long)ext, (long)extent);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

static MPI_Datatype commit(MPI_Datatype t)
{
    MPI_Type_commit(&t);
    return t;
}

void fz_types_init(void)
{
    set_type(T_INT, "MPI_INT", MPI_INT, FZ_G_INT, 4, 1, FZ_B_INT, 0);
    set_type(T_UNSIGNED, "MPI_UNSIGNED", MPI_UNSIGNED, FZ_G_OTHER, 4, 1, FZ_B_UNSIGNED, 0);
    set_type(T_LLONG, "MPI_LONG_LONG", MPI_LONG_LONG, FZ_G_OTHER, 8, 1, FZ_B_LLONG, 0);
    set_type(T_SHORT, "MPI_SHORT", MPI_SHORT, FZ_G_OTHER, 2, 1, FZ_B_SHORT, 0);
    set_type(T_UCHAR, "MPI_UNSIGNED_CHAR", MPI_UNSIGNED_CHAR, FZ_G_OTHER, 1, 1, FZ_B_UCHAR, 0);
    set_type(T_DOUBLE, "MPI_DOUBLE", MPI_DOUBLE, FZ_G_OTHER, 8, 1, FZ_B_DOUBLE, 0);
    set_type(T_FLOAT, "MPI_FLOAT", MPI_FLOAT, FZ_G_OTHER, 4, 1, FZ_B_FLOAT, 0);
    set_type(T_2INT, "MPI_2INT", MPI_2INT, FZ_G_INT, 8, 2, FZ_B_INT, 0, FZ_B_INT, 4);
    set_type(T_DOUBLE_INT, "MPI_DOUBLE_INT", MPI_DOUBLE_INT, FZ_G_DINT, 16, 2, FZ_B_DOUBLE, 0, FZ_B_INT, 8);

    MPI_Datatype pair, vec, hpair, cpair, rint, s, dstruct;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    set_type(T_PAIR, "contiguous(2,int)", commit(pair), FZ_G_INT, 8, 2, FZ_B_INT, 0, FZ_B_INT, 4);
    MPI_Type_vector(2, 1, 3, MPI_INT, &vec);
    set_type(T_VEC, "vector(2,1,3,int)", commit(vec), FZ_G_INT, 16, 2, FZ_B_INT, 0, FZ_B_INT, 12);
    MPI_Type_create_resized(pair, 0, 12, &hpair);
    MPI_Type_contiguous(2, hpair, &cpair);
    MPI_Type_free(&hpair);
    set_type(T_CPAIR, "contiguous(2,resized(pair,12))", commit(cpair), FZ_G_INT, 24, 4, FZ_B_INT, 0, FZ_B_INT, 4,
             FZ_B_INT, 12, FZ_B_INT, 16);
    MPI_Type_create_resized(MPI_INT, 0, 8, &rint);
    set_type(T_RINT, "resized(int,8)", commit(rint), FZ_G_INT, 8, 1, FZ_B_INT, 0);
    int bl[2] = {1, 1};
    MPI_Aint disp[2] = {0, 12};
    MPI_Datatype types[2] = {MPI_DOUBLE, MPI_INT};
    MPI_Type_create_struct(2, bl, disp, types, &s);
    MPI_Type_create_resized(s, 0, 24, &dstruct);
    MPI_Type_free(&s);
    set_type(T_DSTRUCT, "struct{double@0,int@12}/24", commit(dstruct), FZ_G_DINT, 24, 2, FZ_B_DOUBLE, 0, FZ_B_INT,
             12);

    MPI_Op_create(affine_fn, 0, &fz_ops[OP_AFFINE].op);
    MPI_Op_create(usum_fn, 1, &fz_ops[OP_USUM].op);
}

void fz_types_free(void)
{
    for (int i = T_PAIR; i < FZ_NTYPES; i++)
        MPI_Type_free(&fz_types[i].dt);
    MPI_Op_free(&fz_ops[OP_AFFINE].op);
    MPI_Op_free(&fz_ops[OP_USUM].op);
}

static int single_base_int(int t)
{
    return t == T_INT || t == T_UNSIGNED || t == T_LLONG || t == T_SHORT || t == T_UCHAR || t == T_PAIR ||
           t == T_VEC || t == T_CPAIR || t == T_RINT;
}

int fz_op_fits(int op, int t)
{
    switch (op) {
    case OP_SUM: case OP_PROD: case OP_MAX: case OP_MIN:
        return single_base_int(t) || t == T_DOUBLE || t == T_FLOAT;
    case OP_BAND: case OP_BOR: case OP_BXOR: case OP_LAND: case OP_LOR:
        return single_base_int(t);
    case OP_MAXLOC: case OP_MINLOC:
        return t == T_2INT || t == T_DOUBLE_INT;
    case OP_AFFINE:
        return t == T_PAIR || t == T_VEC || t == T_CPAIR || t == T_2INT;
    case OP_USUM:
        return fz_types[t].group == FZ_G_INT;
    }
    return 0;
}

static int64_t full_range(int base, uint64_t h)
{
    switch (base) {
    case FZ_B_INT: return (int32_t)(uint32_t)h;
    case FZ_B_UNSIGNED: return (uint32_t)h;
    case FZ_B_LLONG: return (int64_t)h;
    case FZ_B_SHORT: return (int16_t)(uint16_t)h;
    case FZ_B_UCHAR: return (uint8_t)h;
    case FZ_B_DOUBLE: return (int64_t)(h % (1ULL << 41)) - (1LL << 40);
    case FZ_B_FLOAT: return (int64_t)(h % (1ULL << 21)) - (1LL << 20);
    }
    return 0;
}

static int is_unsigned(int base) { return base == FZ_B_UNSIGNED || base == FZ_B_UCHAR; }

int64_t fz_range(int op, int base, int unit_in_pair, uint64_t h)
{
    switch (op) {
    case OP_SUM: case OP_USUM:
        return is_unsigned(base) ? (int64_t)(h % 256) : (int64_t)(h % 2001) - 1000;
    case OP_PROD: {
        static const int64_t s[4] = {-2, -1, 1, 2}, u[4] = {1, 2, 3, 1};
        return is_unsigned(base) ? u[h % 4] : s[h % 4];
    }
    case OP_LAND: case OP_LOR:
        return h % 10 == 0 ? 0 : 1 + (int64_t)(h >> 8) % 2;
    case OP_MAXLOC: case OP_MINLOC: /* few distinct values: ties, decided by the lower index */
        return unit_in_pair == 0 ? (int64_t)(h % 20) : (int64_t)((h >> 32) % 100);
    case OP_AFFINE:
        return unit_in_pair == 0 ? (int64_t)((uint32_t)h | 1u) : (int64_t)(h >> 32);
    default: /* data movement, max, min, bitwise: anything the type holds */
        return full_range(base, h);
    }
}

int64_t fz_op_unit(int op, int base, int64_t a, int64_t b)
{
    (void)base;
    switch (op) {
    case OP_SUM: case OP_USUM: return a + b;
    case OP_PROD: return a * b;
    case OP_MAX: return a > b ? a : b;
    case OP_MIN: return a < b ? a : b;
    case OP_BAND: return a & b;
    case OP_BOR: return a | b;
    case OP_BXOR: return a ^ b;
    case OP_LAND: return a && b;
    case OP_LOR: return a || b;
    }
    return 0;
}

void fz_op_pair(int op, const int64_t a[2], const int64_t b[2], int64_t r[2])
{
    if (op == OP_AFFINE) {
        uint32_t a0 = (uint32_t)a[0], a1 = (uint32_t)a[1], b0 = (uint32_t)b[0], b1 = (uint32_t)b[1];
        r[0] = (uint32_t)(a0 * b0);
        r[1] = (uint32_t)(a0 * b1 + a1);
        return;
    }
    int a_wins = op == OP_MAXLOC ? a[0] > b[0] : a[0] < b[0];
    if (a[0] == b[0]) {
        r[0] = a[0];
        r[1] = a[1] < b[1] ? a[1] : b[1];
    } else {
        r[0] = a_wins ? a[0] : b[0];
        r[1] = a_wins ? a[1] : b[1];
    }
}
