/* spawn.c -- fork and exec the ranks.
 *
 * Everything common to all ranks is put into mpirun's own environment once,
 * before forking; a child only adds its rank, binds itself, and execs.  A
 * close-on-exec pipe carries an exec failure back, so that mpirun reports it
 * in one line instead of N ranks "exiting with status 127".  A rank's own
 * context (MPMD) adds its -x/-env variables, its -wdir and COREMPI_APPNUM. */
#include "launch/launch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "shm/segment.h"

struct exec_failure {
    int rank;
    int err;
};

static void set_common_env(const struct cm_job *job, const struct cm_launch_opts *o)
{
    char num[32];
    /* setenv copies: the options keep their strings and free them. */
    for (int i = 0; i < o->nenv; i++) {
        const char *assign = o->env_assign[i];
        const char *eq = strchr(assign, '='); /* add_env wrote "name=value" */
        char *name = strndup(assign, (size_t)(eq - assign));
        if (!name || setenv(name, eq + 1, 1) != 0)
            fprintf(stderr, "mpirun: cannot pass %s to the ranks: out of memory\n", assign);
        free(name);
    }
    snprintf(num, sizeof num, "%d", job->nranks);
    setenv(CM_ENV_SIZE, num, 1);
    snprintf(num, sizeof num, "%d", job->seg_fd);
    setenv(CM_ENV_SHM_FD, num, 1);
}

/* The context rank belongs to: contexts hold consecutive ranks, in order;
 * a lone context holds them all (its -n may have been left to placement). */
static int app_of_rank(const struct cm_launch_opts *o, int rank)
{
    int a = 0;
    while (a + 1 < o->napps && rank >= o->apps[a + 1].first_rank)
        a++;
    return a;
}

/* In the child between fork and exec: only async-signal-safe work plus
 * setenv (the child is single-threaded, mpirun has no threads). */
static _Noreturn void become_rank(const struct cm_job *job, const struct cm_launch_opts *o, struct cm_iofwd *io,
                                  int rank, const sigset_t *orig_mask, pid_t parent, int err_fd, int go_fd)
{
    int appnum = app_of_rank(o, rank);
    const struct cm_launch_app *app = &o->apps[appnum];
    /* If mpirun is killed outright, take the ranks with it. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(127);

    struct cm_rank_ctl *ctl = cm_seg_ctl(job->seg, (uint32_t)rank);
    ctl->pid = (int32_t)getpid();
    int core = job->core_of_rank[rank];
    if (core >= 0) {
        hwloc_obj_t obj = job->machine.cores[core];
        if (!job->bind)
            ctl->bound_core = (int32_t)obj->logical_index; /* placed on a described machine */
        else if (job->bind_set && hwloc_set_cpubind(job->machine.topo, job->bind_set[rank], HWLOC_CPUBIND_PROCESS) == 0)
            ctl->bound_core = (int32_t)obj->logical_index; /* the first core of its object */
        else if (!job->bind_set && cm_machine_bind_self(&job->machine, core) == 0)
            ctl->bound_core = (int32_t)obj->logical_index;
        else if ((ctl->bound_core = -1), 1)
            fprintf(stderr, "mpirun: warning: cannot bind rank %d to core %u: %s\n", rank, obj->logical_index,
                    strerror(errno));
    }

    char num[32];
    snprintf(num, sizeof num, "%d", rank);
    setenv(CM_ENV_RANK, num, 1);
    snprintf(num, sizeof num, "%d", appnum);
    setenv("COREMPI_APPNUM", num, 1); /* MPI_APPNUM (core/attr.c) */
    for (int i = 0; i < app->nenv; i++)
        putenv(app->env_assign[i]); /* the child's own copy of the string: it lives until exec */
    fcntl(job->seg_fd, F_SETFD, 0);
    if (rank != 0) { /* like both peers: only rank 0 reads mpirun's stdin */
        int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (null_fd >= 0) {
            dup2(null_fd, STDIN_FILENO);
            close(null_fd);
        }
    }
    if (go_fd >= 0) { /* hold the exec until mpirun has printed the bindings */
        char c;
        while (read(go_fd, &c, 1) < 0 && errno == EINTR)
            ;
        close(go_fd);
    }
    if (io)
        cm_iofwd_child(io, rank);
    sigprocmask(SIG_SETMASK, orig_mask, NULL);
    if (!app->wdir || chdir(app->wdir) == 0)
        execv(app->path, app->argv);

    struct exec_failure f = {rank, errno};
    if (write(err_fd, &f, sizeof f) < 0)
        _exit(127);
    _exit(127);
}

static void kill_and_reap(struct cm_job *job)
{
    for (int r = 0; r < job->nranks; r++)
        if (job->pids[r] > 0)
            kill(job->pids[r], SIGKILL);
    for (int r = 0; r < job->nranks; r++)
        if (job->pids[r] > 0) {
            waitpid(job->pids[r], NULL, 0);
            job->pids[r] = 0;
        }
}

int cm_launch_spawn(struct cm_job *job, const struct cm_launch_opts *o, struct cm_iofwd *io)
{
    /* An inherited SIGCHLD=SIG_IGN would make the kernel reap the ranks
     * itself and lose their exit statuses. */
    signal(SIGCHLD, SIG_DFL);
    sigset_t watched, orig;
    cm_launch_watched_signals(&watched);
    sigprocmask(SIG_BLOCK, &watched, &orig);
    set_common_env(job, o);

    int err_pipe[2];
    if (pipe2(err_pipe, O_CLOEXEC) != 0) {
        perror("mpirun: pipe");
        return 1;
    }
    /* With --report-bindings the ranks wait before exec until the report is
     * out, so that it comes before anything the program prints. */
    int go_pipe[2] = {-1, -1};
    if (o->report_bindings && pipe2(go_pipe, O_CLOEXEC) != 0) {
        perror("mpirun: pipe");
        return 1;
    }
    /* Every rank's place is in the segment before any rank starts: a rank
     * may look at its peers' places (Comm_split_type, hierarchy) as soon as
     * its MPI_Init returns, possibly before they are forked.  A rank whose
     * binding then fails writes -1 over its own entry. */
    for (int r = 0; r < job->nranks; r++)
        if (job->core_of_rank[r] >= 0)
            cm_seg_ctl(job->seg, (uint32_t)r)->bound_core =
                (int32_t)job->machine.cores[job->core_of_rank[r]]->logical_index;
    pid_t me = getpid();
    for (int r = 0; r < job->nranks; r++) {
        pid_t pid = fork();
        if (pid == 0) {
            close(err_pipe[0]);
            if (go_pipe[1] >= 0)
                close(go_pipe[1]);
            become_rank(job, o, io, r, &orig, me, err_pipe[1], go_pipe[0]);
        }
        if (pid < 0) {
            fprintf(stderr, "mpirun: cannot start rank %d of %d: fork: %s\n", r, job->nranks, strerror(errno));
            close(err_pipe[0]);
            close(err_pipe[1]);
            if (go_pipe[0] >= 0) {
                close(go_pipe[0]);
                close(go_pipe[1]);
            }
            kill_and_reap(job);
            return 1;
        }
        job->pids[r] = pid;
    }
    close(err_pipe[1]);
    if (io)
        cm_iofwd_parent(io);
    if (go_pipe[0] >= 0) {
        cm_launch_report_bindings(job);
        close(go_pipe[0]);
        close(go_pipe[1]); /* EOF: the ranks go on to exec */
    }

    /* EOF once every rank has exec'd (or died): the pipe is close-on-exec. */
    struct exec_failure f;
    ssize_t got;
    do
        got = read(err_pipe[0], &f, sizeof f);
    while (got < 0 && errno == EINTR);
    close(err_pipe[0]);
    if (got == (ssize_t)sizeof f) {
        const struct cm_launch_app *app = &o->apps[app_of_rank(o, f.rank)];
        if (app->wdir && f.err == ENOENT && access(app->wdir, X_OK) != 0)
            fprintf(stderr, "mpirun: -wdir %s: %s\n", app->wdir, strerror(f.err));
        else
            fprintf(stderr, "mpirun: cannot run %s: %s\n", app->path, strerror(f.err));
        kill_and_reap(job);
        return f.err == ENOENT ? 127 : 126;
    }
    return 0;
}
