/* dynspawn.c -- mpirun's side of MPI_Comm_spawn: serve the request a rank
 * posted in the segment (protocol in shm/dyn.h).
 *
 * mpirun checks everything it can before forking (free slots, each
 * command resolved to a runnable file, each wdir a directory), so that a
 * bad request is answered with one message and nothing started.  An exec
 * that still fails comes back over a close-on-exec pipe as at launch
 * (spawn.c); then the children already forked are killed and reaped here,
 * their slots given back, and the answer says which command failed.  The
 * children started are watched by watch.c like the first ranks. */
#include "launch/launch.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "shm/dyn.h"

struct spawn_cmd {
    int maxprocs, argc;
    const char *wdir;     /* NULL: mpirun's directory */
    const char *command;
    const char **argv;    /* points into the request data; argv[0] = command */
    char path[PATH_MAX];
};

struct exec_failure {
    int index;            /* child index in the request */
    int err;
};

/* The next NUL-terminated string of the request, NULL past its end. */
static const char *next_str(const struct cm_dyn_area *a, uint32_t *pos)
{
    if (*pos >= a->data_len || a->data_len > CM_SPAWN_DATA)
        return NULL;
    const char *s = a->data + *pos;
    const void *nul = memchr(s, '\0', a->data_len - *pos);
    if (!nul)
        return NULL;
    *pos += (uint32_t)((const char *)nul - s) + 1;
    return s;
}

static int answer(struct cm_dyn_area *a, int err, const char *fmt, const char *arg, const char *why)
{
    a->err = err;
    snprintf(a->msg, sizeof a->msg, fmt, arg, why);
    atomic_store_explicit(&a->state, CM_SPAWN_DONE, memory_order_release);
    return 0;
}

/* Parse and check the request; 0, or an errno value with the answer written. */
static int parse(struct cm_dyn_area *a, struct spawn_cmd *cmd, int ncmds, int *total)
{
    uint32_t pos = 0;
    *total = 0;
    for (int c = 0; c < ncmds; c++) {
        const char *mp = next_str(a, &pos), *ac = next_str(a, &pos), *wd = next_str(a, &pos);
        const char *command = next_str(a, &pos);
        if (!mp || !ac || !wd || !command)
            return answer(a, EINVAL, "malformed spawn request%s%s", "", ""), EINVAL;
        cmd[c].maxprocs = atoi(mp);
        cmd[c].argc = atoi(ac);
        cmd[c].wdir = *wd ? wd : NULL;
        cmd[c].command = command;
        if (cmd[c].argc < 0 || cmd[c].argc > CM_SPAWN_DATA || cmd[c].maxprocs < 0)
            return answer(a, EINVAL, "malformed spawn request%s%s", "", ""), EINVAL;
        cmd[c].argv = calloc((size_t)cmd[c].argc + 2, sizeof(char *));
        if (!cmd[c].argv)
            return answer(a, ENOMEM, "mpirun is out of memory%s%s", "", ""), ENOMEM;
        cmd[c].argv[0] = command;
        for (int i = 0; i < cmd[c].argc; i++)
            if (!(cmd[c].argv[i + 1] = next_str(a, &pos)))
                return answer(a, EINVAL, "malformed spawn request%s%s", "", ""), EINVAL;
        *total += cmd[c].maxprocs;

        struct stat st;
        if (cmd[c].wdir && (stat(cmd[c].wdir, &st) != 0 || !S_ISDIR(st.st_mode) || access(cmd[c].wdir, X_OK) != 0))
            return answer(a, ENOENT, "wdir '%s': %s", cmd[c].wdir, "not a directory one can enter"), ENOENT;
        /* A relative path with a directory part is relative to wdir (the
         * library made it absolute when no wdir was given). */
        char rel[PATH_MAX];
        const char *name = command;
        if (cmd[c].wdir && strchr(command, '/') && command[0] != '/') {
            snprintf(rel, sizeof rel, "%s/%s", cmd[c].wdir, command);
            name = rel;
        }
        int err = cm_launch_resolve(name, cmd[c].path, sizeof cmd[c].path);
        if (err)
            return answer(a, err, "cannot run '%s': %s", command,
                          err == ENOENT || err == ENOTDIR ? "program not found" : strerror(err)), err;
        char why[CM_SPAWN_MSG / 2];
        if (cm_launch_foreign(cmd[c].path, why, sizeof why))  /* its children would never join */
            return answer(a, ENOEXEC, "cannot run '%s': it %s", command, why), ENOEXEC;
    }
    return 0;
}

/* In the child between fork and exec (mpirun has no threads). */
static _Noreturn void become_child(const struct cm_job *job, const struct spawn_cmd *cmd, int appnum, int slot,
                                   int first, int total, int requester, pid_t parent, int err_fd, int index)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(127);
    cm_seg_ctl(job->seg, (uint32_t)slot)->pid = (int32_t)getpid();
    char num[32];
    snprintf(num, sizeof num, "%d", slot - first);
    setenv(CM_ENV_RANK, num, 1);
    snprintf(num, sizeof num, "%d", total);
    setenv(CM_ENV_SIZE, num, 1);
    snprintf(num, sizeof num, "%d", first);
    setenv(CM_ENV_SLOT_BASE, num, 1);
    snprintf(num, sizeof num, "%d", requester);
    setenv(CM_ENV_PARENT, num, 1);
    snprintf(num, sizeof num, "%d", appnum);
    setenv("COREMPI_APPNUM", num, 1);
    fcntl(job->seg_fd, F_SETFD, 0);
    int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null_fd >= 0) {
        dup2(null_fd, STDIN_FILENO);
        close(null_fd);
    }
    sigset_t watched;
    cm_launch_watched_signals(&watched);
    sigprocmask(SIG_UNBLOCK, &watched, NULL);
    if (!cmd->wdir || chdir(cmd->wdir) == 0)
        execv(cmd->path, (char *const *)cmd->argv);
    struct exec_failure f = {index, errno};
    if (write(err_fd, &f, sizeof f) < 0)
        _exit(127);
    _exit(127);
}

static void undo(struct cm_job *job, int first, int n)
{
    for (int s = first; s < first + n; s++)
        if (job->pids[s] > 0)
            kill(job->pids[s], SIGKILL);
    for (int s = first; s < first + n; s++) {
        if (job->pids[s] > 0)
            waitpid(job->pids[s], NULL, 0);
        job->pids[s] = 0;
        struct cm_rank_ctl *c = cm_seg_ctl(job->seg, (uint32_t)s);
        c->pid = 0;
        atomic_store_explicit(&c->state, CM_RANK_STARTING, memory_order_relaxed);
        cm_launch_slot_released(job, s); /* before slots_used drops */
    }
}

/* Fork and exec the checked commands into slots first..; 0 or an errno value. */
static int start(struct cm_job *job, struct cm_dyn_area *a, struct spawn_cmd *cmd, int ncmds, int first, int total)
{
    int err_pipe[2];
    if (pipe2(err_pipe, O_CLOEXEC) != 0)
        return answer(a, errno, "mpirun cannot make a pipe%s: %s", "", strerror(errno)), errno;
    pid_t me = getpid();
    int slot = first, failed = 0;
    for (int c = 0; c < ncmds && !failed; c++)
        for (int i = 0; i < cmd[c].maxprocs; i++, slot++) {
            job->world_first[slot] = first;
            pid_t pid = fork();
            if (pid == 0) {
                close(err_pipe[0]);
                become_child(job, &cmd[c], c, slot, first, total, a->requester, me, err_pipe[1], slot - first);
            }
            if (pid < 0) {
                answer(a, errno, "mpirun cannot fork for '%s': %s", cmd[c].command, strerror(errno));
                failed = errno;
                break;
            }
            job->pids[slot] = pid;
        }
    close(err_pipe[1]);
    struct exec_failure f;
    ssize_t got;
    do
        got = read(err_pipe[0], &f, sizeof f);
    while (got < 0 && errno == EINTR);
    close(err_pipe[0]);
    if (!failed && got == (ssize_t)sizeof f && f.index >= 0 && f.index < total) {
        int c = 0;
        for (int k = f.index; k >= cmd[c].maxprocs; k -= cmd[c].maxprocs)
            c++;
        a->errcodes[f.index] = f.err;
        answer(a, f.err, "cannot run '%s': %s", cmd[c].command, strerror(f.err));
        failed = f.err ? f.err : EIO;
    }
    if (failed) {
        undo(job, first, total);
        return failed;
    }
    return 0;
}

int cm_launch_serve_spawn(struct cm_job *job)
{
    struct cm_dyn_area *a = cm_seg_dyn(job->seg);
    if (atomic_load_explicit(&a->state, memory_order_acquire) != CM_SPAWN_POSTED)
        return 0;
    struct cm_seg_header *h = job->seg;
    int ncmds = a->ncmds, total = 0;
    a->err = 0;
    a->msg[0] = '\0';
    memset(a->errcodes, 0, sizeof a->errcodes);
    if (ncmds <= 0 || ncmds > CM_SPAWN_MAXPROCS) {
        answer(a, EINVAL, "malformed spawn request%s%s", "", "");
        return 0;
    }
    struct spawn_cmd *cmd = calloc((size_t)ncmds, sizeof *cmd);
    if (!cmd) {
        answer(a, ENOMEM, "mpirun is out of memory%s%s", "", "");
        return 0;
    }
    int started = 0;
    if (parse(a, cmd, ncmds, &total) == 0) {
        int used = (int)atomic_load_explicit(&h->slots_used, memory_order_relaxed), nfree;
        int first = cm_launch_slots_find(job, total, &nfree);
        char what[64];
        snprintf(what, sizeof what, "%d", total);
        if (first < 0 && total <= job->nslots - job->nranks && total <= CM_SPAWN_MAXPROCS &&
            cm_launch_slots_wait(job)) {
            started = -1; /* children that ended a moment ago are still exiting: ask again soon */
        } else if (first < 0 || total > CM_SPAWN_MAXPROCS) {
            char why[200];
            snprintf(why, sizeof why, "%d of the universe's %d slots are free%s (mpirun --universe-size)", nfree,
                     job->nslots, nfree >= total ? ", not as many in a row" : "");
            answer(a, EAGAIN, "cannot spawn %s processes: %s", what, why);
        } else {
            /* Raised before the children start: every process polls the
             * rings of slots below it, the children their siblings' too.
             * Slots of children that ended are reset for the new ones. */
            if (first + total > used)
                atomic_store_explicit(&h->slots_used, (uint32_t)(first + total), memory_order_release);
            cm_launch_slots_reuse(job, first, total, used);
            if (start(job, a, cmd, ncmds, first, total) == 0) {
                a->first_slot = first;
                started = total;
                atomic_store_explicit(&a->state, CM_SPAWN_DONE, memory_order_release);
            } else {
                atomic_store_explicit(&h->slots_used, (uint32_t)used, memory_order_release);
            }
        }
    }
    for (int c = 0; c < ncmds; c++)
        free(cmd[c].argv);
    free(cmd);
    if (started >= 0)
        cm_launch_slots_waited(); /* answered */
    return started;
}

void cm_launch_slot_name(const struct cm_job *job, int slot, char *buf, size_t len)
{
    if (slot < 0 || slot < job->nranks || slot >= job->nslots)
        snprintf(buf, len, "rank %d", slot);
    else
        snprintf(buf, len, "spawned rank %d (slot %d)", slot - job->world_first[slot], slot);
}
