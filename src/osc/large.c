/*
 * large.c -- the large-count (_c) forms of the one-sided calls (MPI-4.0).
 *
 * Counts and displacement units travel as MPI_Count/MPI_Aint; the engine
 * takes ints.  Values that fit are passed on.  The data calls (Put, Get,
 * Accumulate, Get_accumulate and their R forms) with larger counts are cut
 * into operations of at most 2^30 elements when origin, result and target
 * agree element for element (equal counts, types of equal size, and a
 * target extent that is a whole number of displacement units; with
 * MPI_NO_OP Get_accumulate's origin is not read and need not agree): piece
 * k starts k x 2^30 extents into each, so the pieces together are the
 * operation, with the same completion (the epoch's).  An R form waits for
 * the request of every piece but the last (local completion, at once here)
 * and returns the last one's.
 *
 * Cutting an accumulate is correct: MPI makes accumulates atomic per
 * element of the basic type (MPI-4.1 12.7.1), not per call, and a piece
 * boundary falls between two target elements, so every basic element is
 * updated by exactly one piece, itself atomic per element.  Ordering
 * (accumulate_ordering, by default rar,raw,war,waw) concerns operations on
 * the same location from one origin; each location is in one piece, and
 * the pieces are issued in order.  Another origin may see some pieces done
 * and others not -- as it may see a prefix of one large accumulate.
 *
 * Other counts above INT_MAX are refused with MPI_ERR_COUNT (or
 * MPI_ERR_DISP) naming the call and the argument -- a clear error rather
 * than a truncated transfer.  Bytes are never limited: a count of a large
 * derived type moves any size.
 */
#include "osc/osc.h"
#include "core/datatype.h"
#include "core/error.h"
#include "core/state.h"
#include "fe_osc.h"

#include <limits.h>

/* 0 when every count fits an int, else the error raised (on win's handler
 * when win is valid). */
static int counts_fit(MPI_Win win, const char *call, MPI_Count a, MPI_Count b, MPI_Count c)
{
    const char *arg = a > INT_MAX ? "origin_count" : b > INT_MAX ? "target_count" : c > INT_MAX ? "result_count" : NULL;
    if (!arg)
        return MPI_SUCCESS;
    MPI_Count v = a > INT_MAX ? a : b > INT_MAX ? b : c;
    struct cm_win *w = cm_win_lookup(win);
    if (w)
        return cm_win_error(w, MPI_ERR_COUNT, call, "%s %lld is above INT_MAX (use a larger datatype)", arg,
                            (long long)v);
    return cm_error(MPI_COMM_WORLD, MPI_ERR_COUNT, call, "%s %lld is above INT_MAX", arg, (long long)v);
}

static int unit_fits(MPI_Comm comm, const char *call, MPI_Aint disp_unit)
{
    if (disp_unit > INT_MAX)
        return cm_error(comm, MPI_ERR_DISP, call, "disp_unit %ld is above INT_MAX", (long)disp_unit);
    return MPI_SUCCESS;
}

#define PIECE ((MPI_Count)1 << 30)

/* One large-count data-moving call; the buffers a kind does not use are
 * NULL with count 0. */
enum big_kind { BIG_PUT, BIG_GET, BIG_ACC, BIG_GACC };
struct big_op {
    enum big_kind kind;
    const char *call;
    const void *origin;
    MPI_Count ocount;
    MPI_Datatype odt;
    void *result;
    MPI_Count rcount;
    MPI_Datatype rdt;
    int rank;
    MPI_Aint disp;
    MPI_Count tcount;
    MPI_Datatype tdt;
    MPI_Op op;
    MPI_Win win;
    MPI_Request *req;   /* the R forms, else NULL */
};

/* Does buffer (count, dt) follow the target element for element?  Its
 * extent then advances with the pieces.  0 when it cannot. */
static int follows(MPI_Count count, MPI_Datatype dt, MPI_Count tcount, const struct cm_datatype *tt, MPI_Aint *ext)
{
    const struct cm_datatype *t = cm_dt_lookup(dt);
    if (!t || count != tcount || t->size != tt->size)
        return 0;
    *ext = t->extent;
    return 1;
}

/* The int-count call for b's kind with these buffers and counts. */
static int issue(const struct big_op *b, const void *o, int on, void *r, int rn, MPI_Aint d, int tn,
                 MPI_Request *rp)
{
    switch (b->kind) {
    case BIG_PUT:
        return rp ? PMPI_Rput(o, on, b->odt, b->rank, d, tn, b->tdt, b->win, rp)
                  : PMPI_Put(o, on, b->odt, b->rank, d, tn, b->tdt, b->win);
    case BIG_GET:
        return rp ? PMPI_Rget((void *)(uintptr_t)o, on, b->odt, b->rank, d, tn, b->tdt, b->win, rp)
                  : PMPI_Get((void *)(uintptr_t)o, on, b->odt, b->rank, d, tn, b->tdt, b->win);
    case BIG_ACC:
        return rp ? PMPI_Raccumulate(o, on, b->odt, b->rank, d, tn, b->tdt, b->op, b->win, rp)
                  : PMPI_Accumulate(o, on, b->odt, b->rank, d, tn, b->tdt, b->op, b->win);
    default:
        return rp ? PMPI_Rget_accumulate(o, on, b->odt, r, rn, b->rdt, b->rank, d, tn, b->tdt, b->op, b->win, rp)
                  : PMPI_Get_accumulate(o, on, b->odt, r, rn, b->rdt, b->rank, d, tn, b->tdt, b->op, b->win);
    }
}

/* Issue piece [done, done + n) of b.  The request of an R form is waited
 * for (local completion) unless it is the last piece's, which the caller
 * gets: when that one completes, every piece has. */
static int piece(const struct big_op *b, MPI_Count done, int n, MPI_Aint oext, MPI_Aint rext, MPI_Aint tstep,
                 int origin_follows, int last)
{
    /* An origin that does not follow keeps its pointer and count (only
     * Get_accumulate's with MPI_NO_OP, which is not read). */
    const void *o = origin_follows ? (const char *)b->origin + done * oext : b->origin;
    int on = origin_follows ? n : (int)b->ocount;
    void *r = b->kind == BIG_GACC ? (char *)b->result + done * rext : NULL;
    MPI_Aint d = b->disp + (MPI_Aint)(done * tstep);
    MPI_Request rq = MPI_REQUEST_NULL;
    int rc = issue(b, o, on, r, n, d, n, b->req ? &rq : NULL);
    if (rc || !b->req)
        return rc;
    if (last) {
        *b->req = rq;
        return MPI_SUCCESS;
    }
    return PMPI_Wait(&rq, MPI_STATUS_IGNORE);
}

/* b above INT_MAX elements, cut in pieces (top of file); 1 when it cannot
 * be cut (the caller raises MPI_ERR_COUNT), else 0 with *rc the result. */
static int in_pieces(const struct big_op *b, int *rc)
{
    struct cm_win *w = cm_win_lookup(b->win);
    const struct cm_datatype *tt = cm_dt_lookup(b->tdt);
    MPI_Aint oext = 0, rext = 0;
    if (!w || !tt || b->rank < 0 || b->rank >= w->size || b->tcount <= INT_MAX)
        return 1;
    int origin_follows = follows(b->ocount, b->odt, b->tcount, tt, &oext);
    if (!origin_follows && !(b->kind == BIG_GACC && b->op == MPI_NO_OP && b->ocount <= INT_MAX))
        return 1;
    if (b->kind == BIG_GACC && !follows(b->rcount, b->rdt, b->tcount, tt, &rext))
        return 1;
    MPI_Aint du = w->peer[b->rank].disp_unit;
    if (du <= 0 || tt->extent % du != 0)
        return 1;
    for (MPI_Count done = 0; done < b->tcount; done += PIECE) {
        int n = (int)(b->tcount - done < PIECE ? b->tcount - done : PIECE);
        *rc = piece(b, done, n, oext, rext, tt->extent / du, origin_follows, done + n >= b->tcount);
        if (*rc)
            return 0;
    }
    *rc = MPI_SUCCESS;
    return 0;
}

/* Every _c data call: in pieces, or passed on, or refused.  r_form: an R
 * call, whose request must not be NULL (checked first: the pieces store
 * into it). */
static int big_call(struct big_op *b, MPI_Request *request, int r_form)
{
    int rc;
    if (r_form && !request)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, b->call, "request is NULL");
    b->req = request;
    if ((b->ocount > INT_MAX || b->tcount > INT_MAX || b->rcount > INT_MAX) && !in_pieces(b, &rc))
        return rc;
    if ((rc = counts_fit(b->win, b->call, b->ocount, b->tcount, b->rcount)))
        return rc;
    return issue(b, b->origin, (int)b->ocount, b->result, (int)b->rcount, b->disp, (int)b->tcount, b->req);
}

int cm_Put_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    struct big_op b = { BIG_PUT, "MPI_Put_c", origin_addr, origin_count, origin_datatype, NULL, 0,
                        MPI_DATATYPE_NULL, target_rank, target_disp, target_count, target_datatype, MPI_OP_NULL,
                        win, NULL };
    return big_call(&b, NULL, 0);
}

int cm_Get_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    struct big_op b = { BIG_GET, "MPI_Get_c", origin_addr, origin_count, origin_datatype, NULL, 0,
                        MPI_DATATYPE_NULL, target_rank, target_disp, target_count, target_datatype, MPI_OP_NULL,
                        win, NULL };
    return big_call(&b, NULL, 0);
}

int cm_Accumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
                    MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                    MPI_Win win)
{
    struct big_op b = { BIG_ACC, "MPI_Accumulate_c", origin_addr, origin_count, origin_datatype, NULL, 0,
                        MPI_DATATYPE_NULL, target_rank, target_disp, target_count, target_datatype, op, win, NULL };
    return big_call(&b, NULL, 0);
}

int cm_Get_accumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                        void *result_addr, MPI_Count result_count, MPI_Datatype result_datatype, int target_rank,
                        MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                        MPI_Win win)
{
    struct big_op b = { BIG_GACC, "MPI_Get_accumulate_c", origin_addr, origin_count, origin_datatype, result_addr,
                        result_count, result_datatype, target_rank, target_disp, target_count, target_datatype, op,
                        win, NULL };
    return big_call(&b, NULL, 0);
}

int cm_Rput_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win,
              MPI_Request *request)
{
    struct big_op b = { BIG_PUT, "MPI_Rput_c", origin_addr, origin_count, origin_datatype, NULL, 0,
                        MPI_DATATYPE_NULL, target_rank, target_disp, target_count, target_datatype, MPI_OP_NULL,
                        win, NULL };
    return big_call(&b, request, 1);
}

int cm_Rget_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win,
              MPI_Request *request)
{
    struct big_op b = { BIG_GET, "MPI_Rget_c", origin_addr, origin_count, origin_datatype, NULL, 0,
                        MPI_DATATYPE_NULL, target_rank, target_disp, target_count, target_datatype, MPI_OP_NULL,
                        win, NULL };
    return big_call(&b, request, 1);
}

int cm_Raccumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                     int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype,
                     MPI_Op op, MPI_Win win, MPI_Request *request)
{
    struct big_op b = { BIG_ACC, "MPI_Raccumulate_c", origin_addr, origin_count, origin_datatype, NULL, 0,
                        MPI_DATATYPE_NULL, target_rank, target_disp, target_count, target_datatype, op, win, NULL };
    return big_call(&b, request, 1);
}

int cm_Rget_accumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                         void *result_addr, MPI_Count result_count, MPI_Datatype result_datatype, int target_rank,
                         MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                         MPI_Win win, MPI_Request *request)
{
    struct big_op b = { BIG_GACC, "MPI_Rget_accumulate_c", origin_addr, origin_count, origin_datatype, result_addr,
                        result_count, result_datatype, target_rank, target_disp, target_count, target_datatype, op,
                        win, NULL };
    return big_call(&b, request, 1);
}

int cm_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    int rc = unit_fits(comm, "MPI_Win_allocate_c", disp_unit);
    return rc ? rc : PMPI_Win_allocate(size, (int)disp_unit, info, comm, baseptr, win);
}

int cm_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                             MPI_Win *win)
{
    int rc = unit_fits(comm, "MPI_Win_allocate_shared_c", disp_unit);
    return rc ? rc : PMPI_Win_allocate_shared(size, (int)disp_unit, info, comm, baseptr, win);
}

int cm_Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    int rc = unit_fits(comm, "MPI_Win_create_c", disp_unit);
    return rc ? rc : PMPI_Win_create(base, size, (int)disp_unit, info, comm, win);
}

int cm_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit, void *baseptr)
{
    if (!disp_unit)
        return PMPI_Win_shared_query(win, rank, size, NULL, baseptr);
    int du = 0;
    int rc = PMPI_Win_shared_query(win, rank, size, &du, baseptr);
    if (rc == MPI_SUCCESS)
        *disp_unit = du;
    return rc;
}
