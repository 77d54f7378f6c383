/*
 * dynamic.c -- Win_attach and Win_detach on dynamic windows.
 *
 * The owner publishes its attached regions in its line of the control
 * area under a sequence count (odd while it writes); origins check every
 * access against them (xfer.c) and then reach the memory with single
 * copies, so attaching needs no message to anyone.
 */
#include "osc/osc.h"
#include "core/error.h"
#include "core/state.h"
#include "fe_osc.h"

static struct cm_win *dyn_window(MPI_Win win, const char *call, int *rc)
{
    if ((*rc = cm_check_initialized(call)) != MPI_SUCCESS)
        return NULL;
    struct cm_win *w = cm_win_check(win, call, rc);
    if (w && w->flavor != MPI_WIN_FLAVOR_DYNAMIC) {
        *rc = cm_win_error(w, MPI_ERR_RMA_FLAVOR, call,
                           "window %ld was not made by MPI_Win_create_dynamic", (long)(intptr_t)win);
        return NULL;
    }
    return w;
}

int cm_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    CM_CALL_LOOKUP(struct cm_win, w, "MPI_Win_attach", dyn_window, win);
    if (size < 0)
        return cm_win_error(w, MPI_ERR_SIZE, call, "size %ld is negative", (long)size);
    if (!base && size > 0)
        return cm_win_error(w, MPI_ERR_BASE, call, "base is NULL");
    struct cm_osc_rank_ctl *me = &w->rctl[w->rank];
    struct cm_osc_region *reg = w->dyn + (size_t)w->rank * CM_OSC_DYN_MAX;
    uint64_t b = (uint64_t)(uintptr_t)base, e = b + (uint64_t)size;
    for (uint32_t i = 0; i < me->dyn_count; i++)
        if (b < reg[i].base + reg[i].size && reg[i].base < e)
            return cm_win_error(w, MPI_ERR_RMA_ATTACH, call, "[%p, +%ld) overlaps a region already attached", base,
                                (long)size);
    if (me->dyn_count >= CM_OSC_DYN_MAX)
        return cm_win_error(w, MPI_ERR_RMA_ATTACH, call,
                            "rank %d already has %d regions attached to window %ld, the most a rank may "
                            "(detach one first)",
                            w->rank, CM_OSC_DYN_MAX, (long)(intptr_t)win);
    atomic_fetch_add(&me->dyn_seq, 1);
    reg[me->dyn_count].base = b;
    reg[me->dyn_count].size = (uint64_t)size;
    me->dyn_count++;
    atomic_fetch_add(&me->dyn_seq, 1);
    return MPI_SUCCESS;
}

int cm_Win_detach(MPI_Win win, const void *base)
{
    CM_CALL_LOOKUP(struct cm_win, w, "MPI_Win_detach", dyn_window, win);
    struct cm_osc_rank_ctl *me = &w->rctl[w->rank];
    struct cm_osc_region *reg = w->dyn + (size_t)w->rank * CM_OSC_DYN_MAX;
    uint64_t b = (uint64_t)(uintptr_t)base;
    for (uint32_t i = 0; i < me->dyn_count; i++) {
        if (reg[i].base == b) {
            atomic_fetch_add(&me->dyn_seq, 1);
            me->dyn_count--;
            reg[i] = reg[me->dyn_count];
            atomic_fetch_add(&me->dyn_seq, 1);
            return MPI_SUCCESS;
        }
    }
    return cm_win_error(w, MPI_ERR_RMA_ATTACH, call, "%p is not the base of a region attached here", base);
}
