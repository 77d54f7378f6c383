/* costmodel.c -- each pair of cores' level and its cost (costmodel.h). */
#include "topo/costmodel.h"

#include <stdlib.h>
#include <string.h>

/* Defaults: shared-memory MPI on a current x86 node, as one copy through a
 * buffer both cores reach.  Latency grows and bandwidth falls as the pair's
 * closest shared level moves away; what the relation is on a given machine
 * is what --calibrate measures (docs/placement.md). */
static const double default_lat_ns[CM_LVL_COUNT] = {150, 200, 300, 500, 700, 1100};
static const double default_bw_gbs[CM_LVL_COUNT] = {20, 15, 10, 7, 5, 3.5};

static const char *const level_names[CM_LVL_COUNT] = {"SMT", "L2", "L3", "NUMA", "package", "machine"};

const char *cm_cost_level_name(enum cm_cost_level l)
{
    return (unsigned)l < CM_LVL_COUNT ? level_names[l] : "?";
}

static hwloc_obj_t ancestor_of_type(hwloc_obj_t o, hwloc_obj_type_t type)
{
    while (o && o->type != type)
        o = o->parent;
    return o;
}

/* The level of two distinct cores: their closest common object decides,
 * except for NUMA nodes, which hwloc hangs beside the tree: compared by
 * nodeset. */
static enum cm_cost_level pair_level(hwloc_topology_t topo, hwloc_obj_t a, hwloc_obj_t b)
{
    if (a == b)
        return CM_LVL_SMT;
    hwloc_obj_t c = hwloc_get_common_ancestor_obj(topo, a, b);
    for (hwloc_obj_t o = c; o; o = o->parent) {
        if (o->type == HWLOC_OBJ_CORE || o->type == HWLOC_OBJ_PU)
            return CM_LVL_SMT;
        if (o->type == HWLOC_OBJ_L2CACHE || o->type == HWLOC_OBJ_L1CACHE)
            return CM_LVL_L2;
        if (o->type == HWLOC_OBJ_L3CACHE)
            return CM_LVL_L3;
        if (o->type == HWLOC_OBJ_PACKAGE || o->type == HWLOC_OBJ_MACHINE || o->type == HWLOC_OBJ_NUMANODE ||
            o->type == HWLOC_OBJ_GROUP || o->type == HWLOC_OBJ_DIE)
            break;
    }
    hwloc_obj_t pa = ancestor_of_type(a, HWLOC_OBJ_PACKAGE), pb = ancestor_of_type(b, HWLOC_OBJ_PACKAGE);
    int same_node = a->nodeset && b->nodeset && hwloc_bitmap_isequal(a->nodeset, b->nodeset);
    if (pa != pb)
        return CM_LVL_MACHINE;
    if (same_node)
        return CM_LVL_NUMA;
    return pa ? CM_LVL_PACKAGE : CM_LVL_MACHINE; /* nodes with no package around them: apart */
}

static hwloc_obj_t numa_of(hwloc_topology_t topo, hwloc_obj_t core)
{
    if (!core->nodeset || hwloc_bitmap_weight(core->nodeset) != 1)
        return NULL;
    return hwloc_get_numanode_obj_by_os_index(topo, (unsigned)hwloc_bitmap_first(core->nodeset));
}

/* NUMA latency distances (relative, local = smallest) scale the pairs on
 * different nodes: a far node of a four-node machine costs more than a
 * near one.  Without a matrix all factors stay 1. */
static int apply_numa_distances(struct cm_cost_model *cm, const struct cm_machine *m)
{
    struct hwloc_distances_s *d[1];
    unsigned nr = 1;
    if (hwloc_distances_get_by_type(m->topo, HWLOC_OBJ_NUMANODE, &nr, d, HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0) != 0 ||
        nr == 0)
        return 0;
    int n = cm->ncores, rc = 0;
    cm->scale = malloc((size_t)n * n * sizeof *cm->scale);
    if (!cm->scale) {
        rc = -1;
        goto out;
    }
    for (int i = 0; i < n; i++) {
        hwloc_obj_t ni = numa_of(m->topo, m->cores[i]);
        int xi = ni ? hwloc_distances_obj_index(d[0], ni) : -1;
        hwloc_uint64_t local = xi >= 0 ? d[0]->values[(size_t)xi * d[0]->nbobjs + xi] : 0;
        for (int j = 0; j < n; j++) {
            hwloc_obj_t nj = numa_of(m->topo, m->cores[j]);
            int xj = nj ? hwloc_distances_obj_index(d[0], nj) : -1;
            float f = 1;
            if (xi >= 0 && xj >= 0 && xi != xj && local > 0)
                f = (float)d[0]->values[(size_t)xi * d[0]->nbobjs + xj] / (float)local;
            cm->scale[(size_t)i * n + j] = f < 1 ? 1 : f;
        }
    }
out:
    hwloc_distances_release(m->topo, d[0]);
    return rc;
}

int cm_cost_model_build(struct cm_cost_model *cm, const struct cm_machine *m)
{
    memset(cm, 0, sizeof *cm);
    int n = m->ncores;
    cm->ncores = n;
    memcpy(cm->lat_ns, default_lat_ns, sizeof cm->lat_ns);
    memcpy(cm->bw_gbs, default_bw_gbs, sizeof cm->bw_gbs);
    cm->level = malloc((size_t)n * n);
    if (!cm->level)
        return -1;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            enum cm_cost_level l = pair_level(m->topo, m->cores[i], m->cores[j]);
            cm->level[(size_t)i * n + j] = (unsigned char)l;
            if (i != j)
                cm->present[l]++;
        }
    if (apply_numa_distances(cm, m) != 0) {
        cm_cost_model_free(cm);
        return -1;
    }
    return 0;
}

void cm_cost_model_free(struct cm_cost_model *cm)
{
    free(cm->level);
    free(cm->scale);
    memset(cm, 0, sizeof *cm);
}

double cm_cost_pair(const struct cm_cost_model *cm, int a, int b, double msgs, double bytes)
{
    size_t k = (size_t)a * cm->ncores + b;
    enum cm_cost_level l = (enum cm_cost_level)cm->level[k];
    double c = msgs * cm->lat_ns[l] + bytes / cm->bw_gbs[l];
    return cm->scale ? c * cm->scale[k] : c;
}

void cm_cost_level_pairs(const struct cm_cost_model *cm, int pair[CM_LVL_COUNT][2])
{
    for (int l = 0; l < CM_LVL_COUNT; l++)
        pair[l][0] = pair[l][1] = -1;
    for (int j = 1; j < cm->ncores; j++) {
        enum cm_cost_level l = cm_cost_level_of(cm, 0, j);
        if (pair[l][0] < 0) {
            pair[l][0] = 0;
            pair[l][1] = j;
        }
    }
}

int cm_cost_model_subset(struct cm_cost_model *sub, const struct cm_cost_model *cm, const int *cores, int n)
{
    memset(sub, 0, sizeof *sub);
    sub->ncores = n;
    memcpy(sub->lat_ns, cm->lat_ns, sizeof sub->lat_ns);
    memcpy(sub->bw_gbs, cm->bw_gbs, sizeof sub->bw_gbs);
    sub->calibrated = cm->calibrated;
    sub->level = malloc((size_t)n * n + 1);
    sub->scale = cm->scale ? malloc(((size_t)n * n + 1) * sizeof *sub->scale) : NULL;
    if (!sub->level || (cm->scale && !sub->scale)) {
        cm_cost_model_free(sub);
        return -1;
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            size_t from = (size_t)cores[i] * cm->ncores + cores[j], to = (size_t)i * n + j;
            sub->level[to] = cm->level[from];
            if (sub->scale)
                sub->scale[to] = cm->scale[from];
            if (i != j)
                sub->present[cm->level[from]]++;
        }
    return 0;
}
