/*
 * coll.h -- the point-to-point based collectives: algorithm signatures, the
 * registry, and the helpers every algorithm shares.
 *
 * Algorithms are portable MPI code: they send and receive through
 * cm_coll_send, cm_coll_recv, ... (coll/p2p.h: corempi's internal p2p entry,
 * or PMPI_ over another MPI) and call PMPI_ functions for the rest, on a
 * communicator that the front end guarantees is private to collectives
 * (cm_coll_comm), so the same files build and run under Open MPI (tests/coll
 * harness) and under corempi.
 *
 * Conventions every algorithm follows:
 *  - `comm` is the collective communicator; tags come from enum cm_coll_tag.
 *  - MPI_IN_PLACE has been resolved by the front end for the reductions:
 *    sbuf == rbuf means "the input is already in rbuf" (algorithms must cope
 *    with that aliasing).  The gather family still sees MPI_IN_PLACE.
 *  - Reductions combine in rank order unless the algorithm's applies_to says
 *    it needs a commutative op.  PMPI_Reduce_local(a, b) computes b = a op b,
 *    so "a" is always the lower-ranked operand.
 */
#ifndef CM_COLL_COLL_H
#define CM_COLL_COLL_H

#include <stddef.h>
#include <mpi.h>
#include <stdlib.h>
#include "coll/p2p.h"

#ifdef CM_IN_COREMPI
#include "core/comm.h"
#include "core/error.h"
#include "core/request.h"
#include "p2p/request_wait.h"
#include "core/state.h"
#else
/* Provided by the test harness when the algorithms run over another MPI. */
MPI_Comm cm_coll_comm(MPI_Comm comm);
int cm_error(MPI_Comm comm, int errclass, const char *call, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
MPI_Request cm_request_generic(int (*poll)(void *state), void (*destroy)(void *state), void *state);
/* COREMPI_* settings, as core/config.h reads them (the harness reads the
 * environment at each call). */
size_t cm_env_size(const char *name, size_t def);
#define cm_config_size(name, def) cm_env_size(#name, def)
const char *cm_config_named(const char *name);
unsigned cm_config_verbose(void);
#define CM_VERBOSE_COLL 0x2u
void cm_env_warn(const char *name, const char *value, const char *why, ...) __attribute__((format(printf, 3, 4)));
/* Per-thread state of the algorithms (core/thread.h inside corempi). */
#define CM_THREAD_LOCAL __thread
#endif

/* ---- glue: one implementation in glue.c (corempi), one in the harness -- */

/* 0 when comm is a valid intracommunicator (then *size and *rank are set). */
int cm_coll_comm_check(MPI_Comm comm, int *size, int *rank);
/* 0 when dt is a usable (committed) datatype. */
int cm_coll_dtype_check(MPI_Datatype dt);
/* 0 when op is a valid reduction operation. */
int cm_coll_op_check(MPI_Op op);
/* 1 when the job has more ranks than cores (algorithms that pipeline many
 * small messages lose there: every message can cost a context switch). */
int cm_coll_oversubscribed(void);
/* Next sequence number of nonblocking collectives on this (collective) communicator:
 * all ranks call it in the same order, so they agree on it. */
unsigned cm_coll_nbc_seq(MPI_Comm collcomm);

/* ---- tags: one per collective so that traces read well ---------------- */
enum cm_coll_tag {
    CM_TAG_BARRIER = 1, CM_TAG_BCAST, CM_TAG_REDUCE, CM_TAG_ALLREDUCE,
    CM_TAG_ALLREDUCE_BARRIER, CM_TAG_GATHER, CM_TAG_GATHERV, CM_TAG_SCATTER,
    CM_TAG_SCATTERV, CM_TAG_ALLGATHER, CM_TAG_ALLGATHERV, CM_TAG_ALLTOALL,
    CM_TAG_ALLTOALLV, CM_TAG_ALLTOALLW, CM_TAG_REDUCE_SCATTER,
    CM_TAG_REDUCE_SCATTER_BLOCK, CM_TAG_SCAN, CM_TAG_EXSCAN, CM_TAG_COPY, CM_TAG_CHECK,
    CM_TAG_AREA,             /* the shared-memory area's set-up (coll/direct/area.c): never a
                              * collective's data, so a rank still setting up cannot take an
                              * algorithm's message for it, nor the other way round */
    CM_TAG_NBC_BASE = 1024   /* nonblocking: base + (sequence % CM_NBC_TAGS) */
};
#define CM_NBC_TAGS 4096   /* 1024 + 4096 fit the 13 base bits (p2p/coll_entry.h) */
#ifdef CM_IN_COREMPI
_Static_assert(CM_TAG_CHECK == CM_COLL_TAG_PLAIN, "coll/p2p.h: the tags below CM_TAG_CHECK carry the argument word");
_Static_assert(CM_TAG_NBC_BASE + CM_NBC_TAGS <= CM_P2P_TAG_BASE_MASK + 1, "p2p/coll_entry.h: tags fit the base bits");
_Static_assert(CM_TAG_NBC_BASE == CM_P2P_TAG_NBC_FIRST, "p2p/coll_entry.h: the schedules' tags are told apart");
#endif

/* ---- algorithm signatures (comm is the collective communicator) ------- */
/* cm_<coll>_sig is the function type every algorithm of <coll> has
 * (algorithms.def declares them with it); cm_<coll>_fn points to one. */
typedef int cm_barrier_sig(MPI_Comm comm);
typedef cm_barrier_sig *cm_barrier_fn;
typedef int cm_bcast_sig(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm);
typedef cm_bcast_sig *cm_bcast_fn;
typedef int cm_reduce_sig(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                          MPI_Op op, int root, MPI_Comm comm);
typedef cm_reduce_sig *cm_reduce_fn;
typedef int cm_allreduce_sig(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                             MPI_Op op, MPI_Comm comm);
typedef cm_allreduce_sig *cm_allreduce_fn;
typedef int cm_allgather_sig(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                             int rcount, MPI_Datatype rtype, MPI_Comm comm);
typedef cm_allgather_sig *cm_allgather_fn;
typedef int cm_allgatherv_sig(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                              const int *rcounts, const int *displs, MPI_Datatype rtype, MPI_Comm comm);
typedef cm_allgatherv_sig *cm_allgatherv_fn;
typedef int cm_gather_sig(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                          MPI_Datatype rtype, int root, MPI_Comm comm);
typedef cm_gather_sig *cm_gather_fn;
typedef int cm_gatherv_sig(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                           const int *rcounts, const int *displs, MPI_Datatype rtype, int root, MPI_Comm comm);
typedef cm_gatherv_sig *cm_gatherv_fn;
typedef int cm_scatter_sig(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                           MPI_Datatype rtype, int root, MPI_Comm comm);
typedef cm_scatter_sig *cm_scatter_fn;
typedef int cm_scatterv_sig(const void *sbuf, const int *scounts, const int *displs, MPI_Datatype stype,
                            void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm);
typedef cm_scatterv_sig *cm_scatterv_fn;
typedef int cm_alltoall_sig(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                            MPI_Datatype rtype, MPI_Comm comm);
typedef cm_alltoall_sig *cm_alltoall_fn;
typedef int cm_alltoallv_sig(const void *sbuf, const int *scounts, const int *sdispls, MPI_Datatype stype,
                             void *rbuf, const int *rcounts, const int *rdispls, MPI_Datatype rtype,
                             MPI_Comm comm);
typedef cm_alltoallv_sig *cm_alltoallv_fn;
typedef int cm_alltoallw_sig(const void *sbuf, const int *scounts, const int *sdispls,
                             const MPI_Datatype *stypes, void *rbuf, const int *rcounts,
                             const int *rdispls, const MPI_Datatype *rtypes, MPI_Comm comm);
typedef cm_alltoallw_sig *cm_alltoallw_fn;
typedef int cm_reduce_scatter_sig(const void *sbuf, void *rbuf, const int *rcounts, MPI_Datatype dt,
                                  MPI_Op op, MPI_Comm comm);
typedef cm_reduce_scatter_sig *cm_reduce_scatter_fn;
typedef int cm_reduce_scatter_block_sig(const void *sbuf, void *rbuf, int rcount, MPI_Datatype dt,
                                        MPI_Op op, MPI_Comm comm);
typedef cm_reduce_scatter_block_sig *cm_reduce_scatter_block_fn;
typedef int cm_scan_sig(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                        MPI_Comm comm);
typedef cm_scan_sig *cm_scan_fn;
typedef cm_scan_sig cm_exscan_sig;
typedef cm_exscan_sig *cm_exscan_fn;

/* ---- the registry ------------------------------------------------------ */
/* Collectives and algorithms come from algorithms.def. */
enum cm_coll_id {
#define CM_COLL(coll, COLL) CM_COLL_##COLL,
#include "coll/algorithms.def"
    CM_COLL_NUM
};

/* What an algorithm's applies_to may look at. */
struct cm_coll_query {
    int size;          /* communicator size */
    int count;
    size_t bytes;      /* count * type size (per rank block for allgather) */
    int commutative;   /* 1 unless a user op said otherwise */
    int contiguous;    /* datatype has no holes (size == extent == true extent) */
};

struct cm_coll_algo {
    const char *name;  /* as in COREMPI_<COLL>=name */
    void (*fn)(void);  /* cast to the collective's signature */
    int (*applies_to)(const struct cm_coll_query *q); /* NULL: always */
};

/* Choose the algorithm for one call (tuning table, or COREMPI_<COLL>). */
const struct cm_coll_algo *cm_coll_select(enum cm_coll_id coll, MPI_Comm comm,
                                          const struct cm_coll_query *q);
/* Every row of algorithms.def by its collective and name: CM_ROW_<coll>_<name>
 * is its position in the registry, and a collective's CM_FIRST_<coll> that of
 * its first row (its marker CM_MARK_<coll> takes the next row's number). */
enum cm_coll_row {
#define CM_COLL(coll, COLL) CM_FIRST_##coll, CM_MARK_##coll = CM_FIRST_##coll - 1,
#define CM_ALGO(coll, name, function, applies_to) CM_ROW_##coll##_##name,
#include "coll/algorithms.def"
    CM_ROWS
};
/* The registry's row (never NULL: the enum holds only registered rows). */
const struct cm_coll_algo *cm_coll_row(enum cm_coll_row row);
/* Row name of collective coll, as its algorithm type: how an algorithm that
 * hands a call to another one reaches it (the shared-memory rows' way back to
 * point to point when they have no area), through the registry instead of by
 * the function's name. */
#define CM_COLL_VIA(coll, name) ((cm_##coll##_fn)cm_coll_row(CM_ROW_##coll##_##name)->fn)
/* ---- shortcuts (algorithms.def, CM_SHORTCUT; corempi only) ------------- */
#define CM_COLL_NO_SHORTCUT (-1)   /* a shortcut does not take the call: the long way */
typedef int cm_coll_shortcut_applies(MPI_Comm cc, const struct cm_coll_query *q);
#define CM_SHORTCUT(coll, name, function, applies_to) cm_##coll##_sig function; cm_coll_shortcut_applies applies_to;
#include "coll/algorithms.def"
enum {
#define CM_COLL(coll, COLL) CM_COLL_ID_##coll = CM_COLL_##COLL,
#include "coll/algorithms.def"
    /* Bit c: collective c has a shortcut. */
    CM_COLL_SHORTCUT_MASK = 0
#define CM_SHORTCUT(coll, name, function, applies_to) | 1 << CM_COLL_ID_##coll
#include "coll/algorithms.def"
};
/* 1 when coll has a shortcut: a constant for a constant coll, so that a front
 * end's shortcut code costs nothing where there is none. */
static inline int cm_coll_has_shortcut(enum cm_coll_id coll) { return (CM_COLL_SHORTCUT_MASK >> coll) & 1; }
/* The selector's shortcut per collective (its CM_SHORTCUT function; NULL
 * where there is none): what a front end calls before its checks, which
 * goes the long way unless the call's communicator took the call's shape
 * (the eligibility, below).  Hidden: one load, no GOT. */
extern void (*const cm_coll_shortcuts[CM_COLL_NUM])(void) __attribute__((visibility("hidden")));
static inline void (*cm_coll_shortcut(enum cm_coll_id coll))(void) { return cm_coll_shortcuts[coll]; }
/* After the front end ran row a for coll on collective communicator cc with
 * query q, successfully: when a is a shared-memory row, offer the shape to
 * the shortcut's eligibility (select.c). */
void cm_coll_shortcut_offer(enum cm_coll_id coll, MPI_Comm cc, const struct cm_coll_query *q,
                            const struct cm_coll_algo *a);
static inline int cm_coll_ran(enum cm_coll_id coll, MPI_Comm cc, const struct cm_coll_query *q,
                              const struct cm_coll_algo *a, int rc)
{
    if (cm_coll_has_shortcut(coll) && rc == MPI_SUCCESS)
        cm_coll_shortcut_offer(coll, cc, q, a);
    return rc;
}

/* Look an algorithm up by name (NULL if unknown). */
const struct cm_coll_algo *cm_coll_find(enum cm_coll_id coll, const char *name);
/* The algorithm the selector chose last for coll, as its position in
 * cm_coll_list(coll) (MPI_T's state variables), or -1 before the first call.
 * It reads the one-entry cache the selector keeps anyway: no cost per call. */
int cm_coll_last_algo(enum cm_coll_id coll);
/* The algorithms of one collective (for tests and benchmarks). */
const struct cm_coll_algo *cm_coll_list(enum cm_coll_id coll, int *n);
/* Ranks per group of the hybrid algorithms: the machine's top level (coll/hier.c)
 * when it splits the communicator evenly, else a quarter of the ranks (>= 2). */
int cm_coll_level_size(MPI_Comm comm, int comm_size);

/* ---- algorithms: declared from algorithms.def ---------------------------- */
#define CM_ALGO(coll, name, function, applies_to) cm_##coll##_sig function;
#include "coll/algorithms.def"

/* Tuned allreduce of total elements, keeping [off, off + count) in rbuf. */
int cm_coll_allreduce_part(const void *sbuf, void *rbuf, int total, int off, int count, MPI_Datatype dt, MPI_Op op,
                           MPI_Comm comm);
/* scan and exscan share one recursive doubling (exclusive: rank 0 gets nothing). */
int cm_coll_scan_common(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                        MPI_Comm comm, int exclusive, int tag);

/* ---- building blocks shared by several algorithms (util.c, parts.c) ---- */

struct cm_dt {
    MPI_Aint lb, extent, true_lb, true_extent;
    int size;
};
void cm_coll_dt(MPI_Datatype dt, struct cm_dt *d);
/* A scratch buffer able to hold count elements of dt laid out as in a user
 * buffer.  Returns the address to pass as buf (may differ from the malloc'd
 * block, see *block; scratch.c); NULL on out of memory (count 0 gives a valid pointer). */
void *cm_coll_tmp(MPI_Datatype dt, int count, void **block);
/* The same, but in room (room_bytes, 16-byte aligned: the caller's stack)
 * when it fits, leaving *block NULL: tiny collectives called in a loop then
 * pay no malloc/free pair per call. */
void *cm_coll_tmp_in(MPI_Datatype dt, int count, void *room, size_t room_bytes, void **block);
/* Give back a block from cm_coll_tmp or cm_coll_tmp_in (NULL is ignored). */
void cm_coll_tmp_free(void *block);
/* Address of element i of a buffer of dt. */
static inline void *cm_coll_at(const void *buf, MPI_Aint i, const struct cm_dt *d)
{
    return (char *)buf + i * d->extent;
}
/* The blocks of a rooted collective's buffer, one per rank: uniform
 * (counts NULL: count elements each, rank i's at i * count) or as the v
 * forms give them (counts[i] at displs[i]). */
struct cm_coll_blocks {
    int count;
    const int *counts, *displs;
};
static inline int cm_coll_block_count(const struct cm_coll_blocks *b, int i)
{
    return b->counts ? b->counts[i] : b->count;
}
static inline MPI_Aint cm_coll_block_at(const struct cm_coll_blocks *b, int i)
{
    return b->counts ? b->displs[i] : (MPI_Aint)i * b->count;
}
/* Elements in the next segment of at most seg_bytes (at least one) that
 * starts at element off of count. */
static inline int cm_coll_segment(const struct cm_dt *d, size_t seg_bytes, int off, int count)
{
    int seg = (int)(seg_bytes / (size_t)d->extent);
    if (seg < 1)
        seg = 1;
    return count - off < seg ? count - off : seg;
}
/* The selection query for count elements of dt on a communicator of size. */
static inline struct cm_coll_query cm_coll_query_of(int size, int count, MPI_Datatype dt, int commutative)
{
    struct cm_dt d;
    cm_coll_dt(dt, &d);
    struct cm_coll_query q = { size, count, (size_t)count * (size_t)d.size, commutative,
                               d.size == d.extent && d.size == d.true_extent };
    return q;
}
/* Communicators up to this size keep a linear algorithm's requests on the
 * stack (a malloc per call was a fifth of a tiny 2-rank call): few is the
 * caller's array of CM_COLL_FEW_REQS, NULL returned when out of memory. */
#define CM_COLL_FEW_REQS 64
static inline MPI_Request *cm_coll_reqs(MPI_Request *few, int n)
{
    return n <= CM_COLL_FEW_REQS ? few : (MPI_Request *)malloc(sizeof(MPI_Request) * (size_t)n);
}
static inline void cm_coll_reqs_free(MPI_Request *req, const MPI_Request *few)
{
    if (req != few)
        free(req);
}
/* Local copy between typed buffers with the same type signature. */
int cm_coll_copy(const void *src, int scount, MPI_Datatype stype, void *dst, int rcount,
                 MPI_Datatype rtype, MPI_Comm comm);
int cm_coll_is_commutative(MPI_Op op);
static inline int cm_pof2_floor(int n) { int p = 1; while (p * 2 <= n) p *= 2; return p; }
static inline int cm_pof2_ceil(int n) { int p = 1; while (p < n) p *= 2; return p; }
static inline int cm_log2_ceil(int n) { int l = 0; while ((1 << l) < n) l++; return l; }

/* Member sets: an algorithm can run over part of a communicator, "n members
 * with member i at rank first + ((i + rot) mod span) * stride" (hybrid
 * algorithms use groups of consecutive ranks and strided sets of group
 * leaders; rot/span let a subtree start anywhere in a ring; span 0: no wrap). */
struct cm_members { int first, stride, n, rot, span; };
static inline int cm_member_rank(const struct cm_members *m, int i)
{
    int j = i + m->rot;
    if (m->span > 0)
        j %= m->span;
    return m->first + j * m->stride;
}

/* Binomial broadcast of buf from member root_idx to all members. */
int cm_part_bcast_binomial(void *buf, int count, MPI_Datatype dt, const struct cm_members *m,
                           int my_idx, int root_idx, int tag, MPI_Comm comm);
/* Rank-ordered binomial reduce of acc (count elements) to member 0; tmp has room
 * for count elements.  On member 0 the result ends in *result (acc or tmp). */
int cm_part_reduce_binomial(void *acc, void *tmp, void **result, int count, MPI_Datatype dt,
                            MPI_Op op, const struct cm_members *m, int my_idx, int tag, MPI_Comm comm);
/* Rank-ordered recursive doubling allreduce of buf among the members (any n). */
int cm_part_allreduce_rdb(void *buf, void *tmp, int count, MPI_Datatype dt, MPI_Op op,
                          const struct cm_members *m, int my_idx, int tag, MPI_Comm comm,
                          int barrier_every);
/* All-gather of "units" by recursive doubling among members: member i owns
 * blocks [i*g, min((i+1)*g, nblocks)) of rbuf (block = bcount elements of dt). */
int cm_part_allgather_rdb(void *rbuf, int bcount, MPI_Datatype dt, int nblocks, int g,
                          const struct cm_members *m, int my_idx, int tag, MPI_Comm comm);
/* Binomial gather of blocks to member 0 in a group of consecutive ranks where
 * member i owns block first_block + i. */
int cm_part_gather_binomial_blocks(void *rbuf, int bcount, MPI_Datatype dt, int first_block,
                                   const struct cm_members *m, int my_idx, int tag, MPI_Comm comm);

/* Reduce-scatter by recursive halving over a range of elements (rsag.c). */
struct cm_rsag {
    int pof2, rem, newrank;    /* participants after folding the non-power-of-two rest */
    int nsteps;
    int lo[32], hi[32];        /* my element range before step s (lo[nsteps]: final) */
    int mask[32];              /* partner distance at step s */
};
/* Fold, then halve: on return (for newrank >= 0) rbuf[lo[nsteps], hi[nsteps]) holds
 * the full reduction of that range.  increasing: masks 1,2,4.. (rank ordered);
 * else pof2/2 .. 1 (commutative only). */
int cm_rsag_reduce_scatter(void *rbuf, void *tmp, int count, MPI_Datatype dt, MPI_Op op,
                           int increasing, struct cm_rsag *st, int tag, MPI_Comm comm);
/* Actual rank of a participant's newrank. */
int cm_rsag_rank(const struct cm_rsag *st, int newrank);

#endif
