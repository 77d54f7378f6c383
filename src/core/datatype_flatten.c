/*
 * datatype_flatten.c -- building the layout (and signature) of a new type.
 *
 * Every constructor reduces to "pieces": piece i is n[i] consecutive copies of
 * an old type placed at disp[i]; the concatenation may be repeated as a
 * vector.  The layout keeps one level of repetition symbolic (rep_count x
 * rep_stride) so that a vector -- or a contiguous run of vectors -- is never
 * expanded block by block; everything else is materialized into a block list
 * in typemap order, merging runs that touch.
 */
#include "core/datatype.h"
#include "core/dt_basic.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A layout under construction. */
struct lay {
    struct cm_dt_block *b;
    size_t nb, cap;
    size_t rc;          /* repetitions */
    MPI_Aint rs;        /* repetition stride */
};

/* Refuse layouts beyond this many blocks (16 bytes each... 24 with packed):
 * such a type is better described with vectors, and the memory is the user's. */
#define CM_DT_MAX_BLOCKS ((size_t)1 << 26)

static int lay_reserve(struct lay *L, size_t more)
{
    if (L->nb + more <= L->cap)
        return 0;
    if (L->nb + more > CM_DT_MAX_BLOCKS)
        return -1;
    size_t cap = L->cap ? L->cap : 4;
    while (cap < L->nb + more)
        cap *= 2;
    struct cm_dt_block *n = realloc(L->b, cap * sizeof *n);
    if (!n)
        return -1;
    L->b = n;
    L->cap = cap;
    return 0;
}

static int lay_append(struct lay *L, MPI_Aint disp, size_t len)
{
    if (len == 0)
        return 0;
    if (L->nb && L->b[L->nb - 1].disp + (MPI_Aint)L->b[L->nb - 1].len == disp) {
        L->b[L->nb - 1].len += len;
        return 0;
    }
    if (lay_reserve(L, 1))
        return -1;
    L->b[L->nb++] = (struct cm_dt_block){ disp, len, 0 };
    return 0;
}

/* Append n copies (stride apart, shifted) of t's element layout, fully expanded. */
static int lay_append_expanded(struct lay *L, const struct cm_datatype *t, size_t n,
                               MPI_Aint stride, MPI_Aint shift)
{
    for (size_t k = 0; k < n; k++)
        for (size_t r = 0; r < t->rep_count; r++) {
            MPI_Aint base = shift + (MPI_Aint)k * stride + (MPI_Aint)r * t->rep_stride;
            for (size_t i = 0; i < t->nblocks; i++)
                if (lay_append(L, base + t->blocks[i].disp, t->blocks[i].len))
                    return -1;
        }
    return 0;
}

/* L (empty) = n copies of t, stride apart, shifted; keeps repetition symbolic when it can. */
static int lay_repeat(struct lay *L, const struct cm_datatype *t, size_t n, MPI_Aint stride, MPI_Aint shift)
{
    L->rc = 1;
    L->rs = 0;
    if (n == 0 || t->size == 0)
        return 0;
    if (t->rep_count == 1 || n == 1 || (MPI_Aint)t->rep_count * t->rep_stride == stride) {
        if (lay_reserve(L, t->nblocks))
            return -1;
        for (size_t i = 0; i < t->nblocks; i++)
            L->b[i] = (struct cm_dt_block){ t->blocks[i].disp + shift, t->blocks[i].len, 0 };
        L->nb = t->nblocks;
        if (n == 1) {
            L->rc = t->rep_count;
            L->rs = t->rep_stride;
        } else if (t->rep_count == 1) {
            L->rc = n;
            L->rs = stride;
        } else {
            L->rc = n * t->rep_count;
            L->rs = t->rep_stride;
        }
        return 0;
    }
    /* Two levels of repetition: expand the inner one. */
    if (lay_append_expanded(L, t, 1, 0, shift))
        return -1;
    L->rc = n;
    L->rs = stride;
    return 0;
}

/* Fold what can be folded: a repeated run that touches the next repetition
 * becomes one run; an evenly spaced list of equal runs becomes a repetition. */
static void lay_normalize(struct lay *L)
{
    if (L->nb == 0) {
        L->rc = 1;
        L->rs = 0;
        return;
    }
    if (L->nb >= 2) {
        size_t len = L->b[0].len;
        MPI_Aint d = L->b[1].disp - L->b[0].disp;
        size_t i;
        for (i = 1; i < L->nb; i++)
            if (L->b[i].len != len || L->b[i].disp - L->b[i - 1].disp != d)
                break;
        if (i == L->nb && (L->rc == 1 || (MPI_Aint)L->nb * d == L->rs)) {
            L->rc *= L->nb;
            L->rs = d;
            L->nb = 1;
        }
    }
    if (L->rc == 1)
        L->rs = 0;
    if (L->nb == 1 && L->rc > 1 && L->rs == (MPI_Aint)L->b[0].len) {
        L->b[0].len *= L->rc;
        L->rc = 1;
        L->rs = 0;
    }
}

void cm_dt_set_contig(struct cm_datatype *t)
{
    t->contig = t->size == 0 ||
                (t->rep_count == 1 && t->nblocks == 1 && t->blocks[0].len == t->size &&
                 t->extent == (MPI_Aint)t->size);
}

/* Install L into t: packed offsets, true bounds, contig. */
static void install(struct cm_datatype *t, struct lay *L)
{
    lay_normalize(L);
    free(t->blocks);
    t->blocks = L->b;
    t->nblocks = L->nb;
    t->rep_count = L->rc;
    t->rep_stride = L->rs;
    L->b = NULL;
    size_t off = 0;
    MPI_Aint lo = 0, hi = 0;
    for (size_t i = 0; i < t->nblocks; i++) {
        struct cm_dt_block *b = &t->blocks[i];
        b->packed = off;
        off += b->len;
        if (i == 0 || b->disp < lo)
            lo = b->disp;
        if (i == 0 || b->disp + (MPI_Aint)b->len > hi)
            hi = b->disp + (MPI_Aint)b->len;
    }
    if (t->nblocks == 0) {
        t->true_lb = t->true_extent = 0;
    } else {
        MPI_Aint span = (MPI_Aint)(t->rep_count - 1) * t->rep_stride;
        if (span < 0)
            lo += span;
        else
            hi += span;
        t->true_lb = lo;
        t->true_extent = hi - lo;
    }
    cm_dt_set_contig(t);
}

int cm_dt_copy_layout(struct cm_datatype *t, const struct cm_datatype *old)
{
    struct lay L = { 0 };
    if (lay_repeat(&L, old, 1, 0, 0)) {
        free(L.b);
        return MPI_ERR_NO_MEM;
    }
    install(t, &L);
    return MPI_SUCCESS;
}

/* --- signature ------------------------------------------------------------- */

struct sigb {
    struct cm_dt_run *r;
    size_t n, cap;
};

static int sig_append(struct sigb *S, MPI_Datatype basic, size_t n)
{
    if (n == 0)
        return 0;
    if (S->n && S->r[S->n - 1].basic == basic) {
        S->r[S->n - 1].n += n;
        return 0;
    }
    if (S->n == S->cap) {
        size_t cap = S->cap ? 2 * S->cap : 8;
        if (cap > CM_DT_MAX_BLOCKS)
            return -1;
        struct cm_dt_run *r = realloc(S->r, cap * sizeof *r);
        if (!r)
            return -1;
        S->r = r;
        S->cap = cap;
    }
    S->r[S->n++] = (struct cm_dt_run){ basic, n };
    return 0;
}

/* Signature of a mixed result: the pieces' signatures in order. */
static int build_signature(struct cm_datatype *t, size_t np, const struct cm_datatype *const *old,
                           const size_t *n, size_t vec_count)
{
    size_t used = 0, last = 0;
    for (size_t i = 0; i < np; i++)
        if (n[i] && old[i]->size) {
            used++;
            last = i;
        }
    if (used == 1 && old[last]->basic == 0) {
        /* one mixed piece: share its runs, multiply the repetition */
        const struct cm_datatype *o = old[last];
        t->sig = malloc(o->nsig * sizeof *t->sig);
        if (!t->sig)
            return -1;
        memcpy(t->sig, o->sig, o->nsig * sizeof *t->sig);
        t->nsig = o->nsig;
        t->sig_rep = o->sig_rep * n[last] * vec_count;
        return 0;
    }
    struct sigb S = { 0 };
    for (size_t i = 0; i < np; i++) {
        const struct cm_datatype *o = old[i];
        if (!n[i] || !o->size)
            continue;
        if (o->basic) {
            if (sig_append(&S, o->basic, o->nbasic * n[i]))
                goto fail;
            continue;
        }
        for (size_t k = 0; k < o->sig_rep * n[i]; k++)
            for (size_t j = 0; j < o->nsig; j++)
                if (sig_append(&S, o->sig[j].basic, o->sig[j].n))
                    goto fail;
    }
    t->sig = S.r;
    t->nsig = S.n;
    t->sig_rep = vec_count;
    return 0;
fail:
    free(S.r);
    return -1;
}

/* --- the entry point --------------------------------------------------------- */

/* a * b + c, saturated at SIZE_MAX.  A type's size (and basic element count)
 * can exceed what any count type holds (a vector of 2^31 copies of a 2^32-byte
 * type at stride 0); it must not wrap to a small number.  SIZE_MAX stands for
 * "too large", which MPI_Type_size(_x) report as MPI_UNDEFINED. */
static size_t sat_mul_add(size_t a, size_t b, size_t c)
{
    size_t r;
    if (__builtin_mul_overflow(a, b, &r) || __builtin_add_overflow(r, c, &r))
        return SIZE_MAX;
    return r;
}

static int aint_fits(__int128 v)
{
    return v >= INT64_MIN && v <= INT64_MAX;
}

int cm_dt_build_layout(struct cm_datatype *t, size_t np, const struct cm_datatype *const *old,
                       const size_t *n, const MPI_Aint *disp, size_t vec_count, MPI_Aint vec_stride)
{
    /* size, basic elements, bounds of one repetition of the pieces */
    size_t size = 0, nbasic = 0, align = 1;
    MPI_Datatype basic = 0;
    int mixed = 0, sticky = 0;
    /* The signature class (datatype.h) of the pieces: a type that mixes
     * MPI_2INT with MPI_INT is all ints, as 3 MPI_INT are; MPI_PACKED in it
     * (class 0, matching any) makes the whole match any. */
    int cls = -1, packed = 0;
    /* Bounds: copies of types whose bounds were set by resized carry lb/ub
     * markers; when any marker is present the markers alone decide (MPI's
     * typemap rule), else the natural bounds of the pieces. */
    int any[2] = { 0, 0 };
    MPI_Aint lbs[2] = { 0, 0 }, ubs[2] = { 0, 0 };
    for (size_t i = 0; i < np; i++) {
        const struct cm_datatype *o = old[i];
        if (n[i] == 0)
            continue;
        size = sat_mul_add(n[i], o->size, size);
        nbasic = sat_mul_add(n[i], o->nbasic, nbasic);
        if (o->size) {
            if (o->basic == 0 || (basic && basic != o->basic))
                mixed = 1;
            if (!basic)
                basic = o->basic;
            packed |= o->sig_class == 0;
            cls = cls < 0 || cls == o->sig_class ? o->sig_class : CM_DT_SIG_MIXED;
        }
        if (o->align > align)
            align = o->align;
        sticky |= o->sticky_bounds;
        /* In 128 bits: the bounds must fit an MPI_Aint, checked below. */
        __int128 last = (__int128)(n[i] - 1) * o->extent;
        __int128 l128 = (__int128)disp[i] + o->lb + (last < 0 ? last : 0);
        __int128 u128 = (__int128)disp[i] + o->lb + o->extent + (last > 0 ? last : 0);
        if (!aint_fits(l128) || !aint_fits(u128))
            return MPI_ERR_COUNT;
        MPI_Aint l = (MPI_Aint)l128, u = (MPI_Aint)u128;
        int m = o->sticky_bounds;
        if (!any[m] || l < lbs[m])
            lbs[m] = l;
        if (!any[m] || u > ubs[m])
            ubs[m] = u;
        any[m] = 1;
    }
    MPI_Aint lb = any[1] ? lbs[1] : lbs[0], ub = any[1] ? ubs[1] : ubs[0];
    if (vec_count == 0) {
        size = nbasic = 0;
        lb = ub = 0;
    } else if (vec_count > 1) {
        __int128 span = (__int128)(vec_count - 1) * vec_stride;
        if (!aint_fits(span < 0 ? lb + span : ub + span))
            return MPI_ERR_COUNT;
        if (span < 0)
            lb += (MPI_Aint)span;
        else
            ub += (MPI_Aint)span;
    }
    /* The extent must fit an MPI_Aint.  The size may not fit MPI_Count: such
     * a type is a legal description (a vector at stride 0), whose
     * Type_size_c is MPI_UNDEFINED and which no call can move. */
    if (!aint_fits((__int128)ub - lb))
        return MPI_ERR_COUNT;
    if (!basic && np)
        basic = old[0]->basic;
    t->size = sat_mul_add(size, vec_count, 0);
    t->nbasic = sat_mul_add(nbasic, vec_count, 0);
    t->basic = mixed ? 0 : basic;
    t->sig_class = packed ? 0 : cls >= 0 ? (unsigned char)cls : cm_dt_sig_class_of(t->basic);
    t->align = align;
    t->sticky_bounds = sticky;
    t->lb = lb;
    t->extent = ub - lb;
    t->rep_count = 1;

    if (mixed && build_signature(t, np, old, n, vec_count))
        return MPI_ERR_NO_MEM;

    /* layout: one repetition, then the vector */
    struct lay one = { 0 }, all = { 0 };
    int rc = 0;
    if (vec_count == 0) {
        one.rc = 1;
    } else if (np == 1) {
        rc = lay_repeat(&one, old[0], n[0], old[0]->extent, disp[0]);
    } else {
        one.rc = 1;
        for (size_t i = 0; i < np && !rc; i++)
            if (n[i] && old[i]->size)
                rc = lay_append_expanded(&one, old[i], n[i], old[i]->extent, disp[i]);
    }
    if (rc)
        goto nomem;
    lay_normalize(&one);
    if (vec_count > 1) {
        struct cm_datatype tmp = { 0 };
        tmp.blocks = one.b;
        tmp.nblocks = one.nb;
        tmp.rep_count = one.rc;
        tmp.rep_stride = one.rs;
        tmp.size = size;
        if (lay_repeat(&all, &tmp, vec_count, vec_stride, 0))
            goto nomem;
        free(one.b);
        install(t, &all);
    } else {
        install(t, &one);
    }
    return MPI_SUCCESS;
nomem:
    free(one.b);
    free(all.b);
    return MPI_ERR_NO_MEM;
}

/* --- reading the signature ------------------------------------------------------ */

int cm_dt_for_each_run(const struct cm_datatype *t, size_t elements,
                       int (*fn)(MPI_Datatype basic, size_t n, void *arg), void *arg)
{
    if (t->basic)
        return t->nbasic && elements ? fn(t->basic, t->nbasic * elements, arg) : 0;
    for (size_t e = 0; e < elements * t->sig_rep; e++)
        for (size_t i = 0; i < t->nsig; i++) {
            int rc = fn(t->sig[i].basic, t->sig[i].n, arg);
            if (rc)
                return rc;
        }
    return 0;
}

/* Basic elements in one predefined element: a pair type (MPI_DOUBLE_INT, ...)
 * is a struct of a value and an int, so two (MPI-4.1 §5.1.11 counts basic
 * elements; MPICH agrees, Open MPI counts pairs). */
static long long elements_per(MPI_Datatype basic)
{
    size_t val, idx;
    return cm_dt_basic_pair_layout(basic, &val, &idx) ? 2 : 1;
}

/* Basic elements in the first `bytes` data bytes of n elements of a
 * predefined type; *rest gets what is left beyond them, or -1 when the bytes
 * end inside a basic element. */
static long long elements_in(MPI_Datatype basic, size_t n, size_t *bytes)
{
    size_t bs = cm_dt_basic_size(basic), whole = *bytes / bs;
    if (whole >= n) {
        *bytes -= n * bs;
        return (long long)n * elements_per(basic);
    }
    size_t part = *bytes - whole * bs, val, idx;
    long long count = (long long)whole * elements_per(basic);
    *bytes = 0;
    if (part == 0)
        return count;
    /* inside one element: only a pair's value may stand alone */
    if (cm_dt_basic_pair_layout(basic, &val, &idx) && part == val)
        return count + 1;
    return -1;
}

long long cm_dt_count_basic(const struct cm_datatype *t, size_t bytes)
{
    if (t->size == 0 || t->nbasic == 0)
        return 0;
    /* No bound on the count but the bytes: elements_in takes basic
     * elements, and (size_t)-1 / t->size counted elements of t, which cut
     * a type of more than 2^32 bytes short (1073741825 for 2^32 - 4 ints). */
    if (t->basic)
        return elements_in(t->basic, (size_t)-1 / cm_dt_basic_size(t->basic), &bytes);
    /* whole repetitions of the signature, then a walk through the last one */
    size_t rep_bytes = t->size / t->sig_rep;
    long long per_rep = 0;
    for (size_t i = 0; i < t->nsig; i++)
        per_rep += (long long)t->sig[i].n * elements_per(t->sig[i].basic);
    long long count = (long long)(bytes / rep_bytes) * per_rep;
    size_t rest = bytes % rep_bytes;
    for (size_t i = 0; i < t->nsig && rest; i++) {
        long long k = elements_in(t->sig[i].basic, t->sig[i].n, &rest);
        if (k < 0)
            return -1;
        count += k;
    }
    return count;
}

/* Data bytes of the first k basic elements of predefined elements of basic
 * (a lone pair value counts as one element, as in elements_in). */
static long long bytes_for(MPI_Datatype basic, long long k)
{
    long long per = elements_per(basic);
    size_t val = 0, idx;
    cm_dt_basic_pair_layout(basic, &val, &idx);
    return k / per * (long long)cm_dt_basic_size(basic) + (k % per ? (long long)val : 0);
}

long long cm_dt_bytes_of_basic(const struct cm_datatype *t, long long count)
{
    if (count <= 0 || t->nbasic == 0)
        return 0;
    if (t->basic)
        return bytes_for(t->basic, count);
    size_t rep_bytes = t->size / t->sig_rep;
    long long per_rep = 0;
    for (size_t i = 0; i < t->nsig; i++)
        per_rep += (long long)t->sig[i].n * elements_per(t->sig[i].basic);
    long long bytes = count / per_rep * (long long)rep_bytes, left = count % per_rep;
    for (size_t i = 0; i < t->nsig && left; i++) {
        long long run = (long long)t->sig[i].n * elements_per(t->sig[i].basic);
        long long k = left < run ? left : run;
        bytes += bytes_for(t->sig[i].basic, k);
        left -= k;
    }
    return bytes;
}
