/*
 * rma.c -- MPI_Put, MPI_Get and their request forms.
 *
 * The origin copies: into or out of the shared mapping with cm_osc_copy (both
 * types contiguous) or the datatype engine's pack/unpack straight between
 * the user's buffer and the target's memory; into another process's memory
 * (Win_create, Win_create_dynamic) with one process_vm_writev/readv per
 * contiguous run of the target type.  Either way the data is at the target
 * when the call returns, so Rput/Rget hand back requests already complete.
 */
#include "osc/osc.h"
#include "osc/args.h"
#include "core/datatype.h"
#include "core/error.h"
#include "core/state.h"
#include "fe_osc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The kernel refused a single copy (or the window never had one): from now
 * on this window's operations on other ranks go as active messages (am.c),
 * as point-to-point falls back to its bounce buffers.  0, or the error
 * raised when no memory was left for the messages. */
int cm_osc_fallback(struct cm_win *w, const char *call, int rc)
{
    w->am = 1;
    return rc ? cm_win_error(w, MPI_ERR_NO_MEM, call, "no memory for the messages of an operation "
                                                      "without single copy") : MPI_SUCCESS;
}

int cm_osc_types(struct cm_win *w, const char *call, int ocount, MPI_Datatype odt, int tcount, MPI_Datatype tdt,
               struct cm_datatype **ot, struct cm_datatype **tt)
{
    if (ocount < 0 || tcount < 0)
        return cm_win_error(w, MPI_ERR_COUNT, call, "%s count %d is negative", ocount < 0 ? "origin" : "target",
                            ocount < 0 ? ocount : tcount);
    *ot = cm_dt_lookup(odt);
    if (!*ot || !(*ot)->committed)
        return cm_win_error(w, MPI_ERR_TYPE, call, "origin datatype %ld is %s", (long)(intptr_t)odt,
                            *ot ? "not committed" : "invalid");
    *tt = cm_dt_lookup(tdt);
    if (!*tt || !(*tt)->committed)
        return cm_win_error(w, MPI_ERR_TYPE, call, "target datatype %ld is %s", (long)(intptr_t)tdt,
                            *tt ? "not committed" : "invalid");
    size_t ob = (size_t)ocount * (*ot)->size, tb = (size_t)tcount * (*tt)->size;
    if (ob != tb)
        return cm_win_error(w, MPI_ERR_TYPE, call,
                            "origin data (%zu bytes) and target data (%zu bytes) differ in size", ob, tb);
    return MPI_SUCCESS;
}

int cm_osc_locate(struct cm_win *w, const char *call, int rank, MPI_Aint disp, int tcount,
                const struct cm_datatype *tt, struct cm_osc_tgt *tgt)
{
    char why[256];
    int rc = cm_osc_target(w, rank, disp, tcount, tt, tgt, why, sizeof why);
    return rc ? cm_win_error(w, rc, call, "%s", why) : MPI_SUCCESS;
}

struct cm_win *cm_osc_prepare(const char *call, MPI_Win win, int rank, MPI_Aint disp, int ocount, MPI_Datatype odt,
                              int tcount, MPI_Datatype tdt, struct cm_datatype **ot, struct cm_datatype **tt,
                              struct cm_osc_tgt *tgt, int *rc)
{
    struct cm_win *w = cm_osc_begin(win, rank, call, rc);
    if (!w || rank == MPI_PROC_NULL)
        return NULL;
    if ((*rc = cm_osc_types(w, call, ocount, odt, tcount, tdt, ot, tt)) ||
        (*rc = cm_osc_locate(w, call, rank, disp, tcount, *tt, tgt)))
        return NULL;
    if ((size_t)ocount * (*ot)->size == 0)
        return NULL;   /* nothing to move: *rc is MPI_SUCCESS */
    return w;
}

static int put(const char *call, const void *origin, int ocount, MPI_Datatype odt, int rank, MPI_Aint disp,
               int tcount, MPI_Datatype tdt, MPI_Win win)
{
    int rc;
    struct cm_datatype *ot, *tt;
    struct cm_osc_tgt tgt;
    struct cm_win *w = cm_osc_prepare(call, win, rank, disp, ocount, odt, tcount, tdt, &ot, &tt, &tgt, &rc);
    if (!w)
        return rc;
    size_t bytes = (size_t)ocount * ot->size;
    const char *src = (const char *)((uintptr_t)origin + (uintptr_t)ot->true_lb);
    if (tgt.local && ot->contig && tt->contig) {
        cm_osc_copy(tgt.local + tt->true_lb, src, bytes);
        return MPI_SUCCESS;
    }
    if (tgt.local && ot->contig) {
        cm_dt_unpack(src, bytes, tgt.local, tcount, tt);
        return MPI_SUCCESS;
    }
    if (tgt.local && tt->contig) {
        cm_dt_pack(origin, ocount, ot, tgt.local + tt->true_lb);
        return MPI_SUCCESS;
    }
    char *tmp = NULL;
    if (!ot->contig) {
        if (!(tmp = malloc(bytes)))
            return cm_win_error(w, MPI_ERR_NO_MEM, call, "no memory to pack %zu bytes", bytes);
        cm_dt_pack(origin, ocount, ot, tmp);
        src = tmp;
    }
    if (w->am || cm_osc_write(&tgt, tcount, tt, src))
        rc = cm_osc_fallback(w, call, cm_osc_am_put(w, rank, &tgt, tcount, tt, src));
    free(tmp);
    return rc;
}

static int get(const char *call, void *origin, int ocount, MPI_Datatype odt, int rank, MPI_Aint disp, int tcount,
               MPI_Datatype tdt, MPI_Win win)
{
    int rc;
    struct cm_datatype *ot, *tt;
    struct cm_osc_tgt tgt;
    struct cm_win *w = cm_osc_prepare(call, win, rank, disp, ocount, odt, tcount, tdt, &ot, &tt, &tgt, &rc);
    if (!w)
        return rc;
    size_t bytes = (size_t)ocount * ot->size;
    char *dst = (char *)((uintptr_t)origin + (uintptr_t)ot->true_lb);
    if (tgt.local && ot->contig && tt->contig) {
        cm_osc_copy(dst, tgt.local + tt->true_lb, bytes);
        return MPI_SUCCESS;
    }
    if (tgt.local && ot->contig) {
        cm_dt_pack(tgt.local, tcount, tt, dst);
        return MPI_SUCCESS;
    }
    if (tgt.local && tt->contig) {
        cm_dt_unpack(tgt.local + tt->true_lb, bytes, origin, ocount, ot);
        return MPI_SUCCESS;
    }
    char *tmp = NULL;
    if (!ot->contig && !(tmp = malloc(bytes)))
        return cm_win_error(w, MPI_ERR_NO_MEM, call, "no memory to unpack %zu bytes", bytes);
    char *into = tmp ? tmp : dst;
    if (w->am || cm_osc_read(&tgt, tcount, tt, into))
        rc = cm_osc_fallback(w, call, cm_osc_am_get(w, rank, &tgt, tcount, tt, into));
    if (!rc && tmp)
        cm_dt_unpack(tmp, bytes, origin, ocount, ot);
    free(tmp);
    return rc;
}

int cm_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
           MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    return put("MPI_Put", origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
               target_datatype, win);
}

int cm_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
           MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    return get("MPI_Get", origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
               target_datatype, win);
}

int cm_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
            MPI_Request *request)
{
    CM_ARG_NOT_NULL(MPI_COMM_WORLD, request, "MPI_Rput");
    int rc = put("MPI_Rput", origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                 target_datatype, win);
    return rc ? rc : cm_osc_done_request(request);
}

int cm_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
            MPI_Request *request)
{
    CM_ARG_NOT_NULL(MPI_COMM_WORLD, request, "MPI_Rget");
    int rc = get("MPI_Rget", origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                 target_datatype, win);
    return rc ? rc : cm_osc_done_request(request);
}
