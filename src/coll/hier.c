/* hier.c -- hierarchy levels for the collectives (see hier.h). */
#include "coll/hier.h"
#include "core/comm.h"
#include "core/state.h"
#include "p2p/p2p.h"
#include "topo/machine.h"

#include <stdlib.h>

static struct cm_machine machine;
static int machine_state; /* 0 unknown, 1 loaded, -1 unavailable */

/* Levels tried from the top; the first that splits the ranks is used. */
static const hwloc_obj_type_t levels[] = { HWLOC_OBJ_PACKAGE, HWLOC_OBJ_NUMANODE, HWLOC_OBJ_L3CACHE };

static struct cm_machine *get_machine(void)
{
    if (machine_state == 0) {
        char err[256];
        machine_state = cm_machine_load(&machine, getenv("COREMPI_TOPOLOGY"), err, sizeof err) == 0 ? 1 : -1;
    }
    return machine_state > 0 ? &machine : NULL;
}

/* Index of the level-`type` object holding world rank w's core, or -1. */
static int domain_of(struct cm_machine *m, hwloc_obj_type_t type, int w)
{
    int idx = cm_seg_ctl(cm_g.seg, (uint32_t)w)->bound_core;
    if (idx < 0)
        return -1;
    hwloc_obj_t o = hwloc_get_obj_by_type(m->topo, HWLOC_OBJ_CORE, (unsigned)idx);
    for (; o; o = o->parent) {
        if (o->type == type)
            return (int)o->logical_index;
        if (type == HWLOC_OBJ_NUMANODE && o->memory_first_child && o->memory_first_child->type == type)
            return (int)o->memory_first_child->logical_index;
    }
    return -1;
}

/* Group size of world ranks `world[0..n)` at one level, or 0. */
static int blocks_at(struct cm_machine *m, hwloc_obj_type_t type, const int *world, int n)
{
    int g = 0, run = 1, first = domain_of(m, type, world[0]);
    if (first < 0)
        return 0;
    for (int i = 1; i <= n; i++) {
        int d = i < n ? domain_of(m, type, world[i]) : -2;
        if (i < n && d < 0)
            return 0;
        if (i < n && d == domain_of(m, type, world[i - 1])) {
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
    struct cm_machine *m = c && c->size >= 4 ? get_machine() : NULL;
    if (!m)
        return 0;
    for (size_t l = 0; l < sizeof levels / sizeof *levels; l++) {
        int g = blocks_at(m, levels[l], c->world_of, c->size);
        if (g >= 2)
            return g;
    }
    return 0;
}

int cm_coll_hier_count_levels(void)
{
    struct cm_machine *m = get_machine();
    if (!m)
        return -1;
    static uint8_t *across;
    if (!across && !(across = calloc((size_t)cm_g.size, 1)))
        return -1;
    for (size_t l = 0; l < sizeof levels / sizeof *levels; l++) {
        int mine = domain_of(m, levels[l], cm_g.rank), split = 0;
        if (mine < 0)
            return -1;
        for (int w = 0; w < cm_g.size; w++) {
            across[w] = domain_of(m, levels[l], w) != mine;
            split |= across[w];
        }
        if (split) {
            cm_p2p_dst_level = across;
            return 0;
        }
    }
    return -1;
}
