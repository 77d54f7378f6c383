/*
 * check.c -- COREMPI_CHECK=1, the complete argument check (check.h).
 *
 * Two rounds of messages, each rank to each other one, on the collective
 * context with a tag of its own (CM_TAG_CHECK): first every rank tells every
 * other what it will send it and what it expects from it (bytes and type
 * signature hash), with the collective, root, op and the bytes all must
 * share; each rank compares what it got with its own view and keeps the
 * first disagreement; then the verdicts go round, and every rank raises the
 * disagreement found by the lowest-numbered rank that found one.  Fixed-size
 * records in both rounds, so the check itself cannot be mismatched, and
 * every rank returns from it.  O(n^2) messages: a debugging mode.
 *
 * Type signatures: a polynomial hash over the sequence of basic types
 * (mod 2^64), which concatenates (h(AB) = h(A) P^|B| + h(B)), so count
 * elements of a type and one element of a contiguous type of count of them
 * hash alike, and count copies cost O(log count).  A pair type counts as its
 * value type then MPI_INT.  MPI_PACKED matches any signature (hash 0:
 * compared by bytes only).
 */
#include <mpi.h>
#ifdef CM_IN_COREMPI  /* corempi only: the host-MPI harness compiles every src/coll file */
#include "coll/check.h"
#include "core/datatype.h"
#include "core/op.h"
#include "core/error.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define P 0x100000001b3ull        /* odd: P^k never becomes 0 mod 2^64 */

struct sig { uint64_t h, pw; };   /* hash of a sequence, P^length */

static struct sig sig_cat(struct sig a, struct sig b) { return (struct sig){ a.h * b.pw + b.h, a.pw * b.pw }; }

static struct sig sig_rep(struct sig x, uint64_t m)
{
    struct sig r = { 0, 1 };
    while (m) {
        if (m & 1)
            r = sig_cat(r, x);
        x = sig_cat(x, x);
        m >>= 1;
    }
    return r;
}

static struct sig sig_basic(MPI_Datatype b, uint64_t n)
{
    struct sig one = { ((uint64_t)b + 1) * 0x9E3779B97F4A7C15ull | 1, P };
    return sig_rep(one, n);
}

/* The value type of a MINLOC/MAXLOC pair type (its signature is the value
 * then the index: n MPI_2INT match 2n MPI_INT), or 0.  The index is an
 * int, or of the value's type in Fortran's pairs (pair_index). */
static MPI_Datatype pair_value(MPI_Datatype b)
{
    switch (cm_dt_index(b)) {
    case CM_DTI_MPI_2INTEGER: return MPI_INTEGER;
    case CM_DTI_MPI_2REAL: return MPI_REAL;
    case CM_DTI_MPI_2DOUBLE_PRECISION: return MPI_DOUBLE_PRECISION;
    case CM_DTI_MPI_FLOAT_INT: return MPI_FLOAT;
    case CM_DTI_MPI_DOUBLE_INT: return MPI_DOUBLE;
    case CM_DTI_MPI_LONG_INT: return MPI_LONG;
    case CM_DTI_MPI_2INT: return MPI_INT;
    case CM_DTI_MPI_SHORT_INT: return MPI_SHORT;
    case CM_DTI_MPI_LONG_DOUBLE_INT: return MPI_LONG_DOUBLE;
    default: return 0;
    }
}

static int add_run(MPI_Datatype basic, size_t n, void *arg)
{
    struct sig *s = arg;
    MPI_Datatype v = pair_value(basic);
    MPI_Datatype idx = basic == MPI_2INTEGER || basic == MPI_2REAL || basic == MPI_2DOUBLE_PRECISION ? v : MPI_INT;
    *s = sig_cat(*s, v ? sig_rep(sig_cat(sig_basic(v, 1), sig_basic(idx, 1)), n) : sig_basic(basic, n));
    return 0;
}

/* Hash of the signature of count elements of dt; 0 for MPI_PACKED. */
static uint64_t sig_hash(MPI_Datatype dt, int count)
{
    const struct cm_datatype *t = cm_dt_lookup(dt);
    if (!t || dt == MPI_PACKED || count <= 0)
        return 0;
    struct sig one = { 0, 1 };
    cm_dt_for_each_run(t, 1, add_run, &one);
    uint64_t h = sig_rep(one, (uint64_t)count).h;
    return h ? h : 1;
}

static int64_t bytes_of(MPI_Datatype dt, int count)
{
    const struct cm_datatype *t = cm_dt_lookup(dt);
    return t && count > 0 ? (int64_t)t->size * count : 0;
}

/* What I send to rank j or expect from it: bytes and signature hash. */
struct flow { int64_t bytes; uint64_t hash; };

static struct flow flow_of(MPI_Datatype dt, int count)
{
    return (struct flow){ bytes_of(dt, count), sig_hash(dt, count) };
}

static const struct flow none;

/* The collectives in which every rank moves the same data (compared whole). */
static int uniform(enum cm_coll_id c)
{
    return c == CM_COLL_BCAST || c == CM_COLL_REDUCE || c == CM_COLL_ALLREDUCE || c == CM_COLL_SCAN ||
           c == CM_COLL_EXSCAN || c == CM_COLL_REDUCE_SCATTER_BLOCK;
}

static int rooted(enum cm_coll_id c)
{
    return c == CM_COLL_BCAST || c == CM_COLL_REDUCE || c == CM_COLL_GATHER || c == CM_COLL_GATHERV ||
           c == CM_COLL_SCATTER || c == CM_COLL_SCATTERV;
}

static struct flow send_to(const struct cm_check_call *c, int me, int j)
{
    int inplace = c->sbuf == MPI_IN_PLACE;
    switch (c->coll) {
    case CM_COLL_GATHER:
        return j == c->root && !(inplace && me == j) ? flow_of(c->stype, c->scount) : none;
    case CM_COLL_GATHERV:
        return j == c->root && !(inplace && me == j) ? flow_of(c->stype, c->scount) : none;
    case CM_COLL_SCATTER:
        return me == c->root && !(c->rbuf == MPI_IN_PLACE && j == me) ? flow_of(c->stype, c->scount) : none;
    case CM_COLL_SCATTERV:
        return me == c->root && !(c->rbuf == MPI_IN_PLACE && j == me) ? flow_of(c->stype, c->scounts[j]) : none;
    case CM_COLL_ALLGATHER:
        return inplace ? flow_of(c->rtype, c->rcount) : flow_of(c->stype, c->scount);
    case CM_COLL_ALLGATHERV:
        return inplace ? flow_of(c->rtype, c->rcounts[me]) : flow_of(c->stype, c->scount);
    case CM_COLL_ALLTOALL:
        return inplace ? flow_of(c->rtype, c->rcount) : flow_of(c->stype, c->scount);
    case CM_COLL_ALLTOALLV:
        return inplace ? flow_of(c->rtype, c->rcounts[j]) : flow_of(c->stype, c->scounts[j]);
    case CM_COLL_ALLTOALLW:
        return inplace ? flow_of(c->rtypes[j], c->rcounts[j]) : flow_of(c->stypes[j], c->scounts[j]);
    case CM_COLL_REDUCE_SCATTER:
        return flow_of(c->rtype, c->rcounts[j]);   /* my part of j's block */
    default:
        return none;
    }
}

static struct flow expect_from(const struct cm_check_call *c, int me, int j)
{
    switch (c->coll) {
    case CM_COLL_GATHER:
        return me == c->root && !(c->sbuf == MPI_IN_PLACE && j == me) ? flow_of(c->rtype, c->rcount) : none;
    case CM_COLL_GATHERV:
        return me == c->root && !(c->sbuf == MPI_IN_PLACE && j == me) ? flow_of(c->rtype, c->rcounts[j]) : none;
    case CM_COLL_SCATTER:
    case CM_COLL_SCATTERV:
        return j == c->root && !(c->rbuf == MPI_IN_PLACE && j == me) ? flow_of(c->rtype, c->rcount) : none;
    case CM_COLL_ALLGATHER:
    case CM_COLL_ALLTOALL:
        return flow_of(c->rtype, c->rcount);
    case CM_COLL_ALLGATHERV:
    case CM_COLL_ALLTOALLV:
        return flow_of(c->rtype, c->rcounts[j]);
    case CM_COLL_ALLTOALLW:
        return flow_of(c->rtypes[j], c->rcounts[j]);
    case CM_COLL_REDUCE_SCATTER:
        return flow_of(c->rtype, c->rcounts[me]);
    default:
        return none;
    }
}

/* Round one: from rank j to rank i. */
struct record {
    int64_t coll, root, op;
    int64_t ubytes;               /* uniform collectives: the bytes of the vector */
    uint64_t uhash;
    struct flow to_you, from_you; /* what j sends i, what j expects from i */
};

/* Round two: the first disagreement a rank found (kind 0: none). */
enum { V_NONE, V_COLL, V_ROOT, V_OP, V_BYTES, V_TYPE };
struct verdict {
    int64_t kind, from, to;       /* rank `from` sends to rank `to` (V_BYTES, V_TYPE) */
    int64_t a, b;                 /* values: of rank `from`, of rank `to` (or sent, expected) */
    int64_t uniform;
};

static int exchange(MPI_Comm cc, int n, int me, const void *out, size_t out_stride, void *in, size_t len)
{
    MPI_Request few[2 * CM_COLL_FEW_REQS];
    MPI_Request *req = 2 * (size_t)n <= 2 * CM_COLL_FEW_REQS ? few : malloc(sizeof(MPI_Request) * 2 * (size_t)n);
    if (!req)
        return MPI_ERR_NO_MEM;
    int k = 0, rc;
    for (int j = 0; j < n; j++)
        if (j != me)
            cm_coll_irecv((char *)in + (size_t)j * len, (int)len, MPI_BYTE, j, CM_TAG_CHECK, cc, &req[k++]);
    for (int j = 0; j < n; j++)
        if (j != me)
            cm_coll_isend((const char *)out + (size_t)j * out_stride, (int)len, MPI_BYTE, j, CM_TAG_CHECK, cc,
                       &req[k++]);
    rc = cm_coll_waitall(k, req, MPI_STATUSES_IGNORE);
    if (req != few)
        free(req);
    return rc;
}

static int op_differs(int64_t a, int64_t b)
{
    /* User ops are different handles on different ranks only when created in
     * a different order: compare them only against predefined ones. */
    int pa = cm_op_is_predefined((MPI_Op)(intptr_t)a), pb = cm_op_is_predefined((MPI_Op)(intptr_t)b);
    return a != b && (pa || pb);
}

static struct verdict judge(const struct cm_check_call *c, const struct record *r, int j, int me,
                            const struct record *mine)
{
    struct verdict v = { V_NONE, 0, 0, 0, 0, 0 };
    if (r->coll != mine->coll)
        return (struct verdict){ V_COLL, j, me, r->coll, mine->coll, 0 };
    if (rooted(c->coll) && r->root != mine->root)
        return (struct verdict){ V_ROOT, j, me, r->root, mine->root, 0 };
    if (c->op != MPI_OP_NULL && op_differs(r->op, mine->op))
        return (struct verdict){ V_OP, j, me, r->op, mine->op, 0 };
    if (uniform(c->coll)) {
        if (r->ubytes != mine->ubytes)
            return (struct verdict){ V_BYTES, j, me, r->ubytes, mine->ubytes, 1 };
        if (r->uhash && mine->uhash && r->uhash != mine->uhash)
            return (struct verdict){ V_TYPE, j, me, r->ubytes, mine->ubytes, 1 };
        return v;
    }
    struct flow got = r->to_you, want = expect_from(c, me, j);
    if (got.bytes != want.bytes)
        return (struct verdict){ V_BYTES, j, me, got.bytes, want.bytes, 0 };
    if (got.hash && want.hash && got.hash != want.hash)
        return (struct verdict){ V_TYPE, j, me, got.bytes, want.bytes, 0 };
    return v;
}

const char *cm_coll_call_name(long long id)
{
    static const char *const names[CM_COLL_NUM] = {
        "MPI_Barrier", "MPI_Bcast", "MPI_Reduce", "MPI_Allreduce", "MPI_Allgather", "MPI_Allgatherv",
        "MPI_Gather", "MPI_Gatherv", "MPI_Scatter", "MPI_Scatterv", "MPI_Alltoall", "MPI_Alltoallv",
        "MPI_Alltoallw", "MPI_Reduce_scatter", "MPI_Reduce_scatter_block", "MPI_Scan", "MPI_Exscan",
    };
    return id >= 0 && id < CM_COLL_NUM ? names[id] : "no collective of the API (internal)";
}

static const char *op_text(int64_t op)
{
    return cm_op_is_predefined((MPI_Op)(intptr_t)op) ? cm_op_name((MPI_Op)(intptr_t)op) : "a user-defined op";
}

static int raise_verdict(MPI_Comm comm, const char *call, const struct verdict *v)
{
    int from = (int)v->from, to = (int)v->to;
    switch (v->kind) {
    case V_COLL:
        return cm_error(comm, MPI_ERR_ARG, call, "ranks call different collectives: rank %d %s, rank %d %s",
                        from, cm_coll_call_name(v->a), to, cm_coll_call_name(v->b));
    case V_ROOT:
        return cm_error(comm, MPI_ERR_ROOT, call, "root differs across ranks: %lld on rank %d, %lld on rank %d",
                        (long long)v->a, from, (long long)v->b, to);
    case V_OP:
        return cm_error(comm, MPI_ERR_OP, call, "op differs across ranks: %s on rank %d, %s on rank %d",
                        op_text(v->a), from, op_text(v->b), to);
    case V_BYTES:
        if (v->uniform)
            return cm_error(comm, MPI_ERR_TRUNCATE, call,
                            "message size differs across ranks (count x type size): %lld bytes on rank %d, "
                            "%lld bytes on rank %d",
                            (long long)v->a, from, (long long)v->b, to);
        return cm_error(comm, v->a > v->b ? MPI_ERR_TRUNCATE : MPI_ERR_ARG, call,
                        "rank %d sends %lld bytes to rank %d, which expects %lld (count x type size)", from,
                        (long long)v->a, to, (long long)v->b);
    default:
        if (v->uniform)
            return cm_error(comm, MPI_ERR_TYPE, call,
                            "type signatures differ across ranks (%lld bytes each): ranks %d and %d",
                            (long long)v->a, from, to);
        return cm_error(comm, MPI_ERR_TYPE, call,
                        "type signatures differ: rank %d sends %lld bytes to rank %d that expects another "
                        "sequence of basic types", from, (long long)v->a, to);
    }
}

int cm_coll_check(MPI_Comm comm, const char *call, const struct cm_check_call *c)
{
    struct cm_comm *cm = cm_comm_lookup(comm, NULL);
    int n = cm->size, me = cm->rank;
    if (n == 1 && c->coll != CM_COLL_GATHER && c->coll != CM_COLL_SCATTER && c->coll != CM_COLL_ALLGATHER &&
        c->coll != CM_COLL_ALLTOALL)
        return MPI_SUCCESS;
    MPI_Comm cc = cm_coll_comm(comm);
    struct record *out = malloc(sizeof *out * (size_t)n), *in = malloc(sizeof *in * (size_t)n);
    struct verdict *vin = malloc(sizeof *vin * (size_t)n);
    if (!out || !in || !vin) {
        free(out), free(in), free(vin);
        return cm_error(comm, MPI_ERR_NO_MEM, call, "out of memory for COREMPI_CHECK");
    }
    struct record base = { c->coll, c->root, (int64_t)(intptr_t)c->op, 0, 0, { 0, 0 }, { 0, 0 } };
    if (uniform(c->coll)) {
        int count = c->coll == CM_COLL_BCAST || c->coll == CM_COLL_REDUCE_SCATTER_BLOCK ? c->rcount : c->scount;
        MPI_Datatype dt = c->coll == CM_COLL_BCAST || c->coll == CM_COLL_REDUCE_SCATTER_BLOCK ? c->rtype : c->stype;
        base.ubytes = bytes_of(dt, count);
        base.uhash = sig_hash(dt, count);
    }
    for (int j = 0; j < n; j++) {
        out[j] = base;
        out[j].to_you = send_to(c, me, j);
        out[j].from_you = expect_from(c, me, j);
    }
    int rc = exchange(cc, n, me, out, sizeof *out, in, sizeof *in);
    struct verdict mine = { V_NONE, 0, 0, 0, 0, 0 };
    if (rc == MPI_SUCCESS) {
        in[me] = out[me];       /* my block to myself: send_to(me) against expect_from(me) */
        for (int j = 0; j < n && mine.kind == V_NONE; j++)
            mine = judge(c, &in[j], j, me, &base);
        struct verdict *vout = malloc(sizeof *vout * (size_t)n);
        if (!vout) {
            rc = MPI_ERR_NO_MEM;
        } else {
            for (int j = 0; j < n; j++)
                vout[j] = mine;
            rc = exchange(cc, n, me, vout, sizeof *vout, vin, sizeof *vin);
            free(vout);
        }
        vin[me] = mine;
    }
    struct verdict found = { V_NONE, 0, 0, 0, 0, 0 };
    for (int j = 0; j < n && rc == MPI_SUCCESS && found.kind == V_NONE; j++)
        found = vin[j];
    free(out), free(in), free(vin);
    if (rc != MPI_SUCCESS)
        return cm_error(comm, rc, call, "COREMPI_CHECK: the argument exchange failed (error %d)", rc);
    return found.kind == V_NONE ? MPI_SUCCESS : raise_verdict(comm, call, &found);
}
#endif
