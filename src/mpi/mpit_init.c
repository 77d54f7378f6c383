/*
 * mpit_init.c -- MPI_T_init_thread, MPI_T_finalize and the enumerations.
 *
 * MPI_T nests: every MPI_T_init_thread needs its MPI_T_finalize, and the
 * interface is usable while more inits than finalizes happened, whether
 * MPI_Init has run, is running or is over.  Nothing is freed at the last
 * finalize: the tables are built once per process and a later
 * MPI_T_init_thread finds them again (handles a tool forgot to free are
 * the tool's leak, as the standard allows).
 */
#include "mpi/mpit.h"
#include "core/state.h"
#include "coll/coll.h"
#include "core/thread.h"
#include "fe_tool.h"

#include <stdlib.h>
#include <string.h>

int cm_mpit_depth;
pthread_mutex_t cm_mpit_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

void cm_mpit_str(const char *s, char *out, int *len)
{
    if (!len)
        return;
    int need = (int)strlen(s) + 1;
    if (!out || *len <= 0) {
        *len = need;
        return;
    }
    int n = need <= *len ? need - 1 : *len - 1;
    memcpy(out, s, (size_t)n);
    out[n] = 0;
    *len = n + 1;
}

static const char *const coll_names[CM_COLL_NUM] = {
#define CM_COLL(coll, COLL) #coll,
#include "coll/algorithms.def"
};
static struct MPI_ABI_T_enum coll_enum[CM_COLL_NUM];

static int build_enums(void)
{
    for (int c = 0; c < CM_COLL_NUM; c++) {
        if (coll_enum[c].items)
            continue;
        int n;
        const struct cm_coll_algo *a = cm_coll_list((enum cm_coll_id)c, &n);
        const char **items = calloc((size_t)n + 1, sizeof *items);
        if (!items)
            return MPI_T_ERR_MEMORY;
        items[0] = "none";
        for (int i = 0; i < n; i++)
            items[i + 1] = a[i].name;
        coll_enum[c].name = coll_names[c];
        coll_enum[c].num = n + 1;
        coll_enum[c].base = -1;
        coll_enum[c].items = items;
    }
    return MPI_SUCCESS;
}

MPI_T_enum cm_mpit_coll_enum(int coll)
{
    return &coll_enum[coll];
}

const struct MPI_ABI_T_enum *cm_mpit_enum_check(MPI_T_enum e)
{
    /* A handle is valid when it points at one of our entries; comparing
     * addresses never dereferences what a tool passed. */
    for (int c = 0; c < CM_COLL_NUM; c++)
        if (e == &coll_enum[c] && coll_enum[c].items)
            return &coll_enum[c];
    return NULL;
}

int cm_T_init_thread(int required, int *provided)
{
    if (!provided)
        return MPI_T_ERR_INVALID;
    if (required != MPI_THREAD_SINGLE && required != MPI_THREAD_FUNNELED &&
        required != MPI_THREAD_SERIALIZED && required != MPI_THREAD_MULTIPLE)
        return MPI_T_ERR_INVALID;
    pthread_mutex_lock(&cm_mpit_lock);
    cm_config_load();   /* a tool may start before MPI_Init: the settings it reads are the library's */
    int rc = build_enums();
    if (rc == MPI_SUCCESS)
        cm_mpit_depth++;
    pthread_mutex_unlock(&cm_mpit_lock);
    if (rc != MPI_SUCCESS)
        return MPI_T_ERR_CANNOT_INIT;
    /* As MPI_Init_thread (MULTIPLE on the same terms). */
    *provided = cm_thread_level_for(required);
    return MPI_SUCCESS;
}

int cm_T_finalize(void)
{
    pthread_mutex_lock(&cm_mpit_lock);
    int rc = cm_mpit_depth > 0 ? MPI_SUCCESS : MPI_T_ERR_NOT_INITIALIZED;
    cm_mpit_depth -= rc == MPI_SUCCESS;
    pthread_mutex_unlock(&cm_mpit_lock);
    return rc;
}

int cm_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len)
{
    CM_MPIT_CHECK();
    const struct MPI_ABI_T_enum *e = cm_mpit_enum_check(enumtype);
    if (!e)
        return MPI_T_ERR_INVALID_HANDLE;
    if (num)
        *num = e->num;
    cm_mpit_str(e->name, name, name_len);
    return MPI_SUCCESS;
}

int cm_T_enum_get_item(MPI_T_enum enumtype, int indx, int *value, char *name, int *name_len)
{
    CM_MPIT_CHECK();
    const struct MPI_ABI_T_enum *e = cm_mpit_enum_check(enumtype);
    if (!e)
        return MPI_T_ERR_INVALID_HANDLE;
    if (indx < 0 || indx >= e->num)
        return MPI_T_ERR_INVALID_INDEX;
    if (value)
        *value = e->base + indx;
    cm_mpit_str(e->items[indx], name, name_len);
    return MPI_SUCCESS;
}
