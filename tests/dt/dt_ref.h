/*
 * dt_ref.h -- a reference model of MPI typemaps for the datatype tests.
 *
 * Deliberately naive: a type is its full list of (offset, length) runs in
 * typemap order plus lb/extent, built straight from the MPI definitions,
 * without merging or any cleverness, so that it shares no logic with the
 * library under test.  Works with any MPI (the tests also run on Open MPI).
 */
#ifndef DT_REF_H
#define DT_REF_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ref {
    long *off;      /* byte offset of each run */
    long *len;      /* bytes */
    int *basic;     /* the basic-type tag of each run (for signatures) */
    long n;
    long lb, extent;
    long align;     /* strictest basic alignment inside */
    int sticky;     /* bounds set by resized */
};

#define CHECK(cond, ...)                                                         \
    do {                                                                         \
        if (!(cond)) {                                                           \
            int r_;                                                              \
            MPI_Comm_rank(MPI_COMM_WORLD, &r_);                                  \
            fprintf(stderr, "rank %d: %s:%d: check failed: %s: ", r_, __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                        \
            fprintf(stderr, "\n");                                               \
            MPI_Abort(MPI_COMM_WORLD, 1);                                        \
        }                                                                        \
    } while (0)

static inline void ref_push(struct ref *r, long off, long len, int basic)
{
    if ((r->n & (r->n - 1)) == 0) {
        long cap = r->n ? 2 * r->n : 1;
        r->off = realloc(r->off, cap * sizeof *r->off);
        r->len = realloc(r->len, cap * sizeof *r->len);
        r->basic = realloc(r->basic, cap * sizeof *r->basic);
    }
    r->off[r->n] = off;
    r->len[r->n] = len;
    r->basic[r->n] = basic;
    r->n++;
}

static inline void ref_free(struct ref *r)
{
    free(r->off);
    free(r->len);
    free(r->basic);
    memset(r, 0, sizeof *r);
}

static inline struct ref ref_basic(long size, int tag)
{
    struct ref r = { 0 };
    ref_push(&r, 0, size, tag);
    r.lb = 0;
    r.extent = size;
    r.align = size > 8 ? 8 : size;
    return r;
}

static inline long ref_size(const struct ref *r)
{
    long s = 0;
    for (long i = 0; i < r->n; i++)
        s += r->len[i];
    return s;
}

/* Bounds bookkeeping while building: the union of [lb, ub) of each copy placed. */
/* MPI's rule: copies of a resized type carry explicit lb/ub markers, and
 * when any marker is present the markers alone give the bounds. */
struct bounds {
    int any[2];
    long lb[2], ub[2];   /* [0] natural, [1] from markers */
};

static inline void bounds_add(struct bounds *b, int marker, long lb, long ub)
{
    if (!b->any[marker] || lb < b->lb[marker])
        b->lb[marker] = lb;
    if (!b->any[marker] || ub > b->ub[marker])
        b->ub[marker] = ub;
    b->any[marker] = 1;
}

/* Append `count` copies of old, old.extent apart, at displacement disp. */
static inline void ref_place(struct ref *r, struct bounds *b, const struct ref *old, long count, long disp)
{
    for (long k = 0; k < count; k++) {
        long at = disp + k * old->extent;
        for (long i = 0; i < old->n; i++)
            ref_push(r, at + old->off[i], old->len[i], old->basic[i]);
        bounds_add(b, old->sticky, at + old->lb, at + old->lb + old->extent);
    }
    if (count > 0) {
        if (old->align > r->align)
            r->align = old->align;
        r->sticky |= old->sticky;
    }
}

static inline void ref_finish(struct ref *r, struct bounds *b)
{
    int m = b->any[1];
    r->lb = b->any[m] ? b->lb[m] : 0;
    r->extent = b->any[m] ? b->ub[m] - b->lb[m] : 0;
}

static inline struct ref ref_hindexed(long count, const long *bl, const long *disp_bytes, const struct ref *old)
{
    struct ref r = { 0 };
    struct bounds b = { 0 };
    r.align = 1;
    for (long i = 0; i < count; i++)
        ref_place(&r, &b, old, bl[i], disp_bytes[i]);
    ref_finish(&r, &b);
    return r;
}

static inline struct ref ref_hvector(long count, long bl, long stride_bytes, const struct ref *old)
{
    struct ref r = { 0 };
    struct bounds b = { 0 };
    r.align = 1;
    for (long i = 0; i < count; i++)
        ref_place(&r, &b, old, bl, i * stride_bytes);
    ref_finish(&r, &b);
    return r;
}

static inline struct ref ref_struct(long count, const long *bl, const long *disp, const struct ref *const *old)
{
    struct ref r = { 0 };
    struct bounds b = { 0 };
    r.align = 1;
    for (long i = 0; i < count; i++)
        ref_place(&r, &b, old[i], bl[i], disp[i]);
    ref_finish(&r, &b);
    if (!r.sticky && r.extent % r.align)
        r.extent += r.align - r.extent % r.align;
    return r;
}

static inline struct ref ref_resized(const struct ref *old, long lb, long extent)
{
    struct ref r = { 0 };
    for (long i = 0; i < old->n; i++)
        ref_push(&r, old->off[i], old->len[i], old->basic[i]);
    r.lb = lb;
    r.extent = extent;
    r.align = old->align;
    r.sticky = 1;
    return r;
}

/* Offsets spanned by count elements: [lo, hi). */
static inline void ref_span(const struct ref *r, long count, long *lo, long *hi)
{
    *lo = 0;
    *hi = 0;
    int any = 0;
    for (long k = 0; k < count; k++)
        for (long i = 0; i < r->n; i++) {
            long a = k * r->extent + r->off[i], z = a + r->len[i];
            if (!any || a < *lo)
                *lo = a;
            if (!any || z > *hi)
                *hi = z;
            any = 1;
        }
}

static inline void ref_true_extent(const struct ref *r, long *tlb, long *text)
{
    long lo, hi;
    ref_span(r, 1, &lo, &hi);
    *tlb = lo;
    *text = hi - lo;
}

/* buf points at the element origin (may be inside an allocation, for negative offsets). */
static inline void ref_pack(const struct ref *r, long count, const char *buf, char *out)
{
    for (long k = 0; k < count; k++)
        for (long i = 0; i < r->n; i++) {
            memcpy(out, buf + k * r->extent + r->off[i], r->len[i]);
            out += r->len[i];
        }
}

static inline void ref_unpack(const struct ref *r, long count, const char *in, char *buf)
{
    for (long k = 0; k < count; k++)
        for (long i = 0; i < r->n; i++) {
            memcpy(buf + k * r->extent + r->off[i], in, r->len[i]);
            in += r->len[i];
        }
}

#endif
