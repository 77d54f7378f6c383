/*
 * wing_check.c -- collective correctness under a host MPI, with or without
 * libcorempi_coll-<host>.so preloaded (tests/wing/run.sh, docs/wing.md).
 * Plain MPI: built with the host's mpicc.  Every result is checked against
 * a value each rank computes by itself; types, ops, counts (0, 1, odd,
 * large) and MPI_IN_PLACE, on MPI_COMM_WORLD, a split and a duplicate.
 * Exit 0 when all agree; the first few differences are printed.
 *   wing_check [fallback]   fallback: also an intercommunicator and a user op
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, errors;

#define CHECK(cond, ...)                                                                                       \
    do {                                                                                                       \
        if (!(cond) && errors++ < 10) {                                                                        \
            fprintf(stderr, "rank %d: ", rank);                                                                \
            fprintf(stderr, __VA_ARGS__);                                                                      \
            fputc('\n', stderr);                                                                               \
        }                                                                                                      \
    } while (0)

static const int counts[] = { 0, 1, 2, 7, 13, 100, 1023, 40000, 300001 };
#define NCOUNTS (int)(sizeof counts / sizeof counts[0])

/* Rank r's element i: small, so sums and products stay exact in every type. */
static long val(int r, int i) { return (long)((r * 7 + i * 3) % 11) - 3; }

enum { SUM, PROD, MAX, MIN, BAND, BOR, BXOR, LAND, LOR, NOPS };
static const char *const op_name[] = { "SUM", "PROD", "MAX", "MIN", "BAND", "BOR", "BXOR", "LAND", "LOR" };
static MPI_Op op_of(int o)
{
    MPI_Op t[] = { MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_BAND, MPI_BOR, MPI_BXOR, MPI_LAND, MPI_LOR };
    return t[o];
}
static long fold(int o, long a, long b)
{
    switch (o) {
    case SUM: return a + b;
    case PROD: return a * b;
    case MAX: return a > b ? a : b;
    case MIN: return a < b ? a : b;
    case BAND: return a & b;
    case BOR: return a | b;
    case BXOR: return a ^ b;
    case LAND: return a && b;
    default: return a || b;
    }
}
/* Products of up to 5 values in [-3, 7] fit every type below; keep PROD
 * to small counts of ranks anyway. */
static long expect(int o, int i, int n)
{
    long acc = val(0, i);
    for (int r = 1; r < n; r++)
        acc = fold(o, acc, val(r, i));
    return acc;
}

struct type {
    const char *name;
    MPI_Datatype dt;
    size_t size;
    int is_float;
    int is_unsigned;    /* MAX and MIN of negative values differ: not tested */
};

static void put(const struct type *t, void *buf, int i, long v)
{
    switch (t->size * 2 + t->is_float) {
    case 2: ((int8_t *)buf)[i] = (int8_t)v; break;
    case 4: ((int16_t *)buf)[i] = (int16_t)v; break;
    case 8: ((int32_t *)buf)[i] = (int32_t)v; break;
    case 9: ((float *)buf)[i] = (float)v; break;
    case 16: ((int64_t *)buf)[i] = (int64_t)v; break;
    case 17: ((double *)buf)[i] = (double)v; break;
    }
}
static long get(const struct type *t, const void *buf, int i)
{
    switch (t->size * 2 + t->is_float) {
    case 2: return ((const int8_t *)buf)[i];
    case 4: return ((const int16_t *)buf)[i];
    case 8: return ((const int32_t *)buf)[i];
    case 9: return (long)((const float *)buf)[i];
    case 16: return (long)((const int64_t *)buf)[i];
    default: return (long)((const double *)buf)[i];
    }
}

static void reductions(MPI_Comm comm, const char *cname, const struct type *types, int ntypes)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    size_t maxbytes = (size_t)counts[NCOUNTS - 1] * 8;
    char *sb = malloc(maxbytes), *rb = malloc(maxbytes);
    for (int ti = 0; ti < ntypes; ti++) {
        const struct type *t = &types[ti];
        for (int o = 0; o < NOPS; o++) {
            if ((t->is_float && o > MIN) || (t->is_unsigned && (o == MAX || o == MIN)))
                continue;
            if (o == PROD && n > 5)
                continue;
            for (int ci = 0; ci < NCOUNTS; ci++) {
                int c = counts[ci];
                if (t->size == 1 && (o == SUM || o == PROD) && n > 3)
                    continue;   /* int8 sums overflow */
                if (c >= 40000 && ti > 1)
                    continue;   /* large vectors: MPI_INT and MPI_DOUBLE are enough */
                for (int mode = 0; mode < 4; mode++) {   /* allreduce, in place; reduce, in place */
                    int root = (ci + o) % n, inplace = mode & 1, isreduce = mode >= 2;
                    for (int i = 0; i < c; i++) {
                        put(t, sb, i, val(me, i));
                        put(t, rb, i, inplace && (!isreduce || me == root) ? val(me, i) : 99);
                    }
                    const void *s = inplace && (!isreduce || me == root) ? MPI_IN_PLACE : sb;
                    if (isreduce)
                        MPI_Reduce(s, rb, c, t->dt, op_of(o), root, comm);
                    else
                        MPI_Allreduce(s, rb, c, t->dt, op_of(o), comm);
                    if (isreduce && me != root)
                        continue;
                    for (int i = 0; i < c; i++) {
                        long want = expect(o, i, n), got = get(t, rb, i);
                        if (got != want) {
                            CHECK(0, "%s %s %s %s count %d%s root %d: [%d] = %ld, want %ld", cname,
                                  isreduce ? "reduce" : "allreduce", t->name, op_name[o], c,
                                  inplace ? " in place" : "", root, i, got, want);
                            break;
                        }
                    }
                }
            }
        }
    }
    free(sb);
    free(rb);
}

static void bcasts(MPI_Comm comm, const char *cname)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    /* A strided type on one side and contiguous ints on the others: the same signature. */
    MPI_Datatype vec;
    MPI_Type_vector(3, 2, 5, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    for (int ci = 0; ci < NCOUNTS; ci++) {
        int c = counts[ci], root = ci % n;
        int *buf = malloc(sizeof(int) * (size_t)c * 15 + 4);
        for (int i = 0; i < c; i++)
            buf[i] = me == root ? i * 31 + 5 : -1;
        MPI_Bcast(buf, c, MPI_INT, root, comm);
        for (int i = 0; i < c; i++)
            if (buf[i] != i * 31 + 5) {
                CHECK(0, "%s bcast count %d root %d: [%d] = %d", cname, c, root, i, buf[i]);
                break;
            }
        if (c <= 13) {          /* vector at the root, 6c ints at the others */
            int k = c;
            for (int i = 0; i < k * 15; i++)
                buf[i] = me == root ? i : -1;
            if (me == root)
                MPI_Bcast(buf, k, vec, root, comm);
            else
                MPI_Bcast(buf, 6 * k, MPI_INT, root, comm);
            if (me != root)
                for (int e = 0; e < k; e++)
                    for (int j = 0; j < 6; j++) {
                        int want = e * 12 + (j / 2) * 5 + j % 2;   /* extent: 12 ints */
                        if (buf[e * 6 + j] != want) {
                            CHECK(0, "%s bcast of a vector, count %d: [%d] = %d, want %d", cname, k, e * 6 + j,
                                  buf[e * 6 + j], want);
                            e = k;
                            break;
                        }
                    }
        }
        free(buf);
    }
    MPI_Type_free(&vec);
    for (int i = 0; i < 100; i++)
        MPI_Barrier(comm);
}

/* Allgather and alltoall of ints, every block count of the list up to 70000
 * (past a 256 KiB slot at 2 ranks), in place and not. */
static void movers(MPI_Comm comm, const char *cname)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    const int blocks[] = { 0, 1, 7, 100, 1000, 70000 };
    for (int bi = 0; bi < 6; bi++) {
        int c = blocks[bi];
        if ((size_t)c * (size_t)n * (size_t)n > 2000000)
            continue;
        int *sb = malloc(sizeof(int) * ((size_t)c * n + 1)), *rb = malloc(sizeof(int) * ((size_t)c * n + 1));
        for (int inplace = 0; inplace < 2; inplace++) {
            for (int i = 0; i < c * n; i++)
                rb[i] = -1;
            for (int i = 0; i < c; i++)
                (inplace ? rb + (size_t)me * c : sb)[i] = me * 1000003 + i;
            MPI_Allgather(inplace ? MPI_IN_PLACE : sb, c, MPI_INT, rb, c, MPI_INT, comm);
            for (int r = 0; r < n; r++)
                for (int i = 0; i < c; i++)
                    if (rb[(size_t)r * c + i] != r * 1000003 + i) {
                        CHECK(0, "%s allgather block %d%s: [%d][%d] = %d", cname, c, inplace ? " in place" : "", r, i,
                              rb[(size_t)r * c + i]);
                        r = n;
                        break;
                    }
            for (int r = 0; r < n; r++)
                for (int i = 0; i < c; i++)
                    (inplace ? rb : sb)[(size_t)r * c + i] = me * 7919 + r * 131 + i;
            MPI_Alltoall(inplace ? MPI_IN_PLACE : sb, c, MPI_INT, rb, c, MPI_INT, comm);
            for (int r = 0; r < n; r++)
                for (int i = 0; i < c; i++)
                    if (rb[(size_t)r * c + i] != r * 7919 + me * 131 + i) {
                        CHECK(0, "%s alltoall block %d%s: [%d][%d] = %d", cname, c, inplace ? " in place" : "", r, i,
                              rb[(size_t)r * c + i]);
                        r = n;
                        break;
                    }
        }
        free(sb);
        free(rb);
    }
}

/* Composition of affine maps x -> m x + c, an element of two ints: associative,
 * not commutative, so the rank order shows.  inout = in o inout (in: the
 * lower ranks'). */
static void compose(const int *a, int *b)
{
    b[1] = a[0] * b[1] + a[1];
    b[0] = a[0] * b[0];
}
static void user_compose(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    for (int i = 0; i < *len; i++)
        compose((int *)in + 2 * i, (int *)inout + 2 * i);
}

/* Over elements of MPI_Type_vector(2, 1, 2, MPI_INT): ints 0 and 2 of every 3. */
static void vec_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    for (int i = 0; i < *len; i++) {
        ((int *)inout)[3 * i] += ((int *)in)[3 * i];
        ((int *)inout)[3 * i + 2] += ((int *)in)[3 * i + 2];
    }
}

/* A user op on a derived type (two ints, decoded through the host's
 * envelope): served by the engine through the host's PMPI_Reduce_local, in
 * comm's rank order (across pretend nodes: hierarchically when each node's
 * ranks are one run of comm's, else by the host). */
static void user_op(MPI_Comm comm, const char *name)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    MPI_Datatype two;
    MPI_Type_contiguous(2, MPI_INT, &two);
    MPI_Type_commit(&two);
    MPI_Op op;
    MPI_Op_create(user_compose, 0, &op);
    /* x -> (2 + r % 3) x + 2 r + 1: no two ranks' maps commute (with
     * c = r + 1 those of ranks 0-2 would, and a wrong order pass). */
    for (int c = 1; c <= 3; c++) {
        int x[6], y[6], want[2] = { 2 + (n - 1) % 3, 2 * n - 1 };
        for (int i = 0; i < c; i++) {
            x[2 * i] = 2 + me % 3;
            x[2 * i + 1] = 2 * me + 1;
        }
        for (int r = n - 2; r >= 0; r--) {
            int xr[2] = { 2 + r % 3, 2 * r + 1 };
            compose(xr, want);
        }
        MPI_Allreduce(x, y, c, two, op, comm);
        CHECK(y[2 * c - 2] == want[0] && y[2 * c - 1] == want[1], "%s: user op allreduce: (%d %d), want (%d %d)",
              name, y[2 * c - 2], y[2 * c - 1], want[0], want[1]);
        for (int root = 0; root < n; root++) {
            y[2 * c - 2] = y[2 * c - 1] = -1;
            MPI_Reduce(x, y, c, two, op, root, comm);
            CHECK(me != root || (y[2 * c - 2] == want[0] && y[2 * c - 1] == want[1]),
                  "%s: user op reduce to %d: (%d %d), want (%d %d)", name, root, y[2 * c - 2], y[2 * c - 1],
                  want[0], want[1]);
        }
    }
    MPI_Type_free(&two);
    MPI_Op_free(&op);
}

static void fallbacks(void)
{
    user_op(MPI_COMM_WORLD, "world");
    /* An intercommunicator: the host's. */
    if (size >= 2) {
        MPI_Comm half, inter;
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 7, &inter);
        MPI_Barrier(inter);
        int v = rank, sum = 0;
        MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, inter);
        int other = 0;
        for (int r = 0; r < size; r++)
            if (r % 2 != rank % 2)
                other += r;
        CHECK(sum == other, "intercommunicator allreduce: %d, want %d", sum, other);
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    }
    /* A type with holes in a reduction (a user op: Open MPI refuses
     * predefined ops on derived types): the host's. */
    MPI_Datatype holes;
    MPI_Type_vector(2, 1, 2, MPI_INT, &holes);
    MPI_Type_commit(&holes);
    MPI_Op vsum;
    MPI_Op_create(vec_sum, 1, &vsum);
    int in[3] = { rank, -1, rank }, out[3] = { 0, -7, 0 };
    MPI_Allreduce(in, out, 1, holes, vsum, MPI_COMM_WORLD);
    CHECK(out[0] == size * (size - 1) / 2 && out[2] == out[0] && out[1] == -7, "allreduce with a vector type: %d %d %d",
          out[0], out[1], out[2]);
    MPI_Op_free(&vsum);
    MPI_Type_free(&holes);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    struct type types[] = {
        { "MPI_INT", MPI_INT, sizeof(int), 0 },          { "MPI_DOUBLE", MPI_DOUBLE, 8, 1 },
        { "MPI_FLOAT", MPI_FLOAT, 4, 1 },                 { "MPI_LONG", MPI_LONG, sizeof(long), 0 },
        { "MPI_SHORT", MPI_SHORT, sizeof(short), 0 },     { "MPI_INT8_T", MPI_INT8_T, 1, 0 },
        { "MPI_UINT64_T", MPI_UINT64_T, 8, 0, 1 },
    };
    int ntypes = (int)(sizeof types / sizeof types[0]);

    reductions(MPI_COMM_WORLD, "world", types, ntypes);
    bcasts(MPI_COMM_WORLD, "world");
    movers(MPI_COMM_WORLD, "world");
    MPI_Comm dup, split;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, rank < (size + 1) / 2, size - rank, &split);
    reductions(split, "split", types, 2);
    bcasts(dup, "dup");
    bcasts(split, "split");
    movers(split, "split");
    MPI_Comm_free(&split);
    /* Even ranks, then odd: across pretend nodes (COREMPI_COLL_NODES) a
     * node's ranks interleave with another's. */
    MPI_Comm mixed;
    MPI_Comm_split(MPI_COMM_WORLD, 0, (rank % 2) * size + rank, &mixed);
    reductions(mixed, "mixed", types, 2);
    bcasts(mixed, "mixed");
    user_op(mixed, "mixed");
    MPI_Barrier(mixed);
    MPI_Comm_free(&mixed);
    reductions(dup, "dup", types, 1);
    MPI_Comm_free(&dup);
    for (int k = 0; k < 20; k++) {  /* communicators come and go: areas are given back */
        MPI_Comm c;
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        int v = 1, s = 0;
        MPI_Allreduce(&v, &s, 1, MPI_INT, MPI_SUM, c);
        CHECK(s == size, "allreduce on dup %d: %d", k, s);
        MPI_Comm_free(&c);
    }
    if (argc > 1 && !strcmp(argv[1], "fallback"))
        fallbacks();
    int all = 0;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("wing_check: %d ranks, %s\n", size, all ? "FAILED" : "ok");
    MPI_Finalize();
    return all != 0;
}
