/*
 * waits.c -- who waits for whom (issue 39 item 5; Scalasca's wait states on
 * seed 004's profile), from the full model (events, matched messages):
 *
 *   late sender     a receive (or the Wait completing an Irecv) entered
 *                   before its message's send: the receiver waits
 *                   send entry - receive entry, at most the receive's time;
 *   late receiver   a blocking send entered before its receive was posted
 *                   (the Irecv's initiation, or the Recv's entry): the
 *                   sender waits, at most the send's time (an eager send
 *                   returns at once, so this counts only what it blocked);
 *   collective      the k-th blocking collective of each member of one
 *                   communicator is one instance: every member waits for
 *                   its last arrival, at most its own time in the call;
 *   imbalance       per interval between consecutive collectives on
 *                   MPI_COMM_WORLD: the time each rank spent outside them,
 *                   max - mean;
 *   critical path   backwards from the rank that ends last: at each wait,
 *                   jump to the rank waited for, at its arrival.
 *
 * Writes waits.txt, appended to the printed summary and summary.txt; the
 * HTML report shows it.  The rank the
 * others waited for most is named first.
 */
#include "report.h"

#include <stdlib.h>
#include <string.h>

enum { W_LATE_SENDER, W_LATE_RECEIVER, W_COLLECTIVE, W_KINDS };
static const char *const kind_name[W_KINDS] = {"late sender", "late receiver", "collective"};

/* One wait: who waited, where, how long, for whom (who arrived when). */
typedef struct wait_ev {
    int rank, cause;
    int kind;
    int32_t site;
    uint32_t name;
    int64_t t_end, wait_ns, cause_t;
} wait_ev;

typedef struct waits {
    wait_ev *w;
    size_t n, cap;
} waits;

static void add(waits *W, wait_ev e)
{
    if (e.wait_ns <= 0) return;
    if (W->n == W->cap) {
        size_t cap = W->cap ? 2 * W->cap : 256;
        wait_ev *g = realloc(W->w, cap * sizeof *g);
        if (!g) return; /* out of memory: the analysis misses a wait, says less, never lies about one */
        W->w = g;
        W->cap = cap;
    }
    W->w[W->n++] = e;
}

static int64_t clip(int64_t v, int64_t hi) { return v < 0 ? 0 : v > hi ? hi : v; }

static void p2p_waits(const cp_trace *tr, waits *W)
{
    for (size_t f = 0; f < tr->nflows; f++) {
        const cp_flow *fl = &tr->flows[f];
        const cp_rank *sr = &tr->ranks[fl->src_rank], *rr = &tr->ranks[fl->dst_rank];
        const cp_event *s = &sr->ev[fl->src_ev], *d = &rr->ev[fl->dst_ev];
        const cp_event *call = d->slice >= 0 ? &rr->ev[d->slice] : d; /* the Recv, or the Wait that completed it */
        add(W, (wait_ev){fl->dst_rank, fl->src_rank, W_LATE_SENDER, call->site, call->name, call->t1,
                         clip(s->t0 - call->t0, call->t1 - call->t0), s->t0});
        if (!(s->flags & CPT_F_NONBLOCKING))
            add(W, (wait_ev){fl->src_rank, fl->dst_rank, W_LATE_RECEIVER, s->site, s->name, s->t1,
                             clip(d->order_t - s->t0, s->t1 - s->t0), d->order_t});
    }
}

static int is_blocking_coll(const cp_event *e)
{
    return e->is_slice && (e->flags & CPT_F_COLLECTIVE) && !(e->flags & (CPT_F_NONBLOCKING | CPT_F_COMPLETION)) &&
           !e->is_init_fini && e->gcomm != CP_COMM_UNKNOWN;
}

static void collective_waits(const cp_trace *tr, waits *W)
{
    int n = tr->nranks;
    size_t *at = calloc((size_t)n, sizeof *at);
    if (!at) return;
    for (size_t g = 0; g < tr->ncomms; g++) {
        const cp_comm_info *c = &tr->comms[g];
        if (c->remote_size > 0) continue;
        int nm = c->members ? c->size : n;
        for (int i = 0; i < nm; i++) at[i] = 0;
        for (;;) { /* instance after instance: each member's next blocking collective on g */
            int64_t last = -1;
            int last_rank = -1, have = 0;
            const cp_event *e[4096];
            for (int i = 0; i < nm && i < 4096; i++) {
                int r = c->members ? c->members[i] : i;
                const cp_rank *rk = r >= 0 && r < n ? &tr->ranks[r] : NULL;
                e[i] = NULL;
                while (rk && at[i] < rk->nev && !(is_blocking_coll(&rk->ev[at[i]]) && rk->ev[at[i]].gcomm == g)) at[i]++;
                if (!rk || at[i] >= rk->nev) continue;
                e[i] = &rk->ev[at[i]++];
                have++;
                if (e[i]->t0 > last) last = e[i]->t0, last_rank = r;
            }
            if (have < 2) break;
            for (int i = 0; i < nm && i < 4096; i++)
                if (e[i]) {
                    int r = c->members ? c->members[i] : i;
                    add(W, (wait_ev){r, last_rank, W_COLLECTIVE, e[i]->site, e[i]->name, e[i]->t1,
                                     clip(last - e[i]->t0, e[i]->t1 - e[i]->t0), last});
                }
        }
    }
    free(at);
}

/* Intervals between collectives on MPI_COMM_WORLD: work = entry of the k-th
 * minus exit of the (k-1)-th (or the first event), less the MPI calls in
 * between (a rank waiting in MPI_Recv is not working). */
static void imbalance(const cp_trace *tr, FILE *out)
{
    int n = tr->nranks, shown = 0;
    size_t *at = calloc((size_t)n, sizeof *at);
    int64_t *prev = calloc((size_t)n, sizeof *prev);
    if (!at || !prev || n < 2) goto done;
    typedef struct { int k, slow; double max, mean; uint32_t name; } interval;
    interval top[5] = {{0}};
    for (int r = 0; r < n; r++) prev[r] = tr->ranks[r].nev ? tr->ranks[r].ev[0].t1 : 0; /* after MPI_Init */
    for (int k = 0;; k++) {
        double sum = 0, max = -1;
        int slow = -1, have = 0;
        uint32_t name = 0;
        for (int r = 0; r < n; r++) {
            const cp_rank *rk = &tr->ranks[r];
            int64_t in_mpi = 0;
            for (; at[r] < rk->nev && !(is_blocking_coll(&rk->ev[at[r]]) && rk->ev[at[r]].gcomm == 0); at[r]++)
                if (rk->ev[at[r]].is_slice && !rk->ev[at[r]].is_init_fini && rk->ev[at[r]].t0 >= prev[r])
                    in_mpi += rk->ev[at[r]].t1 - rk->ev[at[r]].t0;
            if (at[r] >= rk->nev) continue;
            const cp_event *e = &rk->ev[at[r]++];
            double work = (double)(e->t0 - prev[r] - in_mpi);
            prev[r] = e->t1;
            sum += work;
            have++;
            name = e->name;
            if (work > max) max = work, slow = r;
        }
        if (have < n) break;
        interval v = {k, slow, max, sum / n, name};
        for (int i = 0; i < 5; i++)
            if (v.max - v.mean > top[i].max - top[i].mean) {
                memmove(&top[i + 1], &top[i], (size_t)(4 - i) * sizeof top[0]);
                top[i] = v;
                break;
            }
    }
    fprintf(out, "\nLoad imbalance before collectives on MPI_COMM_WORLD (work = time outside MPI since the previous one):\n");
    for (int i = 0; i < 5; i++) {
        if (top[i].max - top[i].mean <= 0) continue;
        char mx[32], mn[32];
        cp_fmt_ns(mx, sizeof mx, top[i].max);
        cp_fmt_ns(mn, sizeof mn, top[i].mean);
        fprintf(out, "  before %s #%d: rank %d worked %s, mean %s (imbalance %.0f%%)\n",
                top[i].name < tr->nnames ? tr->names[top[i].name] : "?", top[i].k + 1, top[i].slow, mx, mn,
                top[i].max > 0 ? 100.0 * (top[i].max - top[i].mean) / top[i].max : 0);
        shown++;
    }
    if (!shown) fprintf(out, "  none measurable\n");
done:
    free(at);
    free(prev);
}

static int by_end(const void *a, const void *b)
{
    const wait_ev *x = a, *y = b;
    return x->t_end < y->t_end ? -1 : x->t_end > y->t_end;
}

/* Backwards from the rank that ends last: each time it waited, the path
 * goes to the rank it waited for, at that rank's arrival. */
static void critical_path(const cp_trace *tr, waits *W, FILE *out)
{
    int rank = 0;
    int64_t t = -1;
    for (int r = 0; r < tr->nranks; r++) {
        const cp_rank *rk = &tr->ranks[r];
        if (rk->nev && rk->ev[rk->nev - 1].t1 > t) t = rk->ev[rk->nev - 1].t1, rank = r;
    }
    if (W->n)       /* qsort of a NULL array is undefined even for 0 items */
        qsort(W->w, W->n, sizeof *W->w, by_end);
    fprintf(out, "\nCritical path (ranks, latest first; a step is a wait for the next rank):\n  %d", rank);
    int steps = 0;
    for (size_t i = W->n; i-- > 0 && steps < 40;) {
        const wait_ev *w = &W->w[i];
        if (w->rank != rank || w->t_end > t || w->cause == rank || w->wait_ns < 1000) continue;
        rank = w->cause;
        t = w->cause_t;
        fprintf(out, " <- %d", rank);
        steps++;
    }
    fprintf(out, steps >= 40 ? " <- ...\n" : "\n");
}

int cp_write_waits(const cp_trace *tr, const char *outdir, FILE *also, const char *append_to)
{
    waits W = {0};
    int n = tr->nranks;
    p2p_waits(tr, &W);
    collective_waits(tr, &W);
    double *per = calloc((size_t)n * W_KINDS, sizeof *per), *caused = calloc((size_t)n, sizeof *caused);
    int *order = malloc((size_t)n * sizeof *order);
    char path[4096];
    snprintf(path, sizeof path, "%s/waits.txt", outdir);
    FILE *out = fopen(path, "w");
    if (!per || !caused || !order || !out) {
        if (out) fclose(out);
        free(per), free(caused), free(order), free(W.w);
        return -1;
    }
    for (size_t i = 0; i < W.n; i++) {
        per[(size_t)W.w[i].rank * W_KINDS + W.w[i].kind] += (double)W.w[i].wait_ns;
        if (W.w[i].cause >= 0 && W.w[i].cause < n) caused[W.w[i].cause] += (double)W.w[i].wait_ns;
    }
    for (int r = 0; r < n; r++) order[r] = r;
    for (int i = 1; i < n; i++) /* the rank others waited for most first */
        for (int j = i; j > 0 && caused[order[j]] > caused[order[j - 1]]; j--) {
            int t = order[j]; order[j] = order[j - 1]; order[j - 1] = t;
        }
    char a[32], b[32], c[32], d[32];
    fprintf(out, "\n---------------------------------------------------------------------------\n"
                 "@--- Who waits (late sender, late receiver, collective; docs/coreprof-report.md)\n"
                 "---------------------------------------------------------------------------\n");
    if (n > 0 && caused[order[0]] > 0) {
        cp_fmt_ns(a, sizeof a, caused[order[0]]);
        fprintf(out, "Slowest rank: %d -- the others waited %s for it in all\n", order[0], a);
    }
    fprintf(out, "%6s %14s %14s %14s %16s\n", "rank", "late sender", "late receiver", "collective", "others waited");
    for (int k = 0; k < n; k++) {
        int r = order[k];
        cp_fmt_ns(a, sizeof a, per[(size_t)r * W_KINDS + W_LATE_SENDER]);
        cp_fmt_ns(b, sizeof b, per[(size_t)r * W_KINDS + W_LATE_RECEIVER]);
        cp_fmt_ns(c, sizeof c, per[(size_t)r * W_KINDS + W_COLLECTIVE]);
        cp_fmt_ns(d, sizeof d, caused[r]);
        fprintf(out, "%6d %14s %14s %14s %16s\n", r, a, b, c, d);
    }
    /* Per call site: summed over ranks, the largest first. */
    typedef struct { int32_t site; uint32_t name; int kind; double ns; } site_w;
    site_w *sw = calloc(W.n + 1, sizeof *sw);
    size_t ns = 0;
    for (size_t i = 0; sw && i < W.n; i++) {
        size_t j = 0;
        while (j < ns && !(sw[j].site == W.w[i].site && sw[j].name == W.w[i].name && sw[j].kind == W.w[i].kind)) j++;
        if (j == ns) sw[ns++] = (site_w){W.w[i].site, W.w[i].name, W.w[i].kind, 0};
        sw[j].ns += (double)W.w[i].wait_ns;
    }
    fprintf(out, "\nWaiting per call site (all ranks):\n");
    for (int shown = 0; sw && shown < 10; shown++) {
        size_t best = ns;
        for (size_t j = 0; j < ns; j++)
            if (sw[j].ns > 0 && (best == ns || sw[j].ns > sw[best].ns)) best = j;
        if (best == ns) break;
        cp_fmt_ns(a, sizeof a, sw[best].ns);
        fprintf(out, "  %12s  %-14s %-16s %s\n", a, kind_name[sw[best].kind],
                sw[best].name < tr->nnames ? tr->names[sw[best].name] : "?",
                sw[best].site >= 0 && (size_t)sw[best].site < tr->nsites ? tr->sites[sw[best].site].where : "?");
        sw[best].ns = 0;
    }
    free(sw);
    imbalance(tr, out);
    critical_path(tr, &W, out);
    int bad = ferror(out);
    if (fclose(out) != 0) bad = 1;
    if (!bad) { /* the text summary ends with it, printed and in its file alike */
        FILE *in = fopen(path, "r"), *app = append_to ? fopen(append_to, "a") : NULL;
        char line[1024];
        while (in && fgets(line, sizeof line, in)) {
            if (also) fputs(line, also);
            if (app) fputs(line, app);
        }
        if (in) fclose(in);
        if (app && fclose(app) != 0) bad = 1;
    }
    free(per), free(caused), free(order), free(W.w);
    return bad ? -1 : 0;
}
