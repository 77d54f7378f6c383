/*
 * timeline_json.c -- Chrome / Perfetto JSON Trace Event Format.
 *
 * One complete ("X") slice per MPI call, pid 0, tid = rank; one flow arrow
 * ("s" bound to the send's slice, "f" with "bp":"e" bound to the slice in which
 * the receive completed) per matched message; profiler flushes as instants.
 * Items are written in time order of their slice, each flow event right after
 * its slice, so a split never separates a flow event from the slice it binds
 * to; every file carries the metadata and parses on its own.  A split file
 * may hold one end of an arrow whose other end is in the next file.
 */
#define _GNU_SOURCE
#include "report.h"
#include "json_out.h"

#include <stdlib.h>
#include <string.h>

enum item_kind { IT_SLICE, IT_FLOW_START, IT_FLOW_END, IT_FLUSH };

typedef struct item {
    int64_t key;          /* t0 of the slice the item belongs to */
    uint32_t rank;
    uint8_t kind;
    size_t ev;            /* event index (slice / flush) */
    size_t flow;          /* flow index for flow items */
} item;

static int cmp_item(const void *a, const void *b)
{
    const item *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    if (x->ev != y->ev) return x->ev < y->ev ? -1 : 1;
    if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
    return x->flow < y->flow ? -1 : x->flow > y->flow;
}

static void ts(FILE *f, int64_t ns)
{
    if (ns < 0) ns = 0;   /* cannot happen after loading (times start at 0); keeps the JSON valid regardless */
    fprintf(f, "%lld.%03lld", (long long)(ns / 1000), (long long)(ns % 1000));
}

typedef struct out_file {
    FILE *f;
    char path[4096];
    size_t events;
    int first;
} out_file;

static int open_part(const cp_trace *tr, const char *outdir, size_t idx, out_file *o)
{
    snprintf(o->path, sizeof o->path, "%s/timeline-%03zu.json", outdir, idx);
    o->f = fopen(o->path, "w");
    if (!o->f) return -1;
    o->events = 0;
    fprintf(o->f, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"coreprof\",\"part\":%zu},\n\"traceEvents\":[\n", idx);
    fprintf(o->f, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"tid\":0,\"args\":{\"name\":\"MPI job\"}}");
    for (int r = 0; r < tr->nranks; r++) {
        fprintf(o->f, ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":0,\"tid\":%d,\"args\":{\"name\":\"rank %d%s\"}}",
                r, r, tr->ranks[r].complete ? "" : " (trace incomplete)");
        fprintf(o->f, ",\n{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":0,\"tid\":%d,\"args\":{\"sort_index\":%d}}", r, r);
    }
    return 0;
}

static int close_part(out_file *o)
{
    fprintf(o->f, "\n]}\n");
    int bad = ferror(o->f);
    if (fclose(o->f) != 0) bad = 1;
    o->f = NULL;
    return bad ? -1 : 0;
}

/* Where an arrow leaves / arrives inside its slice: a message exists from the
 * start of its send call and is known to have arrived only when the call that
 * received or completed it returns (a completion record carries the times of
 * the Wait/Test call it happened in).  So arrows stay forward in time whenever
 * the clocks are aligned. */
static int64_t flow_point(const cp_event *slice, const cp_event *e, int start)
{
    int64_t t = start ? e->t0 : slice->t1;
    if (t < slice->t0) t = slice->t0;
    if (t > slice->t1) t = slice->t1;
    return t;
}

static void write_slice(const cp_trace *tr, FILE *f, int r, const cp_event *e)
{
    fprintf(f, ",\n{\"ph\":\"X\",\"pid\":0,\"tid\":%d,\"ts\":", r);
    ts(f, e->t0);
    fprintf(f, ",\"dur\":");
    ts(f, e->t1 - e->t0);
    fprintf(f, ",\"cat\":\"%s\",\"name\":", (e->flags & CPT_F_COLLECTIVE) ? "coll" : "mpi");
    cp_json_string(f, cp_name(tr, e));
    fprintf(f, ",\"args\":{\"bytes\":%llu", (unsigned long long)e->bytes);
    if (e->peer >= 0)
        fprintf(f, ",\"%s\":%d", (e->flags & CPT_F_ROOT) ? "root" : (e->flags & CPT_F_RECV) ? "source" : "dest", e->peer);
    if (e->tag != CPT_TAG_NONE) fprintf(f, ",\"tag\":%d", e->tag);
    if (e->comm) fprintf(f, ",\"comm\":%u", e->comm);
    if (e->site >= 0) { fprintf(f, ",\"site\":"); cp_json_string(f, tr->sites[e->site].where); }
    if (e->flags & CPT_F_ERROR) fprintf(f, ",\"error\":true");
    if (e->ncalls > 1) fprintf(f, ",\"calls\":%u", e->ncalls);   /* folded polls: dur = their sum */
    fprintf(f, "}}");
}

static void write_flow(const cp_trace *tr, FILE *f, size_t k, int start)
{
    const cp_flow *fl = &tr->flows[k];
    int r = start ? fl->src_rank : fl->dst_rank;
    const cp_rank *rk = &tr->ranks[r];
    const cp_event *e = &rk->ev[start ? fl->src_ev : fl->dst_ev];
    const cp_event *slice = &rk->ev[e->slice];
    fprintf(f, ",\n{\"ph\":\"%s\",\"id\":%zu,\"pid\":0,\"tid\":%d,\"ts\":", start ? "s" : "f", k + 1, r);
    ts(f, flow_point(slice, e, start));
    fprintf(f, ",\"cat\":\"msg\",\"name\":\"message\"%s}", start ? "" : ",\"bp\":\"e\"");
}

static void write_flush(FILE *f, int r, const cp_event *e)
{
    fprintf(f, ",\n{\"ph\":\"i\",\"s\":\"t\",\"pid\":0,\"tid\":%d,\"ts\":", r);
    ts(f, e->t0);
    fprintf(f, ",\"cat\":\"coreprof\",\"name\":\"coreprof flush\",\"args\":{\"bytes\":%llu,\"waited_ns\":%lld}}",
            (unsigned long long)e->bytes, (long long)(e->t1 - e->t0));
}

int cp_write_timeline(const cp_trace *tr, const char *outdir, const cp_timeline_opts *o,
                      char ***files_out, size_t *nfiles_out)
{
    size_t n = 0;
    for (int r = 0; r < tr->nranks; r++)
        for (size_t i = 0; i < tr->ranks[r].nev; i++) {
            const cp_event *e = &tr->ranks[r].ev[i];
            n += e->is_slice || strcmp(cp_name(tr, e), "coreprof flush") == 0;
        }
    n += 2 * tr->nflows;
    item *it = malloc((n + 1) * sizeof *it);
    if (!it) return -1;
    size_t k = 0;
    for (int r = 0; r < tr->nranks; r++)
        for (size_t i = 0; i < tr->ranks[r].nev; i++) {
            const cp_event *e = &tr->ranks[r].ev[i];
            if (e->is_slice) it[k++] = (item){ e->t0, (uint32_t)r, IT_SLICE, i, 0 };
            else if (strcmp(cp_name(tr, e), "coreprof flush") == 0) it[k++] = (item){ e->t0, (uint32_t)r, IT_FLUSH, i, 0 };
        }
    for (size_t j = 0; j < tr->nflows; j++) {
        const cp_flow *fl = &tr->flows[j];
        const cp_event *se = &tr->ranks[fl->src_rank].ev[fl->src_ev];
        const cp_event *de = &tr->ranks[fl->dst_rank].ev[fl->dst_ev];
        if (se->slice < 0 || de->slice < 0) continue;   /* nothing to bind to */
        it[k++] = (item){ tr->ranks[fl->src_rank].ev[se->slice].t0, (uint32_t)fl->src_rank, IT_FLOW_START, (size_t)se->slice, j };
        it[k++] = (item){ tr->ranks[fl->dst_rank].ev[de->slice].t0, (uint32_t)fl->dst_rank, IT_FLOW_END, (size_t)de->slice, j };
    }
    n = k;
    qsort(it, n, sizeof *it, cmp_item);

    char **files = NULL;
    size_t nfiles = 0;
    out_file of = { 0 };
    int rc = 0;
    for (size_t j = 0; j <= n; j++) {
        /* ftell costs a system call: the size limit is looked at every 256 events */
        int need_new = !of.f ||
            (j < n && it[j].kind != IT_FLOW_START && it[j].kind != IT_FLOW_END &&
             ((o->max_events_per_file && of.events >= o->max_events_per_file) ||
              (o->max_bytes_per_file && (of.events & 255) == 0 && of.events &&
               (uint64_t)ftell(of.f) >= o->max_bytes_per_file)));
        if (need_new && (j < n || !of.f)) {
            if (of.f && close_part(&of) != 0) rc = -1;
            if (open_part(tr, outdir, nfiles, &of) != 0) { rc = -1; break; }
            char **a = realloc(files, (nfiles + 1) * sizeof *a);
            if (!a) abort();
            files = a;
            files[nfiles++] = strdup(of.path);
        }
        if (j == n) break;
        const item *x = &it[j];
        const cp_rank *rk = &tr->ranks[x->rank];
        if (x->kind == IT_SLICE) write_slice(tr, of.f, (int)x->rank, &rk->ev[x->ev]);
        else if (x->kind == IT_FLUSH) write_flush(of.f, (int)x->rank, &rk->ev[x->ev]);
        else write_flow(tr, of.f, x->flow, x->kind == IT_FLOW_START);
        of.events++;
    }
    if (of.f && close_part(&of) != 0) rc = -1;
    free(it);
    /* one part only: call it timeline.json */
    if (rc == 0 && nfiles == 1) {
        char single[4096];
        snprintf(single, sizeof single, "%s/timeline.json", outdir);
        if (rename(files[0], single) == 0) { free(files[0]); files[0] = strdup(single); }
    }
    *files_out = files;
    *nfiles_out = nfiles;
    return rc;
}
