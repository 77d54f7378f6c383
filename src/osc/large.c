/*
 * large.c -- the large-count (_c) forms of the one-sided calls (MPI-4.0).
 *
 * Counts and displacement units travel as MPI_Count/MPI_Aint; the engine
 * takes ints.  Values that fit are passed on.  Put_c and Get_c with larger
 * counts are cut into operations of at most 2^30 elements when origin and
 * target agree element for element (equal counts, types of equal size, and
 * a target extent that is a whole number of displacement units): piece k
 * starts k x 2^30 extents into both, so the pieces together are the
 * operation, with the same completion (the epoch's).  Other counts above
 * INT_MAX are refused with MPI_ERR_COUNT (or MPI_ERR_DISP) naming the call
 * and the argument -- a clear error rather than a truncated transfer.
 * Bytes are never limited: a count of a large derived type moves any size.
 */
#include "osc/osc.h"
#include "core/datatype.h"
#include "core/error.h"
#include "core/state.h"

#include <limits.h>

#pragma weak MPI_Put_c = PMPI_Put_c
#pragma weak MPI_Get_c = PMPI_Get_c
#pragma weak MPI_Accumulate_c = PMPI_Accumulate_c
#pragma weak MPI_Get_accumulate_c = PMPI_Get_accumulate_c
#pragma weak MPI_Rput_c = PMPI_Rput_c
#pragma weak MPI_Rget_c = PMPI_Rget_c
#pragma weak MPI_Raccumulate_c = PMPI_Raccumulate_c
#pragma weak MPI_Rget_accumulate_c = PMPI_Rget_accumulate_c
#pragma weak MPI_Win_allocate_c = PMPI_Win_allocate_c
#pragma weak MPI_Win_allocate_shared_c = PMPI_Win_allocate_shared_c
#pragma weak MPI_Win_create_c = PMPI_Win_create_c
#pragma weak MPI_Win_shared_query_c = PMPI_Win_shared_query_c

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

/* Put_c/Get_c above INT_MAX elements, cut in pieces (top of file); 1 when
 * they cannot be cut (the caller raises MPI_ERR_COUNT). */
static int in_pieces(int get, const void *origin, MPI_Count count, MPI_Datatype odt, int rank, MPI_Aint disp,
                     MPI_Count tcount, MPI_Datatype tdt, MPI_Win win, int *rc)
{
    struct cm_win *w = cm_win_lookup(win);
    const struct cm_datatype *ot = cm_dt_lookup(odt), *tt = cm_dt_lookup(tdt);
    if (!w || !ot || !tt || count != tcount || ot->size != tt->size || rank < 0 || rank >= w->size)
        return 1;
    MPI_Aint du = w->peer[rank].disp_unit;
    if (du <= 0 || tt->extent % du != 0)
        return 1;
    for (MPI_Count done = 0; done < count; done += PIECE) {
        int n = (int)(count - done < PIECE ? count - done : PIECE);
        const char *o = (const char *)origin + done * ot->extent;
        MPI_Aint d = disp + (MPI_Aint)(done * (tt->extent / du));
        *rc = get ? PMPI_Get((void *)(uintptr_t)o, n, odt, rank, d, n, tdt, win)
                  : PMPI_Put(o, n, odt, rank, d, n, tdt, win);
        if (*rc)
            return 0;
    }
    *rc = MPI_SUCCESS;
    return 0;
}

/* Put_c (get 0) and Get_c (get 1): in pieces, or passed on, or refused. */
static int put_or_get(int get, const char *call, const void *origin, MPI_Count ocount, MPI_Datatype odt, int rank,
                      MPI_Aint disp, MPI_Count tcount, MPI_Datatype tdt, MPI_Win win)
{
    int rc;
    if ((ocount > INT_MAX || tcount > INT_MAX) &&
        !in_pieces(get, origin, ocount, odt, rank, disp, tcount, tdt, win, &rc))
        return rc;
    if ((rc = counts_fit(win, call, ocount, tcount, 0)))
        return rc;
    return get ? PMPI_Get((void *)(uintptr_t)origin, (int)ocount, odt, rank, disp, (int)tcount, tdt, win)
               : PMPI_Put(origin, (int)ocount, odt, rank, disp, (int)tcount, tdt, win);
}

int PMPI_Put_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
               MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    CM_ENTER(Put_c);
    return put_or_get(0, "MPI_Put_c", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                      target_count, target_datatype, win);
}

int PMPI_Get_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
               MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    CM_ENTER(Get_c);
    return put_or_get(1, "MPI_Get_c", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                      target_count, target_datatype, win);
}

int PMPI_Accumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
                      MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                      MPI_Win win)
{
    CM_ENTER(Accumulate_c);
    int rc = counts_fit(win, "MPI_Accumulate_c", origin_count, target_count, 0);
    return rc ? rc : PMPI_Accumulate(origin_addr, (int)origin_count, origin_datatype, target_rank, target_disp,
                                     (int)target_count, target_datatype, op, win);
}

int PMPI_Get_accumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                          void *result_addr, MPI_Count result_count, MPI_Datatype result_datatype, int target_rank,
                          MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                          MPI_Win win)
{
    CM_ENTER(Get_accumulate_c);
    int rc = counts_fit(win, "MPI_Get_accumulate_c", origin_count, target_count, result_count);
    return rc ? rc : PMPI_Get_accumulate(origin_addr, (int)origin_count, origin_datatype, result_addr,
                                         (int)result_count, result_datatype, target_rank, target_disp,
                                         (int)target_count, target_datatype, op, win);
}

int PMPI_Rput_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
                MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win,
                MPI_Request *request)
{
    CM_ENTER(Rput_c);
    int rc = counts_fit(win, "MPI_Rput_c", origin_count, target_count, 0);
    return rc ? rc : PMPI_Rput(origin_addr, (int)origin_count, origin_datatype, target_rank, target_disp,
                               (int)target_count, target_datatype, win, request);
}

int PMPI_Rget_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
                MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win,
                MPI_Request *request)
{
    CM_ENTER(Rget_c);
    int rc = counts_fit(win, "MPI_Rget_c", origin_count, target_count, 0);
    return rc ? rc : PMPI_Rget(origin_addr, (int)origin_count, origin_datatype, target_rank, target_disp,
                               (int)target_count, target_datatype, win, request);
}

int PMPI_Raccumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                       int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype,
                       MPI_Op op, MPI_Win win, MPI_Request *request)
{
    CM_ENTER(Raccumulate_c);
    int rc = counts_fit(win, "MPI_Raccumulate_c", origin_count, target_count, 0);
    return rc ? rc : PMPI_Raccumulate(origin_addr, (int)origin_count, origin_datatype, target_rank, target_disp,
                                      (int)target_count, target_datatype, op, win, request);
}

int PMPI_Rget_accumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                           void *result_addr, MPI_Count result_count, MPI_Datatype result_datatype, int target_rank,
                           MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                           MPI_Win win, MPI_Request *request)
{
    CM_ENTER(Rget_accumulate_c);
    int rc = counts_fit(win, "MPI_Rget_accumulate_c", origin_count, target_count, result_count);
    return rc ? rc : PMPI_Rget_accumulate(origin_addr, (int)origin_count, origin_datatype, result_addr,
                                          (int)result_count, result_datatype, target_rank, target_disp,
                                          (int)target_count, target_datatype, op, win, request);
}

int PMPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    CM_ENTER(Win_allocate_c);
    int rc = unit_fits(comm, "MPI_Win_allocate_c", disp_unit);
    return rc ? rc : PMPI_Win_allocate(size, (int)disp_unit, info, comm, baseptr, win);
}

int PMPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                               MPI_Win *win)
{
    CM_ENTER(Win_allocate_shared_c);
    int rc = unit_fits(comm, "MPI_Win_allocate_shared_c", disp_unit);
    return rc ? rc : PMPI_Win_allocate_shared(size, (int)disp_unit, info, comm, baseptr, win);
}

int PMPI_Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    CM_ENTER(Win_create_c);
    int rc = unit_fits(comm, "MPI_Win_create_c", disp_unit);
    return rc ? rc : PMPI_Win_create(base, size, (int)disp_unit, info, comm, win);
}

int PMPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit, void *baseptr)
{
    CM_ENTER(Win_shared_query_c);
    if (!disp_unit)
        return PMPI_Win_shared_query(win, rank, size, NULL, baseptr);
    int du = 0;
    int rc = PMPI_Win_shared_query(win, rank, size, &du, baseptr);
    if (rc == MPI_SUCCESS)
        *disp_unit = du;
    return rc;
}
