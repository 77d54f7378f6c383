/*
 * mpit_session.c -- MPI_T performance variable sessions and handles, and
 * the pvar queries.
 *
 * A handle keeps, per entry, the counter's value when it last started
 * (snap) and what it counted while running before (accum); its value is
 * accum + (running ? now - snap : 0).  A continuous counter runs from its
 * allocation; a non-continuous one between start and stop.  Reset sets
 * accum to 0 and snap to now, write sets accum to the value: the library's
 * own counter never moves backwards, so two sessions (or a session and
 * COREMPI_VERBOSE) never disturb each other.  LEVEL, HIGHWATERMARK and
 * STATE variables are the library's value itself, read-only.
 *
 * Handles and sessions are validated by looking them up in the live lists,
 * never by reading through a pointer the tool passed.
 */
#include "mpi/mpit.h"
#include "fe_tool.h"

#include <stdlib.h>
#include <string.h>

struct MPI_ABI_T_pvar_handle {
    int index, count, running;
    int *world_of;                  /* bound to a communicator: its ranks' world ranks */
    uint64_t *snap, *accum;
    struct MPI_ABI_T_pvar_session *session;
    struct MPI_ABI_T_pvar_handle *next;
};
struct MPI_ABI_T_pvar_session {
    struct MPI_ABI_T_pvar_handle *handles;
    struct MPI_ABI_T_pvar_session *next;
};
static struct MPI_ABI_T_pvar_session *sessions;

static struct MPI_ABI_T_pvar_session *find_session_locked(MPI_T_pvar_session s)
{
    for (struct MPI_ABI_T_pvar_session *p = sessions; p; p = p->next)
        if (p == s)
            return p;
    return NULL;
}

static struct MPI_ABI_T_pvar_handle *find_handle_locked(struct MPI_ABI_T_pvar_session *s, MPI_T_pvar_handle h)
{
    for (struct MPI_ABI_T_pvar_handle *p = s->handles; p; p = p->next)
        if (p == h)
            return p;
    return NULL;
}

/* The lists change under cm_mpit_lock: a walk holds it too. */
static struct MPI_ABI_T_pvar_session *find_session(MPI_T_pvar_session s)
{
    return CM_MPIT_LOCKED(find_session_locked(s));
}

static struct MPI_ABI_T_pvar_handle *find_handle(struct MPI_ABI_T_pvar_session *s, MPI_T_pvar_handle h)
{
    return CM_MPIT_LOCKED(find_handle_locked(s, h));
}

static int datatype_is_int(const struct cm_mpit_pvar *v)
{
    return v->var_class == MPI_T_PVAR_CLASS_STATE;
}

int cm_T_pvar_get_num(int *num_pvar)
{
    return cm_mpit_num(num_pvar, cm_mpit_pvar_count());
}

int cm_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity, int *var_class,
                       MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind,
                       int *readonly, int *continuous, int *atomic)
{
    CM_MPIT_CHECK();
    const struct cm_mpit_pvar *v = cm_mpit_pvar(pvar_index);
    if (!v)
        return MPI_T_ERR_INVALID_INDEX;
    cm_mpit_str(v->name, name, name_len);
    if (verbosity)
        *verbosity = v->bind == MPI_T_BIND_MPI_COMM ? MPI_T_VERBOSITY_TUNER_DETAIL : MPI_T_VERBOSITY_TUNER_BASIC;
    if (var_class)
        *var_class = v->var_class;
    if (datatype)
        *datatype = datatype_is_int(v) ? MPI_INT : MPI_UNSIGNED_LONG_LONG;
    if (enumtype)
        *enumtype = cm_mpit_pvar_enum(pvar_index);
    cm_mpit_str(v->desc, desc, desc_len);
    if (bind)
        *bind = v->bind;
    if (readonly)
        *readonly = v->readonly;
    if (continuous)
        *continuous = v->continuous;
    if (atomic)
        *atomic = 0;
    return MPI_SUCCESS;
}

int cm_T_pvar_get_index(const char *name, int var_class, int *pvar_index)
{
    CM_MPIT_CHECK_ARGS(!name || !pvar_index);
    for (int i = 0, n = cm_mpit_pvar_count(); i < n; i++) {
        const struct cm_mpit_pvar *v = cm_mpit_pvar(i);
        if (v->var_class == var_class && !strcmp(v->name, name)) {
            *pvar_index = i;
            return MPI_SUCCESS;
        }
    }
    return MPI_T_ERR_INVALID_NAME;
}

static int locked_pvar_session_create(MPI_T_pvar_session *session)
{
    CM_MPIT_CHECK_ARGS(!session);
    struct MPI_ABI_T_pvar_session *s = calloc(1, sizeof *s);
    if (!s)
        return MPI_T_ERR_MEMORY;
    s->next = sessions;
    sessions = s;
    *session = s;
    return MPI_SUCCESS;
}

static void handle_destroy(struct MPI_ABI_T_pvar_handle *h)
{
    free(h->world_of);
    free(h->snap);
    free(h->accum);
    free(h);
}

static int locked_pvar_session_free(MPI_T_pvar_session *session)
{
    CM_MPIT_CHECK();
    struct MPI_ABI_T_pvar_session *s = session ? find_session(*session) : NULL;
    if (!s)
        return MPI_T_ERR_INVALID_SESSION;
    for (struct MPI_ABI_T_pvar_session **pp = &sessions; *pp; pp = &(*pp)->next)
        if (*pp == s) {
            *pp = s->next;
            break;
        }
    while (s->handles) {
        struct MPI_ABI_T_pvar_handle *h = s->handles;
        s->handles = h->next;
        handle_destroy(h);
    }
    free(s);
    *session = MPI_T_PVAR_SESSION_NULL;
    return MPI_SUCCESS;
}

/* Entry k's value as the library has it now. */
static uint64_t now_of(const struct MPI_ABI_T_pvar_handle *h, int k)
{
    return cm_mpit_pvar_value(h->index, h->world_of ? h->world_of[k] : 0);
}

static int locked_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                           MPI_T_pvar_handle *handle, int *count)
{
    CM_MPIT_CHECK();
    struct MPI_ABI_T_pvar_session *s = find_session(session);
    if (!s)
        return MPI_T_ERR_INVALID_SESSION;
    const struct cm_mpit_pvar *v = cm_mpit_pvar(pvar_index);
    if (!v)
        return MPI_T_ERR_INVALID_INDEX;
    if (!handle || !count)
        return MPI_T_ERR_INVALID;
    int err = MPI_SUCCESS, *world_of;
    int n = cm_mpit_pvar_bind(pvar_index, obj_handle, &world_of, &err);
    if (n < 0)
        return err;
    struct MPI_ABI_T_pvar_handle *h = calloc(1, sizeof *h);
    if (h) {
        h->snap = calloc((size_t)n, sizeof *h->snap);
        h->accum = calloc((size_t)n, sizeof *h->accum);
    }
    if (!h || !h->snap || !h->accum) {
        if (h) {
            h->world_of = world_of;
            handle_destroy(h);
        } else {
            free(world_of);
        }
        return MPI_T_ERR_MEMORY;
    }
    h->index = pvar_index;
    h->count = n;
    h->world_of = world_of;
    h->session = s;
    h->running = v->continuous;
    for (int k = 0; k < n; k++)
        h->snap[k] = now_of(h, k);
    h->next = s->handles;
    s->handles = h;
    *handle = h;
    *count = n;
    return MPI_SUCCESS;
}

static int locked_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle)
{
    CM_MPIT_CHECK();
    struct MPI_ABI_T_pvar_session *s = find_session(session);
    if (!s)
        return MPI_T_ERR_INVALID_SESSION;
    struct MPI_ABI_T_pvar_handle *h = handle ? find_handle(s, *handle) : NULL;
    if (!h)
        return MPI_T_ERR_INVALID_HANDLE;
    for (struct MPI_ABI_T_pvar_handle **pp = &s->handles; *pp; pp = &(*pp)->next)
        if (*pp == h) {
            *pp = h->next;
            break;
        }
    handle_destroy(h);
    *handle = MPI_T_PVAR_HANDLE_NULL;
    return MPI_SUCCESS;
}

static int is_counter(const struct MPI_ABI_T_pvar_handle *h)
{
    int c = cm_mpit_pvar(h->index)->var_class;
    return c == MPI_T_PVAR_CLASS_COUNTER || c == MPI_T_PVAR_CLASS_TIMER;   /* both sum between start and stop */
}

/* One operation on one handle or, with MPI_T_PVAR_ALL_HANDLES, on every
 * handle of the session it applies to (the standard: start/stop skip the
 * continuous ones, reset skips the read-only ones). */
enum op { START, STOP, RESET };

static int apply(struct MPI_ABI_T_pvar_handle *h, enum op op, int all)
{
    const struct cm_mpit_pvar *v = cm_mpit_pvar(h->index);
    if (op == RESET) {
        if (v->readonly)
            return all ? MPI_SUCCESS : MPI_T_ERR_PVAR_NO_WRITE;
        for (int k = 0; k < h->count; k++) {
            h->accum[k] = 0;
            h->snap[k] = now_of(h, k);
        }
        return MPI_SUCCESS;
    }
    if (v->continuous)
        return all ? MPI_SUCCESS : MPI_T_ERR_PVAR_NO_STARTSTOP;
    if (op == START && !h->running) {
        for (int k = 0; k < h->count; k++)
            h->snap[k] = now_of(h, k);
        h->running = 1;
    } else if (op == STOP && h->running) {
        for (int k = 0; k < h->count; k++)
            h->accum[k] += now_of(h, k) - h->snap[k];
        h->running = 0;
    }
    return MPI_SUCCESS;
}

static int operate(MPI_T_pvar_session session, MPI_T_pvar_handle handle, enum op op)
{
    struct MPI_ABI_T_pvar_session *s = find_session(session);
    if (!s)
        return MPI_T_ERR_INVALID_SESSION;
    if (handle == MPI_T_PVAR_ALL_HANDLES) {
        for (struct MPI_ABI_T_pvar_handle *h = s->handles; h; h = h->next)
            apply(h, op, 1);
        return MPI_SUCCESS;
    }
    struct MPI_ABI_T_pvar_handle *h = find_handle(s, handle);
    if (!h)
        return MPI_T_ERR_INVALID_HANDLE;
    return apply(h, op, 0);
}

int cm_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    CM_MPIT_CHECK();
    return operate(session, handle, START);
}

int cm_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    CM_MPIT_CHECK();
    return operate(session, handle, STOP);
}

int cm_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    CM_MPIT_CHECK();
    return operate(session, handle, RESET);
}

/* The handle for a read or write: one handle, never ALL_HANDLES. */
static int one_handle(MPI_T_pvar_session session, MPI_T_pvar_handle handle, struct MPI_ABI_T_pvar_handle **out)
{
    struct MPI_ABI_T_pvar_session *s = find_session(session);
    if (!s)
        return MPI_T_ERR_INVALID_SESSION;
    *out = find_handle(s, handle);
    return *out ? MPI_SUCCESS : MPI_T_ERR_INVALID_HANDLE;
}

int cm_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    CM_MPIT_CHECK();
    struct MPI_ABI_T_pvar_handle *h;
    int rc = one_handle(session, handle, &h);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!buf)
        return MPI_T_ERR_INVALID;
    for (int k = 0; k < h->count; k++) {
        uint64_t now = now_of(h, k);
        if (!is_counter(h)) {
            if (datatype_is_int(cm_mpit_pvar(h->index))) {
                int v = (int)(int64_t)now;
                memcpy((int *)buf + k, &v, sizeof v);
            } else {
                unsigned long long v = now;
                memcpy((unsigned long long *)buf + k, &v, sizeof v);
            }
            continue;
        }
        unsigned long long v = h->accum[k] + (h->running ? now - h->snap[k] : 0);
        memcpy((unsigned long long *)buf + k, &v, sizeof v);
    }
    return MPI_SUCCESS;
}

/* As one_handle, for a call that changes the handle's value. */
static int writable_handle(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf,
                           struct MPI_ABI_T_pvar_handle **out)
{
    int rc = one_handle(session, handle, out);
    if (rc != MPI_SUCCESS)
        return rc;
    if (cm_mpit_pvar((*out)->index)->readonly)
        return MPI_T_ERR_PVAR_NO_WRITE;
    return buf ? MPI_SUCCESS : MPI_T_ERR_INVALID;
}

int cm_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf)
{
    CM_MPIT_CHECK();
    struct MPI_ABI_T_pvar_handle *h;
    int rc = writable_handle(session, handle, buf, &h);
    if (rc != MPI_SUCCESS)
        return rc;
    for (int k = 0; k < h->count; k++) {
        unsigned long long v;
        memcpy(&v, (const unsigned long long *)buf + k, sizeof v);
        h->accum[k] = v;
        h->snap[k] = now_of(h, k);
    }
    return MPI_SUCCESS;
}

int cm_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    CM_MPIT_CHECK();
    struct MPI_ABI_T_pvar_handle *h;
    int rc = writable_handle(session, handle, buf, &h);
    if (rc == MPI_SUCCESS)
        rc = PMPI_T_pvar_read(session, handle, buf);
    if (rc == MPI_SUCCESS)
        rc = apply(h, RESET, 0);
    return rc;
}

int cm_T_pvar_session_create(MPI_T_pvar_session *session)
{
    return CM_MPIT_LOCKED(locked_pvar_session_create(session));
}

int cm_T_pvar_session_free(MPI_T_pvar_session *session)
{
    return CM_MPIT_LOCKED(locked_pvar_session_free(session));
}

int cm_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                           MPI_T_pvar_handle *handle, int *count)
{
    return CM_MPIT_LOCKED(locked_pvar_handle_alloc(session, pvar_index, obj_handle, handle, count));
}

int cm_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle)
{
    return CM_MPIT_LOCKED(locked_pvar_handle_free(session, handle));
}
