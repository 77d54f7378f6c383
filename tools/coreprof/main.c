/*
 * coreprof -- the analysis side of corempi's PMPI profiler.
 *
 *   coreprof report DIR [-o OUTDIR] [--max-events N] [--max-mb M] [--no-otf2]
 *                       [--timeline | --summary-only] [--no-progress]
 *
 * reads DIR/<rank>.cpt (written by libcoreprof over corempi, Open MPI or MPICH)
 * and writes into OUTDIR (default DIR/report): summary.txt (also printed),
 * matrix_*.csv, matrix.png, matrix_coll.png, msgsize_hist.png, timeline*.json,
 * trace.otf2/ and report.html.  Damaged or missing rank files are reported with
 * file and byte offset and the rest is still analysed; the exit status is
 * non-zero only when nothing could be read (1) or on a usage error (2).
 *
 * The summary, call sites, matrices and pictures are computed while the files
 * stream by (trace_stream.c: bounded memory, any trace size).  The timeline and
 * OTF2 need every event in memory: they are written by default only for traces
 * up to CP_FULL_AUTO_MAX bytes (--timeline forces them, --summary-only skips
 * them), and never for summary-mode traces, which hold no events.
 */
#define _GNU_SOURCE
#include "report.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CP_FULL_AUTO_MAX (64ull << 20)

static void usage(FILE *f)
{
    fputs("usage: coreprof report DIR [-o OUTDIR] [--max-events N] [--max-mb M] [--no-otf2]\n"
          "                       [--timeline | --summary-only] [--no-progress]\n"
          "  DIR          directory of per-rank trace files <rank>.cpt\n"
          "  -o OUTDIR    where to write the report (default DIR/report)\n"
          "  --max-events N  split the JSON timeline into parts of at most N events (default 1000000)\n"
          "  --max-mb M      ... or at most about M megabytes (default 100)\n"
          "  --no-otf2    do not write the OTF2 archive\n"
          "  --timeline   write the timeline and OTF2 also for traces over 64 MB (memory grows with the trace)\n"
          "  --summary-only  statistics, matrices and pictures only (streamed: bounded memory)\n"
          "  --no-progress   no progress line on stderr\n"
          "       coreprof place TRACE [--topology SPEC]   predicted cost of each --map-by policy and of auto\n"
          "       coreprof matrix DIR   the communication matrix as src,dst,bytes,count lines\n", f);
}

static int mkdir_p(const char *path)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
            *p = '/';
        }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
    struct stat st;
    return stat(buf, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -1;
}

/* timeline parts of an earlier report would be mistaken for parts of this one */
static void remove_old_timelines(const char *outdir)
{
    DIR *d = opendir(outdir);
    if (!d) return;
    struct dirent *e;
    char path[4096];
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (strncmp(e->d_name, "timeline", 8) == 0 && l > 5 && strcmp(e->d_name + l - 5, ".json") == 0) {
            snprintf(path, sizeof path, "%s/%s", outdir, e->d_name);
            unlink(path);
        }
    }
    closedir(d);
}

static int parse_size(const char *s, unsigned long long *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-') return -1;
    *out = v;
    return 0;
}

/* The outputs that need every event: timeline and OTF2, from the full model. */
static int write_event_outputs(const char *dir, const char *outdir, const cp_timeline_opts *topts,
                               int want_otf2, char ***tl, size_t *ntl, int *have_otf2)
{
    FILE *quiet = fopen("/dev/null", "w");     /* the streamed pass already said what is damaged */
    cp_trace tr;
    int failed = 0;
    if (cp_trace_load(dir, &tr, quiet ? quiet : stderr) != 0) {
        cp_trace_free(&tr);
        if (quiet) fclose(quiet);
        return 1;
    }
    cp_resolve_callsites(&tr, NULL);
    cp_match_messages(&tr);
    char summary[4096];
    snprintf(summary, sizeof summary, "%s/summary.txt", outdir);
    fflush(stdout);
    if (cp_write_waits(&tr, outdir, stdout, summary) != 0) {
        fprintf(stderr, "coreprof: cannot write %s/waits.txt\n", outdir); failed = 1;
    }
    if (cp_write_timeline(&tr, outdir, topts, tl, ntl) != 0) {
        fprintf(stderr, "coreprof: cannot write the timeline in %s\n", outdir); failed = 1;
    }
    if (want_otf2) {
        if (cp_write_otf2(&tr, outdir, stderr) == 0) *have_otf2 = 1;
        else failed = 1;
    }
    cp_trace_free(&tr);
    if (quiet) fclose(quiet);
    return failed;
}

static int report(const char *dir, const char *outdir, const cp_timeline_opts *topts, int want_otf2,
                  int want_events, int want_progress)
{
    cp_trace tr;
    if (cp_trace_stream(dir, &tr, stderr, want_progress) != 0) {
        cp_trace_free(&tr);
        return 1;
    }
    if (mkdir_p(outdir) != 0) {
        fprintf(stderr, "coreprof: cannot create output directory %s: %s\n", outdir, strerror(errno));
        cp_trace_free(&tr);
        return 1;
    }
    cp_resolve_callsites(&tr, stderr);
    cp_stats st;
    cp_stats_compute(&tr, &st);
    int failed = 0;
    char path[4096];

    snprintf(path, sizeof path, "%s/summary.txt", outdir);
    FILE *f = fopen(path, "w");
    if (!f || cp_write_summary(&tr, &st, f) != 0) { fprintf(stderr, "coreprof: cannot write %s\n", path); failed = 1; }
    if (f) fclose(f);
    cp_write_summary(&tr, &st, stdout);
    fflush(stdout);

    cp_matrices m;
    if (cp_matrices_build(&tr, &m) != 0) { fprintf(stderr, "coreprof: out of memory for the matrices\n"); failed = 1; }
    else {
        static const char *csv[3] = { "matrix_p2p_bytes.csv", "matrix_p2p_count.csv", "matrix_coll_bytes.csv" };
        const double *mats[3] = { m.p2p_bytes, m.p2p_count, m.coll_bytes };
        for (int i = 0; i < 3; i++) {
            snprintf(path, sizeof path, "%s/%s", outdir, csv[i]);
            if (cp_matrix_write_csv(path, mats[i], m.n) != 0) { fprintf(stderr, "coreprof: cannot write %s\n", path); failed = 1; }
        }
        snprintf(path, sizeof path, "%s/matrix.png", outdir);
        if (cp_heatmap_png(path, m.p2p_bytes, m.n, "Point-to-point bytes sent", "receiver rank", "sender rank", "bytes") != 0) {
            fprintf(stderr, "coreprof: cannot write %s\n", path); failed = 1;
        }
        snprintf(path, sizeof path, "%s/matrix_coll.png", outdir);
        if (cp_heatmap_png(path, m.coll_bytes, m.n, "Collective bytes (logical data flow)", "receiver rank", "sender rank", "bytes") != 0) {
            fprintf(stderr, "coreprof: cannot write %s\n", path); failed = 1;
        }
        if (cp_write_placement(&m, dir, outdir) != 0) {
            fprintf(stderr, "coreprof: cannot write the placement (placement.txt, matrix_placed.png) in %s\n", outdir); failed = 1;
        }
        snprintf(path, sizeof path, "%s/msgsize_hist.png", outdir);
        if (cp_histogram_png(path, m.hist_p2p, "point-to-point sends", m.hist_coll, "collective calls", 65,
                             "Message sizes") != 0) {
            fprintf(stderr, "coreprof: cannot write %s\n", path); failed = 1;
        }
    }

    remove_old_timelines(outdir);
    char **tl = NULL;
    size_t ntl = 0;
    int have_otf2 = 0, summaries = 0;
    for (int r = 0; r < tr.nranks; r++) summaries += tr.ranks[r].summary_mode;
    char size[32];
    cp_fmt_bytes(size, sizeof size, (double)tr.input_bytes);
    if (want_events != 0 && summaries) {
        fprintf(stderr, "coreprof: statistics-only traces (COREPROF_MODE=summary): no timeline or OTF2\n");
    } else if (want_events == 1 || (want_events < 0 && tr.input_bytes <= CP_FULL_AUTO_MAX)) {
        if (write_event_outputs(dir, outdir, topts, want_otf2, &tl, &ntl, &have_otf2) != 0) failed = 1;
    } else if (want_events < 0) {
        fprintf(stderr, "coreprof: the trace is %s: timeline and OTF2 not written (--timeline writes them, "
                        "in memory that grows with the trace)\n", size);
    }
    if (cp_write_html(&tr, &st, &m, outdir, tl, ntl, have_otf2) != 0) {
        fprintf(stderr, "coreprof: cannot write %s/report.html\n", outdir); failed = 1;
    }
    fprintf(stderr, "coreprof: report written to %s/ (report.html, summary.txt, %zu timeline file%s%s)\n", outdir,
            ntl, ntl == 1 ? "" : "s", have_otf2 ? ", trace.otf2/" : "");
    for (size_t i = 0; i < ntl; i++) free(tl[i]);
    free(tl);
    cp_matrices_free(&m);
    cp_stats_free(&st);
    cp_trace_free(&tr);
    return failed;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "matrix")) return cp_cmd_matrix(argc, argv);
    if (argc >= 2 && !strcmp(argv[1], "place")) return cp_cmd_place(argc, argv);
    if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) { usage(stdout); return 0; }
    /* `coreprof report --help` (anywhere after report): the usage, asked for. */
    for (int i = 2; argc >= 2 && !strcmp(argv[1], "report") && i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) { usage(stdout); return 0; }
    if (argc < 3 || strcmp(argv[1], "report") != 0) { usage(stderr); return 2; }
    const char *dir = NULL, *outdir = NULL;
    cp_timeline_opts topts = { 1000000, 100ull << 20 };
    int want_otf2 = 1, want_events = -1, want_progress = 1;
    for (int i = 2; i < argc; i++) {
        unsigned long long v;
        if (!strcmp(argv[i], "-o") && i + 1 < argc) outdir = argv[++i];
        else if (!strcmp(argv[i], "--max-events") && i + 1 < argc && parse_size(argv[i + 1], &v) == 0) { topts.max_events_per_file = v; i++; }
        else if (!strcmp(argv[i], "--max-mb") && i + 1 < argc && parse_size(argv[i + 1], &v) == 0) { topts.max_bytes_per_file = v << 20; i++; }
        else if (!strcmp(argv[i], "--no-otf2")) want_otf2 = 0;
        else if (!strcmp(argv[i], "--timeline")) want_events = 1;
        else if (!strcmp(argv[i], "--summary-only")) want_events = 0;
        else if (!strcmp(argv[i], "--no-progress")) want_progress = 0;
        else if (argv[i][0] != '-' && !dir) dir = argv[i];
        else { fprintf(stderr, "coreprof: unexpected argument '%s'\n", argv[i]); usage(stderr); return 2; }
    }
    if (!dir) { usage(stderr); return 2; }
    char defout[4096];
    if (!outdir) { snprintf(defout, sizeof defout, "%s/report", dir); outdir = defout; }
    return report(dir, outdir, &topts, want_otf2, want_events, want_progress);
}
