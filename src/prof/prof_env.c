/*
 * prof_env.c -- the calls that start and stop the profiler, written by hand:
 * MPI_Init, MPI_Init_thread, MPI_Finalize, MPI_Abort.
 *
 * Start: calibrate the clock, agree on the output directory (rank 0 decides,
 * PMPI_Bcast), measure this rank's clock offset against rank 0, open
 * DIR/<rank>.cpt, write the header and the Init META block, start the writer.
 * Stop: drain the buffers, write the Finalize META block and the end marker.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "prof_internal.h"
#include "cm_prof_call_ids.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

cm_prof_state_t cm_prof_state;
int cm_prof_on;

void cm_prof_set_recording(void)
{
    cm_prof_on = cm_prof_state.active && !cm_prof_state.paused && !cm_prof_state.thread_disabled;
}

static int mkdir_p(const char *dir)
{
    char tmp[1024];
    snprintf(tmp, sizeof tmp, "%s", dir);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    return (mkdir(tmp, 0755) != 0 && errno != EEXIST) ? -1 : 0;
}

/* COREPROF_DIR, else ./coreprof-<job id or time>, the same on every rank. */
static void choose_dir(void)
{
    char dir[1024] = "";
    const char *env = getenv("COREPROF_DIR");
    if (env && *env) {
        snprintf(cm_prof_state.dir, sizeof cm_prof_state.dir, "%s", env);
        return;
    }
    if (cm_prof_state.rank == 0) {
        const char *job = getenv("COREMPI_JOBID");
        if (!job) job = getenv("SLURM_JOB_ID");
        if (!job) job = getenv("OMPI_MCA_ess_base_jobid");
        if (job && *job) {
            snprintf(dir, sizeof dir, "coreprof-%s", job);
        } else {
            time_t now = time(NULL);
            struct tm tm;
            localtime_r(&now, &tm);
            char stamp[32];
            strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
            snprintf(dir, sizeof dir, "coreprof-%s-%d", stamp, (int)getpid());
        }
    }
    PMPI_Bcast(dir, (int)sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
    snprintf(cm_prof_state.dir, sizeof cm_prof_state.dir, "%s", dir);
}

/* Ping-pong with rank 0 on a private communicator: the round trip with the
 * smallest delay bounds the offset best (Cristian's method). */
static void measure_clock_offset(void)
{
    enum { ROUNDS = 8 };
    MPI_Comm c;
    if (PMPI_Comm_dup(MPI_COMM_WORLD, &c) != MPI_SUCCESS) return;
    int rank = cm_prof_state.rank, size = cm_prof_state.size;
    if (rank == 0) {
        for (int peer = 1; peer < size; peer++) {
            for (int i = 0; i < ROUNDS; i++) {
                long long ping, t;
                PMPI_Recv(&ping, 1, MPI_LONG_LONG, peer, 7, c, MPI_STATUS_IGNORE);
                t = (long long)cm_prof_now();
                PMPI_Send(&t, 1, MPI_LONG_LONG, peer, 7, c);
            }
        }
        cm_prof_state.clock_offset_ns = 0;
        cm_prof_state.clock_rtt_ns = 0;
    } else {
        uint64_t best_rtt = UINT64_MAX;
        int64_t best = 0;
        for (int i = 0; i < ROUNDS; i++) {
            long long ping = 0, t_root;
            uint64_t t0 = cm_prof_now();
            PMPI_Send(&ping, 1, MPI_LONG_LONG, 0, 7, c);
            PMPI_Recv(&t_root, 1, MPI_LONG_LONG, 0, 7, c, MPI_STATUS_IGNORE);
            uint64_t t1 = cm_prof_now();
            if (t1 - t0 < best_rtt) {
                best_rtt = t1 - t0;
                best = (int64_t)t_root - (int64_t)(t0 + (t1 - t0) / 2);
            }
        }
        cm_prof_state.clock_offset_ns = best;
        cm_prof_state.clock_rtt_ns = best_rtt;
    }
    cm_prof_state.clock_measured_ns = cm_prof_now();
    cm_prof_state.have_clock = 1;
    PMPI_Comm_free(&c);
}

static void fill_header(cpt_file_header *h)
{
    memset(h, 0, sizeof *h);
    memcpy(h->magic, CPT_MAGIC, 4);
    h->version = CPT_VERSION;
    h->header_size = CPT_FILE_HEADER_SIZE;
    h->endian_check = CPT_ENDIAN_CHECK;
    h->record_size = sizeof(cpt_event);
    h->rank = cm_prof_state.rank;
    h->world_size = cm_prof_state.size;
    struct timespec res;
    h->clock_resolution_ns = clock_getres(CLOCK_MONOTONIC, &res) == 0
        ? (uint64_t)res.tv_sec * 1000000000ull + (uint64_t)res.tv_nsec : 0;
    if (cm_prof_clock.use_tsc && cm_prof_clock.mult < (1ull << 32))
        h->clock_resolution_ns = 1;          /* a tick is shorter than 1 ns */
    h->start_ns = cm_prof_now();
    h->clock_source = CPT_CLOCK_MONOTONIC;
    h->mode = (uint32_t)cm_prof_state.mode;
    char version[MPI_MAX_LIBRARY_VERSION_STRING + 1] = "";
    int len = 0;
    if (PMPI_Get_library_version(version, &len) == MPI_SUCCESS) {
        version[MPI_MAX_LIBRARY_VERSION_STRING] = 0;
        char *nl = strpbrk(version, "\n\r,");  /* first line / first clause */
        if (nl) *nl = 0;
    }
    snprintf(h->impl_name, sizeof h->impl_name, "%s", version[0] ? version : "unknown MPI");
    h->header_checksum = cpt_checksum(h, CPT_FILE_HEADER_SIZE - 4);
}

static size_t half_bytes(void)
{
    const char *kb = getenv("COREPROF_BUFFER_KB");
    long v = kb ? strtol(kb, NULL, 10) : 1024;
    if (v < 1) v = 1;
    if (v > 65536) v = 65536;
    return (size_t)v * 1024;
}

/* COREPROF_MODE: "trace" (default, every call) or "summary" (statistics only). */
static int choose_mode(void)
{
    const char *m = getenv("COREPROF_MODE");
    if (!m || !*m || !strcmp(m, "trace")) return CPT_MODE_TRACE;
    if (!strcmp(m, "summary")) return CPT_MODE_SUMMARY;
    if (cm_prof_state.rank == 0)
        fprintf(stderr, "coreprof: COREPROF_MODE=%s is neither 'trace' nor 'summary': recording a trace\n", m);
    return CPT_MODE_TRACE;
}

/* A program that exits without MPI_Finalize: keep what was recorded (no end
 * marker: the trace is, rightly, incomplete). */
static void flush_at_exit(void)
{
    if (!cm_prof_state.active) return;
    cm_prof_on = 0;
    cm_prof_state.active = 0;
    cm_prof_signals_remove();
    cm_prof_buffer_stop();
    cm_prof_write_meta(CPT_PHASE_FINALIZE);
}

static void start(int provided, unsigned call, uint64_t t0, uint64_t t1, void *caller)
{
    PMPI_Comm_rank(MPI_COMM_WORLD, &cm_prof_state.rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &cm_prof_state.size);
    cm_prof_state.mode = choose_mode();
    cm_prof_state.init_ns = t0;
    cm_prof_comm_init(cm_prof_state.rank, cm_prof_state.size);
    choose_dir();
    cm_prof_clock_refine();
    measure_clock_offset();
    if (mkdir_p(cm_prof_state.dir) != 0) {
        fprintf(stderr, "coreprof: rank %d: cannot create directory %s: %s (profiling disabled)\n",
                cm_prof_state.rank, cm_prof_state.dir, strerror(errno));
        return;
    }
    snprintf(cm_prof_state.path, sizeof cm_prof_state.path, "%s/%d.cpt", cm_prof_state.dir,
             cm_prof_state.rank);
    cpt_file_header h;
    fill_header(&h);
    if (cm_prof_out_open(cm_prof_state.path, &h) != 0) return;
    cm_prof_write_meta(CPT_PHASE_INIT);
    cm_prof_state.active = 1;
    atexit(flush_at_exit);
    /* MPI_THREAD_MULTIPLE: each thread records into its own buffer; the
     * shared tables lock on their slow paths */
    cm_prof_mt = provided == MPI_THREAD_MULTIPLE;
    if (cm_prof_buffer_start(half_bytes(), cm_prof_state.mode) != 0) {
        cm_prof_state.thread_disabled = 1;
        cm_prof_set_recording();
        return;
    }
    cm_prof_signals_install();
    const char *pc = getenv("COREPROF_START_PAUSED");
    cm_prof_state.paused = pc && *pc == '1';
    cm_prof_set_recording();
    if (cm_prof_on) cm_prof_begin_commit(call, 0, t0, t1, caller);
}

CM_PROF_EXPORT int MPI_Init(int *argc, char ***argv)
{
    cm_prof_check_flavour();
    cm_prof_clock_init();
    uint64_t t0 = cm_prof_now();
    int rc = PMPI_Init(argc, argv);
    uint64_t t1 = cm_prof_now();
    if (rc == MPI_SUCCESS) start(MPI_THREAD_SINGLE, CM_PROF_ID_Init, t0, t1, __builtin_return_address(0));
    return rc;
}

CM_PROF_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    cm_prof_check_flavour();
    cm_prof_clock_init();
    uint64_t t0 = cm_prof_now();
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    uint64_t t1 = cm_prof_now();
    if (rc == MPI_SUCCESS)
        start(*provided, CM_PROF_ID_Init_thread, t0, t1, __builtin_return_address(0));
    return rc;
}

CM_PROF_EXPORT int MPI_Finalize(void)
{
    uint64_t t0 = cm_prof_now();
    int rc = PMPI_Finalize();
    uint64_t t1 = cm_prof_now();
    if (!cm_prof_state.active) return rc;
    cm_prof_state.finalize_ns = t1;
    if (cm_prof_on)
        cm_prof_begin_commit(CM_PROF_ID_Finalize, rc != MPI_SUCCESS ? CPT_F_ERROR : 0, t0, t1,
                             __builtin_return_address(0));
    cm_prof_on = 0;
    cm_prof_state.active = 0;
    cm_prof_signals_remove();
    cm_prof_buffer_stop();
    cm_prof_write_meta(CPT_PHASE_FINALIZE);
    unsigned char end[sizeof(cpt_block_header)];
    cm_prof_out_block(end, CPT_BLOCK_END, 0, 0);
    cm_prof_out_close();
    const char *quiet = getenv("COREPROF_QUIET");
    if (cm_prof_state.rank == 0 && !(quiet && *quiet == '1'))
        fprintf(stderr, "coreprof: traces in %s/ (read them with: coreprof report %s)\n",
                cm_prof_state.dir, cm_prof_state.dir);
    return rc;
}

CM_PROF_EXPORT int MPI_Abort(MPI_Comm comm, int errorcode)
{
    if (cm_prof_on) {
        uint64_t t = cm_prof_now();
        cpt_event *e = cm_prof_begin(CM_PROF_ID_Abort, CPT_F_ERROR, t, t, __builtin_return_address(0));
        e->tag = errorcode;
        const cm_prof_comm_t *c = cm_prof_comm(comm, MPI_SUCCESS);
        e->comm = c ? c->id : 0;
        cm_prof_commit(e);
    }
    if (cm_prof_state.active) {
        /* flush what we have; no end marker: an aborted trace is incomplete */
        cm_prof_on = 0;
        cm_prof_state.active = 0;
        cm_prof_signals_remove();
        cm_prof_buffer_stop();
        cm_prof_write_meta(CPT_PHASE_FINALIZE);
    }
    return PMPI_Abort(comm, errorcode);
}
