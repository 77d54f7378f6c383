/*
 * session.c -- the sessions model (MPI-4.0 section 11.3): MPI_Session_init
 * and _finalize, the process sets, session info and error handlers, and
 * MPI_Group_from_session_pset.  Communicators come from groups through
 * comm_from_group.c.
 *
 * Each live session is one user of the process state (mpi/process.h), like
 * the world model: a program may use sessions only, sessions beside
 * MPI_Init, or several sessions at once.  The process sets are the two the
 * standard requires: "mpi://WORLD" (every process of the job) and
 * "mpi://SELF"; names compare without regard to case.
 *
 * Session_finalize does not free what was derived from the session
 * (MPI-4.0 11.3.1: objects are freed by their free calls); the program must
 * have completed its communication on them.  Communicators still alive stay
 * usable objects until the last user of the process state is gone, when
 * cm_comm_finalize frees them all (under sessions only that is never: the
 * state stays for a later session, init.c).
 */
#include "core/error.h"
#include "core/group.h"
#include "core/handle.h"
#include "core/info.h"
#include "core/state.h"
#include "mpi/process.h"
#include "mpi/session.h"
#include "p2p/bsend.h"
#include "shm/fault.h"
#include "fe_env.h"
#include "fe_proc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Index 0 is MPI_SESSION_NULL (core/handle.h); a slot is live while used. */
#define SESSIONS_MAX 64
struct cm_session {
    int used;
    int thread_level;
    MPI_Errhandler errh;
    MPI_Info info;          /* a copy of Session_init's, or MPI_INFO_NULL */
};
static struct cm_session table[SESSIONS_MAX];
/* A slot's claim and release and the process's count of users
 * (cm_process_up/_down): MPI-4.1 11.3.1 lets threads start and end
 * sessions at once, before any of them has a thread level, so this lock is
 * taken at every level (neither call is on a communication path). */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static const char *const pset_names[] = { "mpi://WORLD", "mpi://SELF" };
#define NPSETS ((int)(sizeof pset_names / sizeof pset_names[0]))

static const char *const level_names[] = {
    "MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"
};
static const int level_values[] = {
    MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED, MPI_THREAD_MULTIPLE
};

static struct cm_session *lookup(MPI_Session h)
{
    int i = cm_session_index(h);
    return i >= 1 && i < SESSIONS_MAX && table[i].used ? &table[i] : NULL;
}

static int bad_session(MPI_Session h, const char *call);

int cm_session_check(MPI_Session h, MPI_Errhandler *errh, const char *call)
{
    struct cm_session *s = lookup(h);
    if (!s)
        return bad_session(h, call);
    *errh = s->errh;
    return MPI_SUCCESS;
}

/* An invalid session has no handler of its own: the error goes where errors
 * tied to no valid object go, MPI_COMM_SELF's handler (MPI-4.1 section 9.3;
 * cm_error falls back to fatal when there is no MPI_COMM_SELF). */
static int bad_session(MPI_Session h, const char *call)
{
    return cm_error(MPI_COMM_SELF, MPI_ERR_SESSION, call,
                    h == MPI_SESSION_NULL ? "session is MPI_SESSION_NULL" : "invalid session %ld", (long)(intptr_t)h);
}

/* The requested level from the "thread_level" info key (default single). */
static int requested_level(MPI_Info info)
{
    char v[64];
    int flag = 0;
    if (info == MPI_INFO_NULL || PMPI_Info_get(info, "thread_level", (int)sizeof v - 1, v, &flag) || !flag)
        return MPI_THREAD_SINGLE;
    for (int i = 0; i < 4; i++)
        if (!strcasecmp(v, level_names[i]))
            return level_values[i];
    return MPI_THREAD_SINGLE;
}

int cm_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session)
{
    static const char call[] = "MPI_Session_init";
    MPI_Session none = MPI_SESSION_NULL;
    if (!cm_errh_valid(errhandler))
        return cm_error(MPI_COMM_SELF, MPI_ERR_ARG, call, "invalid error handler %ld", (long)(intptr_t)errhandler);
    if (!session)
        return cm_error_on(errhandler, &none, MPI_ERR_ARG, call, "session is NULL");
    MPI_Info copy = MPI_INFO_NULL;
    if (info != MPI_INFO_NULL && cm_info_copy(info, &copy))
        return cm_error_on(errhandler, &none, MPI_ERR_INFO, call, "invalid info %ld", (long)(intptr_t)info);
    int level = requested_level(info);
    pthread_mutex_lock(&lock);
    int i = 1;
    while (i < SESSIONS_MAX && table[i].used)
        i++;
    int rc = i == SESSIONS_MAX ? MPI_ERR_SESSION : cm_process_up(level, call);
    if (rc) {
        pthread_mutex_unlock(&lock);
        if (copy != MPI_INFO_NULL)
            cm_info_release(copy);
        if (rc == MPI_ERR_SESSION)
            return cm_error_on(errhandler, &none, MPI_ERR_SESSION, call, "too many sessions (%d)", SESSIONS_MAX - 1);
        return rc;
    }
    CM_FAULT(mt_session);   /* another thread must not claim the same slot */
    table[i] = (struct cm_session){ .used = 1, .errh = errhandler, .info = copy,
                                    .thread_level = level < cm_g.thread_level ? level : cm_g.thread_level };
    pthread_mutex_unlock(&lock);
    cm_errh_retain(errhandler);
    *session = cm_session_handle(i);
    return MPI_SUCCESS;
}

int cm_Session_finalize(MPI_Session *session)
{
    static const char call[] = "MPI_Session_finalize";
    if (!session)
        return cm_error(MPI_COMM_SELF, MPI_ERR_ARG, call, "session pointer is NULL");
    struct cm_session *s = lookup(*session);
    if (!s)
        return bad_session(*session, call);
    /* Like MPI_Finalize for the process's buffer: what the session's
     * buffer still holds is sent before the session ends. */
    cm_bsend_session_end(cm_session_index(*session), CM_CALL_Session_finalize);
    if (s->info != MPI_INFO_NULL)
        cm_info_release(s->info);
    cm_errh_release(s->errh);
    pthread_mutex_lock(&lock);
    *s = (struct cm_session){ 0 };
    *session = MPI_SESSION_NULL;
    cm_process_down(CM_CALL_Session_finalize);
    pthread_mutex_unlock(&lock);
    return MPI_SUCCESS;
}

int cm_Session_get_num_psets(MPI_Session session, MPI_Info info, int *npset_names)
{
    (void)info;
    struct cm_session *s = lookup(session);
    if (!s)
        return bad_session(session, "MPI_Session_get_num_psets");
    if (!npset_names)
        return cm_error_on(s->errh, &session, MPI_ERR_ARG, "MPI_Session_get_num_psets", "npset_names is NULL");
    *npset_names = NPSETS;
    return MPI_SUCCESS;
}

/* pset_len 0 asks for the length (with the terminating NUL); otherwise the
 * name is copied, cut to pset_len - 1 characters, and pset_len says the
 * whole length again. */
int cm_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int *pset_len, char *pset_name)
{
    static const char call[] = "MPI_Session_get_nth_pset";
    (void)info;
    struct cm_session *s = lookup(session);
    if (!s)
        return bad_session(session, call);
    if (n < 0 || n >= NPSETS)
        return cm_error_on(s->errh, &session, MPI_ERR_ARG, call, "n = %d is not in 0..%d", n, NPSETS - 1);
    if (!pset_len || *pset_len < 0)
        return cm_error_on(s->errh, &session, MPI_ERR_ARG, call, pset_len ? "pset_len is negative (%d)" : "pset_len is NULL%.0d",
                           pset_len ? *pset_len : 0);
    int whole = (int)strlen(pset_names[n]) + 1;
    if (*pset_len > 0) {
        if (!pset_name)
            return cm_error_on(s->errh, &session, MPI_ERR_ARG, call, "pset_name is NULL");
        snprintf(pset_name, (size_t)*pset_len, "%s", pset_names[n]);
    }
    *pset_len = whole;
    return MPI_SUCCESS;
}

/* The world ranks of a process set, or -1 (with nothing allocated) for an
 * unknown name. */
static int pset_members(const char *name, int **world)
{
    int n;
    if (!strcasecmp(name, "mpi://WORLD"))
        n = cm_g.world_size;
    else if (!strcasecmp(name, "mpi://SELF"))
        n = 1;
    else
        return -1;
    *world = malloc((size_t)n * sizeof(int));
    if (!*world)
        return -1;
    for (int i = 0; i < n; i++)
        (*world)[i] = n == 1 && strcasecmp(name, "mpi://WORLD") ? cm_g.rank : cm_g.world_first + i;
    return n;
}

static int pset_error(struct cm_session *s, MPI_Session session, const char *name, const char *call)
{
    if (!name)
        return cm_error_on(s->errh, &session, MPI_ERR_ARG, call, "pset_name is NULL");
    return cm_error_on(s->errh, &session, MPI_ERR_ARG, call,
                       "unknown process set \"%.200s\" (corempi has \"mpi://WORLD\" and \"mpi://SELF\")", name);
}

int cm_Session_get_pset_info(MPI_Session session, const char *pset_name, MPI_Info *info)
{
    static const char call[] = "MPI_Session_get_pset_info";
    struct cm_session *s = lookup(session);
    if (!s)
        return bad_session(session, call);
    int *world = NULL, n = pset_name ? pset_members(pset_name, &world) : -1;
    free(world);
    if (n < 0)
        return pset_error(s, session, pset_name, call);
    if (!info)
        return cm_error_on(s->errh, &session, MPI_ERR_ARG, call, "info is NULL");
    char v[16];
    snprintf(v, sizeof v, "%d", n);
    int rc = PMPI_Info_create(info);
    return rc ? rc : PMPI_Info_set(*info, "mpi_size", v);
}

int cm_Session_get_info(MPI_Session session, MPI_Info *info_used)
{
    static const char call[] = "MPI_Session_get_info";
    struct cm_session *s = lookup(session);
    if (!s)
        return bad_session(session, call);
    if (!info_used)
        return cm_error_on(s->errh, &session, MPI_ERR_ARG, call, "info_used is NULL");
    int rc = s->info != MPI_INFO_NULL ? cm_info_copy(s->info, info_used) : PMPI_Info_create(info_used);
    if (rc)
        return cm_error_on(s->errh, &session, rc, call, "cannot copy the session's info");
    /* The level this session got, under the key Session_init reads. */
    int k = 0;
    while (k < 3 && level_values[k] != s->thread_level)
        k++;
    return PMPI_Info_set(*info_used, "thread_level", level_names[k]);
}

int cm_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler)
{
    struct cm_session *s = lookup(session);
    if (!s)
        return bad_session(session, "MPI_Session_set_errhandler");
    if (!cm_errh_valid(errhandler))
        return cm_error_on(s->errh, &session, MPI_ERR_ARG, "MPI_Session_set_errhandler", "invalid error handler %ld",
                           (long)(intptr_t)errhandler);
    cm_errh_replace(&s->errh, errhandler);
    return MPI_SUCCESS;
}

int cm_Session_get_errhandler(MPI_Session session, MPI_Errhandler *errhandler)
{
    struct cm_session *s = lookup(session);
    if (!s)
        return bad_session(session, "MPI_Session_get_errhandler");
    if (!errhandler)
        return cm_error_on(s->errh, &session, MPI_ERR_ARG, "MPI_Session_get_errhandler", "errhandler is NULL");
    cm_errh_retain(s->errh);   /* the caller frees the returned handle */
    *errhandler = s->errh;
    return MPI_SUCCESS;
}

int cm_Session_call_errhandler(MPI_Session session, int errorcode)
{
    struct cm_session *s = lookup(session);
    if (!s)
        return bad_session(session, "MPI_Session_call_errhandler");
    cm_error_on(s->errh, &session, errorcode, "MPI_Session_call_errhandler", "error code %d raised by the program",
                errorcode);
    return MPI_SUCCESS;
}

int cm_Group_from_session_pset(MPI_Session session, const char *pset_name, MPI_Group *newgroup)
{
    static const char call[] = "MPI_Group_from_session_pset";
    struct cm_session *s = lookup(session);
    if (!s)
        return bad_session(session, call);
    if (!newgroup)
        return cm_error_on(s->errh, &session, MPI_ERR_ARG, call, "newgroup is NULL");
    int *world = NULL, n = pset_name ? pset_members(pset_name, &world) : -1;
    if (n < 0)
        return pset_error(s, session, pset_name, call);
    int rc = cm_group_make(world, n, newgroup);
    free(world);
    if (!rc)
        cm_group_set_session(*newgroup, cm_session_index(session));
    return rc ? cm_error_on(s->errh, &session, rc, call, "cannot make the group") : MPI_SUCCESS;
}
