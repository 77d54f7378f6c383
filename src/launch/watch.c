/* watch.c -- wait for the ranks; end the job when one fails.
 *
 * mpirun blocks SIGCHLD and the signals it forwards, and reads them from a
 * signalfd polled together with the ranks' output pipes (iofwd.c): no
 * handlers, no races between a signal and the state below.
 * The first failure decides the message and the exit status; the rest of the
 * ranks get SIGTERM, and SIGKILL CM_KILL_GRACE_MS later if still there.
 * Except when the first failure is a fatal error line that only points at
 * another rank's (abort flag CM_SEG_ABORT_HELD; its line held by iofwd.c):
 * then the others keep running up to CM_HOLD_MS, so that the rank whose
 * line names the arguments can print it, and the held lines follow once
 * such a rank has ended or the time is up. */
#include "launch/launch.h"
#include "launch/deadlock.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>
#include <time.h>
#include "shm/segment.h"

#define CM_KILL_GRACE_MS 200
#define CM_DEADLOCK_SAMPLE_MS 100
#define CM_HOLD_MS 1000

struct watch {
    struct cm_job *job;
    int live;
    int status;          /* mpirun's exit status so far */
    int aborting;        /* the job is being ended */
    double kill_at;      /* when to send SIGKILL (ms), 0: not scheduled */
    double hold_until;   /* a held line ended a rank: end the job then (ms), 0: none */
    int hold_status;     /* the exit status for then */
    double deadline;     /* --timeout: when to end the job (ms), 0: none */
    long long oom_kills; /* the kernel's out-of-memory kills when the job started (oom.c) */
    int spawn_waits;     /* a spawn request waits for slots: look again soon */
    const struct cm_launch_opts *opts;
    struct cm_iofwd *io;
    struct cm_deadlock_watch deadlock;
};

void cm_launch_watched_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGCHLD);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGHUP);
    sigaddset(set, SIGUSR1); /* a rank posted a spawn request (shm/dyn.h) */
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void signal_live_ranks(struct watch *w, int sig)
{
    for (int r = 0; r < w->job->nslots; r++)
        if (w->job->pids[r] > 0)
            kill(w->job->pids[r], sig);
}

static void end_job(struct watch *w, int status, int sig)
{
    if (w->aborting)
        return;
    w->aborting = 1;
    w->status = status;
    signal_live_ranks(w, sig);
    w->kill_at = now_ms() + CM_KILL_GRACE_MS;
}

/* The held lines out (after those that name the arguments), then the end. */
static void end_hold(struct watch *w)
{
    cm_iofwd_release(w->io);
    w->hold_until = 0;
    end_job(w, w->hold_status, SIGTERM);
}

static const struct cm_rank_ctl *ctl_of(const struct watch *w, int rank)
{
    return cm_seg_ctl(w->job->seg, (uint32_t)rank);
}

/* " in MPI_Send" while inside a call, " (last MPI call: MPI_Send)" after one. */
static void where_in_mpi(const struct cm_rank_ctl *c, char *buf, size_t len)
{
    char tmp[32];
    buf[0] = '\0';
    if (c->blocked_call)
        snprintf(buf, len, " in %s", cm_launch_call_name(c->blocked_call, tmp, sizeof tmp));
    else if (c->last_call)
        snprintf(buf, len, " (last MPI call: %s)", cm_launch_call_name(c->last_call, tmp, sizeof tmp));
}

static void on_mpi_abort(struct watch *w, int rank)
{
    const struct cm_seg_header *h = w->job->seg;
    uint32_t flag = atomic_load_explicit(&h->abort_flag, memory_order_acquire);
    int code = flag ? h->abort_code : ctl_of(w, rank)->exit_code;
    int who = flag ? h->abort_rank : rank;
    char name[64];
    if (flag == CM_SEG_ABORT_HELD) {
        /* Its line points at another rank's: wait for that one (a rank
         * that ends aborted with no line held printed its own), a while. */
        if (!w->hold_until) {
            w->hold_until = now_ms() + CM_HOLD_MS;
            w->hold_status = code & 0xff ? code & 0xff : 1;
        }
        if (rank != who && ctl_of(w, rank)->state == CM_RANK_ABORTED && !cm_iofwd_held(w->io, rank)) {
            int own = ctl_of(w, rank)->exit_code;   /* the status of the error that names the arguments */
            w->hold_status = own & 0xff ? own & 0xff : 1;
            end_hold(w);
        }
        return;
    }
    cm_launch_slot_name(w->job, who, name, sizeof name);
    if (flag != 2) /* 2: the rank has already printed why */
        fprintf(stderr, "mpirun: %s called MPI_Abort with code %d; job aborted\n", name, code);
    end_job(w, code & 0xff ? code & 0xff : 1, SIGTERM);
}

/* A rank is gone: decide whether that is the end of the job. */
static void on_rank_exit(struct watch *w, int rank, int wstatus)
{
    const struct cm_rank_ctl *c = ctl_of(w, rank);
    uint32_t state = atomic_load_explicit(&c->state, memory_order_acquire);
    pid_t pid = w->job->pids[rank];
    char where[96], name[64];
    cm_launch_slot_name(w->job, rank, name, sizeof name);

    if (w->aborting)
        return; /* collateral of the first failure: already reported */
    /* Once a rank has called MPI_Abort, that is the cause, whoever leaves first. */
    const struct cm_seg_header *h = w->job->seg;
    if (state == CM_RANK_ABORTED || atomic_load_explicit(&h->abort_flag, memory_order_acquire)) {
        on_mpi_abort(w, rank);
        return;
    }
    if (WIFSIGNALED(wstatus)) {
        int sig = WTERMSIG(wstatus);
        char who[320] = "";
        where_in_mpi(c, where, sizeof where);
        if (sig == SIGKILL) /* not mpirun's: it sends signals only once aborting */
            cm_launch_sigkill_note(w->oom_kills, who, sizeof who);
        fprintf(stderr, "mpirun: %s (pid %d) killed by signal %d (%s)%s%s; job aborted\n", name, (int)pid, sig,
                strsignal(sig), who, state == CM_RANK_RUNNING ? where : "");
        end_job(w, 128 + sig, SIGTERM);
        return;
    }
    int code = WEXITSTATUS(wstatus);
    if (state == CM_RANK_FINALIZED || (state == CM_RANK_STARTING && code == 0)) {
        /* a normal end (a program that never used MPI counts as one) */
        if (code != 0 && w->status == 0)
            w->status = code;
        return;
    }
    if (state == CM_RANK_STARTING) {
        fprintf(stderr, "mpirun: %s (pid %d) exited with status %d before MPI_Init; job aborted\n", name,
                (int)pid, code);
    } else {
        char tmp[32];
        fprintf(stderr, "mpirun: %s (pid %d) exited with status %d without calling MPI_Finalize "
                        "(last MPI call: %s); job aborted\n",
                name, (int)pid, code, cm_launch_call_name(c->last_call, tmp, sizeof tmp));
    }
    end_job(w, code ? code : 1, SIGTERM);
}

static void reap(struct watch *w)
{
    for (;;) {
        int wstatus;
        pid_t pid = waitpid(-1, &wstatus, WNOHANG);
        if (pid < 0 && errno == ECHILD) {
            w->live = 0; /* cannot happen while a rank lives; never wait forever */
            return;
        }
        if (pid <= 0)
            return;
        for (int r = 0; r < w->job->nslots; r++)
            if (w->job->pids[r] == pid) {
                w->job->status[r] = wstatus;
                if (r < w->job->nranks) /* spawned processes write straight to mpirun's stdout/stderr */
                    cm_iofwd_drain_rank(w->io, r); /* its output before mpirun's word on it */
                on_rank_exit(w, r, wstatus);
                w->job->pids[r] = 0;
                if (r >= w->job->nranks) /* its slot is free for a later spawn (slots.c) */
                    cm_launch_slot_released(w->job, r);
                w->live--;
                break;
            }
    }
}

static void on_signal_to_mpirun(struct watch *w, int sig)
{
    if (w->aborting) { /* a second ^C: no more patience */
        signal_live_ranks(w, SIGKILL);
        return;
    }
    fprintf(stderr, "mpirun: received signal %d (%s); forwarded to the ranks; job aborted\n", sig, strsignal(sig));
    end_job(w, 128 + sig, sig);
}

static int next_timeout_ms(const struct watch *w, double now)
{
    double t = -1;
    if (w->aborting && w->kill_at > 0)
        t = w->kill_at - now;
    else if (w->hold_until > 0)
        t = w->hold_until > now ? w->hold_until - now : 0;
    else if (w->deadlock.timeout_s > 0)
        t = CM_DEADLOCK_SAMPLE_MS;
    if (!w->aborting && w->deadline > 0 && (t < 0 || w->deadline - now < t))
        t = w->deadline - now > 0 ? w->deadline - now : 0;
    if (t < 0 && (w->aborting && w->kill_at > 0))
        t = 0;
    if (w->spawn_waits && (t < 0 || t > 10))
        t = 10;
    return t < 0 ? -1 : (int)t + 1; /* +1: never wake just before the moment */
}

static void on_time_limit(struct watch *w)
{
    const char *how = w->opts->timeout_src ? w->opts->timeout_src : "--timeout";
    fprintf(stderr, "mpirun: job exceeded its time limit of %g s (%s); killing %d rank%s\n", w->opts->timeout_s,
            how, w->live, w->live == 1 ? "" : "s");
    end_job(w, 124, SIGTERM);
}

/* The signals read since the last look (the signalfd is non-blocking). */
static void read_signals(struct watch *w, int sfd, const sigset_t *set)
{
    for (;;) {
        int sig;
        if (sfd >= 0) {
            struct signalfd_siginfo si;
            if (read(sfd, &si, sizeof si) != (ssize_t)sizeof si)
                return;
            sig = (int)si.ssi_signo;
        } else {
            siginfo_t info;
            struct timespec zero = {0, 0};
            if ((sig = sigtimedwait(set, &info, &zero)) <= 0)
                return;
        }
        if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP)
            on_signal_to_mpirun(w, sig);
    }
}

/* A spawn request may be posted (SIGUSR1 says so; a lost signal is covered
 * by looking on every turn of the loop).  No spawning once the job ends. */
static void serve_spawn(struct watch *w)
{
    if (w->aborting)
        return;
    int started = cm_launch_serve_spawn(w->job);
    w->spawn_waits = started < 0;
    if (started > 0)
        w->live += started;
}

int cm_launch_watch(struct cm_job *job, const struct cm_launch_opts *o, struct cm_iofwd *io)
{
    struct watch w = {.job = job, .live = job->nranks, .opts = o, .io = io, .oom_kills = cm_launch_oom_kills()};
    if (o->timeout_s > 0)
        w.deadline = now_ms() + o->timeout_s * 1e3;
    if (cm_deadlock_init(&w.deadlock, job->nslots, cm_deadlock_timeout_from_env()) != 0)
        w.deadlock.timeout_s = 0;
    sigset_t set;
    cm_launch_watched_signals(&set);
    /* The signals stay blocked; without a signalfd they are polled every 50 ms. */
    int sfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    struct pollfd *fds = malloc((size_t)(1 + cm_iofwd_nfds(io)) * sizeof *fds);
    if (!fds) {
        fprintf(stderr, "mpirun: out of memory\n");
        signal_live_ranks(&w, SIGKILL);
    }

    reap(&w); /* ranks may have ended before we got here */
    while (w.live > 0) {
        double now = now_ms();
        if (w.aborting && w.kill_at > 0 && now >= w.kill_at) {
            signal_live_ranks(&w, SIGKILL);
            w.kill_at = 0;
        }
        if (!w.aborting && w.hold_until > 0 && now >= w.hold_until)
            end_hold(&w);
        if (!w.aborting && w.deadline > 0 && now >= w.deadline)
            on_time_limit(&w);
        if (!w.aborting && cm_deadlock_sample(&w.deadlock, job, now / 1e3)) {
            cm_deadlock_report(&w.deadlock, job);
            end_job(&w, 124, SIGTERM);
        }
        int timeout = next_timeout_ms(&w, now_ms());
        if (sfd < 0 && (timeout < 0 || timeout > 50))
            timeout = 50;
        int n = 0;
        if (fds) {
            if (sfd >= 0)
                fds[n++] = (struct pollfd){sfd, POLLIN, 0};
            n += cm_iofwd_pollfds(io, fds + n, cm_iofwd_nfds(io));
            if (poll(fds, (nfds_t)n, timeout) > 0)
                cm_iofwd_pump(io, fds + (sfd >= 0), n - (sfd >= 0));
        } else {
            poll(NULL, 0, 50);
        }
        read_signals(&w, sfd, &set);
        serve_spawn(&w);
        reap(&w);
    }
    if (w.hold_until > 0)   /* every rank ended while a line was held */
        end_hold(&w);
    cm_iofwd_release(io);   /* lines held after the job began to end */
    if (sfd >= 0)
        close(sfd);
    free(fds);
    cm_deadlock_free(&w.deadlock);
    return w.status;
}
