/*
 * mpit_category.c -- MPI_T categories: five flat groups, every control and
 * performance variable in exactly one.
 *
 * The set of variables and categories is fixed for the life of the process
 * (no variable appears when a communicator or a session is made), so the
 * changed-number MPI_T_category_changed returns never moves.
 */
#include "mpi/mpit.h"
#include "fe_tool.h"

#include <string.h>

static const struct { const char *name, *desc; } cats[CM_CAT_NUM] = {
    [CM_CAT_P2P] = {"p2p", "point-to-point: protocol sizes, waiting, traffic counters, the unexpected queue"},
    [CM_CAT_COLL] = {"collectives", "collectives: algorithm choice, the shared-memory engine, argument checks"},
    [CM_CAT_LAUNCH] = {"launch/topology", "mpirun, the machine's topology, the compiler wrappers, what mpirun "
                                          "sets for each rank"},
    [CM_CAT_PROF] = {"profiling", "diagnostics: verbose output, fault injection, the profiler's job name"},
    [CM_CAT_IO] = {"io", "MPI-IO: bytes read and written, time in I/O calls (docs/io.md)"},
};

static int pvar_category(int i)
{
    return cm_mpit_pvar(i)->category;
}

/* Members of category c among n variables, in index order, into out (up to
 * len of them); returns how many there are. */
static int members(int c, int n, int (*cat_of)(int), int len, int out[])
{
    int found = 0;
    for (int i = 0; i < n; i++)
        if (cat_of(i) == c) {
            if (out && found < len)
                out[found] = i;
            found++;
        }
    return found;
}

int cm_T_category_get_num(int *num_cat)
{
    return cm_mpit_num(num_cat, CM_CAT_NUM);
}

int cm_T_category_get_info(int cat_index, char *name, int *name_len, char *desc, int *desc_len, int *num_cvars,
                           int *num_pvars, int *num_categories)
{
    CM_MPIT_CHECK();
    if (cat_index < 0 || cat_index >= CM_CAT_NUM)
        return MPI_T_ERR_INVALID_INDEX;
    cm_mpit_str(cats[cat_index].name, name, name_len);
    cm_mpit_str(cats[cat_index].desc, desc, desc_len);
    if (num_cvars)
        *num_cvars = members(cat_index, cm_mpit_cvar_count(), cm_mpit_cvar_category, 0, NULL);
    if (num_pvars)
        *num_pvars = members(cat_index, cm_mpit_pvar_count(), pvar_category, 0, NULL);
    if (num_categories)
        *num_categories = 0;
    return MPI_SUCCESS;
}

int cm_T_category_get_index(const char *name, int *cat_index)
{
    CM_MPIT_CHECK_ARGS(!name || !cat_index);
    for (int c = 0; c < CM_CAT_NUM; c++)
        if (!strcmp(cats[c].name, name)) {
            *cat_index = c;
            return MPI_SUCCESS;
        }
    return MPI_T_ERR_INVALID_NAME;
}

static int list(int cat_index, int len, int indices[], int n, int (*cat_of)(int))
{
    if (cat_index < 0 || cat_index >= CM_CAT_NUM)
        return MPI_T_ERR_INVALID_INDEX;
    if (len < 0 || (len > 0 && !indices))
        return MPI_T_ERR_INVALID;
    members(cat_index, n, cat_of, len, indices);
    return MPI_SUCCESS;
}

int cm_T_category_get_cvars(int cat_index, int len, int indices[])
{
    CM_MPIT_CHECK();
    return list(cat_index, len, indices, cm_mpit_cvar_count(), cm_mpit_cvar_category);
}

int cm_T_category_get_pvars(int cat_index, int len, int indices[])
{
    CM_MPIT_CHECK();
    return list(cat_index, len, indices, cm_mpit_pvar_count(), pvar_category);
}

/* No subcategories, no events: valid categories answer with none. */
static int no_members(int cat_index, int len, int indices[])
{
    (void)indices;
    if (cat_index < 0 || cat_index >= CM_CAT_NUM)
        return MPI_T_ERR_INVALID_INDEX;
    return len < 0 ? MPI_T_ERR_INVALID : MPI_SUCCESS;
}

int cm_T_category_get_categories(int cat_index, int len, int indices[])
{
    CM_MPIT_CHECK();
    return no_members(cat_index, len, indices);
}

int cm_T_category_get_events(int cat_index, int len, int indices[])
{
    CM_MPIT_CHECK();
    return no_members(cat_index, len, indices);
}

int cm_T_category_get_num_events(int cat_index, int *num_events)
{
    CM_MPIT_CHECK();
    if (cat_index < 0 || cat_index >= CM_CAT_NUM)
        return MPI_T_ERR_INVALID_INDEX;
    if (!num_events)
        return MPI_T_ERR_INVALID;
    *num_events = 0;
    return MPI_SUCCESS;
}

int cm_T_category_changed(int *update_number)
{
    return cm_mpit_num(update_number, 1);
}
