/*
 * call_stats.c -- the numbers of the summary: time in MPI per rank, per call
 * (calls, bytes, min/mean/max), per call site; and the mpiP-like text.
 *
 * MPI time counts every recorded call except MPI_Init* / MPI_Finalize (they bound
 * the wall time instead, as in mpiP).  Completions and second halves of a call
 * (the receive of a Sendrecv) are parts of a call already counted.  Everything
 * comes from the per-rank statistics (cp_agg, agg.c), in which a folded poll
 * counts as the calls it stands for.
 */
#include "report.h"

#include <stdlib.h>
#include <string.h>

static int cmp_call(const void *a, const void *b)
{
    const cp_call_stat *x = a, *y = b;
    if (x->total_ns != y->total_ns) return x->total_ns > y->total_ns ? -1 : 1;
    return x->name < y->name ? -1 : x->name > y->name;
}

static int cmp_site(const void *a, const void *b)
{
    const cp_site_stat *x = a, *y = b;
    if (x->total_ns != y->total_ns) return x->total_ns > y->total_ns ? -1 : 1;
    if (x->name != y->name) return x->name < y->name ? -1 : 1;
    return x->site < y->site ? -1 : x->site > y->site;
}

void cp_stats_compute(const cp_trace *tr, cp_stats *st)
{
    memset(st, 0, sizeof *st);
    size_t nn = tr->nnames ? tr->nnames : 1, nsites = tr->nsites;
    st->rank = calloc((size_t)tr->nranks + 1, sizeof *st->rank);
    cp_call_stat *calls = calloc(nn, sizeof *calls);
    cp_site_stat *sites = calloc(nn * (nsites ? nsites : 1), sizeof *sites);
    int *site_last_rank = malloc(nn * (nsites ? nsites : 1) * sizeof *site_last_rank);
    if (!st->rank || !calls || !sites || !site_last_rank) abort();
    for (size_t i = 0; i < nn * (nsites ? nsites : 1); i++) site_last_rank[i] = -1;

    for (int r = 0; r < tr->nranks; r++) {
        const cp_rank *rk = &tr->ranks[r];
        cp_rank_stat *rs = &st->rank[r];
        rs->wall_ns = rk->wall_ns;
        st->flushes += rk->flushes;
        st->flush_waits += rk->flush_waits;
        cp_add_sat(&st->flush_wait_ns, rk->flush_wait_ns);
        for (size_t i = 0; i < rk->nagg; i++) {
            const cp_agg *a = &rk->agg[i];
            if (!a->is_slice || !a->calls || a->name >= nn) continue;
            cp_call_stat *c = &calls[a->name];
            if (c->calls == 0 || a->min_ns < c->min_ns) c->min_ns = a->min_ns;
            if (a->max_ns > c->max_ns) c->max_ns = a->max_ns;
            c->calls += a->calls;
            c->bytes += a->bytes;
            cp_add_sat(&c->total_ns, a->total_ns);
            c->name = a->name;
            c->outside_mpi_time = a->is_init_fini;
            if (!a->is_init_fini) { cp_add_sat(&rs->mpi_ns, a->total_ns); rs->calls += a->calls; }
            if (a->site >= 0 && (size_t)a->site < nsites) {
                size_t k = (size_t)a->name * nsites + (size_t)a->site;
                cp_site_stat *s = &sites[k];
                s->name = a->name;
                s->site = a->site;
                s->calls += a->calls;
                s->bytes += a->bytes;
                cp_add_sat(&s->total_ns, a->total_ns);
                if (a->max_ns > s->max_ns) s->max_ns = a->max_ns;
                if (site_last_rank[k] != r) { site_last_rank[k] = r; s->nranks++; }
            }
        }
        cp_add_sat(&st->wall_ns, rs->wall_ns);
        cp_add_sat(&st->mpi_ns, rs->mpi_ns);
        st->dropped += rk->dropped;
    }
    /* compact: keep only calls / sites that occurred */
    for (size_t i = 0; i < nn; i++)
        if (calls[i].calls) calls[st->ncall++] = calls[i];
    for (size_t i = 0; i < nn * nsites; i++)
        if (sites[i].calls) sites[st->nsite++] = sites[i];
    qsort(calls, st->ncall, sizeof *calls, cmp_call);
    qsort(sites, st->nsite, sizeof *sites, cmp_site);
    st->call = calls;
    st->site = sites;
    free(site_last_rank);
}

void cp_stats_free(cp_stats *st)
{
    free(st->rank);
    free(st->call);
    free(st->site);
    memset(st, 0, sizeof *st);
}

static double pct(int64_t part, int64_t whole)
{
    return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

int cp_write_summary(const cp_trace *tr, const cp_stats *st, FILE *out)
{
    char b1[32], b2[32], b3[32];
    int complete = 0;
    for (int r = 0; r < tr->nranks; r++) complete += tr->ranks[r].complete;
    const char *impl = "?";
    for (int r = 0; r < tr->nranks; r++)
        if (tr->ranks[r].impl[0]) { impl = tr->ranks[r].impl; break; }

    fprintf(out, "@ coreprof report\n");
    fprintf(out, "@ Trace directory : %s\n", tr->dir);
    fprintf(out, "@ MPI library     : %s\n", impl);
    fprintf(out, "@ Ranks           : %d (%d complete)\n", tr->nranks, complete);
    int summaries = 0;
    for (int r = 0; r < tr->nranks; r++) summaries += tr->ranks[r].summary_mode;
    if (summaries)
        fprintf(out, "@ Recorded as     : statistics only (COREPROF_MODE=summary) on %d rank%s\n", summaries,
                summaries == 1 ? "" : "s");
    for (int r = 0; r < tr->nranks; r++)
        if (!tr->ranks[r].complete)
            fprintf(out, "@ Rank %d: %s: %s\n", r, tr->ranks[r].usable ? "trace incomplete" : "no usable trace",
                    tr->ranks[r].message[0] ? tr->ranks[r].message : "no end marker");

    fprintf(out, "\n---------------------------------------------------------------------------\n");
    fprintf(out, "@--- MPI Time (wall time from MPI_Init to MPI_Finalize, or first to last event)\n");
    fprintf(out, "---------------------------------------------------------------------------\n");
    fprintf(out, "%5s %14s %14s %7s %10s  %s\n", "Rank", "Wall", "MPI", "MPI%", "Calls", "Status");
    for (int r = 0; r < tr->nranks; r++) {
        const cp_rank_stat *rs = &st->rank[r];
        cp_fmt_ns(b1, sizeof b1, (double)rs->wall_ns);
        cp_fmt_ns(b2, sizeof b2, (double)rs->mpi_ns);
        fprintf(out, "%5d %14s %14s %6.2f%% %10llu  %s\n", r, b1, b2, pct(rs->mpi_ns, rs->wall_ns),
                (unsigned long long)rs->calls,
                !tr->ranks[r].usable ? "missing/unreadable" : tr->ranks[r].complete ? "ok" : "trace incomplete");
    }
    cp_fmt_ns(b1, sizeof b1, (double)st->wall_ns);
    cp_fmt_ns(b2, sizeof b2, (double)st->mpi_ns);
    fprintf(out, "%5s %14s %14s %6.2f%%\n", "*", b1, b2, pct(st->mpi_ns, st->wall_ns));

    fprintf(out, "\n---------------------------------------------------------------------------\n");
    fprintf(out, "@--- Aggregate time per call (all ranks)\n");
    fprintf(out, "---------------------------------------------------------------------------\n");
    fprintf(out, "%-22s %10s %12s %7s %12s %11s %11s %11s\n", "Call", "Calls", "Time", "MPI%",
            "Bytes", "Min", "Mean", "Max");
    for (size_t i = 0; i < st->ncall; i++) {
        const cp_call_stat *c = &st->call[i];
        char cell[5][32];
        cp_fmt_call(c, cell);
        char share[16];
        if (c->outside_mpi_time) snprintf(share, sizeof share, "-");
        else snprintf(share, sizeof share, "%.2f%%", pct(c->total_ns, st->mpi_ns));
        fprintf(out, "%-22s %10llu %12s %7s %12s %11s %11s %11s\n", tr->names[c->name],
                (unsigned long long)c->calls, cell[0], share, cell[1], cell[2], cell[3], cell[4]);
    }

    fprintf(out, "(MPI%% = share of the MPI time; MPI_Init/MPI_Finalize bound the wall time and are not part of it)\n");
    fprintf(out, "\n---------------------------------------------------------------------------\n");
    fprintf(out, "@--- Top %d call sites by time (all ranks)\n", CP_TOP_SITES);
    fprintf(out, "---------------------------------------------------------------------------\n");
    fprintf(out, "%-18s %-40s %8s %6s %12s %12s %11s\n", "Call", "Site", "Calls", "Ranks", "Time",
            "Bytes", "Max");
    for (size_t i = 0; i < st->nsite && i < CP_TOP_SITES; i++) {
        const cp_site_stat *s = &st->site[i];
        cp_fmt_ns(b1, sizeof b1, (double)s->total_ns);
        cp_fmt_bytes(b2, sizeof b2, (double)s->bytes);
        cp_fmt_ns(b3, sizeof b3, (double)s->max_ns);
        fprintf(out, "%-18s %-40s %8llu %6llu %12s %12s %11s\n", tr->names[s->name],
                tr->sites[s->site].where, (unsigned long long)s->calls,
                (unsigned long long)s->nranks, b1, b2, b3);
    }
    if (!st->nsite) fprintf(out, "(no call sites recorded)\n");

    if (cp_io_write_text(tr, out) != 0)
        return -1;

    fprintf(out, "\n---------------------------------------------------------------------------\n");
    fprintf(out, "@--- Messages and profiler\n");
    fprintf(out, "---------------------------------------------------------------------------\n");
    if (tr->msgs_unknown) {
        fprintf(out, "matched point-to-point messages : not known (summary-mode traces keep no tags)\n");
    } else {
        fprintf(out, "matched point-to-point messages : %llu\n", (unsigned long long)tr->msgs_matched);
        fprintf(out, "sends without a matching receive: %llu\n", (unsigned long long)tr->msgs_unmatched_sends);
        fprintf(out, "receives without a matching send: %llu\n", (unsigned long long)tr->msgs_unmatched_recvs);
    }
    cp_fmt_ns(b1, sizeof b1, (double)st->flush_wait_ns);
    fprintf(out, "profiler buffer flushes         : %llu (%llu waited, %s)\n",
            (unsigned long long)st->flushes, (unsigned long long)st->flush_waits, b1);
    if (st->dropped)
        fprintf(out, "profiler records dropped        : %llu (statistics are incomplete)\n",
                (unsigned long long)st->dropped);
    return ferror(out) ? -1 : 0;
}
