/*
 * large_overflow.c -- byte counts that MPI_Count cannot hold.
 *
 * Fixed cases: MPI_Send_c/Recv_c/Isend_c/Irecv_c/Bcast_c/Allreduce_c/
 * Pack_c/Pack_size_c of 2^60..2^62 doubles are MPI_ERR_COUNT naming the _c
 * call (before: SIGFPE in the pack walk, or a receive of "9223372036854775808
 * bytes"), and an error the int twin finds is reported under the _c name.
 *
 * Randomized: types (contiguous_c, vector_c, resized_c with huge extents,
 * struct_c) and counts near 2^31, 2^32, 2^62 and INT64_MAX / size, through
 * the calls that compute sizes without moving data (Type_size_c,
 * Type_get_extent_c, Pack_size_c, Status_set_elements_c + Get_count_c and
 * Get_elements_c, Send_c/Recv_c to MPI_PROC_NULL), compared with exact
 * 128-bit arithmetic.  Seed: argv[1] or LARGE_OVERFLOW_SEED (else the time),
 * printed; the iterations: argv[2] (default 1500).  Argument "crash": a
 * segfault inside MPI_Sendrecv_c, which mpirun must report under that name.
 */
#include "seeded.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef __int128 i128;
static int failures;
#define FAIL(...)                                                                                           \
    do {                                                                                                    \
        failures++;                                                                                         \
        printf("FAIL line %d: ", __LINE__);                                                                 \
        printf(__VA_ARGS__);                                                                                \
        printf("\n");                                                                                       \
    } while (0)

/* rc must be MPI_ERR_COUNT and the last detail of that class name call. */
static void expect_count_error(int rc, const char *call)
{
    char s[MPI_MAX_ERROR_STRING], want[64];
    int len, cls = -1;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_COUNT) {
        FAIL("%s: error class %d, want MPI_ERR_COUNT", call, cls);
        return;
    }
    MPI_Error_string(MPI_ERR_COUNT, s, &len);
    snprintf(want, sizeof want, "%s on rank", call);
    if (!strstr(s, want) || !strstr(s, "more than MPI_Count can hold"))
        FAIL("%s: message \"%s\"", call, s);
}

static void fixed_cases(int rank)
{
    static double d[4];
    MPI_Request r;
    MPI_Status st;
    MPI_Count c61 = (MPI_Count)1 << 61, c60 = (MPI_Count)1 << 60, pos = 0, sz;
    expect_count_error(MPI_Send_c(d, c61, MPI_DOUBLE, rank, 0, MPI_COMM_WORLD), "MPI_Send_c");
    expect_count_error(MPI_Send_c(d, (MPI_Count)1 << 62, MPI_DOUBLE, rank, 0, MPI_COMM_WORLD), "MPI_Send_c");
    expect_count_error(MPI_Recv_c(d, c60, MPI_DOUBLE, rank, 0, MPI_COMM_WORLD, &st), "MPI_Recv_c");
    expect_count_error(MPI_Isend_c(d, c61, MPI_DOUBLE, rank, 0, MPI_COMM_WORLD, &r), "MPI_Isend_c");
    expect_count_error(MPI_Irecv_c(d, c60, MPI_DOUBLE, rank, 0, MPI_COMM_WORLD, &r), "MPI_Irecv_c");
    expect_count_error(MPI_Bcast_c(d, c61, MPI_DOUBLE, 0, MPI_COMM_WORLD), "MPI_Bcast_c");
    expect_count_error(MPI_Allreduce_c(d, d + 1, c61, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce_c");
    expect_count_error(MPI_Pack_c(d, c61, MPI_DOUBLE, d, 32, &pos, MPI_COMM_WORLD), "MPI_Pack_c");
    expect_count_error(MPI_Pack_size_c(c61, MPI_DOUBLE, MPI_COMM_WORLD, &sz), "MPI_Pack_size_c");
    MPI_Datatype t;
    int rc = MPI_Type_contiguous_c(c61, MPI_DOUBLE, &t), cls = -1; /* extent 2^64 */
    if (rc)
        MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_COUNT)
        FAIL("MPI_Type_contiguous_c(2^61 doubles): class %d", cls);
    /* int counts of a huge type: 2^21 x 2^43 bytes (v-collective entries,
     * the int p2p binding) */
    MPI_Datatype huge, bad;
    MPI_Type_contiguous_c((MPI_Count)1 << 40, MPI_DOUBLE, &huge);
    MPI_Type_commit(&huge);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Count *counts = calloc((size_t)size, sizeof *counts);
    MPI_Aint *displs = calloc((size_t)size, sizeof *displs);
    for (int i = 0; i < size; i++)
        counts[i] = 1 << 21;
    expect_count_error(MPI_Allgatherv_c(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, d, counts, displs, huge, MPI_COMM_WORLD),
                       "MPI_Allgatherv_c");
    expect_count_error(MPI_Send(d, 1 << 21, huge, rank, 0, MPI_COMM_WORLD), "MPI_Send");
    free(counts);
    free(displs);
    MPI_Type_free(&huge);
    rc = MPI_Type_create_resized(MPI_INT, INT64_MAX - 4, 100, &bad);
    cls = -1;
    if (rc)
        MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_COUNT)
        FAIL("MPI_Type_create_resized(lb INT64_MAX - 4, extent 100): class %d", cls);
    /* an error the int twin finds names the _c call: a bad rank after the
     * count above INT_MAX became a temporary type */
    rc = MPI_Send_c(d, (MPI_Count)1 << 32, MPI_BYTE, size + 3, 0, MPI_COMM_WORLD);
    char s[MPI_MAX_ERROR_STRING];
    int len;
    cls = -1;
    MPI_Error_class(rc, &cls);
    MPI_Error_string(MPI_ERR_RANK, s, &len);
    if (cls != MPI_ERR_RANK || !strstr(s, "MPI_Send_c on rank"))
        FAIL("bad rank in MPI_Send_c: class %d, \"%s\"", cls, s);
}

/* ---- randomized ------------------------------------------------------ */
static uint64_t state;
static uint64_t rnd(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}
static int64_t pick(int64_t lo, int64_t hi) /* lo..hi inclusive */
{
    uint64_t span = (uint64_t)hi - (uint64_t)lo + 1; /* 0: the whole range */
    return (int64_t)((uint64_t)lo + (span ? rnd() % span : rnd()));
}

static const i128 CMAX = INT64_MAX;
struct model {
    i128 size, lb, extent, nbasic;
};

/* A random type and its exact size/bounds; *t NULL when the constructor
 * must fail (then it was checked to fail with MPI_ERR_COUNT). */
static void random_type(MPI_Datatype *t, struct model *m, char *desc, size_t dlen)
{
    static const MPI_Datatype base[3] = { MPI_BYTE, MPI_INT, MPI_DOUBLE };
    static const int bsize[3] = { 1, 4, 8 };
    int b = (int)pick(0, 2);
    struct model o = { bsize[b], 0, bsize[b], 1 };
    int kind = (int)pick(0, 4), rc;
    i128 ub;
    MPI_Count n = 0, bl = 0, stride = 0;
    MPI_Aint rlb = 0, rext = 0;
    *t = MPI_DATATYPE_NULL;
    switch (kind) {
    case 0:
        *t = base[b];
        *m = o;
        snprintf(desc, dlen, "base %d", bsize[b]);
        return;
    case 1: /* contiguous_c */
        n = pick(0, 1) ? pick(0, 1 << 20) : pick(0, INT64_MAX >> pick(0, 40));
        *m = (struct model){ o.size * n, 0, o.extent * n, n };
        snprintf(desc, dlen, "contiguous_c(%lld) of %d", (long long)n, bsize[b]);
        rc = MPI_Type_contiguous_c(n, base[b], t);
        break;
    case 2: /* vector_c: count blocks of bl, stride (elements, may be negative) */
        n = pick(1, 1LL << pick(1, 40));
        bl = pick(1, 1LL << pick(1, 30));
        stride = pick(-(1LL << pick(1, 50)), 1LL << pick(1, 50));
        {
            i128 span = (i128)(n - 1) * stride * o.extent, blk = (i128)bl * o.extent;
            i128 lo = span < 0 ? span : 0, hi = (span > 0 ? span : 0) + blk;
            *m = (struct model){ o.size * bl * n, lo, hi - lo, (i128)bl * n };
        }
        snprintf(desc, dlen, "vector_c(%lld, %lld, %lld) of %d", (long long)n, (long long)bl, (long long)stride,
                 bsize[b]);
        rc = MPI_Type_vector_c(n, bl, stride, base[b], t);
        break;
    case 3: /* resized_c: a huge extent */
        rlb = pick(-(1LL << 40), 1LL << 40);
        rext = pick(0, 1) ? pick(1, 1LL << 62) : pick(1, 1 << 16);
        *m = (struct model){ o.size, rlb, rext, 1 };
        snprintf(desc, dlen, "resized_c(%ld, %ld) of %d", (long)rlb, (long)rext, bsize[b]);
        rc = MPI_Type_create_resized_c(base[b], rlb, rext, t);
        break;
    default: { /* struct_c: two blocks, the second far away */
        MPI_Count bls[2] = { pick(1, 1 << 20), pick(1, 1 << 20) };
        MPI_Count disp[2] = { 0, pick(0, 1LL << pick(1, 62)) };
        MPI_Datatype ts[2] = { MPI_BYTE, base[b] };
        i128 end0 = bls[0], end1 = (i128)disp[1] + (i128)bls[1] * o.extent;
        ub = end0 > end1 ? end0 : end1;
        /* the struct's extent is padded to the strictest alignment inside */
        i128 al = bsize[b], ext = ub;
        if (ext % al)
            ext += al - ext % al;
        *m = (struct model){ bls[0] + (i128)bls[1] * o.size, 0, ext, bls[0] + (i128)bls[1] };
        snprintf(desc, dlen, "struct_c({%lld, %lld}, {0, %lld}, {BYTE, %d})", (long long)bls[0],
                 (long long)bls[1], (long long)disp[1], bsize[b]);
        rc = MPI_Type_create_struct_c(2, bls, disp, ts, t);
        break;
    }
    }
    /* Only the bounds must fit: a size above MPI_Count is a legal
     * description (Type_size_c then answers MPI_UNDEFINED). */
    int fits = m->lb >= INT64_MIN && m->lb + m->extent <= CMAX && m->extent <= CMAX;
    if (!fits) {
        int cls = -1;
        if (rc)
            MPI_Error_class(rc, &cls);
        if (cls != MPI_ERR_COUNT)
            FAIL("%s: size/extent overflow, constructor gave class %d", desc, cls);
        if (!rc)
            MPI_Type_free(t);
        *t = MPI_DATATYPE_NULL;
        return;
    }
    if (rc) {
        FAIL("%s: constructor failed (%d)", desc, rc);
        *t = MPI_DATATYPE_NULL;
        return;
    }
    MPI_Type_commit(t);
}

static MPI_Count near(const struct model *m)
{
    static const int64_t marks[4] = { (int64_t)1 << 31, (int64_t)1 << 32, (int64_t)1 << 62, 0 };
    int w = (int)pick(0, 4);
    int64_t at;
    if (w < 3)
        at = marks[w];
    else if (w == 3)
        at = m->size ? (int64_t)(CMAX / m->size) : INT64_MAX / 2;
    else
        at = m->extent ? (int64_t)(CMAX / (m->extent < 0 ? -m->extent : m->extent)) : INT64_MAX / 2;
    i128 c = (i128)at + pick(-3, 3); /* at may be INT64_MAX (a type of 1 byte) */
    return c < 0 ? 0 : c > CMAX ? INT64_MAX : (MPI_Count)c;
}

static int is_class(int rc, int want)
{
    int cls = MPI_SUCCESS;
    if (rc)
        MPI_Error_class(rc, &cls);
    return cls == want;
}

static void one_case(void)
{
    char desc[160];
    struct model m;
    MPI_Datatype t;
    random_type(&t, &m, desc, sizeof desc);
    if (t == MPI_DATATYPE_NULL)
        return;
    MPI_Count sz, lb, ext;
    MPI_Type_size_c(t, &sz);
    MPI_Type_get_extent_c(t, &lb, &ext);
    if (sz != (m.size > CMAX ? MPI_UNDEFINED : (MPI_Count)m.size) || lb != (MPI_Count)m.lb || ext != (MPI_Count)m.extent)
        FAIL("%s: size %lld lb %lld extent %lld, want %lld %lld %lld", desc, (long long)sz, (long long)lb,
             (long long)ext, (long long)m.size, (long long)m.lb, (long long)m.extent);
    MPI_Count count = near(&m), got;
    /* sizes reach 2^83 and counts 2^63: products are compared by division */
    i128 aext = m.extent < 0 ? -m.extent : m.extent, bytes = m.size && count > CMAX / m.size ? CMAX + 1 : count * m.size;
    /* the extents' arithmetic: count elements from lb (extents are >= 0 here) */
    int size_ok = bytes <= CMAX,
        all_ok = size_ok && (!aext || count <= CMAX / aext) && m.lb + (i128)count * m.extent <= CMAX;
    int rc = MPI_Pack_size_c(count, t, MPI_COMM_WORLD, &got);
    if (size_ok ? rc || got != (MPI_Count)bytes : !is_class(rc, MPI_ERR_COUNT))
        FAIL("%s: Pack_size_c(%lld): rc %d size %lld", desc, (long long)count, rc, (long long)got);
    static char buf[8];
    MPI_Status st;
    /* Known limit: above INT_MAX a _c call builds a contiguous type of count
     * elements, whose layout may not fit memory (a vector with a negative
     * stride): MPI_ERR_NO_MEM there is a refusal, not a wrong answer. */
    if (all_ok && count > 2147483647)
        all_ok = -1;
    rc = MPI_Send_c(buf, count, t, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    if (all_ok ? rc != MPI_SUCCESS && !(all_ok < 0 && is_class(rc, MPI_ERR_NO_MEM)) : !is_class(rc, MPI_ERR_COUNT))
        FAIL("%s: Send_c(%lld) to MPI_PROC_NULL: rc %d", desc, (long long)count, rc);
    rc = MPI_Recv_c(buf, count, t, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
    if (all_ok ? rc != MPI_SUCCESS && !(all_ok < 0 && is_class(rc, MPI_ERR_NO_MEM)) : !is_class(rc, MPI_ERR_COUNT))
        FAIL("%s: Recv_c(%lld) from MPI_PROC_NULL: rc %d", desc, (long long)count, rc);
    /* count elements of t as basic elements: whole elements then a partial one */
    i128 elements = m.nbasic && count <= CMAX / m.nbasic ? count * m.nbasic : CMAX + 1;
    if (elements <= CMAX && m.nbasic) {
        rc = MPI_Status_set_elements_c(&st, t, (MPI_Count)elements);
        if (size_ok ? rc != MPI_SUCCESS : !is_class(rc, MPI_ERR_COUNT))
            FAIL("%s: Status_set_elements_c(%lld): rc %d", desc, (long long)elements, rc);
        if (size_ok && !rc) {
            MPI_Count c2 = -1, e2 = -1;
            MPI_Get_count_c(&st, t, &c2);
            MPI_Get_elements_c(&st, t, &e2);
            if ((m.size && c2 != count) || e2 != (MPI_Count)elements)
                FAIL("%s: after set_elements_c(%lld): count %lld (want %lld), elements %lld", desc,
                     (long long)elements, (long long)c2, (long long)count, (long long)e2);
        }
    }
    if (t != MPI_BYTE && t != MPI_INT && t != MPI_DOUBLE)
        MPI_Type_free(&t);
}

int main(int argc, char **argv)
{
    int rank;
    long iters;
    uint64_t seed = seeded_start(&argc, &argv, "LARGE_OVERFLOW_SEED", 1500, &iters, &rank);
    if (argc > 1 && !strcmp(argv[1], "crash")) {
        /* A fault inside a _c binding is reported under the _c name (the
         * int twin it calls records nothing): the crash report must read
         * "last MPI call: MPI_Sendrecv_c". */
        static char rb[16];
        MPI_Sendrecv_c((char *)4096, ((MPI_Count)1 << 31) + 5, MPI_BYTE, rank, 0, rb, 16, MPI_BYTE, rank, 0,
                       MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    fixed_cases(rank);
    if (rank == 0)
        printf("large_overflow: seed %llu (rerun: LARGE_OVERFLOW_SEED=%llu, or arguments %llu %ld)\n", (unsigned long long)seed,
               (unsigned long long)seed, (unsigned long long)seed, iters);
    state = seed * 2654435761u + 1 + (uint64_t)rank;
    for (long i = 0; i < iters && failures < 20; i++)
        one_case();
    MPI_Finalize();
    if (failures) {
        printf("large_overflow: %d failures (seed %llu)\n", failures, (unsigned long long)seed);
        return 1;
    }
    printf("large_overflow: OK\n");
    return 0;
}
