/* png_draw.h -- small drawing helpers shared by the cairo pictures. */
#ifndef COREPROF_PNG_DRAW_H
#define COREPROF_PNG_DRAW_H

#include <cairo.h>

/* A perceptually ordered colour map (viridis-like), t in [0,1]. */
void cp_colormap(double t, double *r, double *g, double *b);

enum cp_align { CP_LEFT, CP_CENTER, CP_RIGHT };
/* Text anchored at (x, y): horizontally by `align`, vertically centred. */
void cp_text(cairo_t *cr, double x, double y, const char *s, enum cp_align align);
void cp_text_vertical(cairo_t *cr, double x, double y, const char *s);   /* rotated 90 deg, centred */

/* Label step for ticks that are at least `min_px` apart when one unit is `px_per_unit`:
 * 1, 2, 5, 10, 20, 50, ... */
int cp_tick_step(double px_per_unit, double min_px);

/* A "nice" upper bound and tick spacing for a linear axis from 0 to max. */
void cp_nice_axis(double max, int want_ticks, double *top, double *step);

#endif
