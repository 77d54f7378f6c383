/*
 * dt_roundtrip.c -- every type constructor, alone and nested, through
 * send/recv around a ring of ranks at sizes on both sides of the eager /
 * rendezvous boundary (16 KiB) and at 1 MiB, checked against the reference
 * typemaps of dt_ref.h:
 *   - sizes and extents (incl. negative strides, resized, struct padding);
 *   - same type on both sides: exactly the typemap's bytes land, holes keep
 *     their sentinel;
 *   - received as MPI_PACKED: the bytes are the reference packing;
 *   - one basic type: vector on one side, contiguous on the other (both ways);
 *   - Get_count / Get_elements.
 * Runs on any number of ranks (1 = to itself) and under any MPI.
 */
#include "dt_ref.h"
#include <stddef.h>

enum { T_INT = 1, T_DOUBLE, T_CHAR, T_SHORT, T_DOUBLE_INT };

static MPI_Datatype tag_type(int tag)
{
    switch (tag) {
    case T_INT: return MPI_INT;
    case T_DOUBLE: return MPI_DOUBLE;
    case T_CHAR: return MPI_CHAR;
    case T_SHORT: return MPI_SHORT;
    default: return MPI_DOUBLE_INT;
    }
}

struct tcase {
    const char *name;
    MPI_Datatype type;
    struct ref ref;
    int basic_tag;  /* all data of one basic type: its tag; 0 if mixed */
    int overlaps;   /* receive side not allowed (overlapping typemap) */
};

#define MAXCASES 40
static struct tcase cases[MAXCASES];
static int ncases;

static void add(const char *name, MPI_Datatype t, struct ref r, int basic_tag, int overlaps)
{
    MPI_Type_commit(&t);
    cases[ncases++] = (struct tcase){ name, t, r, basic_tag, overlaps };
}

static struct ref R_INT, R_DOUBLE, R_CHAR, R_SHORT, R_DOUBLE_INT;

/* darray reference: which global elements (in array order) a process owns. */
static int owner_coord(int g, int gsize, int distrib, int darg, int psize)
{
    if (distrib == MPI_DISTRIBUTE_NONE)
        return 0;
    if (distrib == MPI_DISTRIBUTE_BLOCK) {
        int b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsize + psize - 1) / psize : darg;
        return g / b;
    }
    int b = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
    return (g / b) % psize;
}

/* 2-D darray reference of doubles: dims (d0, d1); order C or Fortran. */
static struct ref ref_darray2(int rank, const int *gs, const int *dist, const int *darg, const int *ps, int order)
{
    int c0 = rank / ps[1], c1 = rank % ps[1]; /* row-major process grid */
    struct ref r = { 0 };
    r.align = 8;
    r.sticky = 1;
    /* array order: C = last index fastest; Fortran = first index fastest */
    for (int outer = 0; outer < (order == MPI_ORDER_C ? gs[0] : gs[1]); outer++)
        for (int inner = 0; inner < (order == MPI_ORDER_C ? gs[1] : gs[0]); inner++) {
            int i0 = order == MPI_ORDER_C ? outer : inner, i1 = order == MPI_ORDER_C ? inner : outer;
            if (owner_coord(i0, gs[0], dist[0], darg[0], ps[0]) != c0 ||
                owner_coord(i1, gs[1], dist[1], darg[1], ps[1]) != c1)
                continue;
            long lin = order == MPI_ORDER_C ? (long)i0 * gs[1] + i1 : (long)i1 * gs[0] + i0;
            ref_push(&r, lin * 8, 8, T_DOUBLE);
        }
    r.lb = 0;
    r.extent = (long)gs[0] * gs[1] * 8;
    return r;
}

/* subarray reference (any ndims up to 3) for an old type of extent ex. */
static struct ref ref_subarray(int nd, const int *sz, const int *sub, const int *st, int order, const struct ref *old)
{
    struct ref r = { 0 };
    r.align = old->align;
    r.sticky = 1;
    int idx[3] = { 0, 0, 0 };
    long total = 1;
    for (int d = 0; d < nd; d++)
        total *= sub[d];
    for (long k = 0; k < total; k++) {
        /* k enumerates the subarray in array order */
        long rem = k;
        for (int j = 0; j < nd; j++) {
            int d = order == MPI_ORDER_C ? nd - 1 - j : j; /* fastest first */
            idx[d] = (int)(rem % sub[d]);
            rem /= sub[d];
        }
        long lin = 0;
        for (int j = 0; j < nd; j++) {
            int d = order == MPI_ORDER_C ? j : nd - 1 - j; /* slowest first */
            lin = lin * sz[d] + st[d] + idx[d];
        }
        for (long i = 0; i < old->n; i++)
            ref_push(&r, lin * old->extent + old->off[i], old->len[i], old->basic[i]);
    }
    long all = 1;
    for (int d = 0; d < nd; d++)
        all *= sz[d];
    r.lb = 0;
    r.extent = all * old->extent;
    return r;
}

struct padded { int a; double b[2]; char c; };

static void build_cases(int nprocs)
{
    MPI_Datatype t, u, v;
    R_INT = ref_basic(4, T_INT);
    R_DOUBLE = ref_basic(8, T_DOUBLE);
    R_CHAR = ref_basic(1, T_CHAR);
    R_SHORT = ref_basic(2, T_SHORT);
    R_DOUBLE_INT = (struct ref){ 0 };
    ref_push(&R_DOUBLE_INT, 0, 8, T_DOUBLE_INT);
    ref_push(&R_DOUBLE_INT, 8, 4, T_DOUBLE_INT);
    R_DOUBLE_INT.extent = 16;
    R_DOUBLE_INT.align = 8;

    MPI_Type_contiguous(5, MPI_INT, &t);
    add("contiguous", t, ref_hvector(5, 1, 4, &R_INT), T_INT, 0);

    MPI_Type_vector(7, 3, 5, MPI_INT, &t);
    add("vector", t, ref_hvector(7, 3, 20, &R_INT), T_INT, 0);

    MPI_Type_vector(4, 2, 2, MPI_DOUBLE, &t);
    add("vector_stride_eq_blocklen", t, ref_hvector(4, 2, 16, &R_DOUBLE), T_DOUBLE, 0);

    MPI_Type_vector(4, 2, -3, MPI_INT, &t);
    add("vector_negative_stride", t, ref_hvector(4, 2, -12, &R_INT), T_INT, 0);

    MPI_Type_create_hvector(3, 2, 40, MPI_DOUBLE, &t);
    add("hvector", t, ref_hvector(3, 2, 40, &R_DOUBLE), T_DOUBLE, 0);

    MPI_Type_create_hvector(5, 1, -24, MPI_DOUBLE, &t);
    add("hvector_negative", t, ref_hvector(5, 1, -24, &R_DOUBLE), T_DOUBLE, 0);

    {
        int bl[4] = { 1, 3, 0, 2 }, d[4] = { 5, 0, 10, -3 };
        long lbl[4] = { 1, 3, 0, 2 }, ld[4] = { 20, 0, 40, -12 };
        MPI_Type_indexed(4, bl, d, MPI_INT, &t);
        add("indexed", t, ref_hindexed(4, lbl, ld, &R_INT), T_INT, 0);
    }
    {
        int bl[3] = { 2, 1, 2 };
        MPI_Aint d[3] = { -16, 8, 40 };
        long lbl[3] = { 2, 1, 2 }, ld[3] = { -16, 8, 40 };
        MPI_Type_create_hindexed(3, bl, d, MPI_DOUBLE, &t);
        add("hindexed", t, ref_hindexed(3, lbl, ld, &R_DOUBLE), T_DOUBLE, 0);
    }
    {
        int d[4] = { 0, 3, 6, 9 };
        long lbl[4] = { 2, 2, 2, 2 }, ld[4] = { 0, 12, 24, 36 };
        MPI_Type_create_indexed_block(4, 2, d, MPI_INT, &t);
        add("indexed_block", t, ref_hindexed(4, lbl, ld, &R_INT), T_INT, 0);
    }
    {
        MPI_Aint d[3] = { 24, 0, 8 };
        long lbl[3] = { 1, 1, 1 }, ld[3] = { 24, 0, 8 };
        MPI_Type_create_hindexed_block(3, 1, d, MPI_DOUBLE, &t);
        add("hindexed_block", t, ref_hindexed(3, lbl, ld, &R_DOUBLE), T_DOUBLE, 0);
    }
    struct ref rpad;
    MPI_Datatype padded;
    {
        int bl[3] = { 1, 2, 1 };
        MPI_Aint d[3] = { offsetof(struct padded, a), offsetof(struct padded, b), offsetof(struct padded, c) };
        MPI_Datatype ty[3] = { MPI_INT, MPI_DOUBLE, MPI_CHAR };
        long lbl[3] = { 1, 2, 1 }, ld[3] = { d[0], d[1], d[2] };
        const struct ref *old[3] = { &R_INT, &R_DOUBLE, &R_CHAR };
        MPI_Type_create_struct(3, bl, d, ty, &padded);
        rpad = ref_struct(3, lbl, ld, old);
        CHECK(rpad.extent == sizeof(struct padded), "reference struct extent %ld", rpad.extent);
        MPI_Type_dup(padded, &t);
        add("struct_padded", t, rpad, 0, 0);
    }
    {
        int bl[3] = { 1, 1, 1 };
        MPI_Aint d[3] = { -3, 4, 10 };
        MPI_Datatype ty[3] = { MPI_CHAR, MPI_INT, MPI_SHORT };
        long lbl[3] = { 1, 1, 1 }, ld[3] = { -3, 4, 10 };
        const struct ref *old[3] = { &R_CHAR, &R_INT, &R_SHORT };
        MPI_Type_create_struct(3, bl, d, ty, &t);
        add("struct_negative_disp", t, ref_struct(3, lbl, ld, old), 0, 0);
    }
    {
        int sz[3] = { 4, 5, 6 }, sub[3] = { 2, 3, 4 }, st[3] = { 1, 1, 2 };
        MPI_Type_create_subarray(3, sz, sub, st, MPI_ORDER_C, MPI_DOUBLE, &t);
        add("subarray_c_3d", t, ref_subarray(3, sz, sub, st, MPI_ORDER_C, &R_DOUBLE), T_DOUBLE, 0);
    }
    {
        int sz[2] = { 6, 5 }, sub[2] = { 3, 2 }, st[2] = { 2, 3 };
        MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_FORTRAN, MPI_INT, &t);
        add("subarray_fortran_2d", t, ref_subarray(2, sz, sub, st, MPI_ORDER_FORTRAN, &R_INT), T_INT, 0);
    }
    {
        int gs[2] = { 8, 10 }, dist[2] = { MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC },
            darg[2] = { MPI_DISTRIBUTE_DFLT_DARG, 2 }, ps[2] = { 2, 2 };
        MPI_Type_create_darray(4, 3, 2, gs, dist, darg, ps, MPI_ORDER_C, MPI_DOUBLE, &t);
        add("darray_c_block_cyclic2", t, ref_darray2(3, gs, dist, darg, ps, MPI_ORDER_C), T_DOUBLE, 0);
        int gs2[2] = { 7, 5 }, dist2[2] = { MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE },
            darg2[2] = { MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG }, ps2[2] = { 3, 1 };
        MPI_Type_create_darray(3, 1, 2, gs2, dist2, darg2, ps2, MPI_ORDER_FORTRAN, MPI_DOUBLE, &t);
        add("darray_fortran_cyclic_none", t, ref_darray2(1, gs2, dist2, darg2, ps2, MPI_ORDER_FORTRAN),
            T_DOUBLE, 0);
        int gs3[2] = { 9, 4 }, dist3[2] = { MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK },
            darg3[2] = { 4, MPI_DISTRIBUTE_DFLT_DARG }, ps3[2] = { 3, 1 };
        MPI_Type_create_darray(3, 2, 2, gs3, dist3, darg3, ps3, MPI_ORDER_C, MPI_DOUBLE, &t);
        add("darray_c_block_short_last", t, ref_darray2(2, gs3, dist3, darg3, ps3, MPI_ORDER_C), T_DOUBLE, 0);
    }
    {
        MPI_Type_vector(2, 1, 3, MPI_INT, &u);
        struct ref ru = ref_hvector(2, 1, 12, &R_INT);
        MPI_Type_create_resized(u, 0, 4, &t);
        add("resized_interleaved", t, ref_resized(&ru, 0, 4), T_INT, 1);
        MPI_Type_create_resized(MPI_INT, -4, 12, &t);
        add("resized_padding", t, ref_resized(&R_INT, -4, 12), T_INT, 0);
        /* indexed of a resized vector: element k at 8k holds ints at 8k and 8k+12 */
        MPI_Type_create_resized(u, 0, 8, &v);
        struct ref rv = ref_resized(&ru, 0, 8);
        int bl[2] = { 2, 1 }, d[2] = { 0, 5 };
        long lbl[2] = { 2, 1 }, ld[2] = { 0, 40 };
        MPI_Type_indexed(2, bl, d, v, &t);
        add("indexed_of_resized_vector", t, ref_hindexed(2, lbl, ld, &rv), T_INT, 0);
        MPI_Type_free(&v);
        MPI_Type_free(&u);
        ref_free(&ru);
        ref_free(&rv);
    }
    {
        MPI_Type_vector(3, 2, 4, padded, &t);
        add("vector_of_struct", t, ref_hvector(3, 2, 4 * rpad.extent, &rpad), 0, 0);
    }
    {
        MPI_Type_vector(3, 1, 2, MPI_DOUBLE, &u);
        struct ref ru = ref_hvector(3, 1, 16, &R_DOUBLE);
        MPI_Type_contiguous(5, u, &t);
        add("contiguous_of_vector", t, ref_hvector(5, 1, ru.extent, &ru), T_DOUBLE, 0);
        MPI_Type_free(&u);
        ref_free(&ru);

        MPI_Type_vector(3, 1, 2, MPI_INT, &u);
        MPI_Type_create_resized(u, 0, 24, &v);
        struct ref ru2 = ref_hvector(3, 1, 8, &R_INT), rv = ref_resized(&ru2, 0, 24);
        MPI_Type_contiguous(4, v, &t);
        add("contiguous_of_resized_vector", t, ref_hvector(4, 1, 24, &rv), T_INT, 0);
        MPI_Type_free(&u);
        MPI_Type_free(&v);
        ref_free(&ru2);
        ref_free(&rv);
    }
    {
        MPI_Datatype vec, sub;
        MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
        int sz[2] = { 4, 4 }, ss[2] = { 2, 2 }, st[2] = { 1, 1 };
        MPI_Type_create_subarray(2, sz, ss, st, MPI_ORDER_C, MPI_SHORT, &sub);
        struct ref rvec = ref_hvector(2, 1, 8, &R_INT), rsub = ref_subarray(2, sz, ss, st, MPI_ORDER_C, &R_SHORT);
        int bl[2] = { 1, 2 };
        MPI_Aint d[2] = { 0, 64 };
        MPI_Datatype ty[2] = { vec, sub };
        long lbl[2] = { 1, 2 }, ld[2] = { 0, 64 };
        const struct ref *old[2] = { &rvec, &rsub };
        MPI_Type_create_struct(2, bl, d, ty, &t);
        MPI_Type_free(&vec); /* t must keep working without them */
        MPI_Type_free(&sub);
#ifdef MPICH_VERSION
        /* MPICH takes the union of all bounds here; MPI 4.0 (5.1.7, and Open
         * MPI) lets the subarray's lb/ub markers alone decide: lb 64, extent 64. */
        MPI_Type_free(&t);
        (void)lbl, (void)ld, (void)old;
#else
        add("struct_of_vector_and_subarray", t, ref_struct(2, lbl, ld, old), 0, 0);
#endif
        ref_free(&rvec);
        ref_free(&rsub);
    }
    {
        MPI_Type_vector(3, 1, 2, MPI_DOUBLE_INT, &t);
        add("vector_of_double_int", t, ref_hvector(3, 1, 32, &R_DOUBLE_INT), T_DOUBLE_INT, 0);
    }
    MPI_Type_free(&padded); /* rpad stays: the struct_padded case owns it */
    (void)nprocs;
}

static void fill(char *p, long n, int seed)
{
    for (long j = 0; j < n; j++)
        p[j] = (char)((j * 131 + seed * 7 + 1) & 0xff);
}

/* A buffer for count elements of r: origin may sit inside (negative offsets). */
struct tbuf {
    char *mem, *origin;
    long bytes;
};

static struct tbuf tbuf_new(const struct ref *r, long count)
{
    long lo, hi;
    ref_span(r, count, &lo, &hi);
    struct tbuf b;
    b.bytes = hi - lo + 1;
    b.mem = malloc(b.bytes);
    b.origin = b.mem - lo;
    return b;
}

static void check_queries(const struct tcase *c)
{
    int size;
    MPI_Aint lb, ext, tlb, text;
    MPI_Type_size(c->type, &size);
    MPI_Type_get_extent(c->type, &lb, &ext);
    CHECK(size == ref_size(&c->ref), "%s: size %d, expected %ld", c->name, size, ref_size(&c->ref));
    CHECK(lb == c->ref.lb && ext == c->ref.extent, "%s: lb %ld extent %ld, expected %ld %ld", c->name,
          (long)lb, (long)ext, c->ref.lb, c->ref.extent);
    if (size > 0) {
        long elb, eext;
        ref_true_extent(&c->ref, &elb, &eext);
        MPI_Type_get_true_extent(c->type, &tlb, &text);
        CHECK(tlb == elb && text == eext, "%s: true lb %ld extent %ld, expected %ld %ld", c->name, (long)tlb,
              (long)text, elb, eext);
    }
}

static long basic_count(const struct ref *r)
{
    static const long sz[] = { 0, 4, 8, 1, 2, 12 };
    long n = 0;
    for (long i = 0; i < r->n; i++)
        n += r->basic[i] == T_DOUBLE_INT ? (r->len[i] == 8) : r->len[i] / sz[r->basic[i]];
    return n;
}

static void run_case(int ci, const struct tcase *c, long count, int rank, int nprocs)
{
    int dest = (rank + 1) % nprocs, src = (rank + nprocs - 1) % nprocs;
    long size = ref_size(&c->ref), packed = size * count;
    int seed_mine = rank * 1000 + ci * 10 + (int)(count % 7), seed_src = src * 1000 + ci * 10 + (int)(count % 7);
    MPI_Status st;

    struct tbuf sb = tbuf_new(&c->ref, count), rb = tbuf_new(&c->ref, count), xb = tbuf_new(&c->ref, count);
    fill(sb.mem, sb.bytes, seed_mine);
    fill(xb.mem, xb.bytes, seed_src); /* the sender's buffer, as the receiver can rebuild it */
    char *expect_packed = malloc(packed + 1), *got = malloc(packed + 1);
    ref_pack(&c->ref, count, xb.origin, expect_packed);

    /* 1. same type on both sides */
    if (!c->overlaps) {
        memset(rb.mem, 0xEE, rb.bytes);
        char *expect = malloc(rb.bytes);
        memset(expect, 0xEE, rb.bytes);
        ref_unpack(&c->ref, count, expect_packed, expect + (rb.origin - rb.mem));
        MPI_Sendrecv(sb.origin, (int)count, c->type, dest, 1, rb.origin, (int)count, c->type, src, 1,
                     MPI_COMM_WORLD, &st);
        int n;
        MPI_Get_count(&st, c->type, &n);
        CHECK(n == count, "%s count %ld: Get_count %d", c->name, count, n);
        if (c->basic_tag != T_DOUBLE_INT) {
            MPI_Get_elements(&st, c->type, &n);
            CHECK(n == count * basic_count(&c->ref), "%s: Get_elements %d, expected %ld", c->name, n,
                  count * basic_count(&c->ref));
        }
        for (long j = 0; j < rb.bytes; j++)
            CHECK(rb.mem[j] == expect[j], "%s count %ld (%ld bytes): byte %ld of the receive buffer is %d, "
                  "expected %d", c->name, count, packed, j + (rb.mem - rb.origin), rb.mem[j], expect[j]);
        free(expect);
    }

    /* 2. received as MPI_PACKED: the reference packing */
    MPI_Sendrecv(sb.origin, (int)count, c->type, dest, 2, got, (int)packed, MPI_PACKED, src, 2,
                 MPI_COMM_WORLD, &st);
    CHECK(memcmp(got, expect_packed, packed) == 0, "%s count %ld: packed bytes differ", c->name, count);

    /* 3. one basic type: the other side contiguous, both directions */
    if (c->basic_tag) {
        MPI_Datatype bt = tag_type(c->basic_tag);
        struct ref *br = c->basic_tag == T_INT ? &R_INT : c->basic_tag == T_DOUBLE ? &R_DOUBLE : &R_DOUBLE_INT;
        long nb = count * basic_count(&c->ref);
        struct ref cr = ref_hvector(nb, 1, br->extent, br);
        struct tbuf cb = tbuf_new(&cr, 1);
        MPI_Sendrecv(sb.origin, (int)count, c->type, dest, 3, cb.origin, (int)nb, bt, src, 3,
                     MPI_COMM_WORLD, &st);
        ref_pack(&cr, 1, cb.origin, got);
        CHECK(memcmp(got, expect_packed, packed) == 0, "%s count %ld: vector -> contiguous differs", c->name,
              count);
        if (!c->overlaps) {
            /* send contiguous (my own data, packed as the type would), receive as the type */
            fill(sb.mem, sb.bytes, seed_mine);
            char *mine = malloc(packed + 1);
            ref_pack(&c->ref, count, sb.origin, mine);
            ref_unpack(&cr, 1, mine, cb.origin);
            memset(rb.mem, 0xEE, rb.bytes);
            MPI_Sendrecv(cb.origin, (int)nb, bt, dest, 4, rb.origin, (int)count, c->type, src, 4,
                         MPI_COMM_WORLD, &st);
            ref_pack(&c->ref, count, rb.origin, got);
            CHECK(memcmp(got, expect_packed, packed) == 0, "%s count %ld: contiguous -> type differs",
                  c->name, count);
            free(mine);
        }
        free(cb.mem);
        ref_free(&cr);
    }
    free(expect_packed);
    free(got);
    free(sb.mem);
    free(rb.mem);
    free(xb.mem);
}

int main(int argc, char **argv)
{
    int rank, nprocs;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    build_cases(nprocs);
    /* packed sizes: tiny, just under/at/over 16 KiB, 64 KiB, 1 MiB */
    const long targets[] = { 1, 100, 16380, 16384, 16400, 65536, 1 << 20 };
    for (int ci = 0; ci < ncases; ci++) {
        const struct tcase *c = &cases[ci];
        check_queries(c);
        long size = ref_size(&c->ref);
        long last = -1;
        for (size_t k = 0; k < sizeof targets / sizeof targets[0]; k++) {
            long count = size ? targets[k] / size : 1;
            if (count < 1)
                count = 1;
            if (count == last)
                continue;
            last = count;
            run_case(ci, c, count, rank, nprocs);
        }
        if (rank == 0)
            printf("ok %s (size %ld, extent %ld)\n", c->name, size, c->ref.extent);
    }
    for (int ci = 0; ci < ncases; ci++) {
        MPI_Type_free(&cases[ci].type);
        ref_free(&cases[ci].ref);
    }
    MPI_Finalize();
    if (rank == 0)
        printf("dt_roundtrip: all %d types passed\n", ncases);
    return 0;
}
