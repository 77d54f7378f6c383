/*
 * coll_fuzz_check.c -- compare a completed call of the collective fuzz test
 * with its reference, and say precisely what differs: which call, rank,
 * block (source rank), element and unit, or that a hole or the tail past
 * the last block was written.
 */
#include "coll_fuzz.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct fz_ctx fz_ctx;

void fz_report(const struct fz_inst *in, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (fz_ctx.errors++ >= 10) /* counted, not printed: the first ones tell the story */
        return;
    const struct fz_op *o = in->op;
    char root[32] = "";
    if (fz_coll_rooted(o->coll))
        snprintf(root, sizeof root, " root %d", in->root);
    fprintf(stderr, "coll_fuzz: seed %llu case %ld step %d iter %d: MPI_%s%s%s comm %s (size %d) rank %d (world %d)%s: %s\n",
            (unsigned long long)fz_ctx.seed, fz_ctx.case_no, fz_ctx.step, in->iter,
            o->nb && !in->persistent ? "I" : "", fz_coll_name[o->coll], in->persistent ? "_init" : "",
            fz_comm_name[o->comm], in->n, in->me, fz_ctx.world_rank, root, msg);
}

/* Where byte off of the receive buffer lies, in words. */
static void locate(const struct fz_inst *in, size_t off, char *buf, size_t len)
{
    int blk = -1;
    for (int r = 0; r < in->n; r++)
        if (in->blk_off[r] >= 0 && (size_t)in->blk_off[r] <= off && (blk < 0 || in->blk_off[r] > in->blk_off[blk]))
            blk = r;
    size_t base = blk >= 0 ? (size_t)in->blk_off[blk] : 0;
    int w = blk >= 0 ? snprintf(buf, len, "block from rank %d, ", blk) : 0;
    if (in->rep_type < 0) {
        snprintf(buf + w, len - (size_t)w, "byte %zu of the block", off - base);
        return;
    }
    const struct fz_type *t = &fz_types[in->rep_type];
    size_t rel = off - base, e = rel / (size_t)t->extent, at = rel % (size_t)t->extent;
    for (int j = 0; j < t->k; j++)
        if ((size_t)t->off[j] <= at && at < (size_t)t->off[j] + fz_unit_size(t->base[j])) {
            long u = (long)e * t->k + j;
            snprintf(buf + w, len - (size_t)w, "element %zu unit %d: got %lld want %lld", e, j,
                     (long long)fz_get_unit((char *)in->rbuf + base, t, u),
                     (long long)fz_get_unit((char *)in->want + base, t, u));
            return;
        }
    snprintf(buf + w, len - (size_t)w, "element %zu, byte %zu: a hole of %s, or past the last block", e, at, t->name);
}

int fz_check(struct fz_inst *in)
{
    long before = fz_ctx.errors;
    if (in->op->coll == C_BARRIER) {
        /* nobody leaves before everybody entered (one clock for all ranks) */
        double left = MPI_Wtime(), last_in;
        MPI_Allreduce(&in->t_enter, &last_in, 1, MPI_DOUBLE, MPI_MAX, in->comm);
        if (left < last_in)
            fz_report(in, "left the barrier %.0f us before the last rank entered", (last_in - left) * 1e6);
        return (int)(fz_ctx.errors - before);
    }
    if (in->sbuf && memcmp(in->sbuf, in->scopy, in->sbytes)) {
        size_t first = 0;
        while (((unsigned char *)in->sbuf)[first] == ((unsigned char *)in->scopy)[first])
            first++;
        fz_report(in, "the send buffer (%zu bytes) was written, the first change at byte %zu", in->sbytes, first);
    }
    if (!in->rbytes || !memcmp(in->rbuf, in->want, in->rbytes))
        return (int)(fz_ctx.errors - before);
    const unsigned char *got = in->rbuf, *want = in->want;
    size_t first = 0, diff = 0;
    while (got[first] == want[first])
        first++;
    for (size_t i = first; i < in->rbytes; i++)
        diff += got[i] != want[i];
    char where[256];
    locate(in, first, where, sizeof where);
    fz_report(in, "%zu of %zu bytes differ, the first at byte %zu (%s; byte 0x%02x want 0x%02x)", diff, in->rbytes,
              first, where, got[first], want[first]);
    return (int)(fz_ctx.errors - before);
}
