/*
 * copy.c -- the bulk copies of Put and Get into and out of memory the
 * origin maps (shared windows, its own window), cut into pieces by size.
 *
 * Why pieces: glibc (2.36) copies with "rep movsb" from 2 KiB up to its
 * rep_movsb_stop_threshold -- on AMD the L2 size, 1 MiB on this EPYC -- and
 * with a vector loop of ordinary stores from there up to the non-temporal
 * threshold (127 MiB here, so non-temporal stores are not the issue).  Into
 * a peer's segment, 1 MiB and 4 MiB copies made of 128 KiB memcpy calls (each
 * one "rep movsb") ran about 1.2x as fast as one memcpy of the whole; 64 KiB
 * did not change; Get gained 2-20%, the most with page-aligned buffers
 * (docs/osc.md "Bulk copies" has the figures).  Open MPI's datatype engine copies contiguous data in 128 KiB
 * pieces too, which is why its Put beat a plain memcpy.  Each piece still
 * goes through memcpy, so a libc or CPU that prefers another method for a
 * piece keeps it; only the size of each call is ours.
 *
 * The choice is data: the last row whose `from` is at most the size wins.
 */
#include "osc/osc.h"

#include <string.h>

static const struct copy_row {
    size_t from;    /* copies of at least this many bytes */
    size_t piece;   /* go in pieces of this many (0: one call) */
} plan[] = {
    { 0, 0 },
    { 256 * 1024, 128 * 1024 },
};

void cm_osc_copy(void *dst, const void *src, size_t n)
{
    size_t piece = 0;
    for (size_t i = 0; i < sizeof plan / sizeof plan[0]; i++)
        if (n >= plan[i].from)
            piece = plan[i].piece;
    if (!piece) {
        memcpy(dst, src, n);
        return;
    }
    char *d = dst;
    const char *s = src;
    while (n) {
        size_t k = n < piece ? n : piece;
        memcpy(d, s, k);
        d += k;
        s += k;
        n -= k;
    }
}
