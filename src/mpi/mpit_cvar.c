/*
 * mpit_cvar.c -- control variables: corempi's configuration table
 * (core/config.def) seen through MPI_T.
 *
 * One variable per row, named as the environment variable; the row
 * COREMPI_<COLL> becomes one variable per collective (COREMPI_ALLREDUCE, ...,
 * algorithms.def's order).  The description is the row's help line.
 *
 * Values.  The readers of these settings live in every layer and most give
 * their own default (some depend on the machine), so this file does not
 * pretend to know the number each one uses: a variable reads as the text
 * the library read (core/config.h's snapshot of the environment), or, when
 * that is unset, the row's default as config.def words it ("16384", "20000 (0 with more ranks than cores)").
 * FLAG rows read as an MPI_INT 0 or 1, all others as MPI_CHAR of at most
 * CVAR_TEXT bytes with the NUL.
 *
 * Writing.  A setting can change at run time only where the library reads
 * it at each use and every reader agrees on the new value at the next call.
 * That is true of one row: COREMPI_CHECK, which is cm_g.coll_check, tested
 * at each collective's entry (coll/api.h) and by the shared-memory engine's
 * shortcuts (direct/allreduce.c, direct/barrier.c) at each call; the
 * front ends' check of the thread level (core/thread_check.h) follows it
 * from the next call on.  It is
 * MPI_T_SCOPE_ALL_EQ: every rank of a communicator must have the same value
 * when they call a collective on it (the check is itself a collective), so
 * a tool writes it on all ranks between the same two collectives.  It is
 * writable between MPI_Init and MPI_Finalize (MPI_Init sets it from the
 * environment).  Every other JOB row is read once at MPI_Init or at first
 * use and cached (eager and fragment sizes, spin counts, the shared-memory
 * engine's switches, forced algorithms: coll/select.c reads those once and
 * caches the choice), so it is MPI_T_SCOPE_READONLY; the launcher's and the
 * compiler wrapper's rows and those mpirun sets for the ranks are
 * MPI_T_SCOPE_CONSTANT for a running program.
 */
#include "mpi/mpit.h"
#include "core/state.h"
#include "core/thread_check.h"
#include "coll/coll.h"
#include "fe_tool.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { CVAR_TEXT = 256 };
enum kind { FLAG, SIZE, COUNT, SECONDS, WORDS, ONEOF, TEXT, FAMILY };
enum who { JOB, MPIRUN, MPICC, INTERNAL };

struct row {
    const char *name;
    enum kind kind;
    enum who who;
    const char *def, *help;
};
static const struct row rows[] = {
#define CM_CONFIG(name, kind, who, def, values, help) {#name, kind, who, def, help},
#include "core/config.def"
#undef CM_CONFIG
};
#define NROWS ((int)(sizeof rows / sizeof rows[0]))

static const char *const family_names[CM_COLL_NUM] = {
#define CM_COLL(coll, COLL) "COREMPI_" #COLL,
#include "coll/algorithms.def"
};

/* Variable i: row rows[row_of(i)], and for the family row the collective. */
static int family_row(void)
{
    for (int r = 0; r < NROWS; r++)
        if (rows[r].kind == FAMILY)
            return r;
    return -1;
}

int cm_mpit_cvar_count(void)
{
    return family_row() < 0 ? NROWS : NROWS - 1 + CM_COLL_NUM;
}

/* Rows before the family keep their index; the family's CM_COLL_NUM
 * variables take its place; later rows follow. */
static const struct row *row_of(int i, int *coll)
{
    int f = family_row();
    *coll = -1;
    if (f < 0 || i < f)
        return &rows[i];
    if (i < f + CM_COLL_NUM) {
        *coll = i - f;
        return &rows[f];
    }
    return &rows[i - CM_COLL_NUM + 1];
}

const char *cm_mpit_cvar_name(int i)
{
    int coll;
    const struct row *r = row_of(i, &coll);
    return coll >= 0 ? family_names[coll] : r->name;
}

static int is_check(const struct row *r)
{
    return strcmp(r->name, "COREMPI_CHECK") == 0;
}

static int scope_of(const struct row *r)
{
    if (is_check(r))
        return MPI_T_SCOPE_ALL_EQ;
    return r->who == JOB || r->who == MPIRUN ? MPI_T_SCOPE_READONLY : MPI_T_SCOPE_CONSTANT;
}

static int verbosity_of(const struct row *r)
{
    switch (r->who) {
    case INTERNAL: return MPI_T_VERBOSITY_MPIDEV_ALL;
    case MPIRUN:
    case MPICC: return MPI_T_VERBOSITY_USER_BASIC;
    case JOB: break;
    }
    if (r->kind == FAMILY)
        return MPI_T_VERBOSITY_TUNER_DETAIL;
    if (is_check(r) || !strcmp(r->name, "COREMPI_VERBOSE") || !strcmp(r->name, "COREMPI_TOPOLOGY"))
        return MPI_T_VERBOSITY_USER_BASIC;
    return MPI_T_VERBOSITY_TUNER_BASIC;
}

int cm_mpit_cvar_category(int i)
{
    int coll;
    const struct row *r = row_of(i, &coll);
    const char *n = r->name + strlen("COREMPI_");
    static const char *const p2p[] = {"EAGER_MAX", "SINGLE_COPY", "FRAGMENT", "STREAM_MAX", "COLL_STREAM_MAX",
                                      "SPLIT_MIN", "SPIN", "POLL_SPIN", "FENCE_FREE"};
    static const char *const prof[] = {"VERBOSE", "FAULTS", "JOBID"};
    for (size_t k = 0; k < sizeof p2p / sizeof *p2p; k++)
        if (!strcmp(n, p2p[k]))
            return CM_CAT_P2P;
    for (size_t k = 0; k < sizeof prof / sizeof *prof; k++)
        if (!strcmp(n, prof[k]))
            return CM_CAT_PROF;
    if (r->who == JOB && (r->kind == FAMILY || is_check(r) || !strncmp(n, "SHM_", 4) || !strncmp(n, "COLL_", 5)))
        return CM_CAT_COLL;
    return CM_CAT_LAUNCH;
}

int cm_T_cvar_get_num(int *num_cvar)
{
    return cm_mpit_num(num_cvar, cm_mpit_cvar_count());
}

int cm_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity, MPI_Datatype *datatype,
                       MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind, int *scope)
{
    CM_MPIT_CHECK();
    if (cvar_index < 0 || cvar_index >= cm_mpit_cvar_count())
        return MPI_T_ERR_INVALID_INDEX;
    int coll;
    const struct row *r = row_of(cvar_index, &coll);
    cm_mpit_str(cm_mpit_cvar_name(cvar_index), name, name_len);
    if (verbosity)
        *verbosity = verbosity_of(r);
    if (datatype)
        *datatype = r->kind == FLAG ? MPI_INT : MPI_CHAR;
    if (enumtype)
        *enumtype = MPI_T_ENUM_NULL;
    cm_mpit_str(r->help, desc, desc_len);
    if (bind)
        *bind = MPI_T_BIND_NO_OBJECT;
    if (scope)
        *scope = scope_of(r);
    return MPI_SUCCESS;
}

int cm_T_cvar_get_index(const char *name, int *cvar_index)
{
    CM_MPIT_CHECK_ARGS(!name || !cvar_index);
    for (int i = 0, n = cm_mpit_cvar_count(); i < n; i++)
        if (!strcmp(cm_mpit_cvar_name(i), name)) {
            *cvar_index = i;
            return MPI_SUCCESS;
        }
    return MPI_T_ERR_INVALID_NAME;
}

/* Live handles, to tell a stale or made-up handle from ours without
 * dereferencing it. */
struct MPI_ABI_T_cvar_handle {
    int index;
    struct MPI_ABI_T_cvar_handle *next;
};
static struct MPI_ABI_T_cvar_handle *live;

static struct MPI_ABI_T_cvar_handle *lookup_locked(MPI_T_cvar_handle h)
{
    for (struct MPI_ABI_T_cvar_handle *p = live; p; p = p->next)
        if (p == h)
            return p;
    return NULL;
}

static struct MPI_ABI_T_cvar_handle *lookup(MPI_T_cvar_handle h)
{
    return CM_MPIT_LOCKED(lookup_locked(h));
}

int cm_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle, int *count)
{
    CM_MPIT_CHECK();
    (void)obj_handle; /* every variable is MPI_T_BIND_NO_OBJECT: ignored, as the standard says */
    if (cvar_index < 0 || cvar_index >= cm_mpit_cvar_count())
        return MPI_T_ERR_INVALID_INDEX;
    if (!handle || !count)
        return MPI_T_ERR_INVALID;
    struct MPI_ABI_T_cvar_handle *h = calloc(1, sizeof *h);
    if (!h)
        return MPI_T_ERR_MEMORY;
    h->index = cvar_index;
    pthread_mutex_lock(&cm_mpit_lock);
    h->next = live;
    live = h;
    pthread_mutex_unlock(&cm_mpit_lock);
    int coll;
    *count = row_of(cvar_index, &coll)->kind == FLAG ? 1 : CVAR_TEXT;
    *handle = h;
    return MPI_SUCCESS;
}

int cm_T_cvar_handle_free(MPI_T_cvar_handle *handle)
{
    CM_MPIT_CHECK();
    pthread_mutex_lock(&cm_mpit_lock);
    if (!handle || !lookup_locked(*handle)) {
        pthread_mutex_unlock(&cm_mpit_lock);
        return MPI_T_ERR_INVALID_HANDLE;
    }
    for (struct MPI_ABI_T_cvar_handle **pp = &live; *pp; pp = &(*pp)->next)
        if (*pp == *handle) {
            *pp = (*pp)->next;
            break;
        }
    pthread_mutex_unlock(&cm_mpit_lock);
    free(*handle);
    *handle = MPI_T_CVAR_HANDLE_NULL;
    return MPI_SUCCESS;
}

int cm_T_cvar_read(MPI_T_cvar_handle handle, void *buf)
{
    CM_MPIT_CHECK();
    struct MPI_ABI_T_cvar_handle *h = lookup(handle);
    if (!h)
        return MPI_T_ERR_INVALID_HANDLE;
    if (!buf)
        return MPI_T_ERR_INVALID;
    int coll;
    const struct row *r = row_of(h->index, &coll);
    enum cm_config_id id = (enum cm_config_id)(r - rows);   /* both tables are config.def's rows */
    if (r->kind == FLAG) {
        int v;
        if (is_check(r) && cm_g.initialized)
            v = cm_g.coll_check != 0;
        else
            v = cm_config_flag_at(id, atoi(r->def)) != 0;
        memcpy(buf, &v, sizeof v);
        return MPI_SUCCESS;
    }
    const char *v = coll >= 0 ? cm_config_named(cm_mpit_cvar_name(h->index)) : cm_config_text_at(id);
    if (!v)
        v = r->def;
    size_t n = strlen(v);
    if (n > CVAR_TEXT - 1)
        n = CVAR_TEXT - 1;
    memcpy(buf, v, n);
    ((char *)buf)[n] = 0;
    return MPI_SUCCESS;
}

int cm_T_cvar_write(MPI_T_cvar_handle handle, const void *buf)
{
    CM_MPIT_CHECK();
    struct MPI_ABI_T_cvar_handle *h = lookup(handle);
    if (!h)
        return MPI_T_ERR_INVALID_HANDLE;
    int coll;
    const struct row *r = row_of(h->index, &coll);
    if (!is_check(r))
        return MPI_T_ERR_CVAR_SET_NEVER;
    if (!buf)
        return MPI_T_ERR_INVALID;
    if (!cm_g.initialized || cm_g.finalized)
        return MPI_T_ERR_CVAR_SET_NOT_NOW;
    int v;
    memcpy(&v, buf, sizeof v);
    if (v != 0 && v != 1)
        return MPI_T_ERR_INVALID;
    cm_g.coll_check = v;
    cm_thread_check_set(v, NULL);
    return MPI_SUCCESS;
}
