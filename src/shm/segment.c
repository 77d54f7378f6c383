/* segment.c -- sizes and formats the job's shared segment (see segment.h). */
#include "segment.h"
#include "dyn.h"

#include <string.h>

/* Per-pair ring size.  Rings are only touched when a pair talks, so a large
 * virtual size costs nothing on a small node; on a big node it is scaled so
 * that all N*N rings stay within 1 GiB of address space. */
#define CM_RING_BYTES_MAX (256u * 1024u)
#define CM_RING_BYTES_MIN (16u * 1024u)
#define CM_RINGS_TOTAL_MAX (1ull << 30)
/* Collective areas: room per rank for the shared-memory collectives' areas
 * (src/coll/direct/area.c).  An area holds 2 x 256 KiB slots per member, two
 * results of a slot and its FIFOs, a little over 512 KiB per member: this
 * leaves room for about 14 live communicators of the job's full size.
 * Pages are touched only when an area uses them (large collectives), so
 * the size costs address space, not memory. */
#define CM_COLL_BYTES_PER_RANK (8u * 1024u * 1024u)

static uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }

size_t cm_seg_layout(uint32_t nranks, struct cm_seg_header *h)
{
    memset(h, 0, sizeof *h);
    h->magic = CM_SEG_MAGIC;
    h->version = CM_SEG_VERSION;
    h->nranks = nranks;

    uint64_t ring = CM_RING_BYTES_MAX;
    while (ring > CM_RING_BYTES_MIN && (uint64_t)nranks * nranks * ring > CM_RINGS_TOTAL_MAX)
        ring >>= 1;
    h->ring_bytes = ring;

    uint64_t off = align_up(sizeof(struct cm_seg_header), 4096);
    h->ctl_off = off;
    off = align_up(off + (uint64_t)nranks * sizeof(struct cm_rank_ctl), 4096);
    h->ringctl_off = off;
    off = align_up(off + (uint64_t)nranks * nranks * sizeof(struct cm_ring_ctl), 4096);
    h->ring_off = off;
    off += (uint64_t)nranks * nranks * ring;
    h->coll_off = off = align_up(off, 4096);
    h->coll_bytes = (uint64_t)nranks * CM_COLL_BYTES_PER_RANK;
    off += h->coll_bytes;
    h->dyn_off = off = align_up(off, 4096);
    off += sizeof(struct cm_dyn_area);
    h->total_bytes = align_up(off, 4096);
    return (size_t)h->total_bytes;
}

void cm_seg_format(void *base, const struct cm_seg_header *h)
{
    memcpy(base, h, sizeof *h);
    atomic_store_explicit(&((struct cm_seg_header *)base)->slots_used, h->slots_used ? h->slots_used : h->nranks,
                          memory_order_relaxed);
    for (uint32_t r = 0; r < h->nranks; r++)
        cm_seg_ctl(base, r)->bound_core = -1;
}

int cm_seg_check(const void *base, size_t mapped_bytes, const char **why)
{
    const struct cm_seg_header *h = base;
    if (mapped_bytes < sizeof *h) { *why = "segment smaller than its header"; return -1; }
    if (h->magic != CM_SEG_MAGIC) { *why = "bad magic (not a corempi segment)"; return -1; }
    if (h->version != CM_SEG_VERSION) { *why = "segment version differs from the library's (mixed corempi installs?)"; return -1; }
    if (h->total_bytes > mapped_bytes) { *why = "segment truncated"; return -1; }
    return 0;
}
