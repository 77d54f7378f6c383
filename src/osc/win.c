/*
 * win.c -- the window handle table and raising errors on a window.
 *
 * Handles are core/handle.h's kind CM_H_WIN: index 0 is MPI_WIN_NULL, and a
 * freed slot is reused.  Only this process's calls touch the table (thread
 * levels above SERIALIZED do not apply to windows here; docs/osc.md).
 */
#include "osc/osc.h"
#include "core/error.h"
#include "core/handle.h"
#include "core/state.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static struct cm_win **table;   /* [0] stays NULL: MPI_WIN_NULL */
static int table_len;

struct cm_win *cm_win_lookup(MPI_Win h)
{
    int i = cm_win_index(h);
    if (i <= 0 || i >= table_len)
        return NULL;
    return table[i];
}

MPI_Win cm_win_register(struct cm_win *w)
{
    int i;
    for (i = 1; i < table_len; i++)
        if (!table[i])
            break;
    if (i >= table_len) {
        int n = table_len ? 2 * table_len : 16;
        if (n > CM_H_INDEX_MAX)
            return MPI_WIN_NULL;
        struct cm_win **t = realloc(table, (size_t)n * sizeof *t);
        if (!t)
            return MPI_WIN_NULL;
        for (int j = table_len; j < n; j++)
            t[j] = NULL;
        table = t;
        i = table_len ? table_len : 1;
        table_len = n;
    }
    table[i] = w;
    w->handle = cm_win_handle(i);
    return w->handle;
}

void cm_win_unregister(struct cm_win *w)
{
    int i = cm_win_index(w->handle);
    if (i > 0 && i < table_len && table[i] == w)
        table[i] = NULL;
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
