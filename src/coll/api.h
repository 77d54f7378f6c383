/*
 * api.h -- argument checks shared by the collectives' impls (api_*.c, the
 * bodies their generated front ends call).
 *
 * Each check returns 0, or raises the error through the communicator's error
 * handler (cm_error) and returns the error class for the front end to return.
 */
#ifndef CM_COLL_API_H
#define CM_COLL_API_H

#include "coll/coll.h"

#ifdef CM_IN_COREMPI
#include "core/state.h"
#include "coll/p2p.h"
#include "p2p/p2p.h"
/* The first line of a collective's impl (cm_<Name>, which its generated
 * front end calls after recording the call): count it as the outer call
 * (core/state.h, CM_OUTER), set the flags of its point-to-point messages
 * (coll/p2p.h), both undone on every return, and refuse calls outside
 * Init..Finalize.  Here and not in the front end, so that the front end is
 * the generic one, which tail-calls its impl: no frame of its own on the
 * path of a tiny collective. */
#define API_ENTER(name)                                                   \
    CM_OUTER();                                                           \
    unsigned api_p2p_prev_ __attribute__((cleanup(cm_coll_p2p_leave), unused)) = \
        cm_coll_p2p_enter(CM_CALL_##name);                                \
    do {                                                                  \
        int api_init_rc_ = cm_check_initialized("MPI_" #name);            \
        if (api_init_rc_)                                                 \
            return api_init_rc_;                                          \
    } while (0)
#else
#define API_ENTER(name) do { } while (0)
#endif

#ifdef CM_IN_COREMPI
/* corempi's front ends read the objects directly: a tiny collective's checks
 * were a fifth of its instructions as calls through the glue. */
#include "core/comm.h"
#include "core/datatype.h"
#include "core/dt_basic.h"
#include "core/op.h"
#include "coll/direct/direct.h"
#include "coll/check.h"

/* COREMPI_CHECK=1: compare every rank's arguments before anything moves. */
#define API_CHECK(comm, call, ...)                                                        \
    do {                                                                                  \
        if (__builtin_expect(cm_g.coll_check, 0)) {                                       \
            struct cm_check_call api_cc_ = { __VA_ARGS__ };                                \
            int api_check_rc_ = cm_coll_check(comm, call, &api_cc_);                       \
            if (api_check_rc_)                                                            \
                return api_check_rc_;                                                     \
        }                                                                                 \
    } while (0)

/* A collective with a shortcut (algorithms.def, CM_SHORTCUT) tries the
 * selector's (cm_coll_shortcut) first, with the user's arguments; it returns
 * CM_COLL_NO_SHORTCUT when the call must go the long way.  Nothing for a
 * collective without one. */
#define API_SHORTCUT(coll, fn_type, args)                                 \
    do {                                                                  \
        int api_sc_rc_;                                                   \
        if (cm_coll_has_shortcut(coll) &&                                 \
            (api_sc_rc_ = ((fn_type)cm_coll_shortcut(coll))args) != CM_COLL_NO_SHORTCUT) \
            return api_sc_rc_;                                            \
    } while (0)

#include "coll/inter/inter.h"
/* An intercommunicator goes to its own front end (coll/inter/), before any
 * check or selection of the intracommunicator path.  A blocking call runs
 * as its nonblocking form's schedule, waited for (cm_inter_blocking_begin),
 * so its messages carry the call's word as those do. */
#define API_INTER(comm, expr)                                                      \
    do {                                                                           \
        struct cm_comm *api_ic_ = cm_comm_lookup(comm, NULL);                      \
        if (__builtin_expect(api_ic_ && api_ic_->remote_size, 0))                  \
            return cm_inter_blocking_end(comm, (cm_inter_blocking_begin(), (expr))); \
    } while (0)

static inline int api_comm(MPI_Comm comm, const char *call, int *size, int *rank)
{
    struct cm_comm *c = comm == MPI_COMM_NULL ? NULL : cm_comm_lookup(comm, NULL);
    if (!c) {
        *size = *rank = 0;
        return cm_error(comm, MPI_ERR_COMM, call, "invalid communicator");
    }
    *size = c->size;
    *rank = c->rank;
    return 0;
}

static inline int api_dtype_bad(MPI_Datatype dt)
{
    const struct cm_datatype *t = cm_dt_lookup(dt);
    return !(t && (t->predefined || t->committed));
}

static inline int api_op_bad(MPI_Op op) { return !cm_op_is_predefined(op) && !cm_op_is_valid(op); }

static inline int api_commutative(MPI_Op op) { return cm_op_is_predefined(op) || cm_op_is_commutative(op); }
#else
#define API_CHECK(comm, call, ...) do { } while (0)
#define API_INTER(comm, expr) do { } while (0)
#define API_SHORTCUT(coll, fn_type, args) do { } while (0)
static inline int api_comm(MPI_Comm comm, const char *call, int *size, int *rank)
{
    if (cm_coll_comm_check(comm, size, rank))
        return cm_error(comm, MPI_ERR_COMM, call, "invalid communicator");
    return 0;
}

static inline int api_dtype_bad(MPI_Datatype dt) { return cm_coll_dtype_check(dt); }
static inline int api_op_bad(MPI_Op op) { return cm_coll_op_check(op); }
static inline int api_commutative(MPI_Op op) { return cm_coll_is_commutative(op); }
#endif

static inline int api_root(MPI_Comm comm, const char *call, int root, int size)
{
    if (root < 0 || root >= size)
        return cm_error(comm, MPI_ERR_ROOT, call, "invalid root %d (communicator size %d)", root, size);
    return 0;
}

static inline int api_count(MPI_Comm comm, const char *call, int count, const char *what)
{
    if (count < 0)
        return cm_error(comm, MPI_ERR_COUNT, call, "negative %s %d", what, count);
    return 0;
}

static inline int api_type(MPI_Comm comm, const char *call, MPI_Datatype dt, const char *what)
{
    if (dt == MPI_DATATYPE_NULL || api_dtype_bad(dt))
        return cm_error(comm, MPI_ERR_TYPE, call, "invalid or uncommitted %s", what);
    return 0;
}

/* op valid, and (a predefined op) defined on dt's basic type: MPI_SUM on
 * MPI_BYTE failed only on the rank that happened to fold, while the others
 * returned success with a result they never got. */
static inline int api_op(MPI_Comm comm, const char *call, MPI_Op op, MPI_Datatype dt)
{
    if (op == MPI_OP_NULL || api_op_bad(op))
        return cm_error(comm, MPI_ERR_OP, call, "invalid reduction operation");
#ifdef CM_IN_COREMPI
    if (cm_op_is_predefined(op)) {
        const struct cm_datatype *t = cm_dt_lookup(dt);
        MPI_Datatype basic = cm_dt_is_basic(dt) ? dt : t->basic;
        if (!basic)
            return cm_error(comm, MPI_ERR_OP, call, "%s is not defined on a datatype of mixed basic types",
                            cm_op_name(op));
        if (!cm_op_allowed(op, basic))
            return cm_error(comm, MPI_ERR_OP, call, "%s is not defined on %s%s", cm_op_name(op),
                            cm_dt_basic_name(basic), basic == dt ? "" : " (the datatype's basic type)");
    }
#else
    (void)dt;
#endif
    return 0;
}

/* A NULL buffer with data to move is an error, except with a derived type
 * (absolute addresses from MPI_BOTTOM). */
static inline int api_buf(MPI_Comm comm, const char *call, const void *buf, int count, MPI_Datatype dt,
                          const char *what)
{
    if (buf != NULL || count == 0)
        return 0;
#ifdef CM_IN_COREMPI
    return cm_dt_bottom_check(comm, call, what, buf, count, cm_dt_lookup(dt));
#else   /* the host-MPI harness sees only the type's envelope */
    int ni, na, nd, combiner;
    if (PMPI_Type_get_envelope(dt, &ni, &na, &nd, &combiner) == MPI_SUCCESS && combiner != MPI_COMBINER_NAMED)
        return 0;
    return cm_error(comm, MPI_ERR_BUFFER, call, "%s is NULL (MPI_BOTTOM) with count %d", what, count);
#endif
}

static inline int api_count_type_buf(MPI_Comm comm, const char *call, const void *buf, int count,
                                     MPI_Datatype dt, const char *what)
{
    int rc = api_count(comm, call, count, "count");
    if (!rc)
        rc = api_type(comm, call, dt, "datatype");
    if (!rc)
        rc = api_buf(comm, call, buf, count, dt, what);
    return rc;
}

/* Per-rank counts of the v and w forms: arrays present, no negative count. */
static inline int api_v_counts(MPI_Comm comm, const char *call, const int *counts, const int *displs, int size)
{
    if (!counts || !displs)
        return cm_error(comm, MPI_ERR_ARG, call, "counts or displacements array is NULL");
    for (int i = 0; i < size; i++)
        if (counts[i] < 0)
            return cm_error(comm, MPI_ERR_COUNT, call, "negative count %d for rank %d", counts[i], i);
    return 0;
}

#ifdef CM_IN_COREMPI
/* The word just set in cm_direct_word goes on the point-to-point
 * algorithms' messages too (coll/p2p.h, cm_coll_tag_word). */
static inline void api_tag_word(void)
{
    cm_coll_tag_word = (cm_direct_word & ((1u << CM_P2P_TAG_WORD_BITS) - 1)) << CM_P2P_TAG_BASE_BITS;
}
#endif

/* Before running the algorithm: the argument word its shared-memory syncs
 * carry (coll/direct/direct.h): what all ranks must agree on.  bytes 0 where the ranks may
 * legitimately move different amounts (v and w variants). */
static inline void api_word(enum cm_coll_id coll, size_t bytes, int root, MPI_Op op)
{
#ifdef CM_IN_COREMPI
    cm_direct_word = cm_direct_word_of((unsigned)coll, bytes, root, op);
    api_tag_word();
#else
    (void)coll, (void)bytes, (void)root, (void)op;
#endif
}

/* The signature class of count elements of dt (core/datatype.h): 0, which
 * agrees with any, when they hold no data. */
static inline unsigned api_class(MPI_Datatype dt, size_t bytes)
{
#ifdef CM_IN_COREMPI
    return bytes ? cm_dt_lookup(dt)->sig_class : 0u;
#else
    (void)dt, (void)bytes;
    return 0;
#endif
}

/* 1 when some of the n counts is not 0 (the v forms: a class only then). */
static inline size_t api_any(const int *counts, int n)
{
    for (int i = 0; i < n; i++)
        if (counts[i])
            return 1;
    return 0;
}

/* The collectives without a root whose ranks all use one signature class
 * (direct.h, cm_direct_typed) pass this as the root: their word carries the
 * class there. */
static inline int api_sig_root(MPI_Datatype dt)
{
    return (int)api_class(dt, 1) - 1;
}

/* The rooted collectives (direct.h, cm_direct_call_word): the word with the
 * class where the collective has room for it (a hash in the op bits, or in
 * reduce mixed into the root field). */
static inline void api_word_rooted_op(enum cm_coll_id coll, size_t bytes, int root, MPI_Op op, unsigned sig_class)
{
#ifdef CM_IN_COREMPI
    cm_direct_word = cm_direct_call_word((unsigned)coll, bytes, root, op, sig_class);
    cm_direct_class_here = sig_class;
    api_tag_word();
#else
    (void)coll, (void)bytes, (void)root, (void)op, (void)sig_class;
#endif
}
static inline void api_word_rooted(enum cm_coll_id coll, size_t bytes, int root, unsigned sig_class)
{
    api_word_rooted_op(coll, bytes, root, MPI_OP_NULL, sig_class);
}

/* The buffers a reduction of 0 elements runs with: a count of 0 runs the
 * collective (api_rooted.c, cm_Bcast), whose point-to-point algorithms
 * take a NULL buffer (legal with nothing to move) for a failed allocation;
 * nothing is read or written there. */
static inline void api_empty_bufs(int count, const void **sendbuf, void **recvbuf)
{
    static _Alignas(64) char nothing[64];
    if (count == 0)
        *sendbuf = *recvbuf = nothing;
}

/* The bytes of count elements of dt (the word's byte field). */
static inline size_t api_bytes(int count, MPI_Datatype dt)
{
#ifdef CM_IN_COREMPI
    return (size_t)count * cm_dt_lookup(dt)->size;
#else
    (void)count, (void)dt;
    return 0;
#endif
}

/* A nonblocking (or persistent) call's word, as its blocking twin makes it,
 * for the shared-memory engine's record (direct.h, cm_direct_nbc_args); the
 * class goes where the collective has room for it.  API_NBC sets it around
 * the engine's entry (engine: the call of cm_direct_nbc_<coll>). */
static inline void api_nbc_word(MPI_Comm comm, const char *call, enum cm_coll_id coll, size_t bytes, int root,
                                MPI_Op op, unsigned sig_class)
{
#ifdef CM_IN_COREMPI
    uint32_t w = cm_direct_call_word((unsigned)coll, bytes, root, op, sig_class);
    cm_direct_nbc_next = (struct cm_direct_nbc_args){ w, sig_class, comm, call };
#else
    (void)comm, (void)call, (void)coll, (void)bytes, (void)root, (void)op, (void)sig_class;
#endif
}
/* The engine took the call, or declined it: then the word stays for the
 * schedule the front end builds instead (api_nonblocking.c, start), which
 * clears it. */
static inline int api_nbc_after(int rc)
{
#ifdef CM_IN_COREMPI
    if (rc == MPI_SUCCESS)
        cm_direct_nbc_next.word = 0;
#endif
    return rc;
}
#define API_NBC(comm, call, coll, bytes, root, op, sig_class, engine) \
    (api_nbc_word(comm, call, coll, bytes, root, op, sig_class), api_nbc_after(engine))

/* After the algorithm: a mismatch its syncs saw, or errors reported by
 * point-to-point inside it. */
static inline int api_done(MPI_Comm comm, const char *call, int rc)
{
#ifdef CM_IN_COREMPI
    cm_direct_word = 0;
    cm_coll_tag_word = 0;
    if (__builtin_expect(cm_direct_mm.on, 0))
        return cm_coll_mismatch_raise(comm, call);
    cm_direct_class_here = 0;
#endif
    if (rc == MPI_SUCCESS)
        return rc;
    return cm_error(comm, rc, call, "collective failed in point-to-point (error %d)", rc);
}

static inline struct cm_coll_query api_query(int size, int count, MPI_Datatype dt, MPI_Op op)
{
    struct cm_coll_query q;
    q.size = size;
    q.count = count;
    q.commutative = op == MPI_OP_NULL ? 1 : api_commutative(op);
#ifdef CM_IN_COREMPI
    const struct cm_datatype *t = cm_dt_lookup(dt);
    q.bytes = (size_t)count * t->size;
    q.contiguous = (MPI_Aint)t->size == t->extent && (MPI_Aint)t->size == t->true_extent;
#else
    struct cm_dt d;
    cm_coll_dt(dt, &d);
    q.bytes = (size_t)count * (size_t)d.size;
    q.contiguous = d.size == d.extent && d.size == d.true_extent;
#endif
    return q;
}

#endif
