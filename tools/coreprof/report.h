/*
 * report.h -- coreprof report: the in-memory model every output is computed from.
 *
 * trace_load.c turns the per-rank .cpt files (read by src/prof/cpt_read.c) into
 * this model once: events on one aligned clock (nanoseconds since the earliest
 * event of the run), call names interned across ranks (each file carries its own
 * call-name table, and Open MPI / MPICH / corempi builds may number calls
 * differently), peers as world ranks.  The writers (summary, matrices, PNGs,
 * JSON timeline, OTF2, HTML) only read the model.
 */
#ifndef COREPROF_REPORT_H
#define COREPROF_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cpt_read.h"

/* Sums saturate both ways: a damaged file may claim durations, byte counts
 * or negative values that would overflow them (report_fuzz feeds such files). */
static inline void cp_add_sat(int64_t *acc, int64_t v)
{
    if (v > 0 && *acc > INT64_MAX - v) *acc = INT64_MAX;
    else if (v < 0 && *acc < INT64_MIN - v) *acc = INT64_MIN;
    else *acc += v;
}
static inline void cp_add_sat_u(uint64_t *acc, uint64_t v)
{
    *acc = *acc > UINT64_MAX - v ? UINT64_MAX : *acc + v;
}

typedef struct cp_event {
    int64_t  t0, t1;       /* aligned ns: entry and exit */
    uint64_t bytes;
    uint64_t caller;       /* return address (0 = unknown) */
    int32_t  peer;         /* world rank, or CPT_PEER_* / -1 */
    int32_t  tag;
    uint32_t comm;         /* the rank's own communicator id (ids differ between ranks) */
    uint32_t gcomm;        /* index into cp_trace.comms: the same on every member; CP_COMM_UNKNOWN */
    uint32_t request;
    uint32_t name;         /* index into cp_trace.names */
    uint16_t flags;        /* CPT_F_* */
    uint8_t  is_slice;     /* 1: drawn as its own slice (a call, not a completion/second half) */
    uint8_t  is_init_fini; /* MPI_Init*, MPI_Finalize: bound the wall time, not MPI time */
    uint32_t ncalls;       /* calls this record stands for: > 1 for a folded poll (duration = their sum) */
    int32_t  slice;        /* index of the slice this event belongs to on its rank (self if is_slice), -1 none */
    int64_t  order_t;      /* receives: time that fixes matching order (initiation time for nonblocking) */
    int32_t  recv_tag;     /* receives: tag to match on (completion's matched tag, else the posted one) */
    int32_t  site;         /* index into cp_trace.sites, -1 none */
} cp_event;

/* Statistics of one rank's calls with one key: what the summary, the call
 * sites and the matrices are computed from.  Filled from a trace's events
 * (streamed or loaded) or from a summary-mode file's entries (agg.c). */
typedef struct cp_agg {
    uint32_t name;         /* index into cp_trace.names */
    uint16_t flags;        /* CPT_F_* & CPT_F_KIND_MASK, after the name's adjustments (probes are no messages) */
    uint8_t  bin;          /* size class per call: 0 = 0 bytes, k = [2^(k-1), 2^k) */
    uint8_t  is_slice;     /* a call of its own (not a completion / second half) */
    uint8_t  is_init_fini;
    int32_t  peer;         /* world rank (after cp_acc_end), or CPT_PEER_* / -1 */
    uint32_t comm;         /* the rank's own communicator id */
    uint32_t gcomm;        /* job-wide communicator index, CP_COMM_UNKNOWN */
    uint64_t caller;
    int32_t  site;         /* index into cp_trace.sites, -1 none */
    uint64_t calls, bytes;
    int64_t  total_ns, min_ns, max_ns;
} cp_agg;

struct cp_acc;             /* agg.c: a rank's maps while its file is read */

typedef struct cp_rank {
    int rank;
    int usable;            /* the file had a valid header */
    int complete;          /* end marker seen, no damage */
    char message[1400];    /* reader's message ("" if complete) */
    char impl[CPT_IMPL_NAME_MAX];
    char host[256];
    int cpu;
    int have_clock;
    int64_t clock_offset_ns;
    uint64_t dropped;      /* records the writer had to drop */
    cp_event *ev;          /* sorted by t0 */
    size_t nev;
    int64_t wall_t0, wall_t1; /* MPI_Init..MPI_Finalize, else first..last event (full model only) */
    cpt_trace raw;         /* objects and comm table are used from here */
    /* statistics (agg.c): filled by cp_trace_stream and cp_trace_build alike */
    cp_agg *agg;
    size_t nagg;
    int64_t wall_ns;       /* MPI_Init..MPI_Finalize, else first..last record */
    uint64_t flushes, flush_waits;
    int64_t flush_wait_ns;
    int summary_mode;      /* the file holds statistics only (COREPROF_MODE=summary) */
    struct cp_acc *acc;
    uint32_t *comm_ids, *comm_g;  /* local communicator id -> job-wide index (cp_assign_global_comms) */
    size_t ncomm_map;
} cp_rank;

typedef struct cp_flow {   /* one matched message */
    int src_rank, dst_rank;
    size_t src_ev, dst_ev; /* event indices carrying the send / the (completed) receive */
    uint64_t bytes;
} cp_flow;

/* A communicator as the whole job knows it: ranks number their communicators
 * independently, so they are identified by member list (and, for several with
 * the same members, by creation order, which MPI makes the same on all members). */
typedef struct cp_comm_info {
    int32_t size, remote_size;
    const int32_t *members;   /* world ranks; NULL = identity (MPI_COMM_WORLD, index 0) */
    uint64_t hash;
    uint32_t occurrence;
} cp_comm_info;
#define CP_COMM_UNKNOWN UINT32_MAX

typedef struct cp_site {   /* one call site: a (call name, return address) after resolution */
    char *where;           /* "file.c:42 (main)" or "libfoo.so+0x1234" or "?" */
} cp_site;

typedef struct cp_trace {
    const char *dir;
    int nranks;
    cp_rank *ranks;
    char **names;          /* interned call names */
    size_t nnames;
    cp_comm_info *comms;   /* [0] = MPI_COMM_WORLD */
    size_t ncomms;
    cp_flow *flows;
    size_t nflows;
    size_t unmatched_sends, unmatched_recvs;   /* of the flows above (full model) */
    /* message counts from the statistics (agg.c): k-th send with k-th receive of
     * each (source, destination, communicator, tag), so matched = sum of minima */
    uint64_t msgs_matched, msgs_unmatched_sends, msgs_unmatched_recvs;
    int msgs_unknown;      /* some rank gave statistics only (no tags): not counted */
    uint64_t input_bytes;  /* size of the rank files read */
    cp_site *sites;
    size_t nsites;
    int64_t t_end;         /* latest aligned exit time */
} cp_trace;

/* trace_dir.c: DIR/<rank>.cpt -> raw traces (missing ranks have their error set) */
int  cp_read_trace_dir(const char *dir, cpt_trace **raw, int *n, FILE *diag);
/* ... or only how many rank files to look at (highest index + 1) and their total size */
int  cp_scan_trace_dir(const char *dir, int *n, uint64_t *bytes, FILE *diag);
#define CP_MAX_MISSING_TAIL 4096   /* missing ranks after the last file that are still listed */

/* agg.c: statistics of each rank, one record or summary entry at a time */
void cp_acc_begin(cp_trace *tr, cp_rank *r);
void cp_acc_events(cp_trace *tr, cp_rank *r, const cpt_event *ev, size_t n);
void cp_acc_summary(cp_trace *tr, cp_rank *r, const cpt_summary_entry *s, size_t n);
void cp_acc_end(cp_trace *tr, cp_rank *r);          /* the rank's file is read: peers to world ranks */
void cp_acc_finish(cp_trace *tr);                    /* all ranks read, communicators known: message counts */
void cp_acc_free(cp_rank *r);                        /* what is left after an error */
uint32_t cp_intern_name(cp_trace *tr, const char *s);

/* trace_stream.c: the statistics of DIR without holding its events (bounded
 * memory); a progress line on stderr for long work.  tr->ranks[].ev stay empty. */
int  cp_trace_stream(const char *dir, cp_trace *tr, FILE *diag, int progress);

/* trace_load.c */
void cp_assign_global_comms(cp_trace *tr);
/* r takes raw's arrays; its status and a note on diag for a damaged file; returns 1 if usable */
int  cp_rank_take(cp_rank *r, int i, const cpt_trace *raw, int *noted, FILE *diag);
int  cp_trace_load(const char *dir, cp_trace *tr, FILE *diag);
/* The same from traces already read: takes ownership of raw[0..n-1] and frees the array. */
int  cp_trace_build(cp_trace *tr, const char *dir, cpt_trace *raw, int n, FILE *diag);
void cp_trace_free(cp_trace *tr);
const char *cp_name(const cp_trace *tr, const cp_event *e);
int  cp_event_is_p2p_send(const cp_event *e);
int  cp_event_is_p2p_recv_done(const cp_event *e);

/* msg_match.c: pairs sends with receives by (src, dst, comm, tag, order) */
void cp_match_messages(cp_trace *tr);

/* callsite_resolve.c: fills tr->sites and every event's site */
void cp_resolve_callsites(cp_trace *tr, FILE *diag);

/* call_stats.c: per-rank, per-call and per-call-site statistics; mpiP-like text */
typedef struct cp_rank_stat { int64_t wall_ns, mpi_ns; uint64_t calls; } cp_rank_stat;
typedef struct cp_call_stat {
    uint32_t name;
    int outside_mpi_time;   /* MPI_Init*, MPI_Finalize: not part of MPI time, no MPI% */
    uint64_t calls, bytes;
    int64_t total_ns, min_ns, max_ns;
} cp_call_stat;
typedef struct cp_site_stat {
    uint32_t name;
    int32_t site;
    uint64_t calls, bytes, nranks;
    int64_t total_ns, max_ns;
} cp_site_stat;
typedef struct cp_stats {
    cp_rank_stat *rank;
    cp_call_stat *call;  size_t ncall;   /* sorted by total time, descending */
    cp_site_stat *site;  size_t nsite;   /* sorted by total time, descending */
    int64_t wall_ns, mpi_ns;             /* sums over ranks */
    uint64_t flushes, flush_waits, dropped;
    int64_t flush_wait_ns;
} cp_stats;
void cp_stats_compute(const cp_trace *tr, cp_stats *st);
void cp_stats_free(cp_stats *st);
int  cp_write_summary(const cp_trace *tr, const cp_stats *st, FILE *out);
#define CP_TOP_SITES 20

/* io_report.c: the I/O section (MPI_File_* calls), text and HTML; nothing
 * is written when the run made no MPI_File_* call. */
typedef struct cp_io_rank {
    uint64_t read, written, calls;   /* bytes of the read / write calls; MPI_File_* calls */
    int64_t ns, wall_ns;             /* time in MPI_File_* calls; the rank's wall time */
} cp_io_rank;
/* io[0..nranks-1] per rank, io[nranks] the sums; 1 if any I/O call was recorded. */
int  cp_io_compute(const cp_trace *tr, cp_io_rank *io);
int  cp_io_write_text(const cp_trace *tr, FILE *out);
int  cp_io_write_html(const cp_trace *tr, FILE *f);

/* comm_matrix.c */
typedef struct cp_matrices {
    int n;
    double *p2p_bytes, *p2p_count, *coll_bytes;   /* n*n, row = sender */
    double *coll_count;                            /* n*n: collective calls behind coll_bytes (logical flows) */
    uint64_t hist_p2p[65], hist_coll[65];          /* [0] = 0 bytes, [k] = [2^(k-1), 2^k) */
} cp_matrices;
int  cp_matrices_build(const cp_trace *tr, cp_matrices *m);
void cp_matrices_free(cp_matrices *m);
int  cp_matrix_write_csv(const char *path, const double *m, int n);

/* png_heatmap.c / png_histogram.c (cairo) */
int cp_heatmap_png(const char *path, const double *m, int n, const char *title,
                   const char *xlabel, const char *ylabel, const char *unit);
int cp_histogram_png(const char *path, const uint64_t *series_a, const char *label_a,
                     const uint64_t *series_b, const char *label_b, int nbins, const char *title);

/* timeline_json.c */
typedef struct cp_timeline_opts {
    size_t max_events_per_file;   /* 0 = no limit */
    uint64_t max_bytes_per_file;  /* 0 = no limit */
} cp_timeline_opts;
int cp_write_timeline(const cp_trace *tr, const char *outdir, const cp_timeline_opts *o,
                      char ***files, size_t *nfiles);

/* otf2_export.c */
int cp_write_otf2(const cp_trace *tr, const char *outdir, FILE *diag);

/* place.c: coreprof matrix / place (docs/placement.md) */
struct cm_comm_pattern;
struct cm_map_info;
int  cp_cmd_matrix(int argc, char **argv);
int  cp_cmd_place(int argc, char **argv);
int  cp_pattern_from_matrices(const cp_matrices *m, struct cm_comm_pattern *p);
int  cp_place_compute(const struct cm_comm_pattern *p, const char *topology, int *core, struct cm_map_info *info,
                      int *calibrated);
int  cp_write_placement(const cp_matrices *m, const char *trace, const char *outdir);
void cp_place_print(FILE *out, const struct cm_comm_pattern *p, const int *core, const struct cm_map_info *info,
                    const char *trace, const char *topology, int calibrated);

/* waits.c: late sender / receiver, collective waits, imbalance, critical
 * path, from the full model (events and matched messages) -> OUTDIR/waits.txt,
 * also written to `also` and appended to the file append_to (NULL: neither) */
int  cp_write_waits(const cp_trace *tr, const char *outdir, FILE *also, const char *append_to);

/* html_report.c */
int cp_write_html(const cp_trace *tr, const cp_stats *st, const cp_matrices *m, const char *outdir,
                  char **timeline_files, size_t ntimeline, int have_otf2);

/* text helpers (fmt_units.c) */
void cp_fmt_bytes(char *buf, size_t len, double bytes);
void cp_fmt_ns(char *buf, size_t len, double ns);
/* A call's figures as the reports print them: its total time, bytes, and
 * the least, mean and most time of one call, in that order. */
void cp_fmt_call(const cp_call_stat *c, char cell[5][32]);

#endif
