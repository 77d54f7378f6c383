/* main.c -- mpirun / mpiexec: start N ranks of a program on this machine. */
#include "launch/launch.h"
#include "shm/names_dir.h"
#include "shm/segment.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double own_cpu_ms(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Everything after parsing the options; frees what it allocated. */
static int run(struct cm_launch_opts *opts, double t0)
{
    int rc;
    if ((rc = cm_launch_check_apps(opts)) != 0)
        return rc;

    struct cm_job job;
    memset(&job, 0, sizeof job);
    job.seg_fd = -1;
    if ((rc = cm_launch_place(&job, opts)) != 0) {
        cm_launch_unplace(&job);
        return rc;
    }
    double t_placed = now_ms();
    for (int a = 1; a < opts->napps; a++) /* MPMD: contexts in order */
        opts->apps[a].first_rank = opts->apps[a - 1].first_rank + opts->apps[a - 1].nranks;
    if ((rc = cm_launch_segment_create(&job)) != 0) {
        cm_launch_unplace(&job);
        return rc;
    }
    double t_segment = now_ms();
    struct cm_iofwd *io = cm_iofwd_create(opts, job.nranks, &rc);
    if (io)   /* the world's ranks may mark a line to hold (shm/segment.h) */
        ((struct cm_seg_header *)job.seg)->held_ranks = (uint32_t)job.nranks;
    if (rc != 0 || (rc = cm_launch_spawn(&job, opts, io)) != 0) {
        cm_iofwd_free(io);
        cm_launch_segment_destroy(&job);
        cm_launch_unplace(&job);
        return rc;
    }
    double t_spawned = now_ms();
    rc = cm_launch_watch(&job, opts, io);
    cm_iofwd_free(io);
    cm_launch_segment_destroy(&job);
    cm_names_remove_job((long)getpid());   /* names the job published and left (shm/names_dir.h) */
    if (cm_launch_cfg.verbose)
        fprintf(stderr, "mpirun: %d ranks: placement %.2f ms (hwloc %s), segment %.2f ms, fork+exec %.2f ms, "
                        "job %.2f ms, exit status %d; mpirun's own cpu time %.2f ms\n",
                job.nranks, t_placed - t0, job.have_machine ? "loaded" : "not loaded", t_segment - t_placed,
                t_spawned - t_segment, now_ms() - t_spawned, rc, own_cpu_ms());
    cm_launch_unplace(&job);
    return rc;
}

int main(int argc, char **argv)
{
    double t0 = now_ms();
    struct cm_launch_opts opts;
    cm_launch_config_load();
    int rc = cm_launch_parse(argc, argv, &opts);
    if (rc < 0)
        rc = run(&opts, t0);
    cm_launch_opts_free(&opts);
    return rc;
}
