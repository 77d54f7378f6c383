/*
 * coll_fuzz.h -- the randomized differential collective test (docs/testing-fuzz.md).
 *
 * Pieces, one job per file:
 *   coll_fuzz_types.c  datatypes as "units" (the predefined values inside an
 *                      element), the ops (two of them user ops), value ranges
 *   coll_fuzz_gen.c    the seeded generator: a case is a short list of steps
 *                      (one collective shape, repeated, lagged, blocking or not)
 *   coll_fuzz_ref.c    per call: send buffers and the expected receive image,
 *                      computed locally from (seed, case, step, iteration, rank)
 *   coll_fuzz_call.c   the MPI calls themselves (blocking and nonblocking)
 *   coll_fuzz_check.c  comparing a receive buffer with its image, the report
 *   coll_fuzz_main.c   communicators, the time budget, the loop over cases
 *
 * Invariant that makes the test possible: every rank derives the same cases
 * from (seed, case number) with the same RNG stream, and every value any rank
 * sends is a function of (seed, case, step, iteration, communicator, source,
 * destination, unit index), so each rank can compute what it must receive.
 */
#ifndef COLL_FUZZ_H
#define COLL_FUZZ_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* ---- random numbers: splitmix64, identical on every rank ---- */
static inline uint64_t fz_mix(uint64_t x)
{
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}
static inline uint64_t fz_hash2(uint64_t a, uint64_t b) { return fz_mix(a * 0x9e3779b97f4a7c15ULL + fz_mix(b + 1)); }
struct fz_rng {
    uint64_t s;
};
static inline uint64_t fz_next(struct fz_rng *r) { return fz_mix(r->s += 0x9e3779b97f4a7c15ULL); }
/* Uniform in [0, n) (n > 0; the modulo bias is irrelevant here). */
static inline int fz_below(struct fz_rng *r, int n) { return (int)(fz_next(r) % (uint64_t)n); }
static inline int fz_chance(struct fz_rng *r, int percent) { return fz_below(r, 100) < percent; }

/* ---- datatypes ---- */
enum fz_base { FZ_B_INT, FZ_B_UNSIGNED, FZ_B_LLONG, FZ_B_SHORT, FZ_B_UCHAR, FZ_B_DOUBLE, FZ_B_FLOAT };

/* Signature groups: types of one group can be paired on the two sides of a
 * call (same sequence of basic types once the counts are scaled). */
enum fz_group { FZ_G_INT, FZ_G_DINT, FZ_G_OTHER };

#define FZ_MAXK 4
/* A datatype as the test sees it: k units (values of a predefined type) at
 * byte offsets off[] inside an element of `extent` bytes (lower bound 0);
 * every other byte of the element is a hole the library must not write. */
struct fz_type {
    const char *name;
    MPI_Datatype dt;
    int k;
    unsigned char base[FZ_MAXK];
    MPI_Aint off[FZ_MAXK];
    MPI_Aint extent;
    int group;
};

enum {
    T_INT, T_UNSIGNED, T_LLONG, T_SHORT, T_UCHAR, T_DOUBLE, T_FLOAT, T_2INT, T_DOUBLE_INT,
    T_PAIR,    /* contiguous(2, int) */
    T_VEC,     /* vector(2, 1, 3, int): holes between the two ints */
    T_CPAIR,   /* contiguous(2, resized(pair, 0, 12)): a contiguous of a holed pair */
    T_RINT,    /* resized(int, 0, 8): a hole after each int */
    T_DSTRUCT, /* struct {double @0; int @12}, extent 24: MPI_DOUBLE_INT's signature, other holes */
    FZ_NTYPES
};
extern struct fz_type fz_types[FZ_NTYPES];
void fz_types_init(void);
void fz_types_free(void);

/* Write / read unit u (0-based over the whole buffer) of a buffer of type t. */
void fz_put_unit(void *buf, const struct fz_type *t, long u, int64_t v);
int64_t fz_get_unit(const void *buf, const struct fz_type *t, long u);
/* Units per element are 1, 2 or 4: one divides the other. */
static inline int fz_lcm(int a, int b) { return a > b ? a : b; }
static inline size_t fz_unit_size(int base)
{
    static const unsigned char sz[] = {4, 4, 8, 2, 1, 8, 4};
    return sz[base];
}

/* ---- reduction operations ---- */
enum { OP_SUM, OP_PROD, OP_MAX, OP_MIN, OP_BAND, OP_BOR, OP_BXOR, OP_LAND, OP_LOR, OP_MAXLOC, OP_MINLOC,
       OP_AFFINE, /* user op, not commutative: composition of x -> a*x + b on unit pairs */
       OP_USUM,   /* user op, commutative: wrapping sum of ints */
       FZ_NOPS };
struct fz_opdef {
    const char *name;
    MPI_Op op;
    int pairwise; /* combines units two by two (maxloc, minloc, affine) */
};
extern struct fz_opdef fz_ops[FZ_NOPS];
int fz_op_fits(int op, int type);
/* The value of unit u of an element for a reduction under op (or op < 0: data movement). */
int64_t fz_range(int op, int base, int unit_in_pair, uint64_t h);
/* acc = a op b on one unit (ops that are not pairwise). */
int64_t fz_op_unit(int op, int base, int64_t a, int64_t b);
/* (a0,a1) op (b0,b1) -> (r0,r1), in rank order a before b. */
void fz_op_pair(int op, const int64_t a[2], const int64_t b[2], int64_t r[2]);

/* ---- collectives and generated steps ---- */
enum fz_coll {
    C_BARRIER, C_BCAST, C_REDUCE, C_ALLREDUCE, C_GATHER, C_GATHERV, C_SCATTER, C_SCATTERV, C_ALLGATHER,
    C_ALLGATHERV, C_ALLTOALL, C_ALLTOALLV, C_ALLTOALLW, C_REDUCE_SCATTER, C_REDUCE_SCATTER_BLOCK, C_SCAN,
    C_EXSCAN, FZ_NCOLLS
};
extern const char *const fz_coll_name[FZ_NCOLLS];
int fz_coll_has_nb(int coll);   /* corempi has the I-form */
int fz_coll_rooted(int coll);
int fz_coll_reduces(int coll);
int fz_coll_in_place_ok(int coll);

enum { CM_WORLD, CM_DUP, CM_SPLIT2, CM_SPLIT3, CM_GROUP, CM_DUPSPLIT, FZ_NCOMMS };
extern const char *const fz_comm_name[FZ_NCOMMS];

/* One collective shape.  Ranks, roots and laggers are stored unreduced and
 * taken modulo the size of the communicator piece the rank is in (splits
 * have pieces of different sizes running the same step). */
struct fz_op {
    int coll, comm, nb, in_place;
    int root;
    int root_not_lagger; /* move the root off lag_rank[0] (the "late root, then another root" pattern) */
    int stype, rtype, op;
    int m;             /* units per block (data movement) or elements (reductions) */
    int zero_rank;     /* v-forms: this rank's count is zero (-1: none) */
    int lag_rank[2], lag_us[2];
    int lag_every;     /* in a loop, lag again on iterations it % lag_every == 0 (0: first only) */
    uint64_t key;      /* per-step key: counts, per-pair types, values */
};

#define FZ_MAXSTEPS 6
enum { K_SINGLE, K_LOOP, K_BATCH, K_ROOTED_LAG };
extern const char *const fz_kind_name[];
struct fz_step {
    struct fz_op op;
    int repeat;
};
struct fz_case {
    int kind, nsteps;
    struct fz_step steps[FZ_MAXSTEPS];
    int window;    /* nonblocking calls in flight before they are completed */
    int wait_mode; /* 0 Waitall, 1 Wait in reverse order, 2 Testall loop */
};
void fz_gen_case(uint64_t seed, long case_no, struct fz_case *c);
/* One line describing an op (for reports). */
int fz_describe(const struct fz_op *o, char *buf, size_t len);

/* ---- one call: buffers, image, request ---- */
struct fz_inst {
    const struct fz_op *op;
    MPI_Comm comm;
    int comm_id, n, me, root, iter;
    uint64_t key; /* values of this iteration */
    void *sbuf, *scopy, *rbuf, *want; /* scopy: sbuf as it was before the call */
    size_t rbytes;       /* bytes of rbuf compared with want (0: nothing to check) */
    size_t sbytes;
    int *scounts, *sdispls, *rcounts, *rdispls;
    MPI_Datatype *stypes, *rtypes;
    long *blk_off; /* byte offset in rbuf where the block of rank r starts (-1 none), for reports */
    int ip; /* this rank passes MPI_IN_PLACE */
    int scount, rcount;
    MPI_Datatype sdt, rdt;
    int rep_type; /* the fz_types index that lays out rbuf (-1: per block, alltoallw) */
    MPI_Request req;
    int persistent; /* nonblocking op issued as MPI_<coll>_init + MPI_Start (fz_call) */
    double t_enter;
};
/* Reference: fill inst's buffers and expected image.  0, or -1 when out of memory. */
int fz_prepare(struct fz_inst *in);
void fz_release(struct fz_inst *in);
/* Issue the call (I-form when op->nb, or for one nonblocking instance in
 * three, chosen from its key alike on every rank, the persistent form started
 * once: in->persistent, and the request must be freed after completion);
 * returns the MPI return code. */
int fz_call(struct fz_inst *in);

/* ---- checks and reports ---- */
struct fz_ctx {
    uint64_t seed;
    long case_no;
    int step, world_rank, world_size;
    long errors;
};
extern struct fz_ctx fz_ctx;
/* Compare after completion; returns the number of problems found (reported). */
int fz_check(struct fz_inst *in);
void fz_report(const struct fz_inst *in, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A value a rank contributes: unit u of the block from src to dst. */
int64_t fz_value(const struct fz_inst *in, int type, int src, int dst, long u);

#endif
