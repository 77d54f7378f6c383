/*
 * launch.h -- mpirun's pieces: options, the job, and the steps between them.
 *
 *   parse options -> find the program -> place ranks (topo) -> create the
 *   segment -> spawn -> watch until every rank is gone -> exit status
 */
#ifndef CM_LAUNCH_H
#define CM_LAUNCH_H

#include <stddef.h>
#include <stdio.h>
#include <signal.h>
#include <sys/types.h>
#include "topo/placement.h"
#include "topo/machine.h"

enum cm_bind_mode {
    CM_BIND_DEFAULT = 0, /* bind when every rank gets a core of its own */
    CM_BIND_NONE,
    CM_BIND_CORE         /* bind, round-robin when ranks outnumber cores */
};

struct cm_launch_opts {
    int nranks;                 /* 0: not given */
    enum cm_map_policy map;
    enum cm_bind_mode bind;
    int report_bindings;
    const char *topology;       /* --topology or COREMPI_TOPOLOGY */
    char **env_assign;          /* "VAR=value" for -x/-genv, applied to every rank */
    int nenv;
    char **argv;                /* the program and its arguments */
};

/* Parse argv.  Returns -1 to go on, or an exit status (0 after --help or
 * --help-env). */
int cm_launch_parse(int argc, char **argv, struct cm_launch_opts *o);
/* Free what parsing allocated (after the ranks are spawned or on an error). */
void cm_launch_opts_free(struct cm_launch_opts *o);
/* Print the COREMPI_* variables users may set (core/config.def). */
void cm_launch_help_env(FILE *out);

/* Resolve the program like execvp would, before anything is forked.  Returns
 * 0 with the path in buf, or the exit status after printing one line. */
int cm_launch_find_program(const char *name, char *buf, size_t len);

struct cm_job {
    int nranks;
    void *seg;                  /* the mapped segment */
    size_t seg_bytes;
    int seg_fd;
    struct cm_machine machine;
    int have_machine;           /* a topology was loaded */
    int ncores_here;            /* usable cores of this machine (PUs when hwloc was skipped) */
    int bind;                   /* ranks are actually bound */
    int *core_of_rank;          /* usable-core index per rank, -1 when unbound */
    pid_t *pids;                /* 0 once reaped */
    int *status;                /* wait status per rank, valid once reaped */
};

/* Decide which core each rank gets; loads the topology only when needed. */
int cm_launch_place(struct cm_job *job, const struct cm_launch_opts *o);
/* Free what placement allocated: the per-rank arrays and the machine. */
void cm_launch_unplace(struct cm_job *job);

/* Create, size, map and format the segment (memfd: no name in /dev/shm). */
int cm_launch_segment_create(struct cm_job *job);
void cm_launch_segment_destroy(struct cm_job *job);

/* Fork and exec every rank.  Returns 0, or an exit status after cleaning up. */
int cm_launch_spawn(struct cm_job *job, const struct cm_launch_opts *o, const char *path);

/* Wait for every rank; returns mpirun's exit status. */
int cm_launch_watch(struct cm_job *job);

/* Messages. */
const char *cm_launch_call_name(unsigned id, char *buf, size_t len);
void cm_launch_report_bindings(const struct cm_job *job);

/* The signals mpirun handles itself (blocked, read with sigtimedwait). */
void cm_launch_watched_signals(sigset_t *set);

#endif
