/*
 * counters.c -- the traffic counters' storage and switches (see p2p.h,
 * cm_p2p_count), and the unexpected queue's length as MPI_T reads it.
 *
 * Counting is off until someone installs a level table: COREMPI_VERBOSE and
 * the tests through coll/hier.c, MPI_T when a tool asks for a traffic
 * variable.  It is never switched off again by MPI_T (the table lives as
 * long as the process), so a counter a tool reads only grows.
 */
#include "p2p/p2p.h"
#include "core/state.h"

#include <stdlib.h>

const uint8_t *cm_p2p_dst_level;
struct cm_p2p_peer_count *cm_p2p_peer;
uint64_t cm_p2p_level_msgs[2], cm_p2p_level_bytes[2];

void cm_p2p_set_dst_level(const uint8_t *table)
{
    /* The per-destination array first: cm_p2p_count indexes it as soon as
     * the table is visible.  Allocated once for the world and never freed. */
    if (table && !cm_p2p_peer) {
        cm_p2p_peer = calloc((size_t)(cm_g.size > 0 ? cm_g.size : 1), sizeof *cm_p2p_peer);
        if (!cm_p2p_peer)
            return;
    }
    cm_p2p_dst_level = table;
}

int cm_p2p_count_flat(void)
{
    static uint8_t *flat;
    if (cm_p2p_dst_level)
        return 0;
    if (!cm_g.initialized || cm_g.size <= 0)
        return -1;
    if (!flat && !(flat = calloc((size_t)cm_g.size, 1)))
        return -1;
    cm_p2p_set_dst_level(flat);
    return cm_p2p_dst_level ? 0 : -1;
}
