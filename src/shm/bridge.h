/*
 * bridge.h -- the shared memory that joins two groups of two mpirun jobs
 * (MPI_Comm_accept/connect across jobs, docs/spawn.md "Two jobs").
 *
 * The accepting root creates it as a memfd (nothing in /dev/shm, freed when
 * the last process that maps it ends), and every member of both groups maps
 * it through /proc/<root pid>/fd/<n> while the root keeps the fd open.
 * Layout: [header][consumer lines][rings]: one ring per ordered pair of
 * processes across the groups (side A = the accepting group, B = the
 * connecting one), each with its consumer's read position (shm/ring.h), so
 * messages between two processes keep their order exactly as within a job.
 *
 * Invariants:
 *  - A ring is CM_BRIDGE_RING_BYTES, no smaller than any job's ring
 *    (shm/segment.c caps those at 256 KiB): whatever a job's eager limit
 *    and fragment size, a message that fits its own rings fits the bridge.
 *  - ftruncate zero-fills: all-zero rings and lines are empty and valid.
 *  - slots_a is written by the accepting root before the bridge is handed
 *    out, slots_b by the connecting root before it sets b_ready (release);
 *    neither changes afterwards.
 */
#ifndef CM_SHM_BRIDGE_H
#define CM_SHM_BRIDGE_H

#include <stdint.h>
#include <stdatomic.h>
#include "shm/segment.h"

#define CM_BRIDGE_MAGIC 0x6567646972626d63ULL /* "cmbridge" */
#define CM_BRIDGE_RING_BYTES (256u * 1024u)
#define CM_BRIDGE_SIDE_MAX 256                /* processes per group */

struct cm_bridge_hdr {
    uint64_t magic;
    uint32_t na, nb;          /* group sizes */
    uint64_t ringctl_off, ring_off, total_bytes;
    int32_t slots_a[CM_BRIDGE_SIDE_MAX];  /* group rank -> slot in its own job */
    int32_t slots_b[CM_BRIDGE_SIDE_MAX];
    _Alignas(CM_CACHELINE) _Atomic uint32_t b_ready;
};

static inline uint64_t cm_bridge_align(uint64_t v) { return (v + 4095) & ~(uint64_t)4095; }

/* Sizes for na x nb processes; fills the header's layout fields. */
static inline uint64_t cm_bridge_layout(uint32_t na, uint32_t nb, struct cm_bridge_hdr *h)
{
    uint64_t rings = 2ull * na * nb;
    h->magic = CM_BRIDGE_MAGIC;
    h->na = na;
    h->nb = nb;
    h->ringctl_off = cm_bridge_align(sizeof *h);
    h->ring_off = cm_bridge_align(h->ringctl_off + rings * sizeof(struct cm_ring_ctl));
    h->total_bytes = h->ring_off + rings * CM_BRIDGE_RING_BYTES;
    return h->total_bytes;
}

/* The ring from group rank i of side `from` (0 = A, 1 = B) to group rank j
 * of the other side. */
static inline uint64_t cm_bridge_ring_index(const struct cm_bridge_hdr *h, int from, int i, int j)
{
    return from == 0 ? (uint64_t)i * h->nb + (uint64_t)j
                     : (uint64_t)h->na * h->nb + (uint64_t)i * h->na + (uint64_t)j;
}
static inline void *cm_bridge_ring(struct cm_bridge_hdr *h, int from, int i, int j)
{
    return (char *)h + h->ring_off + cm_bridge_ring_index(h, from, i, j) * CM_BRIDGE_RING_BYTES;
}
static inline struct cm_ring_ctl *cm_bridge_ringctl(struct cm_bridge_hdr *h, int from, int i, int j)
{
    return (struct cm_ring_ctl *)((char *)h + h->ringctl_off) + cm_bridge_ring_index(h, from, i, j);
}

#endif
