/* png_draw.c -- colour map, text placement and axis ticks for the PNG pictures. */
#include "png_draw.h"

#include <math.h>

void cp_colormap(double t, double *r, double *g, double *b)
{
    /* control points of a dark-purple -> teal -> yellow ramp (viridis' published anchors) */
    static const double cp[9][3] = {
        { 68, 1, 84 },   { 71, 44, 122 },  { 59, 81, 139 },  { 44, 113, 142 }, { 33, 144, 141 },
        { 39, 173, 129 }, { 92, 200, 99 }, { 170, 220, 50 }, { 253, 231, 37 },
    };
    if (!(t >= 0)) t = 0;
    if (t > 1) t = 1;
    double x = t * 8;
    int i = (int)x;
    if (i >= 8) i = 7;
    double f = x - i;
    *r = (cp[i][0] + f * (cp[i + 1][0] - cp[i][0])) / 255.0;
    *g = (cp[i][1] + f * (cp[i + 1][1] - cp[i][1])) / 255.0;
    *b = (cp[i][2] + f * (cp[i + 1][2] - cp[i][2])) / 255.0;
}

void cp_text(cairo_t *cr, double x, double y, const char *s, enum cp_align align)
{
    cairo_text_extents_t ext;
    cairo_font_extents_t fe;
    cairo_text_extents(cr, s, &ext);
    cairo_font_extents(cr, &fe);
    double dx = align == CP_LEFT ? 0 : align == CP_CENTER ? -ext.x_advance / 2 : -ext.x_advance;
    cairo_move_to(cr, x + dx, y + (fe.ascent - fe.descent) / 2);
    cairo_show_text(cr, s);
}

void cp_text_vertical(cairo_t *cr, double x, double y, const char *s)
{
    cairo_save(cr);
    cairo_translate(cr, x, y);
    cairo_rotate(cr, -M_PI / 2);
    cp_text(cr, 0, 0, s, CP_CENTER);
    cairo_restore(cr);
}

int cp_tick_step(double px_per_unit, double min_px)
{
    static const int mult[3] = { 1, 2, 5 };
    for (int p = 1; p < 1000000000; p *= 10)
        for (int k = 0; k < 3; k++)
            if (p * mult[k] * px_per_unit >= min_px) return p * mult[k];
    return 1000000000;
}

void cp_nice_axis(double max, int want_ticks, double *top, double *step)
{
    if (!(max > 0)) max = 1;
    double raw = max / want_ticks;
    double mag = pow(10, floor(log10(raw)));
    double norm = raw / mag;
    double s = norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 2.5 ? 2.5 : norm <= 5 ? 5 : 10;
    *step = s * mag;
    *top = ceil(max / *step) * *step;
}
