/*
 * trace_stream.c -- the statistics of a trace directory, one block at a time.
 *
 * Each rank file is read block by block (cpt_stream) and every block is folded
 * into the rank's statistics (agg.c) at once, so memory holds one block (1 MiB
 * by default, 64 MiB at most) plus the statistics, whatever the size of the
 * trace.  The events themselves are never kept: outputs that need them (the
 * timeline, OTF2) load the trace with cp_trace_load instead.
 *
 * On long work a progress line goes to stderr: every second, rewritten in
 * place, when stderr is a terminal; every 5 seconds as a line of its own when
 * it is not and the input is large (CP_PROGRESS_MIN_BYTES).
 */
#define _GNU_SOURCE
#include "report.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CP_PROGRESS_MIN_BYTES (1ull << 30)

typedef struct progress {
    int on, tty, printed;
    uint64_t total, done;
    double start, last;
} progress;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void progress_line(progress *p, const char *end)
{
    char a[32], b[32];
    double el = now_s() - p->start;
    cp_fmt_bytes(a, sizeof a, (double)p->done);
    cp_fmt_bytes(b, sizeof b, (double)p->total);
    fprintf(stderr, "%scoreprof: read %s of %s (%.0f%%) in %.1f s, %.0f MB/s%s", p->tty ? "\r" : "", a, b,
            p->total ? 100.0 * (double)p->done / (double)p->total : 100.0, el,
            el > 0 ? (double)p->done / el / 1e6 : 0.0, end);
    fflush(stderr);
    p->printed = 1;
}

static void progress_add(progress *p, uint64_t bytes)
{
    p->done += bytes;
    if (!p->on) return;
    double t = now_s();
    if (t - p->last < (p->tty ? 1.0 : 5.0)) return;
    p->last = t;
    progress_line(p, p->tty ? "   " : "\n");
}

static void progress_end(progress *p)
{
    if (p->on && p->printed) progress_line(p, p->tty ? "   \n" : "\n");
}

static void stream_rank(cp_trace *tr, int r, const char *dir, progress *pg)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%d.cpt", dir, r);
    cp_rank *rk = &tr->ranks[r];
    cpt_trace *t = &rk->raw;
    cpt_stream s;
    int rc = cpt_stream_open(&s, path, t);
    cp_acc_begin(tr, rk);
    uint64_t seen = 0;
    cpt_block b;
    while (rc == 0 && cpt_stream_next(&s, &b)) {
        if (b.kind == CPT_BLOCK_EVENTS) cp_acc_events(tr, rk, b.payload, b.count);
        else cp_acc_summary(tr, rk, b.payload, b.count);
        progress_add(pg, s.off - seen);
        seen = s.off;
    }
    if (s.size > seen) progress_add(pg, s.size - seen);
    cpt_stream_close(&s);
    if (rc == 0 && t->header.rank != r) {
        /* keep it but say so: a renamed file would mislabel a rank */
        char msg[sizeof t->error];
        snprintf(msg, sizeof msg, "%.400s: the header says rank %d%s%.700s", path, t->header.rank,
                 t->error[0] ? "; " : "", t->error);
        memcpy(t->error, msg, sizeof msg);
        t->complete = 0;
    }
    cp_acc_end(tr, rk);
}

int cp_trace_stream(const char *dir, cp_trace *tr, FILE *diag, int want_progress)
{
    memset(tr, 0, sizeof *tr);
    tr->dir = dir;
    int n;
    uint64_t total = 0;
    if (cp_scan_trace_dir(dir, &n, &total, diag) != 0) return -1;
    tr->input_bytes = total;
    progress pg = { 0 };
    pg.tty = isatty(2);
    pg.on = want_progress && (pg.tty || total >= CP_PROGRESS_MIN_BYTES);
    pg.total = total;
    pg.start = pg.last = now_s();

    tr->ranks = calloc((size_t)n, sizeof *tr->ranks);
    if (!tr->ranks) abort();
    tr->nranks = n;
    int claimed = 0;
    for (int r = 0; r < n; r++) {
        stream_rank(tr, r, dir, &pg);
        if (tr->ranks[r].raw.header.world_size > claimed) claimed = tr->ranks[r].raw.header.world_size;
    }
    if (claimed > n) {
        /* ranks that left no file at all are reported as missing, within reason */
        if (claimed - n > CP_MAX_MISSING_TAIL) {
            fprintf(diag, "coreprof: %s: headers claim %d ranks but files stop at rank %d; "
                          "reporting ranks 0..%d only\n", dir, claimed, n - 1, n - 1);
        } else {
            cp_rank *a = realloc(tr->ranks, (size_t)claimed * sizeof *a);
            if (!a) abort();
            memset(a + n, 0, (size_t)(claimed - n) * sizeof *a);
            tr->ranks = a;
            tr->nranks = claimed;
            for (int r = n; r < claimed; r++) stream_rank(tr, r, dir, &pg);   /* fails: "cannot open" */
            n = claimed;
        }
    }
    progress_end(&pg);
    int usable = 0, noted = 0;
    for (int r = 0; r < n; r++) {
        cp_rank *rk = &tr->ranks[r];
        cpt_trace raw = rk->raw;          /* cp_rank_take sets the status fields only */
        usable += cp_rank_take(rk, r, &raw, &noted, diag);
    }
    if (!usable) {
        fprintf(diag, "coreprof: %s: no usable trace file\n", dir);
        return -1;
    }
    cp_assign_global_comms(tr);
    cp_acc_finish(tr);
    return 0;
}
