/*
 * harness_ompi.c -- runs src/coll over another MPI (Open MPI, MPICH) to
 * validate the algorithms and the tests before corempi's own point-to-point
 * is ready.  It provides what corempi's core provides inside the library:
 *   cm_coll_comm        a cached MPI_Comm_dup per communicator (attribute)
 *   cm_request_generic  a generalized request, polled by the MPI_Wait/Test
 *                       wrappers below (PMPI interposition)
 *   cm_error            one line on stderr; fatal unless MPI_ERRORS_RETURN
 *   cm_env_size/_warn, cm_config_named, cm_config_verbose
 *                       COREMPI_* settings (COREMPI_COLL_LEVEL, COREMPI_<COLL>,
 *                       COREMPI_VERBOSE), read from the environment at each call
 * The program's MPI_Bcast etc. resolve to src/coll's front ends because the
 * executable defines them; the algorithms' PMPI_Send etc. go to the host MPI.
 */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "coll/coll.h"

struct percomm {
    MPI_Comm dup;
    unsigned seq;
};

static int user_keyval = MPI_KEYVAL_INVALID, dup_keyval = MPI_KEYVAL_INVALID;

static int delete_percomm(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    struct percomm *pc = attr;
    int finalized = 0;
    PMPI_Finalized(&finalized);
    if (pc->dup != MPI_COMM_NULL && !finalized && comm != MPI_COMM_WORLD && comm != MPI_COMM_SELF)
        PMPI_Comm_free(&pc->dup);
    free(pc);
    return MPI_SUCCESS;
}

static struct percomm *percomm_of(MPI_Comm comm)
{
    if (user_keyval == MPI_KEYVAL_INVALID) {
        PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_percomm, &user_keyval, NULL);
        PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &dup_keyval, NULL);
    }
    void *v;
    int found = 0;
    PMPI_Comm_get_attr(comm, user_keyval, &v, &found);
    if (found)
        return v;
    struct percomm *pc = calloc(1, sizeof(*pc));
    PMPI_Comm_dup(comm, &pc->dup);
    PMPI_Comm_set_attr(comm, user_keyval, pc);
    PMPI_Comm_set_attr(pc->dup, dup_keyval, pc);
    return pc;
}

MPI_Comm cm_coll_comm(MPI_Comm comm)
{
    return percomm_of(comm)->dup;
}

unsigned cm_coll_nbc_seq(MPI_Comm collcomm)
{
    void *v;
    int found = 0;
    PMPI_Comm_get_attr(collcomm, dup_keyval, &v, &found);
    return found ? ((struct percomm *)v)->seq++ : 0;
}

int cm_coll_comm_check(MPI_Comm comm, int *size, int *rank)
{
    int inter = 0;
    if (comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
        return 1;
    PMPI_Comm_size(comm, size);
    PMPI_Comm_rank(comm, rank);
    return 0;
}

int cm_coll_dtype_check(MPI_Datatype dt) { return dt == MPI_DATATYPE_NULL; }
int cm_coll_op_check(MPI_Op op) { return op == MPI_OP_NULL; }
int cm_coll_oversubscribed(void) { return 0; }

int cm_error(MPI_Comm comm, int errclass, const char *call, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int rank = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Errhandler eh = MPI_ERRORS_ARE_FATAL;
    /* like corempi: an invalid communicator reports through MPI_COMM_WORLD's handler */
    PMPI_Comm_get_errhandler(comm != MPI_COMM_NULL ? comm : MPI_COMM_WORLD, &eh);
    int returns = eh == MPI_ERRORS_RETURN;
    if (!returns) {
        fprintf(stderr, "corempi(harness): %s on rank %d: %s\n", call, rank, msg);
        PMPI_Abort(MPI_COMM_WORLD, errclass);
    }
    return errclass;
}

/* Settings: a plain number (no warning dedup across ranks over a host MPI). */
size_t cm_env_size(const char *name, size_t def)
{
    const char *s = getenv(name);
    char *end;
    unsigned long long v = s && *s ? strtoull(s, &end, 10) : 0;
    if (!s || !*s)
        return def;
    if (end == s || *end) {
        cm_env_warn(name, s, "is not a number; using %zu", def);
        return def;
    }
    return (size_t)v;
}

const char *cm_config_named(const char *name)
{
    const char *s = getenv(name);
    return s && *s ? s : NULL;
}

/* As core/config.c parses COREMPI_VERBOSE: "coll" among the words, or a
 * value that names no layer ("1", "all"). */
unsigned cm_config_verbose(void)
{
    const char *s = cm_config_named("COREMPI_VERBOSE");
    if (!s || !strcmp(s, "0"))
        return 0;
    return strstr(s, "coll") || !(strstr(s, "p2p") || strstr(s, "init")) ? CM_VERBOSE_COLL : 0;
}

void cm_env_warn(const char *name, const char *value, const char *why, ...)
{
    va_list ap;
    fprintf(stderr, "corempi(harness): %s=%s ", name, value);
    va_start(ap, why);
    vfprintf(stderr, why, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* ---- generic requests as generalized requests ------------------------- */

struct generic {
    MPI_Request req;
    int (*poll)(void *);
    void (*destroy)(void *);
    void *state;
    int done;
    struct generic *next;
};
static struct generic *pending;

static int g_query(void *extra, MPI_Status *status)
{
    MPI_Status_set_elements(status, MPI_BYTE, 0);
    MPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = MPI_UNDEFINED;
    status->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}

static int g_free(void *extra)
{
    struct generic *g = extra, **pp;
    for (pp = &pending; *pp; pp = &(*pp)->next)
        if (*pp == g) {
            *pp = g->next;
            break;
        }
    g->destroy(g->state);
    free(g);
    return MPI_SUCCESS;
}

static int g_cancel(void *extra, int complete) { return MPI_SUCCESS; }

MPI_Request cm_request_generic(int (*poll)(void *state), void (*destroy)(void *state), void *state)
{
    struct generic *g = calloc(1, sizeof(*g));
    g->poll = poll;
    g->destroy = destroy;
    g->state = state;
    PMPI_Grequest_start(g_query, g_free, g_cancel, g, &g->req);
    g->next = pending;
    pending = g;
    return g->req;
}

/* Poll the generic request behind handle r once; 1 when it is (now) complete or not ours. */
static int drive(MPI_Request r)
{
    for (struct generic *g = pending; g; g = g->next) {
        if (g->req != r)
            continue;
        if (!g->done && g->poll(g->state)) {
            g->done = 1;
            PMPI_Grequest_complete(g->req);
        }
        return g->done;
    }
    return 1;
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    while (!drive(*request))
        ;
    return PMPI_Wait(request, status);
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    drive(*request);
    return PMPI_Test(request, flag, status);
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    for (int all = 0; !all;) {
        all = 1;
        for (int i = 0; i < count; i++)
            all &= drive(requests[i]);
    }
    return PMPI_Waitall(count, requests, statuses);
}

int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[])
{
    for (int i = 0; i < count; i++)
        drive(requests[i]);
    return PMPI_Testall(count, requests, flag, statuses);
}

/* No hwloc levels over another MPI: the hybrids use their default groups. */
int cm_coll_hier_group_size(MPI_Comm comm)
{
    (void)comm;
    return 0;
}
