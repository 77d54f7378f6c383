/*
 * dt_ftypes.c -- the Fortran named datatypes and the half floats, used from
 * C: each is sent around a ring and reduced with every op MPI-4.1's op/type
 * table allows for it (Fortran integer, floating point, complex, logical,
 * pair groups), at 3 and 300 elements, and each result is compared with a
 * fold computed here in double (the values are small integers, so every
 * type holds them and every result exactly).  A disallowed pair is
 * MPI_ERR_OP, and the error text names the op and the type.  Also: an
 * external32 round trip of each, and Get_elements on a partial MPI_2REAL.
 *
 * The element layouts are gfortran's (README, "Datatypes"): INTEGER and
 * LOGICAL 4 bytes, REAL float, DOUBLE PRECISION double, REAL16 IEEE quad.
 */
#include "dt_ref.h"

#include <stdint.h>

enum kind { K_INT, K_LOGICAL, K_FLOAT, K_COMPLEX, K_CHAR, K_PAIR };
/* scalar formats: integers by width; floats by F_* */
enum fmt { F_INT, F_FLT, F_DBL, F_QUAD, F_HALF, F_BF16 };

struct ty {
    MPI_Datatype t;
    const char *name;
    enum kind k;
    enum fmt f;
    int w; /* bytes of one scalar part (a complex has 2, a pair 2) */
};

static const struct ty types[] = {
    { MPI_INTEGER, "MPI_INTEGER", K_INT, F_INT, 4 },
    { MPI_INTEGER1, "MPI_INTEGER1", K_INT, F_INT, 1 },
    { MPI_INTEGER2, "MPI_INTEGER2", K_INT, F_INT, 2 },
    { MPI_INTEGER4, "MPI_INTEGER4", K_INT, F_INT, 4 },
    { MPI_INTEGER8, "MPI_INTEGER8", K_INT, F_INT, 8 },
    { MPI_INTEGER16, "MPI_INTEGER16", K_INT, F_INT, 16 },
    { MPI_LOGICAL, "MPI_LOGICAL", K_LOGICAL, F_INT, 4 },
    { MPI_LOGICAL1, "MPI_LOGICAL1", K_LOGICAL, F_INT, 1 },
    { MPI_LOGICAL2, "MPI_LOGICAL2", K_LOGICAL, F_INT, 2 },
    { MPI_LOGICAL4, "MPI_LOGICAL4", K_LOGICAL, F_INT, 4 },
    { MPI_LOGICAL8, "MPI_LOGICAL8", K_LOGICAL, F_INT, 8 },
    { MPI_LOGICAL16, "MPI_LOGICAL16", K_LOGICAL, F_INT, 16 },
    { MPI_REAL, "MPI_REAL", K_FLOAT, F_FLT, 4 },
    { MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", K_FLOAT, F_DBL, 8 },
    { MPI_REAL2, "MPI_REAL2", K_FLOAT, F_HALF, 2 },
    { MPI_REAL4, "MPI_REAL4", K_FLOAT, F_FLT, 4 },
    { MPI_REAL8, "MPI_REAL8", K_FLOAT, F_DBL, 8 },
    { MPI_REAL16, "MPI_REAL16", K_FLOAT, F_QUAD, 16 },
    { MPI_FLOAT16, "MPI_FLOAT16", K_FLOAT, F_HALF, 2 },
    { MPI_BFLOAT16, "MPI_BFLOAT16", K_FLOAT, F_BF16, 2 },
    { MPI_COMPLEX, "MPI_COMPLEX", K_COMPLEX, F_FLT, 4 },
    { MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", K_COMPLEX, F_DBL, 8 },
    { MPI_COMPLEX4, "MPI_COMPLEX4", K_COMPLEX, F_HALF, 2 },
    { MPI_COMPLEX8, "MPI_COMPLEX8", K_COMPLEX, F_FLT, 4 },
    { MPI_COMPLEX16, "MPI_COMPLEX16", K_COMPLEX, F_DBL, 8 },
    { MPI_COMPLEX32, "MPI_COMPLEX32", K_COMPLEX, F_QUAD, 16 },
    { MPI_CHARACTER, "MPI_CHARACTER", K_CHAR, F_INT, 1 },
    { MPI_2INTEGER, "MPI_2INTEGER", K_PAIR, F_INT, 4 },
    { MPI_2REAL, "MPI_2REAL", K_PAIR, F_FLT, 4 },
    { MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", K_PAIR, F_DBL, 8 },
};
#define NTYPES (int)(sizeof types / sizeof types[0])

static const struct { MPI_Op op; const char *name; } ops[] = {
    { MPI_MAX, "MPI_MAX" }, { MPI_MIN, "MPI_MIN" }, { MPI_SUM, "MPI_SUM" }, { MPI_PROD, "MPI_PROD" },
    { MPI_LAND, "MPI_LAND" }, { MPI_LOR, "MPI_LOR" }, { MPI_LXOR, "MPI_LXOR" }, { MPI_BAND, "MPI_BAND" },
    { MPI_BOR, "MPI_BOR" }, { MPI_BXOR, "MPI_BXOR" }, { MPI_MINLOC, "MPI_MINLOC" }, { MPI_MAXLOC, "MPI_MAXLOC" },
};
#define NOPS (int)(sizeof ops / sizeof ops[0])

/* MPI-4.1 §6.9.2 by group (MPI_FLOAT16/BFLOAT16 count as floating point). */
static int allowed(enum kind k, MPI_Op op)
{
    switch (k) {
    case K_INT: return op == MPI_MAX || op == MPI_MIN || op == MPI_SUM || op == MPI_PROD || op == MPI_BAND ||
                       op == MPI_BOR || op == MPI_BXOR;
    case K_FLOAT: return op == MPI_MAX || op == MPI_MIN || op == MPI_SUM || op == MPI_PROD;
    case K_COMPLEX: return op == MPI_SUM || op == MPI_PROD;
    case K_LOGICAL: return op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR;
    case K_PAIR: return op == MPI_MINLOC || op == MPI_MAXLOC;
    default: return 0;
    }
}

/* bfloat16: the top half of a float (exact for the small integers used). */
static uint16_t to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)(u >> 16);
}
static float from_bf16(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static void put(const struct ty *y, unsigned char *p, double v)
{
    switch (y->f) {
    case F_INT:
        if (y->w == 16) {
            __int128 x = (__int128)(int64_t)v;
            memcpy(p, &x, 16);
        } else {
            int64_t x = (int64_t)v; /* little-endian: the low bytes */
            memcpy(p, &x, (size_t)y->w);
        }
        break;
    case F_FLT: { float x = (float)v; memcpy(p, &x, 4); break; }
    case F_DBL: memcpy(p, &v, 8); break;
    case F_QUAD: { _Float128 x = (_Float128)v; memcpy(p, &x, 16); break; }
    case F_HALF: { _Float16 x = (_Float16)v; memcpy(p, &x, 2); break; }
    case F_BF16: { uint16_t x = to_bf16((float)v); memcpy(p, &x, 2); break; }
    }
}

static double get(const struct ty *y, const unsigned char *p)
{
    switch (y->f) {
    case F_INT: {
        int64_t x = 0;
        memcpy(&x, p, y->w > 8 ? 8 : (size_t)y->w);
        if (y->w < 8 && (x >> (8 * y->w - 1)) & 1)
            x = (int64_t)((uint64_t)x | ~(uint64_t)0 << (8 * y->w));
        return (double)x;
    }
    case F_FLT: { float x; memcpy(&x, p, 4); return x; }
    case F_DBL: { double x; memcpy(&x, p, 8); return x; }
    case F_QUAD: { _Float128 x; memcpy(&x, p, 16); return (double)x; }
    case F_HALF: { _Float16 x; memcpy(&x, p, 2); return (double)x; }
    case F_BF16: { uint16_t x; memcpy(&x, p, 2); return from_bf16(x); }
    }
    return 0;
}

/* Rank r's element i: small integers; 0/1 for logicals; bit patterns for
 * the bitwise ops; (value, index = rank) for pairs; re + im i for complex. */
static double val(int r, int i, MPI_Op op)
{
    if (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR)
        return (r * 37 + i * 11) % 64;
    if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR)
        return (r + i) % 3 != 0;
    return (r * 5 + i * 3) % 4 + 1;
}

static void fill(const struct ty *y, unsigned char *p, int n, int r, MPI_Op op)
{
    int sz = y->k == K_COMPLEX || y->k == K_PAIR ? 2 * y->w : y->w;
    for (int i = 0; i < n; i++) {
        unsigned char *e = p + (size_t)i * sz;
        put(y, e, val(r, i, op));
        if (y->k == K_COMPLEX)
            put(y, e + y->w, (r + i) % 2);
        if (y->k == K_PAIR)
            put(y, e + y->w, r);
    }
}

/* The fold over ranks 0..size-1 of element i, in double / int64. */
static void reference(const struct ty *y, MPI_Op op, int size, int i, double *re, double *im)
{
    double a = val(0, i, op), b = y->k == K_COMPLEX ? 0 % 2 + (0 + i) % 2 : 0;
    for (int r = 1; r < size; r++) {
        double x = val(r, i, op), xi = y->k == K_COMPLEX ? (r + i) % 2 : r;
        int64_t ia = (int64_t)a, ix = (int64_t)x;
        if (op == MPI_MAX) a = x > a ? x : a;
        else if (op == MPI_MIN) a = x < a ? x : a;
        else if (op == MPI_SUM) a += x, b += xi;
        else if (op == MPI_PROD && y->k == K_COMPLEX) {
            double t = a * x - b * xi;
            b = a * xi + b * x;
            a = t;
        } else if (op == MPI_PROD) a *= x;
        else if (op == MPI_LAND) a = (a != 0) && (x != 0);
        else if (op == MPI_LOR) a = (a != 0) || (x != 0);
        else if (op == MPI_LXOR) a = (a != 0) != (x != 0);
        else if (op == MPI_BAND) a = (double)(ia & ix);
        else if (op == MPI_BOR) a = (double)(ia | ix);
        else if (op == MPI_BXOR) a = (double)(ia ^ ix);
        else if (op == MPI_MAXLOC || op == MPI_MINLOC) {
            /* the index starts as rank 0's; a tie keeps the lower rank */
            if (op == MPI_MAXLOC ? x > a : x < a)
                a = x, b = r;
        }
    }
    *re = a;
    *im = b;
}

static void check_reduce(const struct ty *y, MPI_Op opi, const char *opname, int n, int rank, int size)
{
    int sz = y->k == K_COMPLEX || y->k == K_PAIR ? 2 * y->w : y->w;
    unsigned char *in = calloc((size_t)n, (size_t)sz), *out = calloc((size_t)n, (size_t)sz);
    fill(y, in, n, rank, opi);
    int rc = MPI_Allreduce(in, out, n, y->t, opi, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "%s on %s: error %d", opname, y->name, rc);
    for (int i = 0; i < n; i++) {
        double re, im;
        reference(y, opi, size, i, &re, &im);
        const unsigned char *e = out + (size_t)i * sz;
        CHECK(get(y, e) == re, "%s on %s, %d ranks, element %d: %g, want %g", opname, y->name, size, i, get(y, e), re);
        if (y->k == K_COMPLEX || y->k == K_PAIR)
            CHECK(get(y, e + y->w) == im, "%s on %s, %d ranks, element %d: second part %g, want %g", opname,
                  y->name, size, i, get(y, e + y->w), im);
    }
    free(in);
    free(out);
}

static void check_ring(const struct ty *y, int rank, int size)
{
    MPI_Aint lb, ext;
    int tsize;
    CHECK(MPI_Type_get_extent(y->t, &lb, &ext) == MPI_SUCCESS && lb == 0, "%s: extent", y->name);
    CHECK(MPI_Type_size(y->t, &tsize) == MPI_SUCCESS && tsize == ext, "%s: size %d, extent %ld", y->name, tsize,
          (long)ext);
    enum { N = 5 };
    unsigned char *s = malloc((size_t)ext * N), *r = malloc((size_t)ext * N);
    for (long j = 0; j < ext * N; j++)
        s[j] = (unsigned char)(rank * 31 + j);
    MPI_Status st;
    int from = (rank + size - 1) % size, count = -1;
    CHECK(MPI_Sendrecv(s, N, y->t, (rank + 1) % size, 7, r, N, y->t, from, 7, MPI_COMM_WORLD, &st) == MPI_SUCCESS,
          "%s: sendrecv", y->name);
    for (long j = 0; j < ext * N; j++)
        CHECK(r[j] == (unsigned char)(from * 31 + j), "%s: byte %ld received wrong", y->name, j);
    CHECK(MPI_Get_count(&st, y->t, &count) == MPI_SUCCESS && count == N, "%s: count %d", y->name, count);

    /* external32 and back: the same bytes (each part byte-swapped twice) */
    MPI_Aint psize = 0, pos = 0;
    CHECK(MPI_Pack_external_size("external32", N, y->t, &psize) == MPI_SUCCESS && psize == (MPI_Aint)tsize * N,
          "%s: external32 size %ld", y->name, (long)psize);
    unsigned char *packed = malloc((size_t)psize);
    CHECK(MPI_Pack_external("external32", s, N, y->t, packed, psize, &pos) == MPI_SUCCESS, "%s: pack", y->name);
    memset(r, 0, (size_t)ext * N);
    pos = 0;
    CHECK(MPI_Unpack_external("external32", packed, psize, &pos, r, N, y->t) == MPI_SUCCESS, "%s: unpack", y->name);
    CHECK(memcmp(r, s, (size_t)ext * N) == 0, "%s: external32 round trip changed the data", y->name);
    free(packed);
    free(s);
    free(r);
}

/* A pair counts as two basic elements: 3 MPI_REALs received as MPI_2REAL
 * are 1.5 pairs, 3 elements (MPI-4.1 §5.1.11). */
static void check_pair_elements(void)
{
    float v[4] = { 1, 2, 3, 4 }, got[4];
    MPI_Status st;
    int count, elems;
    CHECK(MPI_Sendrecv(v, 3, MPI_REAL, 0, 9, got, 2, MPI_2REAL, 0, 9, MPI_COMM_SELF, &st) == MPI_SUCCESS,
          "3 MPI_REAL into MPI_2REAL");
    CHECK(MPI_Get_elements(&st, MPI_2REAL, &elems) == MPI_SUCCESS && elems == 3, "Get_elements %d, want 3", elems);
    CHECK(MPI_Get_count(&st, MPI_2REAL, &count) == MPI_SUCCESS && count == MPI_UNDEFINED, "Get_count %d", count);
}

int main(int argc, char **argv)
{
    int rank, size, checked = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    check_pair_elements();
    for (int t = 0; t < NTYPES; t++) {
        const struct ty *y = &types[t];
        char name[MPI_MAX_OBJECT_NAME];
        int len;
        CHECK(MPI_Type_get_name(y->t, name, &len) == MPI_SUCCESS && strcmp(name, y->name) == 0,
              "%s is named %s", y->name, name);
        check_ring(y, rank, size);
        for (int o = 0; o < NOPS; o++) {
            if (!allowed(y->k, ops[o].op)) {
                unsigned char in[64] = { 0 }, out[64];
                int rc = MPI_Allreduce(in, out, 1, y->t, ops[o].op, MPI_COMM_WORLD);
                CHECK(rc == MPI_ERR_OP, "%s on %s accepted (%d)", ops[o].name, y->name, rc);
#ifdef COREMPI
                char text[MPI_MAX_ERROR_STRING];
                MPI_Error_string(MPI_ERR_OP, text, &len);
                CHECK(strstr(text, ops[o].name) && strstr(text, y->name), "error text names neither: %s", text);
#endif
                continue;
            }
            check_reduce(y, ops[o].op, ops[o].name, 3, rank, size);
            check_reduce(y, ops[o].op, ops[o].name, 300, rank, size);
            checked++;
        }
    }
    CHECK(checked == 6 * 7 + 6 * 3 + 8 * 4 + 6 * 2 + 3 * 2, "checked %d (op, type) pairs", checked);
    if (rank == 0)
        printf("dt_ftypes: %d types, %d (op, type) pairs reduced at %d ranks\n", NTYPES, checked, size);
    MPI_Finalize();
    return 0;
}
