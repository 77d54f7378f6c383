/*
 * acc.c -- the accumulate family: Accumulate, Get_accumulate, Fetch_and_op,
 * Compare_and_swap, Raccumulate, Rget_accumulate.
 *
 * Atomicity per element (MPI-4.1 12.7.1: concurrent accumulates to the same
 * location with the same basic type are atomic per element).  Every
 * accumulate applies the op's own vectorised kernel (core/op.h) to whole
 * arrays with plain loads and stores; what makes it atomic is that no other
 * accumulate can touch the target at the same time:
 *   - exclusive: the origin holds an exclusive lock on the target (with or
 *     without MPI_MODE_NOCHECK) and is single-threaded: no other epoch may
 *     reach the target (12.5.3), so nothing runs concurrently with it;
 *   - locked: otherwise (shared lock, lock_all, fence, PSCW, or threads)
 *     the whole operation holds the target's accumulate lock, a word in the
 *     control area -- the lock every other path to that target takes too
 *     (user-memory windows through the kernel, the active-message handler
 *     of am.c, Compare_and_swap).
 * No path updates elements with CPU atomics, so none can interleave with a
 * holder of the lock (docs/osc.md, "Accumulate atomicity").
 */
#include "osc/osc.h"
#include "osc/args.h"
#include "core/datatype.h"
#include "core/error.h"
#include "core/op.h"
#include "core/state.h"
#include "core/thread.h"
#include "fe_osc.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ---- the accumulate lock ------------------------------------------------- */

static int try_acc(void *p)
{
    uint32_t zero = 0;
    return atomic_compare_exchange_strong((_Atomic uint32_t *)p, &zero, 1);
}

static void acc_lock(struct cm_win *w, int rank)
{
    _Atomic uint32_t *word = &w->rctl[rank].acc;
    if (!try_acc(word))
        cm_osc_wait(word, &w->rctl[rank].acc_sleepers, try_acc, word, w->world_of[rank]);
}

static void acc_unlock(struct cm_win *w, int rank)
{
    atomic_store(&w->rctl[rank].acc, 0);
    cm_osc_wake(&w->rctl[rank].acc, &w->rctl[rank].acc_sleepers);
}

/* ---- element kinds and exclusivity ---------------------------------------- */

/* Does this origin's epoch alone reach rank's memory now?  An exclusive
 * lock excludes every other origin's epoch on rank (a target's own calls
 * need an epoch too); threads of this process are not excluded. */
static int exclusive(const struct cm_win *w, int rank)
{
    return !cm_mt && w->lock && (w->lock[rank] & 3) == CM_OSC_LOCK_EXCL;
}

/* ---- one element -------------------------------------------------------- */

/* The largest power of two that divides the extent, at most 16: the C
 * type's alignment for every predefined type (a pair's struct is aligned
 * as its larger field). */
static size_t kernel_align(MPI_Aint extent)
{
    size_t a = 1;
    while (a < 16 && extent % (MPI_Aint)(2 * a) == 0)
        a *= 2;
    return a;
}

void cm_osc_elem_init(struct cm_osc_elem *e, MPI_Op op, MPI_Datatype basic)
{
    MPI_Aint extent = cm_dt_lookup(basic)->extent;
    e->op = op;
    e->basic = basic;
    e->extent = extent;
    e->align = kernel_align(extent);
}

/* n elements in place (the caller holds the accumulate lock or an
 * exclusive epoch): old values
 * to `old` first when asked.  t and o hold elements back to back, es bytes
 * apart: packed data (origin, result, and a user-memory target read through
 * the kernel) has no padding.  The op kernels of core/op.h want arrays of
 * the C type, extent bytes apart and aligned: a pair type (MPI_DOUBLE_INT:
 * 12 bytes of data, extent 16) or a misaligned element goes one at a time
 * through aligned copies of its extent, and only its es bytes of data are
 * written back (a target's padding is not the op's to change). */
void cm_osc_apply_locked(char *t, const char *o, char *old, size_t n, size_t es, const struct cm_osc_elem *e)
{
    if (old)
        memcpy(old, t, n * es);
    if (e->op == MPI_REPLACE) {
        memcpy(t, o, n * es);
    } else if (e->op != MPI_NO_OP) {
        size_t al = e->align;
        if ((size_t)e->extent == es && ((uintptr_t)t & (al - 1)) == 0 && ((uintptr_t)o & (al - 1)) == 0) {
            cm_op_apply(e->op, e->basic, o, t, n);
            return;
        }
        union { max_align_t a; long double ld; unsigned char b[64]; } tt, oo;
        for (size_t i = 0; i < n; i++) {
            memset(&tt, 0, sizeof tt);
            memset(&oo, 0, sizeof oo);
            memcpy(tt.b, t + i * es, es);
            memcpy(oo.b, o + i * es, es);
            cm_op_apply(e->op, e->basic, oo.b, tt.b, 1);
            memcpy(t + i * es, tt.b, es);
        }
    }
}

/* ---- walking the target's blocks in shared memory ------------------------- */

struct walk {
    char *base;          /* the target location (tgt.local) */
    const char *o;       /* packed origin, advancing */
    char *old;           /* packed result, advancing, or NULL */
    size_t es;           /* element size */
    struct cm_osc_elem e;
};

static int walk_block(MPI_Aint off, size_t len, void *p)
{
    struct walk *k = p;
    char *t = k->base + off;
    cm_osc_apply_locked(t, k->o, k->old, len / k->es, k->es, &k->e);
    if (k->o)
        k->o += len;
    if (k->old)
        k->old += len;
    return 0;
}

struct acc_args {
    const void *origin;
    int ocount;
    MPI_Datatype odt;
    void *result;        /* NULL: Accumulate */
    int rcount;
    MPI_Datatype rdt;
    int rank;
    MPI_Aint disp;
    int tcount;
    MPI_Datatype tdt;
    MPI_Op op;
};

/* ---- the common case in one pass ------------------------------------------ */

/* Get_accumulate's copy of the old values, then the op, in pieces of 32 KiB:
 * each piece of the target is still in the L1 cache when the op reads it
 * back, so a large call reads the target from memory once, not twice. */
#define FETCH_PIECE 32768
static void fetch_then_apply(cm_op_kernel_fn k, const char *o, char *t, char *old, size_t n, size_t es)
{
    size_t per = FETCH_PIECE / es;
    for (size_t i = 0; i < n; i += per) {
        size_t m = n - i < per ? n - i : per;
        memcpy(old + i * es, t + i * es, m * es);
        k(o ? o + i * es : NULL, t + i * es, m);
    }
}

/* A target element range this process reaches by loads and stores, or NULL:
 * a window of memory mapped here (not dynamic), bytes inside the target's
 * part, aligned for the C type.  NULL sends the call down the general path,
 * which also raises every error. */
static char *fast_target(const struct cm_win *w, int rank, MPI_Aint disp, size_t bytes, size_t align)
{
    const struct cm_osc_peer *p = &w->peer[rank];
    if (!p->local || w->flavor == MPI_WIN_FLAVOR_DYNAMIC || disp < 0)
        return NULL;
    MPI_Aint off = disp * (MPI_Aint)p->disp_unit;
    if (off < 0 || (MPI_Aint)bytes > p->size - off)
        return NULL;
    char *t = p->local + off;
    return ((uintptr_t)t & (align - 1)) ? NULL : t;
}

/* The basic type a fast call works on: one predefined type whose size is its
 * extent (no pair type), at most 16 bytes; else NULL. */
static const struct cm_datatype *fast_type(MPI_Datatype dt)
{
    const struct cm_datatype *t = cm_dt_lookup(dt);
    return t && t->predefined && (MPI_Aint)t->size == t->extent && t->size <= 16 ? t : NULL;
}

static int aligned(const void *p, size_t align)
{
    return ((uintptr_t)p & (align - 1)) == 0;
}

/* Accumulate, Get_accumulate and Fetch_and_op with one predefined type for
 * origin, result and target, equal counts, on a target mapped here: the
 * checks, the lookup and the op in one pass (the general path spends some
 * 800 instructions on one element).  The same atomicity as the general
 * path: the whole call under the target's accumulate word unless this
 * origin's exclusive lock excludes every other epoch.  Returns -1 without
 * having done anything when the call does not fit (errors included). */
static int acc_fast(const char *call, const struct acc_args *x, MPI_Win win)
{
    if (x->odt != x->tdt || x->ocount != x->tcount || x->tcount <= 0 || x->rank < 0 ||
        (x->result && (x->rdt != x->tdt || x->rcount != x->tcount)) || !cm_op_is_predefined(x->op) ||
        (x->result == NULL) != (x->rdt == MPI_DATATYPE_NULL))
        return -1;
    const struct cm_datatype *t = fast_type(x->tdt);
    if (!t)
        return -1;
    cm_op_kernel_fn k = cm_op_predefined_kernel(x->op, x->tdt);
    size_t al = kernel_align((MPI_Aint)t->size), bytes = (size_t)x->tcount * t->size;
    if (!k || (x->op != MPI_NO_OP && (!x->origin || !aligned(x->origin, al))) ||
        (x->result && !aligned(x->result, al)))
        return -1;
    int rc;
    struct cm_win *w = cm_osc_begin(win, x->rank, call, &rc);
    if (!w)
        return rc;
    char *tgt = fast_target(w, x->rank, x->disp, bytes, al);
    if (!tgt)
        return -1;
    int excl = exclusive(w, x->rank);
    if (!excl)
        acc_lock(w, x->rank);
    if (x->result)
        fetch_then_apply(k, x->origin, tgt, x->result, (size_t)x->tcount, t->size);
    else
        k(x->origin, tgt, (size_t)x->tcount);
    if (!excl)
        acc_unlock(w, x->rank);
    return MPI_SUCCESS;
}

/* ---- the general operation ------------------------------------------------- */


static int check_op(struct cm_win *w, const char *call, MPI_Op op, MPI_Datatype basic)
{
    if (!cm_op_is_predefined(op))
        return cm_win_error(w, MPI_ERR_OP, call, "op %ld: one-sided accumulates take predefined operations only",
                            (long)(intptr_t)op);
    if (op != MPI_REPLACE && op != MPI_NO_OP && !cm_op_allowed(op, basic))
        return cm_win_error(w, MPI_ERR_OP, call, "%s is not defined on the target's basic type", cm_op_name(op));
    return MPI_SUCCESS;
}

static int accumulate(const char *call, const struct acc_args *x, MPI_Win win)
{
    int rc = acc_fast(call, x, win);
    if (rc >= 0)
        return rc;
    struct cm_win *w = cm_osc_begin(win, x->rank, call, &rc);
    if (!w || x->rank == MPI_PROC_NULL)
        return w ? MPI_SUCCESS : rc;
    struct cm_datatype *ot = NULL, *tt, *rt = NULL;
    int noop = x->op == MPI_NO_OP;
    /* MPI_NO_OP ignores the origin: the target alone is checked then */
    if ((rc = cm_osc_types(w, call, noop ? x->tcount : x->ocount, noop ? x->tdt : x->odt, x->tcount, x->tdt, &ot,
                           &tt)))
        return rc;
    if (x->result && (rc = cm_osc_types(w, call, x->rcount, x->rdt, x->tcount, x->tdt, &rt, &tt)))
        return rc;
    /* No element to combine: the op is never applied, so any valid op goes
     * (a user op, or one not defined on the type, as with count 0 in a
     * reduction) */
    if ((size_t)x->tcount * tt->size == 0)
        return cm_op_is_valid(x->op) ? MPI_SUCCESS
                                     : cm_win_error(w, MPI_ERR_OP, call, "invalid op %ld", (long)(intptr_t)x->op);
    MPI_Datatype basic = tt->basic;
    if (!basic || (!noop && ot->basic != basic))
        return cm_win_error(w, MPI_ERR_TYPE, call, "the %s datatype is not made of one predefined type%s",
                            !basic ? "target" : "origin", basic ? " (the target's)" : "");
    if ((rc = check_op(w, call, x->op, basic)))
        return rc;
    struct cm_osc_tgt tgt;
    if ((rc = cm_osc_locate(w, call, x->rank, x->disp, x->tcount, tt, &tgt)))
        return rc;
    size_t bytes = (size_t)x->tcount * tt->size;
    if (!bytes)
        return MPI_SUCCESS;
    size_t es = cm_dt_lookup(basic)->size;
    char *opack = NULL, *rpack = NULL, *tbuf = NULL;
    const char *o = NULL;
    if (!noop) {
        o = (const char *)((uintptr_t)x->origin + (uintptr_t)ot->true_lb);
        if (!ot->contig) {
            if (!(opack = malloc(bytes)))
                return cm_win_error(w, MPI_ERR_NO_MEM, call, "out of memory");
            cm_dt_pack(x->origin, x->ocount, ot, opack);
            o = opack;
        }
    }
    char *r = NULL;
    if (x->result) {
        r = (char *)((uintptr_t)x->result + (uintptr_t)rt->true_lb);
        if (!rt->contig && !(r = rpack = malloc(bytes))) {
            free(opack);
            return cm_win_error(w, MPI_ERR_NO_MEM, call, "out of memory");
        }
    }
    MPI_Aint extent = cm_dt_lookup(basic)->extent;
    struct cm_osc_elem e = { x->op, basic, extent, kernel_align(extent) };
    int excl = exclusive(w, x->rank);
    if (!tgt.local && w->am) {
        rc = cm_osc_fallback(w, call, cm_osc_am_acc(w, x->rank, &tgt, x->tcount, tt, &e, o, r));
    } else {
        int refused = 0;
        if (!excl)
            acc_lock(w, x->rank);
        if (tgt.local) {
            struct walk k = { tgt.local, o, r, es, e };
            cm_osc_for_each_block(x->tcount, tt, walk_block, &k);
        } else if (!(tbuf = malloc(bytes))) {
            rc = cm_win_error(w, MPI_ERR_NO_MEM, call, "out of memory");
        } else if (cm_osc_read(&tgt, x->tcount, tt, tbuf)) {
            refused = 1;   /* nothing changed at the target: the messages redo it all */
        } else {
            cm_osc_apply_locked(tbuf, o, r, bytes / es, es, &e);
            /* a refusal after a granted read of the same process is not
             * expected; the messages would apply the operation once more */
            refused = !noop && cm_osc_write(&tgt, x->tcount, tt, tbuf);
        }
        if (!excl)
            acc_unlock(w, x->rank);
        if (refused)
            rc = cm_osc_fallback(w, call, cm_osc_am_acc(w, x->rank, &tgt, x->tcount, tt, &e, o, r));
    }
    if (!rc && rpack)
        cm_dt_unpack(rpack, bytes, x->result, x->rcount, rt);
    free(opack);
    free(rpack);
    free(tbuf);
    return rc;
}

int cm_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                  MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    struct acc_args x = { origin_addr, origin_count, origin_datatype, NULL, 0, MPI_DATATYPE_NULL, target_rank,
                          target_disp, target_count, target_datatype, op };
    return accumulate("MPI_Accumulate", &x, win);
}

int cm_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr,
                      int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                      int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    struct acc_args x = { origin_addr, origin_count, origin_datatype, result_addr, result_count, result_datatype,
                          target_rank, target_disp, target_count, target_datatype, op };
    return accumulate("MPI_Get_accumulate", &x, win);
}

int cm_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype, int target_rank,
                    MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
    struct acc_args x = { origin_addr, 1, datatype, result_addr, 1, datatype, target_rank, target_disp, 1, datatype,
                          op };
    return accumulate("MPI_Fetch_and_op", &x, win);
}

int cm_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                   MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                   MPI_Request *request)
{
    CM_ARG_NOT_NULL(MPI_COMM_WORLD, request, "MPI_Raccumulate");
    struct acc_args x = { origin_addr, origin_count, origin_datatype, NULL, 0, MPI_DATATYPE_NULL, target_rank,
                          target_disp, target_count, target_datatype, op };
    int rc = accumulate("MPI_Raccumulate", &x, win);
    return rc ? rc : cm_osc_done_request(request);
}

int cm_Rget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr,
                       int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                       int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
    CM_ARG_NOT_NULL(MPI_COMM_WORLD, request, "MPI_Rget_accumulate");
    struct acc_args x = { origin_addr, origin_count, origin_datatype, result_addr, result_count, result_datatype,
                          target_rank, target_disp, target_count, target_datatype, op };
    int rc = accumulate("MPI_Rget_accumulate", &x, win);
    return rc ? rc : cm_osc_done_request(request);
}

/* ---- compare and swap --------------------------------------------------------- */

/* Compare_and_swap's common case in one pass (as acc_fast): a predefined
 * single-element type on a target mapped here.  Returns 0 without having
 * done anything when the call does not fit. */
static int cas_fast(const void *origin, const void *compare, void *result, MPI_Datatype dt, int rank, MPI_Aint disp,
                    MPI_Win win, int *rc)
{
    const struct cm_datatype *t = fast_type(dt);
    if (!t || !origin || !compare || !result || rank < 0)
        return 0;
    struct cm_win *w = cm_osc_begin(win, rank, "MPI_Compare_and_swap", rc);
    if (!w)
        return 1;
    char *tgt = fast_target(w, rank, disp, t->size, kernel_align((MPI_Aint)t->size));
    if (!tgt)
        return 0;
    char old[16];
    int excl = exclusive(w, rank);
    if (!excl)
        acc_lock(w, rank);
    memcpy(old, tgt, t->size);
    if (memcmp(old, compare, t->size) == 0)
        memcpy(tgt, origin, t->size);
    if (!excl)
        acc_unlock(w, rank);
    memcpy(result, old, t->size);
    return 1;
}

int cm_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr, MPI_Datatype datatype,
                        int target_rank, MPI_Aint target_disp, MPI_Win win)
{
    static const char call[] = "MPI_Compare_and_swap";
    int rc;
    if (cas_fast(origin_addr, compare_addr, result_addr, datatype, target_rank, target_disp, win, &rc))
        return rc;
    struct cm_datatype *t, *t2;
    struct cm_osc_tgt tgt;
    struct cm_win *w = cm_osc_prepare(call, win, target_rank, target_disp, 1, datatype, 1, datatype, &t, &t2, &tgt,
                                      &rc);
    if (!w)
        return rc;
    if (!t->predefined || (MPI_Aint)t->size != t->extent || t->size > 16)
        return cm_win_error(w, MPI_ERR_TYPE, call, "datatype %ld is not a predefined single-element type",
                            (long)(intptr_t)datatype);
    if (!origin_addr || !compare_addr || !result_addr)
        return cm_win_error(w, MPI_ERR_BUFFER, call, "%s is NULL",
                            !origin_addr ? "origin_addr" : !compare_addr ? "compare_addr" : "result_addr");
    size_t es = t->size;
    int excl = exclusive(w, target_rank);
    char old[16];
    int refused = 1;
    if (tgt.local || !w->am) {
        if (!excl)
            acc_lock(w, target_rank);
        refused = cm_osc_read(&tgt, 1, t, old) != 0;
        if (!refused && memcmp(old, compare_addr, es) == 0)
            refused = cm_osc_write(&tgt, 1, t, origin_addr) != 0;
        if (!excl)
            acc_unlock(w, target_rank);
    }
    if (refused)
        return cm_osc_fallback(w, call, cm_osc_am_cas(w, target_rank, &tgt, t, origin_addr, compare_addr,
                                                      result_addr));
    memcpy(result_addr, old, es);
    return MPI_SUCCESS;
}
