/*
 * png_heatmap.c -- the communication matrix as a picture: cells coloured by
 * value (grey = nothing), ranks on both axes, a colour bar with values, a title.
 * Values spanning more than two decades use a log colour scale (said on the bar).
 */
#include "report.h"
#include "png_draw.h"

#include <math.h>
#include <string.h>

static void fmt_value(char *buf, size_t len, double v, const char *unit)
{
    if (strcmp(unit, "bytes") == 0) cp_fmt_bytes(buf, len, v);
    else if (v >= 1e6) snprintf(buf, len, "%.3g", v);
    else snprintf(buf, len, "%.0f", v);
}

int cp_heatmap_png(const char *path, const double *m, int n, const char *title,
                   const char *xlabel, const char *ylabel, const char *unit)
{
    if (n < 1) n = 1;
    double vmin = 0, vmax = 0;
    for (size_t i = 0; i < (size_t)n * n; i++)
        if (m[i] > 0) {
            if (vmin == 0 || m[i] < vmin) vmin = m[i];
            if (m[i] > vmax) vmax = m[i];
        }
    int logscale = vmax > 0 && vmax / vmin > 100.0;

    int cell = n <= 600 ? 600 / n : 1;
    if (cell < 1) cell = 1;
    int plot = cell * n;
    if (plot < 240) { cell = (240 + n - 1) / n; plot = cell * n; }
    const int left = 90, top = 60, bottom = 70, barw = 22, right = 120;
    int width = left + plot + 30 + barw + right, height = top + plot + bottom;

    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height);
    cairo_t *cr = cairo_create(s);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);

    /* cells */
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double v = m[(size_t)i * n + j], r, g, b;
            if (v <= 0) { r = g = b = 0.93; }
            else {
                double t = vmax == vmin ? 1.0
                         : logscale ? (log10(v) - log10(vmin)) / (log10(vmax) - log10(vmin))
                                    : v / vmax;
                cp_colormap(t, &r, &g, &b);
            }
            cairo_set_source_rgb(cr, r, g, b);
            cairo_rectangle(cr, left + j * cell, top + i * cell, cell, cell);
            cairo_fill(cr);
        }
    /* values inside the cells when there is room to read them */
    if (cell >= 48) {
        cairo_set_font_size(cr, cell >= 90 ? 13 : 10);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                double v = m[(size_t)i * n + j];
                if (v <= 0) continue;
                char buf[32];
                fmt_value(buf, sizeof buf, v, unit);
                double t = vmax == vmin ? 1.0 : logscale ? (log10(v) - log10(vmin)) / (log10(vmax) - log10(vmin)) : v / vmax;
                if (t > 0.6) cairo_set_source_rgb(cr, 0, 0, 0); else cairo_set_source_rgb(cr, 1, 1, 1);
                cp_text(cr, left + j * cell + cell / 2.0, top + i * cell + cell / 2.0, buf, CP_CENTER);
            }
    }
    /* frame and ticks */
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, left - 0.5, top - 0.5, plot + 1, plot + 1);
    cairo_stroke(cr);
    cairo_set_font_size(cr, 12);
    int step = cp_tick_step(cell, 28);
    for (int k = 0; k < n; k += step) {
        char buf[16];
        snprintf(buf, sizeof buf, "%d", k);
        double c = k * cell + cell / 2.0;
        cairo_move_to(cr, left + c, top + plot);
        cairo_line_to(cr, left + c, top + plot + 5);
        cairo_move_to(cr, left - 5, top + c);
        cairo_line_to(cr, left, top + c);
        cairo_stroke(cr);
        cp_text(cr, left + c, top + plot + 15, buf, CP_CENTER);
        cp_text(cr, left - 8, top + c, buf, CP_RIGHT);
    }
    cairo_set_font_size(cr, 14);
    cp_text(cr, left + plot / 2.0, top + plot + 45, xlabel, CP_CENTER);
    cp_text_vertical(cr, 30, top + plot / 2.0, ylabel);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
    cairo_set_font_size(cr, 16);
    cp_text(cr, width / 2.0, 28, title, CP_CENTER);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);

    /* colour bar: bottom = smallest shown value (0 for linear), top = largest */
    int bx = left + plot + 30;
    for (int y = 0; y < plot; y++) {
        double r, g, b;
        cp_colormap(1.0 - (double)y / (plot - 1 > 0 ? plot - 1 : 1), &r, &g, &b);
        cairo_set_source_rgb(cr, r, g, b);
        cairo_rectangle(cr, bx, top + y, barw, 1);
        cairo_fill(cr);
    }
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_rectangle(cr, bx - 0.5, top - 0.5, barw + 1, plot + 1);
    cairo_stroke(cr);
    cairo_set_font_size(cr, 11);
    char buf[48];
    if (vmax <= 0) {
        cp_text(cr, bx + barw + 6, top + plot / 2.0, "no data", CP_LEFT);
    } else if (logscale) {
        /* ticks at powers of 2 for bytes (1 KiB, 1 MiB read well), of 10 for counts */
        int bytes = strcmp(unit, "bytes") == 0;
        double base = bytes ? 2.0 : 10.0;
        double lo = log10(vmin), hi = log10(vmax);
        double klo = ceil(log(vmin) / log(base) - 1e-9), khi = floor(log(vmax) / log(base) + 1e-9);
        int kstep = 1;
        while ((khi - klo) / kstep > 7) kstep *= 2;
        if (bytes && kstep < 10 && (khi - klo) >= 20) kstep = 10;
        int nt = 0;
        for (double k = klo; k <= khi; k += kstep) {
            double v = pow(base, k);
            double y = top + plot - (log10(v) - lo) / (hi - lo) * plot;
            fmt_value(buf, sizeof buf, v, unit);
            cairo_move_to(cr, bx + barw, y); cairo_line_to(cr, bx + barw + 4, y); cairo_stroke(cr);
            cp_text(cr, bx + barw + 7, y, buf, CP_LEFT);
            nt++;
        }
        fmt_value(buf, sizeof buf, vmin, unit);
        if (nt < 2) cp_text(cr, bx + barw + 7, top + plot, buf, CP_LEFT);
        fmt_value(buf, sizeof buf, vmax, unit);
        if (nt < 2) cp_text(cr, bx + barw + 7, top, buf, CP_LEFT);
        cp_text_vertical(cr, bx + barw + 100, top + plot / 2.0, "log scale");
    } else {
        double topv, stepv, scale = 1;
        /* byte ticks on a binary scale: 10 KiB steps, not 9.77 KiB */
        if (strcmp(unit, "bytes") == 0) while (vmax / scale >= 1024) scale *= 1024;
        cp_nice_axis(vmax / scale, 5, &topv, &stepv);
        stepv *= scale;
        for (double v = 0; v <= vmax * (1 + 1e-9); v += stepv) {
            double y = top + plot - v / vmax * plot;
            fmt_value(buf, sizeof buf, v, unit);
            cairo_move_to(cr, bx + barw, y); cairo_line_to(cr, bx + barw + 4, y); cairo_stroke(cr);
            cp_text(cr, bx + barw + 7, y, buf, CP_LEFT);
        }
        if (fmod(vmax, stepv) > stepv * 0.2) {
            fmt_value(buf, sizeof buf, vmax, unit);
            cp_text(cr, bx + barw + 7, top, buf, CP_LEFT);
        }
    }
    cairo_destroy(cr);
    cairo_status_t st = cairo_surface_write_to_png(s, path);
    cairo_surface_destroy(s);
    return st == CAIRO_STATUS_SUCCESS ? 0 : -1;
}
