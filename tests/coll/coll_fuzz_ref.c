/*
 * coll_fuzz_ref.c -- the reference of the collective fuzz test: for one call
 * at one rank, the send buffers and the image its receive buffer must hold
 * afterwards, computed locally.
 *
 * Receive buffers start filled with a sentinel byte and have a tail of
 * sentinel bytes; the image is the same sentinel with the expected units
 * written in, so that a value in the wrong place, a hole of a derived
 * datatype written, or a write past the last block all show as a difference.
 * Every contribution is fz_value(src, dst, unit): all ranks can compute all
 * of them, and the reductions fold them here in rank order.
 */
#include "coll_fuzz.h"

#include <stdlib.h>
#include <string.h>

#define SENTINEL 0xA5
#define TAIL 64 /* sentinel bytes after every receive buffer's last block */

int64_t fz_value(const struct fz_inst *in, int type, int src, int dst, long u)
{
    const struct fz_type *t = &fz_types[type];
    uint64_t h = fz_hash2(in->key ^ fz_mix((uint64_t)src * 1000003u + (uint64_t)dst * 7919u + 1), (uint64_t)u);
    int op = fz_coll_reduces(in->op->coll) ? in->op->op : -1;
    return fz_range(op, t->base[u % t->k], (int)(u & 1), h);
}

static void *sentinel(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (p)
        memset(p, SENTINEL, bytes ? bytes : 1);
    return p;
}

static int *ints(int n) { return calloc((size_t)n, sizeof(int)); }

/* Units [0, nunits) of the block src -> dst, laid out as `type` at buf. */
static void put_block(const struct fz_inst *in, void *buf, int type, long nunits, int src, int dst)
{
    for (long u = 0; u < nunits; u++)
        fz_put_unit(buf, &fz_types[type], u, fz_value(in, type, src, dst, u));
}

static int zero_rank(const struct fz_inst *in) { return in->op->zero_rank >= 0 ? in->op->zero_rank % in->n : -1; }

static long round_up(long u, int l) { return (u + l - 1) / l * l; }

/* v-forms: units of rank r's block (a multiple of l), the same at every
 * rank and every iteration of the step. */
static long vunits(const struct fz_inst *in, int r, int l)
{
    if (r == zero_rank(in))
        return 0;
    uint64_t h = fz_hash2(in->op->key, 0x100 + (uint64_t)r);
    if (h % 8 == 0)
        return 0;
    return round_up((long)((h >> 8) % (uint64_t)(2 * in->op->m + 1)), l);
}

/* Units from i to j in alltoallv/w; symmetric under MPI_IN_PLACE, where what
 * i sends to j is described by j's receive arguments. */
static long pair_units(const struct fz_inst *in, int i, int j, int l)
{
    if (in->op->in_place && j < i) {
        int t = i;
        i = j;
        j = t;
    }
    int z = zero_rank(in);
    if (i == z || (in->op->in_place && j == z))
        return 0;
    uint64_t h = fz_hash2(in->op->key, 0x10000 + (uint64_t)i * 64 + (uint64_t)j);
    if (h % 8 == 0)
        return 0;
    return round_up((long)((h >> 8) % (uint64_t)(2 * in->op->m + 1)), l);
}

/* Blocks of len[r] grains placed in a shuffled order with gaps of 0-2
 * grains; pos[r] is the start of r's block.  Returns the grains spanned. */
static long layout(uint64_t key, int n, const long *len, int *pos)
{
    int order[n];
    for (int i = 0; i < n; i++)
        order[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(fz_hash2(key, (uint64_t)i) % (uint64_t)(i + 1)), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    long at = 0;
    for (int i = 0; i < n; i++) {
        at += (long)(fz_hash2(key, 1000 + (uint64_t)i) % 3);
        pos[order[i]] = (int)at;
        at += len[order[i]];
    }
    return at;
}

static int alloc_recv(struct fz_inst *in, size_t bytes)
{
    in->rbytes = bytes + TAIL;
    in->rbuf = sentinel(in->rbytes);
    in->want = sentinel(in->rbytes);
    return in->rbuf && in->want ? 0 : -1;
}

static int prep_bcast(struct fz_inst *in)
{
    const struct fz_op *o = in->op;
    int ti = in->me == in->root ? o->stype : o->rtype;
    const struct fz_type *t = &fz_types[ti];
    in->rcount = o->m / t->k;
    in->rdt = t->dt;
    in->rep_type = ti;
    if (alloc_recv(in, (size_t)in->rcount * (size_t)t->extent))
        return -1;
    put_block(in, in->want, ti, o->m, in->root, 0);
    if (in->me == in->root)
        put_block(in, in->rbuf, ti, o->m, in->root, 0);
    in->blk_off[in->root] = 0;
    return 0;
}

/* Gather, gatherv, allgather, allgatherv. */
static int prep_gather(struct fz_inst *in)
{
    const struct fz_op *o = in->op;
    const struct fz_type *ts = &fz_types[o->stype], *tr = &fz_types[o->rtype];
    int n = in->n, me = in->me, v = o->coll == C_GATHERV || o->coll == C_ALLGATHERV;
    int receives = o->coll == C_ALLGATHER || o->coll == C_ALLGATHERV || me == in->root;
    int l = fz_lcm(ts->k, tr->k);
    long units[n], len[n];
    for (int r = 0; r < n; r++) {
        units[r] = v ? vunits(in, r, l) : o->m;
        len[r] = units[r] / tr->k;
    }
    in->ip = o->in_place && receives;
    in->scount = (int)(units[me] / ts->k);
    if (!in->ip) {
        if (!(in->sbuf = sentinel(in->sbytes = (size_t)in->scount * (size_t)ts->extent)))
            return -1;
        put_block(in, in->sbuf, o->stype, units[me], me, 0);
    }
    if (!receives)
        return 0;
    in->rcount = o->m / tr->k;
    in->rcounts = ints(n);
    in->rdispls = ints(n);
    long span = n * (long)in->rcount;
    if (v)
        span = layout(fz_hash2(o->key, 7 + (uint64_t)me), n, len, in->rdispls);
    for (int r = 0; r < n; r++) {
        in->rcounts[r] = (int)len[r];
        if (!v)
            in->rdispls[r] = r * in->rcount;
    }
    if (alloc_recv(in, (size_t)span * (size_t)tr->extent))
        return -1;
    for (int r = 0; r < n; r++) {
        char *at = (char *)in->want + (size_t)in->rdispls[r] * (size_t)tr->extent;
        put_block(in, at, o->rtype, units[r], r, 0);
        in->blk_off[r] = (long)in->rdispls[r] * tr->extent;
    }
    if (in->ip)
        put_block(in, (char *)in->rbuf + in->blk_off[me], o->rtype, units[me], me, 0);
    return 0;
}

/* Scatter, scatterv. */
static int prep_scatter(struct fz_inst *in)
{
    const struct fz_op *o = in->op;
    const struct fz_type *ts = &fz_types[o->stype], *tr = &fz_types[o->rtype];
    int n = in->n, me = in->me, root = in->root, v = o->coll == C_SCATTERV;
    int l = fz_lcm(ts->k, tr->k);
    long units[n], len[n];
    for (int r = 0; r < n; r++) {
        units[r] = v ? vunits(in, r, l) : o->m;
        len[r] = units[r] / ts->k;
    }
    in->scount = o->m / ts->k;
    if (me == root) {
        in->scounts = ints(n);
        in->sdispls = ints(n);
        long span = n * (long)in->scount;
        if (v)
            span = layout(fz_hash2(o->key, 9), n, len, in->sdispls);
        for (int r = 0; r < n; r++) {
            in->scounts[r] = (int)len[r];
            if (!v)
                in->sdispls[r] = r * in->scount;
        }
        if (!(in->sbuf = sentinel(in->sbytes = (size_t)span * (size_t)ts->extent)))
            return -1;
        for (int r = 0; r < n; r++)
            put_block(in, (char *)in->sbuf + (size_t)in->sdispls[r] * (size_t)ts->extent, o->stype, units[r], root,
                      r);
    }
    in->ip = o->in_place && me == root;
    in->rcount = (int)(units[me] / tr->k);
    if (in->ip)
        return 0; /* the root's block stays in its send buffer */
    if (alloc_recv(in, (size_t)in->rcount * (size_t)tr->extent))
        return -1;
    put_block(in, in->want, o->rtype, units[me], root, me);
    in->blk_off[root] = 0;
    return 0;
}

/* Alltoall, alltoallv. */
static int prep_alltoall(struct fz_inst *in)
{
    const struct fz_op *o = in->op;
    const struct fz_type *ts = &fz_types[o->stype], *tr = &fz_types[o->rtype];
    int n = in->n, me = in->me, v = o->coll == C_ALLTOALLV;
    int l = fz_lcm(ts->k, tr->k);
    long out[n], inc[n], slen[n], rlen[n];
    for (int j = 0; j < n; j++) {
        out[j] = v ? pair_units(in, me, j, l) : o->m;
        inc[j] = v ? pair_units(in, j, me, l) : o->m;
        slen[j] = out[j] / ts->k;
        rlen[j] = inc[j] / tr->k;
    }
    in->ip = o->in_place;
    in->scount = o->m / ts->k;
    in->rcount = o->m / tr->k;
    in->scounts = ints(n);
    in->sdispls = ints(n);
    in->rcounts = ints(n);
    in->rdispls = ints(n);
    long rspan = n * (long)in->rcount, sspan = n * (long)in->scount;
    if (v) {
        sspan = layout(fz_hash2(o->key, 11 + (uint64_t)me), n, slen, in->sdispls);
        rspan = layout(fz_hash2(o->key, 13 + (uint64_t)me), n, rlen, in->rdispls);
    }
    for (int j = 0; j < n; j++) {
        in->scounts[j] = (int)slen[j];
        in->rcounts[j] = (int)rlen[j];
        if (!v) {
            in->sdispls[j] = j * in->scount;
            in->rdispls[j] = j * in->rcount;
        }
    }
    if (!in->ip) {
        if (!(in->sbuf = sentinel(in->sbytes = (size_t)sspan * (size_t)ts->extent)))
            return -1;
        for (int j = 0; j < n; j++)
            put_block(in, (char *)in->sbuf + (size_t)in->sdispls[j] * (size_t)ts->extent, o->stype, out[j], me, j);
    }
    if (alloc_recv(in, (size_t)rspan * (size_t)tr->extent))
        return -1;
    for (int i = 0; i < n; i++) {
        in->blk_off[i] = (long)in->rdispls[i] * tr->extent;
        put_block(in, (char *)in->want + in->blk_off[i], o->rtype, inc[i], i, me);
        if (in->ip) /* what me sends to i, described by the receive arguments */
            put_block(in, (char *)in->rbuf + in->blk_off[i], o->rtype, out[i], me, i);
    }
    return 0;
}

/* Alltoallw: a signature group, a send type and a receive type per pair. */
static int w_group(const struct fz_inst *in, int i, int j)
{
    if (in->op->in_place && j < i) {
        int t = i;
        i = j;
        j = t;
    }
    return fz_hash2(in->op->key, 0x20000 + (uint64_t)i * 64 + (uint64_t)j) % 7 == 0 ? FZ_G_DINT : FZ_G_INT;
}
static int w_type(const struct fz_inst *in, int i, int j, int side)
{
    int list[FZ_NTYPES], n = 0, g = w_group(in, i, j);
    for (int t = 0; t < FZ_NTYPES; t++)
        if (fz_types[t].group == g)
            list[n++] = t;
    return list[fz_hash2(in->op->key, 0x30000 + (uint64_t)side * 4096 + (uint64_t)i * 64 + (uint64_t)j) % (uint64_t)n];
}
static long w_units(const struct fz_inst *in, int i, int j)
{
    int l = in->op->in_place ? fz_lcm(fz_types[w_type(in, i, j, 1)].k, fz_types[w_type(in, j, i, 1)].k)
                             : fz_lcm(fz_types[w_type(in, i, j, 0)].k, fz_types[w_type(in, i, j, 1)].k);
    return pair_units(in, i, j, l);
}

static int prep_alltoallw(struct fz_inst *in)
{
    int n = in->n, me = in->me;
    int st[n], rt[n], spos[n], rpos[n];
    long out[n], inc[n], sgr[n], rgr[n];
    in->ip = in->op->in_place;
    in->rep_type = -1;
    in->scounts = ints(n);
    in->sdispls = ints(n);
    in->rcounts = ints(n);
    in->rdispls = ints(n);
    in->stypes = calloc((size_t)n, sizeof(MPI_Datatype));
    in->rtypes = calloc((size_t)n, sizeof(MPI_Datatype));
    for (int j = 0; j < n; j++) {
        st[j] = w_type(in, me, j, 0);
        rt[j] = w_type(in, j, me, 1);
        out[j] = w_units(in, me, j);
        inc[j] = w_units(in, j, me);
        in->scounts[j] = (int)(out[j] / fz_types[st[j]].k);
        in->rcounts[j] = (int)(inc[j] / fz_types[rt[j]].k);
        in->stypes[j] = fz_types[st[j]].dt;
        in->rtypes[j] = fz_types[rt[j]].dt;
        sgr[j] = (in->scounts[j] * fz_types[st[j]].extent + 7) / 8; /* 8-byte grains */
        rgr[j] = (in->rcounts[j] * fz_types[rt[j]].extent + 7) / 8;
    }
    long sspan = layout(fz_hash2(in->op->key, 17 + (uint64_t)me), n, sgr, spos);
    long rspan = layout(fz_hash2(in->op->key, 19 + (uint64_t)me), n, rgr, rpos);
    if (!in->ip && !(in->sbuf = sentinel(in->sbytes = (size_t)sspan * 8)))
        return -1;
    if (alloc_recv(in, (size_t)rspan * 8))
        return -1;
    for (int j = 0; j < n; j++) {
        in->sdispls[j] = spos[j] * 8;
        in->rdispls[j] = rpos[j] * 8;
        in->blk_off[j] = in->rdispls[j];
        if (!in->ip)
            put_block(in, (char *)in->sbuf + in->sdispls[j], st[j], out[j], me, j);
        put_block(in, (char *)in->want + in->rdispls[j], rt[j], inc[j], j, me);
        if (in->ip)
            put_block(in, (char *)in->rbuf + in->rdispls[j], rt[j], out[j], me, j);
    }
    return 0;
}

/* want's units [0, nunits) = contributions lo..hi (units from ufirst) folded in rank order. */
static void fold(const struct fz_inst *in, int t, int lo, int hi, long ufirst, long nunits, void *want)
{
    const struct fz_type *ty = &fz_types[t];
    int op = in->op->op;
    if (fz_ops[op].pairwise) {
        for (long u = 0; u < nunits; u += 2) {
            int64_t acc[2] = {fz_value(in, t, lo, 0, ufirst + u), fz_value(in, t, lo, 0, ufirst + u + 1)};
            for (int r = lo + 1; r <= hi; r++) {
                int64_t b[2] = {fz_value(in, t, r, 0, ufirst + u), fz_value(in, t, r, 0, ufirst + u + 1)};
                fz_op_pair(op, acc, b, acc);
            }
            fz_put_unit(want, ty, u, acc[0]);
            fz_put_unit(want, ty, u + 1, acc[1]);
        }
        return;
    }
    for (long u = 0; u < nunits; u++) {
        int64_t acc = fz_value(in, t, lo, 0, ufirst + u);
        for (int r = lo + 1; r <= hi; r++)
            acc = fz_op_unit(op, ty->base[u % ty->k], acc, fz_value(in, t, r, 0, ufirst + u));
        fz_put_unit(want, ty, u, acc);
    }
}

/* Reduce, allreduce, scan, exscan, reduce_scatter(_block): contributions of
 * total elements; this rank's result is the elements [first, first + mine). */
static int prep_reduction(struct fz_inst *in)
{
    const struct fz_op *o = in->op;
    const struct fz_type *t = &fz_types[o->stype];
    int n = in->n, me = in->me, c = o->m;
    int receives = o->coll != C_REDUCE || me == in->root;
    long total = c, first = 0, mine = c;
    if (o->coll == C_REDUCE_SCATTER_BLOCK) {
        total = (long)c * n;
        first = (long)c * me;
    } else if (o->coll == C_REDUCE_SCATTER) {
        in->rcounts = ints(n);
        total = 0;
        for (int r = 0; r < n; r++) {
            in->rcounts[r] = (int)vunits(in, r, 1);
            if (r == me)
                first = total;
            total += in->rcounts[r];
        }
        mine = in->rcounts[me];
    }
    in->ip = o->in_place && receives;
    in->scount = c;
    in->rcount = c;
    if (!in->ip) {
        if (!(in->sbuf = sentinel(in->sbytes = (size_t)total * (size_t)t->extent)))
            return -1;
        put_block(in, in->sbuf, o->stype, total * t->k, me, 0);
    }
    if (!receives)
        return 0;
    /* in place, the input fills the receive buffer; only the result part is compared */
    if (alloc_recv(in, (size_t)(in->ip ? total : mine) * (size_t)t->extent))
        return -1;
    if (in->ip) {
        put_block(in, in->rbuf, o->stype, total * t->k, me, 0);
        in->rbytes = (size_t)mine * (size_t)t->extent;
    }
    int lo = 0, hi = n - 1;
    if (o->coll == C_SCAN)
        hi = me;
    else if (o->coll == C_EXSCAN)
        hi = me - 1;
    if (hi < lo)
        in->rbytes = 0; /* exscan at rank 0: undefined */
    else
        fold(in, o->stype, lo, hi, first * t->k, mine * t->k, in->want);
    return 0;
}

int fz_prepare(struct fz_inst *in)
{
    const struct fz_op *o = in->op;
    in->sdt = fz_types[o->stype].dt;
    in->rdt = fz_types[o->rtype].dt;
    in->rep_type = o->rtype;
    in->blk_off = malloc(sizeof(long) * (size_t)in->n);
    if (!in->blk_off)
        return -1;
    for (int r = 0; r < in->n; r++)
        in->blk_off[r] = -1;
    int rc;
    switch (o->coll) {
    case C_BARRIER: return 0;
    case C_BCAST: rc = prep_bcast(in); break;
    case C_GATHER: case C_GATHERV: case C_ALLGATHER: case C_ALLGATHERV: rc = prep_gather(in); break;
    case C_SCATTER: case C_SCATTERV: rc = prep_scatter(in); break;
    case C_ALLTOALL: case C_ALLTOALLV: rc = prep_alltoall(in); break;
    case C_ALLTOALLW: rc = prep_alltoallw(in); break;
    default: rc = prep_reduction(in);
    }
    /* a send buffer is the caller's: it must come back as it went in */
    if (rc == 0 && in->sbuf && !(in->scopy = malloc(in->sbytes ? in->sbytes : 1)))
        return -1;
    if (rc == 0 && in->sbuf)
        memcpy(in->scopy, in->sbuf, in->sbytes);
    return rc;
}

void fz_release(struct fz_inst *in)
{
    free(in->sbuf);
    free(in->scopy);
    free(in->rbuf);
    free(in->want);
    free(in->scounts);
    free(in->sdispls);
    free(in->rcounts);
    free(in->rdispls);
    free(in->stypes);
    free(in->rtypes);
    free(in->blk_off);
    in->sbuf = in->scopy = in->rbuf = in->want = NULL;
    in->scounts = in->sdispls = in->rcounts = in->rdispls = NULL;
    in->stypes = in->rtypes = NULL;
    in->blk_off = NULL;
}
