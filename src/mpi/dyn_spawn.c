/*
 * dyn_spawn.c -- MPI_Comm_spawn and MPI_Comm_spawn_multiple.
 *
 * The root checks the arguments, asks mpirun through the segment's spawn
 * area (protocol in shm/dyn.h) and broadcasts the outcome over comm, so
 * that every parent returns the same error class and message, or goes on
 * to meet the children on the channel (mpi/dyn.h) with tag CM_TAG_DYN_SPAWN
 * minus the children's first slot, which both sides know.  The children
 * meet the parents inside their MPI_Init (mpi/dyn_parent.c).  A spawn never
 * waits for anything that may not come: mpirun answers every request, and
 * if mpirun dies the process dies with it (PR_SET_PDEATHSIG).
 */
#include "mpi/dyn.h"
#include "core/error.h"
#include "core/state.h"
#include "shm/dyn.h"
#include "p2p/p2p.h"
#include "fe_proc.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* What the root broadcasts: the outcome, for every parent alike. */
struct outcome {
    int err_class;        /* MPI_SUCCESS or the class to return */
    int first_slot;
    int total;            /* children asked for (array_of_errcodes' length) */
    int exec_err;         /* errno of a failed exec/lookup, 0 if none */
    char msg[CM_SPAWN_MSG];
};

static int fail(struct outcome *o, int cls, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(struct outcome *o, int cls, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->msg, sizeof o->msg, fmt, ap);
    va_end(ap);
    o->err_class = cls;
    return cls;
}

/* Append a NUL-terminated string to the request; -1 when it does not fit. */
static int put(char *data, uint32_t *len, const char *s)
{
    size_t n = strlen(s) + 1;
    if (*len + n > CM_SPAWN_DATA)
        return -1;
    memcpy(data + *len, s, n);
    *len += (uint32_t)n;
    return 0;
}

/* host: only this node (its name, its short name, localhost). */
static int host_is_here(const char *host)
{
    char me[256];
    if (!strcmp(host, "localhost") || !strcmp(host, "127.0.0.1") || !strcmp(host, "::1"))
        return 1;
    if (gethostname(me, sizeof me) != 0)
        return 0;
    me[sizeof me - 1] = '\0';
    size_t short_len = strcspn(me, ".");
    return !strcmp(host, me) || (strlen(host) == short_len && !strncmp(host, me, short_len));
}

/* dir/name into buf if it is a regular file this process may execute. */
static int runnable_in(const char *dir, size_t dlen, const char *name, char *buf, size_t len)
{
    struct stat st;
    if (dlen == 0 || snprintf(buf, len, "%.*s/%s", (int)dlen, dir, name) >= (int)len)
        return 0;
    return stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0;
}

/* The first directory of a ':'-separated list holding name, into buf. */
static int find_in_list(const char *list, const char *name, char *buf, size_t len)
{
    for (const char *d = list; d && *d;) {
        size_t n = strcspn(d, ":");
        if (runnable_in(d, n, name, buf, len))
            return 1;
        d += n + (d[n] == ':');
    }
    return 0;
}

/* A command without '/' is looked up, in the caller's environment, as users
 * expect from mpiexec (MPI-4.1 11.3.4's reserved keys): the info key path's
 * directories, then PATH, then wdir (or, without wdir, the caller's current
 * directory).  PATH before the directory, so that a file in it never shadows
 * a system program.  Found: its absolute path into buf, 1. */
static int look_up(const char *command, const char *path, const char *wdir, char *buf, size_t len)
{
    char cwd[PATH_MAX], here[PATH_MAX];
    if (path[0] && find_in_list(path, command, buf, len))
        return 1;
    if (find_in_list(getenv("PATH"), command, buf, len))
        return 1;
    const char *dir = wdir[0] ? wdir : getcwd(cwd, sizeof cwd);
    if (!dir || !runnable_in(dir, strlen(dir), command, here, sizeof here))
        return 0;
    if (here[0] != '/' && getcwd(cwd, sizeof cwd))  /* a relative wdir is the caller's */
        return snprintf(buf, len, "%s/%s", cwd, here) < (int)len;
    return snprintf(buf, len, "%s", here) < (int)len;
}

/* The request for command c into data; 0 or an error class (o says why). */
static int put_command(struct outcome *o, char *data, uint32_t *len, const char *command,
                       char **argv, int maxprocs, MPI_Info info)
{
    char wdir[PATH_MAX] = "", path[PATH_MAX] = "", num[32], abs_cmd[PATH_MAX];
    if (info != MPI_INFO_NULL) {
        int flag = 0, buflen = (int)sizeof wdir;
        if (PMPI_Info_get_string(info, "wdir", &buflen, wdir, &flag) != MPI_SUCCESS)
            return fail(o, MPI_ERR_INFO, "the info of '%s' is not a valid info object", command);
        if (!flag)
            wdir[0] = '\0';
        buflen = (int)sizeof path;
        if (PMPI_Info_get_string(info, "path", &buflen, path, &flag) != MPI_SUCCESS || !flag)
            path[0] = '\0';
        char host[256];
        buflen = (int)sizeof host;
        if (PMPI_Info_get_string(info, "host", &buflen, host, &flag) == MPI_SUCCESS && flag && !host_is_here(host))
            return fail(o, MPI_ERR_SPAWN, "cannot spawn '%s' on host '%s': corempi starts processes on this node only",
                        command, host);
    }
    /* A relative path is the caller's, not mpirun's (unless wdir says where). */
    if (!wdir[0] && strchr(command, '/') && command[0] != '/') {
        char cwd[PATH_MAX];
        if (getcwd(cwd, sizeof cwd) && snprintf(abs_cmd, sizeof abs_cmd, "%s/%s", cwd, command) < (int)sizeof abs_cmd)
            command = abs_cmd;
    } else if (!strchr(command, '/')) {
        if (!look_up(command, path, wdir, abs_cmd, sizeof abs_cmd))
            return fail(o, MPI_ERR_SPAWN, "cannot run '%s': program not found (looked in %s%s%sPATH and %s)", command,
                        path[0] ? "the info key path's " : "", path[0] ? path : "", path[0] ? ", " : "",
                        wdir[0] ? "wdir" : "the current directory");
        command = abs_cmd;
    }
    int argc = 0;
    while (argv && argv[argc])
        argc++;
    snprintf(num, sizeof num, "%d", maxprocs);
    int bad = put(data, len, num);
    snprintf(num, sizeof num, "%d", argc);
    bad |= put(data, len, num) | put(data, len, wdir) | put(data, len, command);
    for (int i = 0; i < argc; i++)
        bad |= put(data, len, argv[i]);
    if (bad)
        return fail(o, MPI_ERR_SPAWN, "the commands and arguments are too long for a spawn request (at most %d bytes)",
                    CM_SPAWN_DATA);
    return MPI_SUCCESS;
}

static void nap_us(long us)
{
    struct timespec ts = { 0, us * 1000 };
    nanosleep(&ts, NULL);
}

/* Post the request to mpirun and wait for its answer (shm/dyn.h). */
static void ask_mpirun(struct outcome *o, const char *data, uint32_t len, int ncmds, int total)
{
    struct cm_dyn_area *a = cm_seg_dyn(cm_g.seg);
    uint32_t me = (uint32_t)cm_g.rank + 1, free_word = 0;
    while (!atomic_compare_exchange_weak_explicit(&a->spawn_lock, &free_word, me, memory_order_acquire,
                                                  memory_order_relaxed)) {
        free_word = 0;
        nap_us(200);
    }
    a->requester = cm_g.rank;
    a->ncmds = ncmds;
    a->total = total;
    a->data_len = len;
    memcpy(a->data, data, len);
    atomic_store_explicit(&a->state, CM_SPAWN_POSTED, memory_order_release);
    pid_t launcher = cm_g.hdr->launcher_pid;
    if (kill(launcher, SIGUSR1) != 0) {
        atomic_store_explicit(&a->state, CM_SPAWN_IDLE, memory_order_relaxed);
        atomic_store_explicit(&a->spawn_lock, 0, memory_order_release);
        fail(o, MPI_ERR_SPAWN, "cannot reach mpirun (pid %d): %s", (int)launcher, strerror(errno));
        return;
    }
    /* mpirun answers every request it sees; if it is gone, so are we. */
    for (long us = 20; atomic_load_explicit(&a->state, memory_order_acquire) != CM_SPAWN_DONE;) {
        nap_us(us);
        if (us < 2000)
            us *= 2;
    }
    o->first_slot = a->first_slot;
    o->exec_err = a->err;
    if (a->err)
        fail(o, a->err == ENOMEM ? MPI_ERR_NO_MEM : MPI_ERR_SPAWN, "%s", a->msg);
    atomic_store_explicit(&a->state, CM_SPAWN_IDLE, memory_order_relaxed);
    atomic_store_explicit(&a->spawn_lock, 0, memory_order_release);
}

/* At the root: check what only the root sees, and spawn. */
static void root_spawn(struct outcome *o, const char *call, int count, char **commands, char ***argvs,
                       const int *maxprocs, const MPI_Info *infos)
{
    if (cm_g.singleton || cm_g.hdr->launcher_pid <= 0) {
        fail(o, MPI_ERR_SPAWN, "%s needs mpirun: this process was started without it (run it with mpirun -n 1)", call);
        return;
    }
    if (count < 1) {
        fail(o, MPI_ERR_ARG, "count is %d (must be at least 1)", count);
        return;
    }
    if (!commands || !maxprocs) {
        fail(o, MPI_ERR_ARG, "%s is NULL", !commands ? "the command array" : "array_of_maxprocs");
        return;
    }
    char *data = malloc(CM_SPAWN_DATA);
    if (!data) {
        fail(o, MPI_ERR_NO_MEM, "out of memory");
        return;
    }
    uint32_t len = 0;
    o->total = 0;
    for (int c = 0; c < count; c++) {
        if (!commands[c] || !commands[c][0]) {
            fail(o, MPI_ERR_ARG, "command %d is %s", c, commands[c] ? "empty" : "NULL");
            break;
        }
        if (maxprocs[c] < 1 || maxprocs[c] > CM_SPAWN_MAXPROCS) {
            fail(o, MPI_ERR_ARG, "maxprocs %d for '%s' (must be 1..%d)", maxprocs[c], commands[c], CM_SPAWN_MAXPROCS);
            break;
        }
        o->total += maxprocs[c];
        if (put_command(o, data, &len, commands[c], argvs ? argvs[c] : NULL, maxprocs[c],
                        infos ? infos[c] : MPI_INFO_NULL))
            break;
    }
    if (o->err_class == MPI_SUCCESS)
        ask_mpirun(o, data, len, count, o->total);
    free(data);
}

static int spawn(const char *call, int count, char **commands, char ***argvs, const int *maxprocs,
                 const MPI_Info *infos, int root, MPI_Comm comm, MPI_Comm *intercomm, int *errcodes)
{
    struct cm_comm *c;
    int rc = cm_dyn_check_group(call, comm, root, intercomm, "intercomm", &c);
    if (rc)
        return rc;

    struct outcome o;
    memset(&o, 0, sizeof o);
    if (c->rank == root)
        root_spawn(&o, call, count, commands, argvs, maxprocs, infos);
    if ((rc = PMPI_Bcast(&o, (int)sizeof o, MPI_BYTE, root, comm)) != MPI_SUCCESS)
        return rc;
    if (errcodes)
        for (int i = 0; i < o.total; i++)
            errcodes[i] = o.err_class == MPI_SUCCESS ? MPI_SUCCESS : o.exec_err ? MPI_ERR_SPAWN : o.err_class;
    if (o.err_class != MPI_SUCCESS)
        return cm_error(comm, o.err_class, call, "%s", o.msg);
    cm_p2p_reuse_refresh(); /* the children may have slots of finished ones: p2p/reuse.c */
    return cm_dyn_bridge(c, root, o.first_slot, CM_TAG_DYN_SPAWN - o.first_slot, call, intercomm);
}

int cm_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root, MPI_Comm comm,
                  MPI_Comm *intercomm, int array_of_errcodes[])
{
    char *cmd = (char *)command;
    char **argvs[1] = { argv };
    return spawn("MPI_Comm_spawn", 1, &cmd, argvs, &maxprocs, &info, root, comm, intercomm, array_of_errcodes);
}

int cm_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[],
                           const int array_of_maxprocs[], const MPI_Info array_of_info[], int root, MPI_Comm comm,
                           MPI_Comm *intercomm, int array_of_errcodes[])
{
    return spawn("MPI_Comm_spawn_multiple", count, array_of_commands, array_of_argv, array_of_maxprocs,
                 array_of_info, root, comm, intercomm, array_of_errcodes);
}
