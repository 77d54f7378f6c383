/*
 * io_report.c -- the I/O section of the report: per rank, the bytes its
 * MPI-IO calls read and wrote and the time it spent in MPI_File_* calls.
 *
 * Everything comes from the per-rank statistics (cp_agg), so a summary-mode
 * file gives the same figures as a trace.  A call belongs to I/O by its
 * name: every MPI_File_* call counts for the time (open, close, sync and
 * views too); the bytes of the data access calls (the wrappers record what
 * a blocking call's status counts, and what a nonblocking or split call
 * asked for) are "read" or "written" by the word in the name.  Completions
 * of nonblocking I/O (MPI_Wait...) are not slices of their own and are left
 * out, as in the per-call table.
 */
#include "report.h"

#include <stdlib.h>
#include <string.h>

static const char file_prefix[] = "MPI_File_";

/* 'r' read, 'w' write, 'o' another MPI_File_ call, 0 not I/O. */
static char io_kind(const char *name)
{
    if (strncmp(name, file_prefix, sizeof file_prefix - 1))
        return 0;
    name += sizeof file_prefix - 1;
    if (name[0] == 'i')
        name++;
    if (!strncmp(name, "read", 4))
        return 'r';
    if (!strncmp(name, "write", 5))
        return 'w';
    return 'o';
}

int cp_io_compute(const cp_trace *tr, cp_io_rank *io)
{
    int any = 0;
    memset(io, 0, (size_t)(tr->nranks + 1) * sizeof *io);
    cp_io_rank *all = &io[tr->nranks];
    for (int r = 0; r < tr->nranks; r++) {
        const cp_rank *rk = &tr->ranks[r];
        for (size_t i = 0; i < rk->nagg; i++) {
            const cp_agg *a = &rk->agg[i];
            if (!a->is_slice || !a->calls || a->name >= tr->nnames)
                continue;
            char k = io_kind(tr->names[a->name]);
            if (!k)
                continue;
            any = 1;
            cp_io_rank *x = &io[r];
            cp_add_sat_u(&x->calls, a->calls);
            cp_add_sat(&x->ns, a->total_ns);
            if (k == 'r')
                cp_add_sat_u(&x->read, a->bytes);
            else if (k == 'w')
                cp_add_sat_u(&x->written, a->bytes);
        }
        cp_add_sat_u(&all->calls, io[r].calls);
        cp_add_sat(&all->ns, io[r].ns);
        cp_add_sat_u(&all->read, io[r].read);
        cp_add_sat_u(&all->written, io[r].written);
        io[r].wall_ns = rk->wall_ns;
        cp_add_sat(&all->wall_ns, rk->wall_ns);
    }
    return any;
}

static double pct(int64_t part, int64_t whole)
{
    return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

/* One row's cells: read, written, time in I/O, and the bytes as exact counts. */
static void cells(const cp_io_rank *x, char c[3][32])
{
    cp_fmt_bytes(c[0], sizeof c[0], (double)x->read);
    cp_fmt_bytes(c[1], sizeof c[1], (double)x->written);
    cp_fmt_ns(c[2], sizeof c[2], (double)x->ns);
}

int cp_io_write_text(const cp_trace *tr, FILE *out)
{
    cp_io_rank *io = calloc((size_t)tr->nranks + 1, sizeof *io);
    if (!io)
        return -1;
    if (cp_io_compute(tr, io)) {
        fprintf(out, "\n---------------------------------------------------------------------------\n");
        fprintf(out, "@--- I/O (MPI_File_* calls; bytes of the data access calls)\n");
        fprintf(out, "---------------------------------------------------------------------------\n");
        fprintf(out, "%5s %12s %12s %14s %14s %12s %7s %8s\n", "Rank", "Read", "Written", "Read bytes",
                "Written bytes", "I/O time", "Wall%", "Calls");
        for (int r = 0; r <= tr->nranks; r++) {
            const cp_io_rank *x = &io[r];
            char c[3][32], rank[16];
            cells(x, c);
            snprintf(rank, sizeof rank, r < tr->nranks ? "%d" : "*", r);
            fprintf(out, "%5s %12s %12s %14llu %14llu %12s %6.2f%% %8llu\n", rank, c[0], c[1],
                    (unsigned long long)x->read, (unsigned long long)x->written, c[2], pct(x->ns, x->wall_ns),
                    (unsigned long long)x->calls);
        }
    }
    free(io);
    return ferror(out) ? -1 : 0;
}

int cp_io_write_html(const cp_trace *tr, FILE *f)
{
    cp_io_rank *io = calloc((size_t)tr->nranks + 1, sizeof *io);
    if (!io)
        return -1;
    if (cp_io_compute(tr, io)) {
        fputs("<h2>I/O</h2>\n<table><tr><th>Rank</th><th>Read</th><th>Written</th><th>Read bytes</th>"
              "<th>Written bytes</th><th>Time in I/O</th><th>Wall %</th><th>Calls</th></tr>\n", f);
        for (int r = 0; r <= tr->nranks; r++) {
            const cp_io_rank *x = &io[r];
            char c[3][32];
            cells(x, c);
            const char *td = r < tr->nranks ? "td" : "th";
            if (r < tr->nranks)
                fprintf(f, "<tr><td>%d</td>", r);
            else
                fputs("<tr><th>all</th>", f);
            fprintf(f, "<%s>%s</%s><%s>%s</%s><%s>%llu</%s><%s>%llu</%s><%s>%s</%s><%s>%.2f</%s><%s>%llu</%s></tr>\n",
                    td, c[0], td, td, c[1], td, td, (unsigned long long)x->read, td, td,
                    (unsigned long long)x->written, td, td, c[2], td, td, pct(x->ns, x->wall_ns), td, td,
                    (unsigned long long)x->calls, td);
        }
        fputs("</table>\n<p>Time in I/O: every MPI_File_* call (open, close, sync, views included); bytes: the "
              "data access calls, as a blocking call's status counts them or as a nonblocking call asked.</p>\n",
              f);
    }
    free(io);
    return ferror(f) ? -1 : 0;
}
