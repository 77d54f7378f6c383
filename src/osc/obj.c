/*
 * obj.c -- a window as an object: its group, name, info, attributes
 * (keyvals shared with core/attr.c, kind CM_ATTR_WIN) and error handler.
 *
 * The predefined attributes (MPI_WIN_BASE, SIZE, DISP_UNIT, CREATE_FLAVOR,
 * MODEL) are answered here from the window, never stored: BASE is the base
 * address itself, the others a pointer to the value (MPI-4.1 12.2.6).  The
 * model is always MPI_WIN_UNIFIED: there is one copy of every window's
 * memory, and the CPU keeps it coherent.
 */
#include "osc/osc.h"
#include "core/attr.h"
#include "core/error.h"
#include "core/info.h"
#include "core/state.h"
#include "fe_osc.h"

#include <stdlib.h>
#include <string.h>

static struct cm_attr_obj obj_of(struct cm_win *w)
{
    return (struct cm_attr_obj){ .kind = CM_ATTR_WIN, .win = w->handle, .attrs = &w->attrs };
}

int cm_osc_free_attrs(struct cm_win *w)
{
    struct cm_attr_obj o = obj_of(w);
    return cm_attr_obj_delete_all(&o);
}

int cm_Win_get_group(MPI_Win win, MPI_Group *group)
{
    CM_CALL_LOOKUP(struct cm_win, w, "MPI_Win_get_group", cm_win_enter, win);
    if (!group)
        return cm_win_error(w, MPI_ERR_ARG, call, "group is NULL");
    /* a new handle the caller frees, as Comm_group gives */
    int n = w->size, *ranks = malloc((size_t)n * sizeof *ranks);
    if (!ranks)
        return cm_win_error(w, MPI_ERR_NO_MEM, call, "out of memory");
    for (int i = 0; i < n; i++)
        ranks[i] = i;
    rc = PMPI_Group_incl(w->group, n, ranks, group);
    free(ranks);
    return rc;
}

int cm_Win_set_name(MPI_Win win, const char *win_name)
{
    CM_CALL_LOOKUP(struct cm_win, w, "MPI_Win_set_name", cm_win_enter, win);
    if (!win_name)
        return cm_win_error(w, MPI_ERR_ARG, call, "win_name is NULL");
    strncpy(w->name, win_name, sizeof w->name - 1);
    w->name[sizeof w->name - 1] = 0;
    return MPI_SUCCESS;
}

int cm_Win_get_name(MPI_Win win, char *win_name, int *resultlen)
{
    static const char call[] = "MPI_Win_get_name";
    int rc;
    /* MPI-4.1 section 7.8: the null handle is named after itself */
    if (win == MPI_WIN_NULL) {
        if ((rc = cm_check_initialized(call)))
            return rc;
        if (!win_name || !resultlen)
            return cm_error(MPI_COMM_SELF, MPI_ERR_ARG, call, "%s is NULL", !win_name ? "win_name" : "resultlen");
        strcpy(win_name, "MPI_WIN_NULL");
        *resultlen = (int)strlen(win_name);
        return MPI_SUCCESS;
    }
    struct cm_win *w = cm_win_enter(win, call, &rc);
    if (!w)
        return rc;
    if (!win_name || !resultlen)
        return cm_win_error(w, MPI_ERR_ARG, call, "%s is NULL", !win_name ? "win_name" : "resultlen");
    strcpy(win_name, w->name);
    *resultlen = (int)strlen(w->name);
    return MPI_SUCCESS;
}

int cm_Win_set_info(MPI_Win win, MPI_Info info)
{
    CM_CALL_LOOKUP(struct cm_win, w, "MPI_Win_set_info", cm_win_enter, win);
    MPI_Info copy;
    if (cm_info_copy(info, &copy) != MPI_SUCCESS)
        return cm_win_error(w, MPI_ERR_INFO, call, "invalid info %ld", (long)(intptr_t)info);
    cm_info_release(w->info);
    w->info = copy;
    return MPI_SUCCESS;
}

int cm_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
    CM_CALL_LOOKUP(struct cm_win, w, "MPI_Win_get_info", cm_win_enter, win);
    if (!info_used)
        return cm_win_error(w, MPI_ERR_ARG, call, "info_used is NULL");
    if (cm_info_copy(w->info, info_used) != MPI_SUCCESS)
        return cm_win_error(w, MPI_ERR_NO_MEM, call, "out of memory");
    return MPI_SUCCESS;
}

int cm_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn, MPI_Win_delete_attr_function *win_delete_attr_fn,
                         int *win_keyval, void *extra_state)
{
    static const char call[] = "MPI_Win_create_keyval";
    int rc = cm_check_initialized(call);
    return rc ? rc
              : cm_attr_keyval_create(CM_ATTR_WIN, (void (*)(void))win_copy_attr_fn, (void (*)(void))win_delete_attr_fn,
                                      win_keyval, extra_state, call);
}

int cm_Win_free_keyval(int *win_keyval)
{
    static const char call[] = "MPI_Win_free_keyval";
    int rc = cm_check_initialized(call);
    return rc ? rc : cm_attr_keyval_free(CM_ATTR_WIN, win_keyval, call);
}

static int predefined_key(int k)
{
    return k == MPI_WIN_BASE || k == MPI_WIN_SIZE || k == MPI_WIN_DISP_UNIT || k == MPI_WIN_CREATE_FLAVOR ||
           k == MPI_WIN_MODEL;
}

int cm_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val)
{
    CM_CALL_LOOKUP(struct cm_win, w, "MPI_Win_set_attr", cm_win_enter, win);
    if (predefined_key(win_keyval))
        return cm_win_error(w, MPI_ERR_KEYVAL, call, "keyval %d is a predefined window attribute, which cannot be set",
                            win_keyval);
    struct cm_attr_obj o = obj_of(w);
    return cm_attr_set(&o, win_keyval, attribute_val, call);
}

int cm_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag)
{
    static const char call[] = "MPI_Win_get_attr";
    static const int unified = MPI_WIN_UNIFIED;
    int rc;
    struct cm_win *w = cm_win_enter(win, call, &rc);
    if (!w)
        return rc;
    if (!attribute_val || !flag)
        return cm_win_error(w, MPI_ERR_ARG, call, "%s is NULL", !flag ? "flag" : "attribute_val");
    void *v = NULL;
    switch (win_keyval) {
    case MPI_WIN_BASE: v = w->base; break;
    case MPI_WIN_SIZE: v = &w->my_size; break;
    case MPI_WIN_DISP_UNIT: v = &w->my_disp_unit; break;
    case MPI_WIN_CREATE_FLAVOR: v = &w->flavor; break;
    case MPI_WIN_MODEL: v = (void *)&unified; break;
    default: {
        struct cm_attr_obj o = obj_of(w);
        return cm_attr_get(&o, win_keyval, attribute_val, flag, call);
    }
    }
    *(void **)attribute_val = v;
    *flag = 1;
    return MPI_SUCCESS;
}

int cm_Win_delete_attr(MPI_Win win, int win_keyval)
{
    CM_CALL_LOOKUP(struct cm_win, w, "MPI_Win_delete_attr", cm_win_enter, win);
    if (predefined_key(win_keyval))
        return cm_win_error(w, MPI_ERR_KEYVAL, call, "keyval %d is a predefined window attribute", win_keyval);
    struct cm_attr_obj o = obj_of(w);
    return cm_attr_delete(&o, win_keyval, call);
}

/* A window handler is called with an MPI_Win * where a communicator's gets
 * an MPI_Comm *: the same calling convention, one table (core/error.c). */
int cm_Win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn, MPI_Errhandler *errhandler)
{
    CM_CALL_INITIALIZED("MPI_Win_create_errhandler");
    if (!win_errhandler_fn || !errhandler)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "%s is NULL",
                        !win_errhandler_fn ? "win_errhandler_fn" : "errhandler");
    return PMPI_Comm_create_errhandler((MPI_Comm_errhandler_function *)win_errhandler_fn, errhandler);
}

int cm_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
    CM_CALL_LOOKUP(struct cm_win, w, "MPI_Win_set_errhandler", cm_win_enter, win);
    if (!cm_errh_valid(errhandler))
        return cm_win_error(w, MPI_ERR_ARG, call, "invalid error handler %ld", (long)(intptr_t)errhandler);
    cm_errh_replace(&w->errh, errhandler);
    return MPI_SUCCESS;
}

int cm_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler)
{
    CM_CALL_LOOKUP(struct cm_win, w, "MPI_Win_get_errhandler", cm_win_enter, win);
    if (!errhandler)
        return cm_win_error(w, MPI_ERR_ARG, call, "errhandler is NULL");
    cm_errh_retain(w->errh);   /* the caller frees the returned handle */
    *errhandler = w->errh;
    return MPI_SUCCESS;
}

int cm_Win_call_errhandler(MPI_Win win, int errorcode)
{
    CM_CALL_LOOKUP(struct cm_win, w, "MPI_Win_call_errhandler", cm_win_enter, win);
    cm_win_error(w, errorcode, call, "error code %d raised by the program", errorcode);
    return MPI_SUCCESS;
}
