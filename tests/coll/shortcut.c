/*
 * shortcut -- the front ends' shortcuts for the tiny allreduce and the barrier
 * of a 2-rank communicator (src/coll/direct/allreduce.c, direct/barrier.c): after a
 * call of a given shape has run through the selection once, the same shape
 * goes straight to the meeting line.  This runs many shapes interleaved, so
 * each is taken the long way once and the short way after, with the parity
 * of the meeting line changing under every one of them:
 *
 *  - allreduce of every predefined type up to 8 bytes a vector, with the ops
 *    defined on it, counts 1..8 / size, in place every other call, checked
 *    against a fold computed here (rank order, element by element); 12-byte
 *    vectors and MPI_SHORT_INT (6 data bytes in an 8-byte extent) must go
 *    the long way and be right too;
 *  - the same shapes on a duplicate of MPI_COMM_WORLD, alternating with it
 *    (each communicator learns its shapes on its own area);
 *  - erroneous calls of a learnt shape (aliased buffers, an op not defined
 *    on the type) still fail with the right error class;
 *  - barriers: a rank that sleeps before a barrier holds the other one in it
 *    (the lower bound of the time spent waiting cannot be made up by noise).
 *
 * Any number of ranks: with other than 2 there is no shortcut and the same
 * checks hold.  Prints "shortcut ok" on rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../test_end.h"

#define CALLS 40
#define NAP_US 20000

enum kind { K_INT, K_UINT, K_FLOAT, K_BOOL, K_PAIR_FI, K_PAIR_II, K_PAIR_SI };

struct shape {
    MPI_Datatype dt;
    const char *dt_name;
    enum kind kind;
    size_t esize;       /* bytes of one element as stored (extent) */
    int signed_bits;    /* integer width, for wraparound of sums and products */
    MPI_Op op;
    const char *op_name;
    int count;
};

static int rank, size, bad;

/* The value rank r contributes at element i of call c: small, so that sums
 * and products over 9 ranks stay exact in every type (products use 1..2). */
static long value(int c, int r, int i, MPI_Op op)
{
    if (op == MPI_PROD)
        return 1 + (c + r + i) % 2;
    if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR)
        return (c * 3 + r * 5 + i) % 3 == 0;
    return (c * 7 + r * 13 + i * 3) % 23;
}

static long fold(MPI_Op op, long a, long b)
{
    if (op == MPI_SUM) return a + b;
    if (op == MPI_PROD) return a * b;
    if (op == MPI_MAX) return a > b ? a : b;
    if (op == MPI_MIN) return a < b ? a : b;
    if (op == MPI_BAND) return a & b;
    if (op == MPI_BOR) return a | b;
    if (op == MPI_BXOR) return a ^ b;
    if (op == MPI_LAND) return a && b;
    if (op == MPI_LOR) return a || b;
    if (op == MPI_LXOR) return !a != !b;
    abort();
}

/* Store element i of value v (and, for pairs, index idx) at buf. */
static void put(const struct shape *s, void *buf, int i, long v, int idx)
{
    char *p = (char *)buf + (size_t)i * s->esize;
    switch (s->kind) {
    case K_INT:
    case K_UINT:
    case K_BOOL:
        if (s->esize == 1) { unsigned char x = (unsigned char)v; memcpy(p, &x, 1); }
        else if (s->esize == 2) { short x = (short)v; memcpy(p, &x, 2); }
        else if (s->esize == 4) { int x = (int)v; memcpy(p, &x, 4); }
        else { long long x = v; memcpy(p, &x, 8); }
        break;
    case K_FLOAT:
        if (s->esize == 4) { float x = (float)v; memcpy(p, &x, 4); }
        else { double x = (double)v; memcpy(p, &x, 8); }
        break;
    case K_PAIR_FI: { struct { float v; int i; } x = { (float)v, idx }; memcpy(p, &x, sizeof x); break; }
    case K_PAIR_II: { struct { int v; int i; } x = { (int)v, idx }; memcpy(p, &x, sizeof x); break; }
    case K_PAIR_SI: { struct { short v; int i; } x = { (short)v, idx }; memcpy(p, &x.v, 2); memcpy(p + 4, &x.i, 4); break; }
    }
}

/* Element i of buf as (value, index). */
static void get(const struct shape *s, const void *buf, int i, long *v, int *idx)
{
    const char *p = (const char *)buf + (size_t)i * s->esize;
    *v = 0;
    *idx = 0;
    switch (s->kind) {
    case K_INT:
    case K_BOOL:
        if (s->esize == 1) { signed char x; memcpy(&x, p, 1); *v = x; }
        else if (s->esize == 2) { short x; memcpy(&x, p, 2); *v = x; }
        else if (s->esize == 4) { int x; memcpy(&x, p, 4); *v = x; }
        else { long long x; memcpy(&x, p, 8); *v = x; }
        if (s->kind == K_BOOL)
            *v = *v != 0;
        break;
    case K_UINT:
        if (s->esize == 1) { unsigned char x; memcpy(&x, p, 1); *v = x; }
        else if (s->esize == 2) { unsigned short x; memcpy(&x, p, 2); *v = x; }
        else if (s->esize == 4) { unsigned x; memcpy(&x, p, 4); *v = x; }
        else { unsigned long long x; memcpy(&x, p, 8); *v = (long)x; }
        break;
    case K_FLOAT:
        if (s->esize == 4) { float x; memcpy(&x, p, 4); *v = (long)x; }
        else { double x; memcpy(&x, p, 8); *v = (long)x; }
        break;
    case K_PAIR_FI: { float x; memcpy(&x, p, 4); *v = (long)x; memcpy(idx, p + 4, 4); break; }
    case K_PAIR_II: { int x; memcpy(&x, p, 4); *v = x; memcpy(idx, p + 4, 4); break; }
    case K_PAIR_SI: { short x; memcpy(&x, p, 2); *v = x; memcpy(idx, p + 4, 4); break; }
    }
}

static int is_pair(const struct shape *s) { return s->kind >= K_PAIR_FI; }

/* The expected element i of call c: every rank's value folded in rank order;
 * MINLOC/MAXLOC keep the lowest rank among equal values. */
static void expected(const struct shape *s, int c, int i, long *v, int *idx)
{
    *v = value(c, 0, i, s->op);
    *idx = 0;
    for (int r = 1; r < size; r++) {
        long x = value(c, r, i, s->op);
        if (is_pair(s)) {
            int better = s->op == MPI_MINLOC ? x < *v : x > *v;
            if (better) {
                *v = x;
                *idx = r;
            }
        } else {
            *v = fold(s->op, *v, x);
        }
    }
    if (!is_pair(s) && s->signed_bits < 64) {
        /* Wrap as the type does (sums of 9 values stay small; kept for products). */
        unsigned long long m = (1ULL << s->signed_bits) - 1;
        unsigned long long u = (unsigned long long)*v & m;
        *v = s->kind == K_UINT ? (long)u : (long)(u << (64 - s->signed_bits)) >> (64 - s->signed_bits);
    }
}

static void one_allreduce(const struct shape *s, int c, MPI_Comm comm)
{
    unsigned char in[64], out[64];
    memset(in, 0xa5, sizeof in);
    memset(out, 0x5a, sizeof out);
    for (int i = 0; i < s->count; i++)
        put(s, in, i, value(c, rank, i, s->op), rank);
    int in_place = c % 2;
    const void *sb = in;
    if (in_place) {
        memcpy(out, in, (size_t)s->count * s->esize);
        sb = MPI_IN_PLACE;
    }
    int rc = MPI_Allreduce(sb, out, s->count, s->dt, s->op, comm);
    if (rc != MPI_SUCCESS) {
        if (bad++ < 10)
            fprintf(stderr, "shortcut: rank %d: allreduce %s %s x%d call %d failed (%d)\n", rank, s->dt_name,
                    s->op_name, s->count, c, rc);
        return;
    }
    for (int i = 0; i < s->count; i++) {
        long want, got;
        int want_idx, got_idx;
        expected(s, c, i, &want, &want_idx);
        get(s, out, i, &got, &got_idx);
        if ((got != want || (is_pair(s) && got_idx != want_idx)) && bad++ < 10)
            fprintf(stderr,
                    "shortcut: rank %d: allreduce %s %s x%d call %d%s, element %d: got %ld/%d, want %ld/%d\n",
                    rank, s->dt_name, s->op_name, s->count, c, in_place ? " (in place)" : "", i, got, got_idx,
                    want, want_idx);
    }
    /* Nothing written past the vector. */
    for (size_t b = (size_t)s->count * s->esize; b < sizeof out; b++)
        if (out[b] != 0x5a && bad++ < 10) {
            fprintf(stderr, "shortcut: rank %d: allreduce %s x%d wrote byte %zu past its vector\n", rank,
                    s->dt_name, s->count, b);
            break;
        }
}

static void expect_error(int rc, int cls, const char *what)
{
    int got = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &got);
    if (got != cls && bad++ < 10)
        fprintf(stderr, "shortcut: rank %d: %s: error class %d, want %d\n", rank, what, got, cls);
}

/* Rank `napper` sleeps before a barrier; every other rank must wait in it. */
/* CLOCK_MONOTONIC is one clock for every process of the machine. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A barrier must not let anyone out before the napper came in: every rank's
 * exit time is compared with the napper's entry time (causality, not a
 * duration: on a loaded machine a waiter may itself arrive late, so the time
 * it spent inside proves nothing). */
static void held_barrier(MPI_Comm comm, int napper)
{
    double entered = 0;
    if (rank == napper) {
        usleep(NAP_US);
        entered = now();
    }
    MPI_Barrier(comm);
    double left = now();
    MPI_Bcast(&entered, 1, MPI_DOUBLE, napper, comm);
    if (left < entered && bad++ < 10)
        fprintf(stderr, "shortcut: rank %d: left a barrier %.1f us before rank %d entered it\n", rank,
                (entered - left) * 1e6, napper);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
#define SH(dt, kind, es, bits, op, n) { dt, #dt, kind, es, bits, op, #op, n }
    const struct shape shapes[] = {
        SH(MPI_INT, K_INT, 4, 32, MPI_SUM, 1),
        SH(MPI_INT, K_INT, 4, 32, MPI_SUM, 2),
        SH(MPI_INT, K_INT, 4, 32, MPI_MAX, 2),        /* same shape as the line above, another op */
        SH(MPI_INT, K_INT, 4, 32, MPI_SUM, 3),        /* 12 bytes: the long way */
        SH(MPI_DOUBLE, K_FLOAT, 8, 64, MPI_SUM, 1),   /* same bytes as 2 ints, other count */
        SH(MPI_DOUBLE, K_FLOAT, 8, 64, MPI_MIN, 1),
        SH(MPI_FLOAT, K_FLOAT, 4, 64, MPI_PROD, 2),
        SH(MPI_SIGNED_CHAR, K_INT, 1, 8, MPI_MAX, 1),
        SH(MPI_SIGNED_CHAR, K_INT, 1, 8, MPI_SUM, 7),
        SH(MPI_UNSIGNED_CHAR, K_UINT, 1, 8, MPI_BXOR, 8),
        SH(MPI_UNSIGNED_SHORT, K_UINT, 2, 16, MPI_BOR, 3),
        SH(MPI_SHORT, K_INT, 2, 16, MPI_PROD, 4),
        SH(MPI_UINT32_T, K_UINT, 4, 32, MPI_BAND, 1),
        SH(MPI_LONG_LONG, K_INT, 8, 64, MPI_SUM, 1),
        SH(MPI_C_BOOL, K_BOOL, 1, 64, MPI_LXOR, 5),
        SH(MPI_INT, K_BOOL, 4, 64, MPI_LAND, 2),
        SH(MPI_INT, K_BOOL, 4, 64, MPI_LOR, 1),
        SH(MPI_FLOAT_INT, K_PAIR_FI, 8, 64, MPI_MINLOC, 1),
        SH(MPI_2INT, K_PAIR_II, 8, 64, MPI_MAXLOC, 1),
        SH(MPI_SHORT_INT, K_PAIR_SI, 8, 64, MPI_MINLOC, 1),   /* 6 data bytes, 8 of extent */
    };
#undef SH
    const int nshapes = (int)(sizeof shapes / sizeof shapes[0]);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);

    for (int c = 0; c < CALLS; c++) {
        for (int k = 0; k < nshapes; k++)
            one_allreduce(&shapes[(k + c) % nshapes], c, c % 4 == 3 ? dup : MPI_COMM_WORLD);
        if (c % 5 == 0)
            MPI_Barrier(c % 10 == 0 ? dup : MPI_COMM_WORLD);
    }

    /* Learnt shapes called wrongly: the checks the shortcut leaves to the long way. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int two[2] = { 1, 2 };
    expect_error(MPI_Allreduce(two, two, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER,
                 "allreduce with aliased buffers");
    unsigned char b8[8] = { 0 }, r8[8];
    expect_error(MPI_Allreduce(b8, r8, 8, MPI_BYTE, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP, "MPI_SUM on MPI_BYTE");
    expect_error(MPI_Allreduce(two, NULL, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER,
                 "allreduce into NULL");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    /* The shapes still work after the errors (nothing half-done on the line). */
    for (int k = 0; k < nshapes; k++)
        one_allreduce(&shapes[k], CALLS + k, MPI_COMM_WORLD);

    for (int napper = 0; napper < size && napper < 2; napper++) {
        held_barrier(MPI_COMM_WORLD, napper);
        held_barrier(dup, napper);
    }

    MPI_Comm_free(&dup);
    return test_end("shortcut", bad);
}
