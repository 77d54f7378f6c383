/*
 * prof_internal.h -- what the parts of libcoreprof share beyond the hot path.
 */
#ifndef CM_PROF_INTERNAL_H
#define CM_PROF_INTERNAL_H

#include "prof_record.h"
#include <stddef.h>

/* global state that is not on the hot path */
typedef struct cm_prof_state {
    int active;            /* files open, buffers running */
    int paused;            /* by MPI_Pcontrol(0) */
    int thread_disabled;   /* the buffers could not start: metadata only */
    int rank, size;
    int64_t clock_offset_ns;
    uint64_t clock_rtt_ns, clock_measured_ns;
    int have_clock;
    int mode;              /* CPT_MODE_TRACE or CPT_MODE_SUMMARY (COREPROF_MODE) */
    uint64_t init_ns, finalize_ns;   /* MPI_Init entry, MPI_Finalize exit (META RUN) */
    char dir[1024];
    char path[1200];
} cm_prof_state_t;
extern cm_prof_state_t cm_prof_state CM_PROF_HIDDEN;
extern uint64_t cm_prof_dropped CM_PROF_HIDDEN;

/* prof_comm.c */
void cm_prof_comm_init(int world_rank, int world_size) CM_PROF_HIDDEN;
int cm_prof_comm_count(void) CM_PROF_HIDDEN;
const cm_prof_comm_t *cm_prof_comm_at(int i) CM_PROF_HIDDEN;

/* prof_buffer.c: the file, the two halves and the writer thread */
int cm_prof_out_open(const char *path, const cpt_file_header *h) CM_PROF_HIDDEN;
/* `block` has CPT_BLOCK_HEADER room (24 bytes) in front of the payload; fills it, one write(). */
int cm_prof_out_block(void *block, uint32_t kind, uint32_t count, uint32_t payload_bytes) CM_PROF_HIDDEN;
void cm_prof_out_close(void) CM_PROF_HIDDEN;
int cm_prof_buffer_start(size_t half_bytes, int mode) CM_PROF_HIDDEN;  /* mode: CPT_MODE_* */
void cm_prof_buffer_stop(void) CM_PROF_HIDDEN;        /* hand over the partial half, drain, join */
void cm_prof_buffer_crash_flush(void) CM_PROF_HIDDEN; /* async-signal-safe, best effort */
typedef struct cm_prof_counters { uint64_t records, flushes, flush_waits, dropped, wait_ns; } cm_prof_counters_t;
void cm_prof_buffer_counters(cm_prof_counters_t *c) CM_PROF_HIDDEN;

/* prof_summary.c: summary mode's statistics table */
void cm_prof_summary_absorb(const cpt_event *ev, size_t n) CM_PROF_HIDDEN;
int cm_prof_summary_write(void) CM_PROF_HIDDEN;   /* SUMMARY blocks; frees the table */

/* prof_meta.c */
int cm_prof_write_meta(int phase) CM_PROF_HIDDEN;

/* prof_signals.c */
void cm_prof_signals_install(void) CM_PROF_HIDDEN;
void cm_prof_signals_remove(void) CM_PROF_HIDDEN;

/* prof_env.c */
void cm_prof_set_recording(void) CM_PROF_HIDDEN;   /* recompute cm_prof_on */

/* prof_flavour.c: ends the process with one line when the MPI library it
 * runs on is not the one this flavour was built for. */
void cm_prof_check_flavour(void) CM_PROF_HIDDEN;

#endif
