/*
 * win.c -- the window handle table and raising errors on a window.
 *
 * Handles are core/handle.h's kind CM_H_WIN: index 0 is MPI_WIN_NULL, and a
 * freed slot is reused.
 */
#include "osc/osc.h"
#include "core/error.h"
#include "core/handle.h"
#include "core/state.h"
#include "core/thread.h"
#include "shm/fault.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static struct cm_win **table;   /* [0] stays NULL: MPI_WIN_NULL */
static int table_len, table_cap;
/* MPI_THREAD_MULTIPLE: windows created and freed by several threads (on
 * different communicators); lookups take no lock (core/thread.h). */
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

struct cm_win *cm_win_lookup(MPI_Win h)
{
    int i = cm_win_index(h);
    if (i <= 0 || i >= CM_RACY_LOAD(table_len))
        return NULL;
    return CM_RACY_LOAD(CM_RACY_LOAD(table)[i]);
}

MPI_Win cm_win_register(struct cm_win *w)
{
    cm_mt_lock(&table_lock);
    CM_FAULT(mt_win);   /* another thread must not claim the same slot */
    int i = table_len < CM_H_INDEX_MAX ? cm_table_claim((void ***)&table, &table_len, &table_cap, 1, 16, w) : -1;
    if (i >= 0)
        w->handle = cm_win_handle(i);
    cm_mt_unlock(&table_lock);
    return i < 0 ? MPI_WIN_NULL : w->handle;
}

void cm_win_unregister(struct cm_win *w)
{
    int i = cm_win_index(w->handle);
    cm_mt_lock(&table_lock);
    if (i > 0 && i < table_len && table[i] == w)
        __atomic_store_n(&table[i], NULL, __ATOMIC_RELAXED);
    cm_mt_unlock(&table_lock);
}

struct cm_win *cm_win_check(MPI_Win h, const char *call, int *rc)
{
    struct cm_win *w = cm_win_lookup(h);
    if (!w)
        *rc = cm_error(MPI_COMM_WORLD, MPI_ERR_WIN, call, "invalid window %ld", (long)(intptr_t)h);
    return w;
}

struct cm_win *cm_win_enter(MPI_Win h, const char *call, int *rc)
{
    if ((*rc = cm_check_initialized(call)) != MPI_SUCCESS)
        return NULL;
    return cm_win_check(h, call, rc);
}

int cm_win_error(struct cm_win *w, int errclass, const char *call, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    MPI_Win h = w->handle;
    return cm_error_on(w->errh, &h, errclass, call, "%s", msg);
}
