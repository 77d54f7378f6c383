/*
 * png_histogram.c -- message-size histogram: log2 bins (bin 0 = empty messages,
 * bin k = [2^(k-1), 2^k) bytes), two series side by side (point-to-point sends,
 * collective calls), labelled axes and a legend.
 */
#include "report.h"
#include "png_draw.h"

#include <math.h>

static void bin_label(char *buf, size_t len, int k)
{
    if (k == 0) { snprintf(buf, len, "0"); return; }
    static const char *suffix[] = { "", "K", "M", "G", "T", "P", "E" };
    int e = k - 1;                       /* lower bound 2^e */
    snprintf(buf, len, "%llu%s", 1ull << (e % 10), suffix[e / 10]);
}

int cp_histogram_png(const char *path, const uint64_t *a, const char *label_a,
                     const uint64_t *b, const char *label_b, int nbins, const char *title)
{
    int lo = nbins, hi = -1;
    uint64_t maxc = 0;
    for (int k = 0; k < nbins; k++) {
        uint64_t c = a[k] > b[k] ? a[k] : b[k];
        if (a[k] || b[k]) { if (k < lo) lo = k; hi = k; }
        if (c > maxc) maxc = c;
    }
    if (hi < 0) { lo = 0; hi = 10; }
    if (hi - lo < 7) { hi = lo + 7 < nbins ? lo + 7 : nbins - 1; }
    int nb = hi - lo + 1;
    const int left = 90, top = 60, bottom = 80, right = 30;
    int groupw = nb <= 20 ? 36 : 24;
    int plotw = nb * groupw, ploth = 360;
    if (plotw < 480) { groupw = 480 / nb; plotw = nb * groupw; }
    int width = left + plotw + right, height = top + ploth + bottom;

    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height);
    cairo_t *cr = cairo_create(s);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);

    double topv, stepv;
    cp_nice_axis((double)(maxc ? maxc : 1), 5, &topv, &stepv);
    if (stepv < 1) { stepv = 1; topv = ceil(topv); }
    /* horizontal grid and y ticks */
    cairo_set_line_width(cr, 1);
    cairo_set_font_size(cr, 12);
    for (double v = 0; v <= topv * (1 + 1e-9); v += stepv) {
        double y = top + ploth - v / topv * ploth;
        cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
        cairo_move_to(cr, left, y + 0.5); cairo_line_to(cr, left + plotw, y + 0.5); cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        char buf[32];
        snprintf(buf, sizeof buf, v >= 1e6 ? "%.3g" : "%.0f", v);
        cp_text(cr, left - 8, y, buf, CP_RIGHT);
    }
    /* bars */
    double bw = (groupw - 8) / 2.0;
    for (int k = lo; k <= hi; k++) {
        double x = left + (k - lo) * groupw + 4;
        double ha = (double)a[k] / topv * ploth, hb = (double)b[k] / topv * ploth;
        cairo_set_source_rgb(cr, 0.18, 0.42, 0.70);
        cairo_rectangle(cr, x, top + ploth - ha, bw, ha);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0.93, 0.55, 0.17);
        cairo_rectangle(cr, x + bw, top + ploth - hb, bw, hb);
        cairo_fill(cr);
    }
    /* axes, x labels */
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_move_to(cr, left - 0.5, top); cairo_line_to(cr, left - 0.5, top + ploth + 0.5);
    cairo_line_to(cr, left + plotw, top + ploth + 0.5);
    cairo_stroke(cr);
    cairo_set_font_size(cr, 11);
    int step = cp_tick_step(groupw, 34);
    for (int k = lo; k <= hi; k++) {
        if ((k - lo) % step) continue;
        char buf[16];
        bin_label(buf, sizeof buf, k);
        double x = left + (k - lo) * groupw + groupw / 2.0;
        cairo_move_to(cr, x, top + ploth); cairo_line_to(cr, x, top + ploth + 4); cairo_stroke(cr);
        cp_text(cr, x, top + ploth + 14, buf, CP_CENTER);
    }
    cairo_set_font_size(cr, 14);
    cp_text(cr, left + plotw / 2.0, top + ploth + 45, "message size in bytes (log2 bins, lower bound)", CP_CENTER);
    cp_text_vertical(cr, 25, top + ploth / 2.0, "number of messages / calls");
    /* legend */
    cairo_set_font_size(cr, 12);
    double lx = left + plotw - 190, ly = top + 12;
    cairo_set_source_rgb(cr, 0.18, 0.42, 0.70);
    cairo_rectangle(cr, lx, ly - 6, 12, 12); cairo_fill(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cp_text(cr, lx + 18, ly, label_a, CP_LEFT);
    cairo_set_source_rgb(cr, 0.93, 0.55, 0.17);
    cairo_rectangle(cr, lx, ly + 14, 12, 12); cairo_fill(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cp_text(cr, lx + 18, ly + 20, label_b, CP_LEFT);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
    cairo_set_font_size(cr, 16);
    cp_text(cr, width / 2.0, 28, title, CP_CENTER);

    cairo_destroy(cr);
    cairo_status_t st = cairo_surface_write_to_png(s, path);
    cairo_surface_destroy(s);
    return st == CAIRO_STATUS_SUCCESS ? 0 : -1;
}
