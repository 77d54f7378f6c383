/* hier.c -- hierarchy levels for the collectives (see hier.h). */
#include "coll/hier.h"
#include "core/comm.h"
#include "core/state.h"
#include "p2p/p2p.h"
#include "topo/domain.h"

#include <stdlib.h>

/* Levels tried from the top; the first that splits the ranks is used. */
static const enum cm_topo_level levels[] = { CM_TOPO_PACKAGE, CM_TOPO_NUMA, CM_TOPO_L3 };

static int have_machine(void)
{
    return cm_topo_machine_ready() == 0;
}

/* Index of the `level` domain holding world rank w's core, or -1. */
static int domain_of(enum cm_topo_level level, int w)
{
    if (w >= cm_g.slots)   /* a process of another job: not placed here */
        return -1;
    return cm_topo_domain_of_core(level, cm_seg_ctl(cm_g.seg, (uint32_t)w)->bound_core);
}

/* Group size of world ranks `world[0..n)` at one level, or 0. */
static int blocks_at(enum cm_topo_level level, const int *world, int n)
{
    int g = 0, run = 1, first = domain_of(level, world[0]);
    if (first < 0)
        return 0;
    for (int i = 1; i <= n; i++) {
        int d = i < n ? domain_of(level, world[i]) : -2;
        if (i < n && d < 0)
            return 0;
        if (i < n && d == domain_of(level, world[i - 1])) {
            run++;
            continue;
        }
        if (g == 0)
            g = run;
        else if (run != g)
            return 0;
        run = 1;
    }
    return g < n ? g : 0; /* one domain holding everyone does not split */
}

int cm_coll_hier_group_size(MPI_Comm comm)
{
    struct cm_comm *c = cm_comm_lookup(comm, NULL);
    if (!c || c->size < 4 || !have_machine())
        return 0;
    for (size_t l = 0; l < sizeof levels / sizeof *levels; l++) {
        int g = blocks_at(levels[l], c->world_of, c->size);
        if (g >= 2)
            return g;
    }
    return 0;
}

int cm_coll_hier_count_levels(void)
{
    if (!have_machine())
        return -1;
    static uint8_t *across;
    if (!across && !(across = calloc((size_t)cm_g.size, 1)))
        return -1;
    for (size_t l = 0; l < sizeof levels / sizeof *levels; l++) {
        int mine = domain_of(levels[l], cm_g.rank), split = 0;
        if (mine < 0)
            return -1;
        /* The slots in use now (free slots are unplaced, not "across"). */
        for (int w = 0; w < cm_slots_used(); w++) {
            across[w] = domain_of(levels[l], w) != mine;
            split |= across[w];
        }
        if (split) {
            cm_p2p_set_dst_level(across);
            return 0;
        }
    }
    return -1;
}
