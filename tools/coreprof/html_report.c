/*
 * html_report.c -- report.html: one self-contained page (inline CSS, pictures as
 * base64 data: URIs, no scripts, nothing loaded from elsewhere) with the
 * summary tables, call sites, matrix and histogram, and the names of the
 * timeline / OTF2 files next to it.
 */
#define _GNU_SOURCE
#include "report.h"
#include "base64.h"

#include <libgen.h>
#include <string.h>

static void html_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

static void img(FILE *f, const char *outdir, const char *name, const char *alt)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", outdir, name);
    fprintf(f, "<figure><img alt=\"%s\" src=\"data:image/png;base64,", alt);
    if (cp_base64_file(f, path) != 0) fprintf(f, "\"><figcaption>(%s missing)</figcaption></figure>\n", name);
    else fprintf(f, "\"><figcaption>%s</figcaption></figure>\n", alt);
}

/* A text part of the report as a section (nothing when it was not written). */
static void pre_file(FILE *f, const char *outdir, const char *name, const char *title)
{
    char path[4096], line[8192];
    snprintf(path, sizeof path, "%s/%s", outdir, name);
    FILE *in = fopen(path, "r");
    if (!in) return;
    fprintf(f, "<h2>%s</h2>\n<pre>", title);
    while (fgets(line, sizeof line, in)) html_text(f, line);
    fputs("</pre>\n", f);
    fclose(in);
}

/* placement.txt (place.c): the predicted cost of each --map-by policy and
 * of auto, the suggestion first when there is one, then the matrix in
 * auto's order. */
static void placement(FILE *f, const char *outdir)
{
    char path[4096], line[8192];
    snprintf(path, sizeof path, "%s/placement.txt", outdir);
    FILE *in = fopen(path, "r");
    if (!in) return;
    fputs("<h2>Placement</h2>\n", f);
    while (fgets(line, sizeof line, in))
        if (strstr(line, "suggestion:")) {
            fputs("<p><b>", f);
            html_text(f, line + strspn(line, " "));
            fputs("</b></p>\n", f);
        }
    rewind(in);
    fputs("<pre>", f);
    while (fgets(line, sizeof line, in)) html_text(f, line);
    fputs("</pre>\n", f);
    fclose(in);
    img(f, outdir, "matrix_placed.png", "Bytes with ranks in the order of auto's cores (docs/placement.md)");
}

static double pct(int64_t a, int64_t b) { return b > 0 ? 100.0 * (double)a / (double)b : 0; }

static void file_link(FILE *f, const char *name, const char *what)
{
    fprintf(f, "<li><a href=\"");
    html_text(f, name);
    fprintf(f, "\">");
    html_text(f, name);
    fprintf(f, "</a> &mdash; %s</li>\n", what);
}

int cp_write_html(const cp_trace *tr, const cp_stats *st, const cp_matrices *m, const char *outdir,
                  char **timeline_files, size_t ntimeline, int have_otf2)
{
    char path[4096], b1[32], b2[32], b3[32];
    snprintf(path, sizeof path, "%s/report.html", outdir);
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    const char *impl = "?";
    for (int r = 0; r < tr->nranks; r++)
        if (tr->ranks[r].impl[0]) { impl = tr->ranks[r].impl; break; }

    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<title>coreprof report</title>\n<style>\n"
          "body{font-family:sans-serif;margin:2em;color:#222;max-width:80em}\n"
          "h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}\n"
          "table{border-collapse:collapse;font-size:.9em}th,td{padding:.25em .6em;border-bottom:1px solid #e4e4e4;text-align:right}\n"
          "th{background:#f3f3f3}td.l,th.l{text-align:left}td.warn{color:#b00;text-align:left}\n"
          ".bar{display:inline-block;height:.8em;background:#2e6bb3;vertical-align:middle}\n"
          "figure{display:inline-block;margin:1em 2em 1em 0}figcaption{font-size:.85em;color:#555}\n"
          "img{max-width:100%;border:1px solid #ddd}.warnbox{background:#fff3f3;border:1px solid #e0b0b0;padding:.5em 1em}\n"
          "code{background:#f5f5f5;padding:0 .2em}\n"
          "</style></head><body>\n", f);
    fputs("<h1>coreprof report</h1>\n<p>Trace directory <code>", f);
    html_text(f, tr->dir);
    fprintf(f, "</code>, MPI library <b>");
    html_text(f, impl);
    fprintf(f, "</b>, %d ranks.</p>\n", tr->nranks);

    int incomplete = 0;
    for (int r = 0; r < tr->nranks; r++) incomplete += !tr->ranks[r].complete;
    if (incomplete) {
        fputs("<div class=\"warnbox\"><b>Trace incomplete</b> for some ranks: the numbers below cover what was recorded.<ul>\n", f);
        for (int r = 0; r < tr->nranks; r++)
            if (!tr->ranks[r].complete) {
                fprintf(f, "<li>rank %d (%s): ", r, tr->ranks[r].usable ? "trace incomplete" : "no usable trace");
                html_text(f, tr->ranks[r].message[0] ? tr->ranks[r].message : "no end marker");
                fputs("</li>\n", f);
            }
        fputs("</ul></div>\n", f);
    }

    fputs("<h2>Time in MPI per rank</h2>\n<table><tr><th>Rank</th><th>Wall</th><th>MPI</th><th>MPI %</th>"
          "<th class=\"l\"></th><th>Calls</th><th class=\"l\">Status</th></tr>\n", f);
    for (int r = 0; r < tr->nranks; r++) {
        const cp_rank_stat *rs = &st->rank[r];
        cp_fmt_ns(b1, sizeof b1, (double)rs->wall_ns);
        cp_fmt_ns(b2, sizeof b2, (double)rs->mpi_ns);
        double p = pct(rs->mpi_ns, rs->wall_ns);
        fprintf(f, "<tr><td>%d</td><td>%s</td><td>%s</td><td>%.2f</td><td class=\"l\"><span class=\"bar\" style=\"width:%.0fpx\"></span></td>"
                   "<td>%llu</td><td class=\"%s\">%s</td></tr>\n", r, b1, b2, p, p > 100 ? 100 : p,
                (unsigned long long)rs->calls, tr->ranks[r].complete ? "l" : "warn",
                !tr->ranks[r].usable ? "missing / unreadable" : tr->ranks[r].complete ? "ok" : "trace incomplete");
    }
    cp_fmt_ns(b1, sizeof b1, (double)st->wall_ns);
    cp_fmt_ns(b2, sizeof b2, (double)st->mpi_ns);
    fprintf(f, "<tr><th>all</th><th>%s</th><th>%s</th><th>%.2f</th><th></th><th></th><th></th></tr></table>\n", b1, b2,
            pct(st->mpi_ns, st->wall_ns));

    fputs("<h2>Calls (all ranks)</h2>\n<table><tr><th class=\"l\">Call</th><th>Calls</th><th>Time</th><th>MPI %</th>"
          "<th>Bytes</th><th>Min</th><th>Mean</th><th>Max</th></tr>\n", f);
    for (size_t i = 0; i < st->ncall; i++) {
        const cp_call_stat *c = &st->call[i];
        char cell[5][32];
        cp_fmt_call(c, cell);
        fputs("<tr><td class=\"l\">", f);
        html_text(f, tr->names[c->name]);
        char share[16];
        if (c->outside_mpi_time) snprintf(share, sizeof share, "&ndash;");
        else snprintf(share, sizeof share, "%.2f", pct(c->total_ns, st->mpi_ns));
        fprintf(f, "</td><td>%llu</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
                (unsigned long long)c->calls, cell[0], share, cell[1], cell[2], cell[3], cell[4]);
    }
    fputs("</table>\n<p>MPI %: share of the time in MPI; MPI_Init and MPI_Finalize bound the wall time and are not counted in it.</p>\n", f);

    fprintf(f, "<h2>Top %d call sites by time</h2>\n<table><tr><th class=\"l\">Call</th><th class=\"l\">Site</th>"
               "<th>Calls</th><th>Ranks</th><th>Time</th><th>Bytes</th><th>Max</th></tr>\n", CP_TOP_SITES);
    for (size_t i = 0; i < st->nsite && i < CP_TOP_SITES; i++) {
        const cp_site_stat *s = &st->site[i];
        cp_fmt_ns(b1, sizeof b1, (double)s->total_ns);
        cp_fmt_bytes(b2, sizeof b2, (double)s->bytes);
        cp_fmt_ns(b3, sizeof b3, (double)s->max_ns);
        fputs("<tr><td class=\"l\">", f);
        html_text(f, tr->names[s->name]);
        fputs("</td><td class=\"l\"><code>", f);
        html_text(f, tr->sites[s->site].where);
        fprintf(f, "</code></td><td>%llu</td><td>%llu</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
                (unsigned long long)s->calls, (unsigned long long)s->nranks, b1, b2, b3);
    }
    if (!st->nsite) fputs("<tr><td class=\"l\" colspan=\"7\">no call sites recorded</td></tr>\n", f);
    fputs("</table>\n", f);

    cp_io_write_html(tr, f);

    fputs("<h2>Communication</h2>\n", f);
    if (tr->msgs_unknown)
        fputs("<p>Matched messages are not known: summary-mode traces keep no tags.</p>\n", f);
    else
        fprintf(f, "<p>%llu matched point-to-point messages; %llu sends and %llu receives without a partner.</p>\n",
                (unsigned long long)tr->msgs_matched, (unsigned long long)tr->msgs_unmatched_sends,
                (unsigned long long)tr->msgs_unmatched_recvs);
    img(f, outdir, "matrix.png", "Point-to-point bytes, sender (row) to receiver (column)");
    img(f, outdir, "matrix_coll.png", "Collective bytes (logical data flow), sender to receiver");
    img(f, outdir, "msgsize_hist.png", "Message sizes (log2 bins)");
    placement(f, outdir);
    pre_file(f, outdir, "waits.txt", "Who waits");
    (void)m;

    fputs("<h2>Files</h2>\n<ul>\n", f);
    file_link(f, "summary.txt", "this summary as text");
    file_link(f, "matrix_p2p_bytes.csv", "point-to-point bytes, row = sender, column = receiver");
    file_link(f, "matrix_p2p_count.csv", "point-to-point message counts");
    file_link(f, "matrix_coll_bytes.csv", "collective bytes (logical data flow)");
    for (size_t i = 0; i < ntimeline; i++) {
        char copy[4096];
        snprintf(copy, sizeof copy, "%s", timeline_files[i]);
        file_link(f, basename(copy), "timeline for Perfetto (ui.perfetto.dev) or chrome://tracing: open the file there");
    }
    if (have_otf2) file_link(f, "trace.otf2/traces.otf2", "OTF2 archive (Vampir, otf2-print)");
    fputs("</ul>\n</body></html>\n", f);
    int bad = ferror(f);
    if (fclose(f) != 0) bad = 1;
    return bad ? -1 : 0;
}
