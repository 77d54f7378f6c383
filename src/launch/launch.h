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
#include <poll.h>
#include "topo/placement.h"
#include "topo/machine.h"

struct cm_iofwd;

enum cm_bind_mode {
    CM_BIND_DEFAULT = 0, /* bind when every rank gets a core of its own */
    CM_BIND_NONE,
    CM_BIND_CORE,        /* bind, round-robin when ranks outnumber cores */
    CM_BIND_OBJECT       /* bind to the cpuset of an object (bind_obj) */
};

/* The hwloc objects --map-by ppr:N:X and --bind-to X may name. */
enum cm_obj_kind {
    CM_OBJ_CORE = 0,
    CM_OBJ_L3CACHE,
    CM_OBJ_NUMA,
    CM_OBJ_PACKAGE
};

/* How rank output reaches mpirun's stdout/stderr (iofwd.c). */
enum cm_tag_mode {
    CM_TAG_NONE = 0,
    CM_TAG_OMPI,         /* --tag-output: "[1,r]<stdout>:" */
    CM_TAG_RANK          /* -l, --prepend-rank: "[r] " */
};

/* One context of an MPMD command line ("-n 2 ./b args" between colons).
 * Its ranks are consecutive in MPI_COMM_WORLD, in the order of contexts. */
struct cm_launch_app {
    int nranks;                 /* 0: not given (only a lone context may omit it) */
    int first_rank;
    char **argv;                /* NULL-terminated copy of the program and its arguments */
    char **env_assign;          /* "VAR=value" for -x/-env: this context's ranks only */
    int nenv;
    const char *wdir;           /* -wdir: where its ranks start; NULL: mpirun's own */
    char *path;                 /* the program, resolved before anything is forked */
};

struct cm_launch_opts {
    int nranks;                 /* the sum over contexts; 0: not given */
    enum cm_map_policy map;
    const char *map_auto;       /* --map-by auto:FILE: the trace directory or CSV (NULL: not asked) */
    int ppr;                    /* --map-by ppr:N:X: N ranks per X (0: not asked) */
    enum cm_obj_kind ppr_obj;
    enum cm_bind_mode bind;
    enum cm_obj_kind bind_obj;  /* with CM_BIND_OBJECT */
    int report_bindings;
    const char *topology;       /* --topology or COREMPI_TOPOLOGY */
    char **env_assign;          /* "VAR=value" for -genv and mpirun's own, applied to every rank */
    int nenv;
    struct cm_launch_app *apps; /* at least one once parsing succeeded */
    int napps;
    const char *gwdir;          /* -gwdir: the default of every context's -wdir */
    int slots;                  /* slots named by -H/--hostfile (0: none) */
    int universe;               /* --universe-size (0: not given) */
    double timeout_s;           /* --timeout or MPIEXEC_TIMEOUT; 0: none */
    const char *timeout_src;    /* which of the two set it, for the message */
    enum cm_tag_mode tag;
    const char *output_dir;     /* --output-filename DIR */
    int output_nocopy;          /* DIR:nocopy: files only, nothing on the terminal */
    char **owned;               /* -configfile's words, which argv entries point to */
    int nowned;
    char ***owned_lists;        /* and the argv-like lists made of them */
    int nlists;
};

/* mpirun's COREMPI_* settings (config.c), read once by main before anything
 * else; NULL text means unset or empty. */
struct cm_launch_config {
    const char *topology;          /* COREMPI_TOPOLOGY: --topology's default */
    const char *deadlock_timeout;  /* COREMPI_DEADLOCK_TIMEOUT (deadlock.c parses it) */
    int verbose;                   /* COREMPI_LAUNCH_VERBOSE set to anything */
};
extern struct cm_launch_config cm_launch_cfg;
void cm_launch_config_load(void);

/* Parse argv.  Returns -1 to go on, or an exit status (0 after --help or
 * --help-env). */
int cm_launch_parse(int argc, char **argv, struct cm_launch_opts *o);
/* Free what parsing allocated (after the ranks are spawned or on an error). */
void cm_launch_opts_free(struct cm_launch_opts *o);
/* mpirun --help and --version. */
void cm_launch_usage(FILE *out);
void cm_launch_version(FILE *out);
/* -H host[:slots],... and --hostfile FILE: only this machine.  Adds the
 * slots to o->slots; returns 0, or 2 after printing one line. */
int cm_launch_hosts(struct cm_launch_opts *o, const char *list);
int cm_launch_hostfile(struct cm_launch_opts *o, const char *file);
/* "VAR=value" appended to a list (-x, -genv); -1 for a bad name. */
int cm_launch_add_env(char ***list, int *n, const char *name, const char *value);
/* Print the COREMPI_* variables users may set (core/config.def). */
void cm_launch_help_env(FILE *out);

/* Resolve the program like execvp would, before anything is forked.  Returns
 * 0 with the path in buf, or the exit status after printing one line. */
int cm_launch_find_program(const char *name, char *buf, size_t len);
/* The same without a message: 0, or an errno value (ENOENT, EACCES, ...). */
int cm_launch_resolve(const char *name, char *buf, size_t len);
/* 1 with why ("is linked with Open MPI's libmpi.so.40, not corempi: ...")
 * when the executable at path names another MPI's library (foreign.c). */
int cm_launch_foreign(const char *path, char *why, size_t len);
/* Resolve every context's program and check its -wdir; 0 or an exit status. */
int cm_launch_check_apps(struct cm_launch_opts *o);

/* The default universe's least size (place.c). */
#define CM_UNIVERSE_DEFAULT 64

struct cm_job {
    int nranks;                 /* MPI_COMM_WORLD: slots 0..nranks-1 */
    int nslots;                 /* the universe: nranks plus room for MPI_Comm_spawn */
    void *seg;                  /* the mapped segment */
    size_t seg_bytes;
    int seg_fd;
    struct cm_machine machine;
    int have_machine;           /* a topology was loaded */
    int ncores_here;            /* usable cores of this machine (PUs when hwloc was skipped) */
    int bind;                   /* ranks are actually bound */
    int *core_of_rank;          /* usable-core index per rank, -1 when unbound */
    hwloc_cpuset_t *bind_set;   /* with --bind-to an object: each rank's cpuset, else NULL */
    char **bind_name;           /* and the object's name ("package 1"), for the report */
    char *auto_note;            /* --map-by auto: the predicted costs, one line for the report */
    pid_t *pids;                /* per slot; 0 once reaped (or never started) */
    int *status;                /* wait status per slot, valid once reaped */
    int *world_first;           /* per slot: the slot of its MPI_COMM_WORLD's rank 0 */
};

/* The objects of one kind (objects.c), as sets of the usable cores' PUs;
 * objects without a usable core are left out. */
struct cm_launch_objs {
    enum cm_obj_kind kind;
    int n;
    hwloc_cpuset_t *sets;
    int *index;                 /* hwloc's logical index, for names */
};
const char *cm_launch_obj_name(enum cm_obj_kind kind);
/* 0, or an exit status after one line (no such object on the machine). */
int cm_launch_objects(const struct cm_job *job, const char *spec, enum cm_obj_kind kind, struct cm_launch_objs *out);
void cm_launch_objects_free(struct cm_launch_objs *objs);
int cm_launch_object_of_core(const struct cm_job *job, const struct cm_launch_objs *objs, int core);
int cm_launch_core_in_object(const struct cm_job *job, const struct cm_launch_objs *objs, int i, int k);
/* "[BBBB/....]": the usable cores, those inside set marked. */
void cm_launch_set_map(const struct cm_machine *m, hwloc_const_cpuset_t set, char *buf, size_t len);

/* capture.c: name's path beside this mpirun (else name, for PATH); run
 * argv with its stdout on the returned stream (NULL: *err says why); end
 * it: 0 when it exited with status 0. */
void cm_launch_sibling(const char *name, char *buf, size_t len);
FILE *cm_launch_capture(char *const argv[], pid_t *pid, int *err);
int cm_launch_capture_end(FILE *f, pid_t pid);
/* mpirun --calibrate (calibrate.c): measure this machine's levels and
 * cache them for the cost model; returns the exit status. */
int cm_launch_calibrate(void);

/* --map-by auto:FILE (place_auto.c): read FILE's matrix.  0, or an exit
 * status after one line; *nranks gets its rank count. */
struct cm_comm_pattern;
int cm_launch_auto_read(const char *file, struct cm_comm_pattern *p);
/* Place p's ranks on the first cores of job->machine (loaded with its
 * caches); fills core_of_rank and auto_note.  0 or an exit status. */
int cm_launch_auto_place(struct cm_job *job, const struct cm_comm_pattern *p);

/* Decide which core each rank gets; loads the topology only when needed. */
int cm_launch_place(struct cm_job *job, const struct cm_launch_opts *o);
/* Free what placement allocated: the per-rank arrays and the machine. */
void cm_launch_unplace(struct cm_job *job);

/* Create, size, map and format the segment (memfd: no name in /dev/shm). */
int cm_launch_segment_create(struct cm_job *job);
void cm_launch_segment_destroy(struct cm_job *job);

/* Fork and exec every rank.  Returns 0, or an exit status after cleaning up. */
int cm_launch_spawn(struct cm_job *job, const struct cm_launch_opts *o, struct cm_iofwd *io);

/* Serve a spawn request posted in the segment (dynspawn.c): fork and exec
 * the children into free slots, or answer why not.  Returns how many
 * processes were started, or -1 when the request waits for slots. */
int cm_launch_serve_spawn(struct cm_job *job);
/* The universe's slots (slots.c).  find: the first of `total` free slots in
 * a row past the first ranks, or -1, and how many are free; reuse: prepare
 * the used ones among first.. for new processes (call after raising
 * slots_used, before forking); released: a spawned process was reaped. */
int cm_launch_slots_find(const struct cm_job *job, int total, int *nfree);
void cm_launch_slots_reuse(struct cm_job *job, int first, int total, int used);
void cm_launch_slot_released(struct cm_job *job, int slot);
/* 1 while a spawn that does not fit should wait for spawned processes to
 * end (bounded); waited: the request was answered. */
int cm_launch_slots_wait(const struct cm_job *job);
void cm_launch_slots_waited(void);
/* "rank 3", or "spawned rank 1 (slot 5)" for a process MPI_Comm_spawn started. */
void cm_launch_slot_name(const struct cm_job *job, int slot, char *buf, size_t len);

/* The kernel's count of out-of-memory kills (oom.c), -1 if unknown; and
 * what to add to "killed by signal 9 (Killed)" for a SIGKILL mpirun did not
 * send, given the count when the job started. */
long long cm_launch_oom_kills(void);
void cm_launch_sigkill_note(long long oom_before, char *buf, size_t len);

/* Wait for every rank; returns mpirun's exit status. */
int cm_launch_watch(struct cm_job *job, const struct cm_launch_opts *o, struct cm_iofwd *io);

/* Rank output through mpirun (iofwd.c): whole lines, tagged or to files. */
/* NULL when output goes straight to mpirun's stdout/stderr (nothing asked
 * and both are terminals); otherwise the pipes are made, 2 per rank. */
struct cm_iofwd *cm_iofwd_create(const struct cm_launch_opts *o, int nranks, int *status);
/* In the child: make the rank's stdout/stderr its pipes, close the rest. */
void cm_iofwd_child(struct cm_iofwd *io, int rank);
/* In mpirun after forking: close the write ends. */
void cm_iofwd_parent(struct cm_iofwd *io);
/* The fds to poll (read ends still open); returns how many were written. */
int cm_iofwd_pollfds(struct cm_iofwd *io, struct pollfd *fds, int max);
int cm_iofwd_nfds(const struct cm_iofwd *io);
/* Read what is ready on the polled fds, write out whole lines. */
void cm_iofwd_pump(struct cm_iofwd *io, const struct pollfd *fds, int n);
/* Read all a rank has written so far (it is gone) and flush a partial line. */
void cm_iofwd_drain_rank(struct cm_iofwd *io, int rank);
void cm_iofwd_free(struct cm_iofwd *io);
/* 1 once a line of rank's stderr was held (iofwd.c: CM_SEG_HOLD_MARK). */
int cm_iofwd_held(const struct cm_iofwd *io, int rank);
/* Write the held lines out, in the order they came. */
void cm_iofwd_release(struct cm_iofwd *io);

/* Messages. */
const char *cm_launch_call_name(unsigned id, char *buf, size_t len);
void cm_launch_report_bindings(const struct cm_job *job);

/* The signals mpirun handles itself (blocked, read with sigtimedwait). */
void cm_launch_watched_signals(sigset_t *set);

#endif
