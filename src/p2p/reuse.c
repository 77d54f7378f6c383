/* reuse.c -- a slot mpirun gave to a new process (MPI_Comm_spawn after a
 * child ended): reset what this process kept about the slot's previous one.
 *
 * mpirun raises the slot's gen, sets both directions' consumer positions to
 * the rings' new base (shm/segment.h cm_seg_ring_base) and then the segment's
 * reuse_epoch, all before the new process starts.  Here, for each slot whose
 * gen moved: the producer and consumer positions of both rings start at the
 * new base, this process publishes its consumer position there (a stale
 * publish of the old one may have overwritten mpirun's) and wakes the new
 * process in case it waits for room.  Until this runs, the new process's
 * messages do not match this process's old positions (their sequence numbers
 * are 2^24 apart), so nothing is taken out of order.
 * It runs on every full progress sweep that sees reuse_epoch move, and
 * before a parent meets the children of a spawn (mpi/dyn_spawn.c). */
#include "p2p/p2p.h"
#include "core/state.h"
#include "shm/ring.h"
#include "shm/segment.h"
#include "shm/wait.h"

#include <stdlib.h>

extern struct cm_ring_tx *cm_tx;
extern struct cm_ring_rx *cm_rx;

uint32_t cm_reuse_seen;          /* reuse_epoch when this process last looked */
static uint32_t *seen_gen;       /* [slots]: each slot's gen when last looked */

static void start_rings_at(int s, uint64_t base)
{
    cm_tx[s].wpos = cm_tx[s].rpos_cache = base;
    cm_rx[s].rpos = cm_rx[s].published = base;
}

int cm_p2p_reuse_init(void)
{
    seen_gen = calloc((size_t)cm_g.slots, sizeof *seen_gen);
    if (!seen_gen)
        return MPI_ERR_NO_MEM;
    cm_reuse_seen = atomic_load_explicit(&cm_g.hdr->reuse_epoch, memory_order_acquire);
    uint32_t mine = atomic_load_explicit(&cm_seg_ctl(cm_g.seg, (uint32_t)cm_g.rank)->gen, memory_order_relaxed);
    for (int s = 0; s < cm_g.slots; s++) {
        seen_gen[s] = atomic_load_explicit(&cm_seg_ctl(cm_g.seg, (uint32_t)s)->gen, memory_order_relaxed);
        start_rings_at(s, cm_seg_ring_base(mine, seen_gen[s]));
    }
    return MPI_SUCCESS;
}

void cm_p2p_reuse_refresh(void)
{
    uint32_t epoch = atomic_load_explicit(&cm_g.hdr->reuse_epoch, memory_order_acquire);
    if (epoch == cm_reuse_seen || !seen_gen)
        return;
    cm_reuse_seen = epoch;
    uint32_t mine = seen_gen[cm_g.rank];
    int used = cm_slots_used();
    for (int s = 0; s < used && s < cm_g.slots; s++) {
        struct cm_rank_ctl *c = cm_seg_ctl(cm_g.seg, (uint32_t)s);
        uint32_t g = atomic_load_explicit(&c->gen, memory_order_acquire);
        if (g == seen_gen[s] || s == cm_g.rank)
            continue;
        seen_gen[s] = g;
        uint64_t base = cm_seg_ring_base(mine, g);
        start_rings_at(s, base);
        atomic_store_explicit(&cm_rx[s].v.ctl->rpos, base, memory_order_release);
        cm_wake_if_sleeping(c);
    }
}

void cm_p2p_reuse_finalize(void)
{
    free(seen_gen);
    seen_gen = NULL;
}
