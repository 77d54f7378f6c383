/*
 * costmodel.h -- what it costs to move bytes between two cores (issue 39).
 *
 * Every pair of cores meets at one level of the machine's hierarchy: the
 * same core (SMT threads, or two ranks sharing a core), a shared L2, a
 * shared L3 group, the same NUMA node, the same package, or none of these
 * (across packages).  Each level has a latency and a bandwidth; a transfer
 * of b bytes in m messages between two cores costs
 *     m * latency + b / bandwidth
 * at their level.  The levels come from hwloc (real machine or --topology);
 * when hwloc knows NUMA distances (ACPI SLIT), pairs on different NUMA
 * nodes are scaled by their distance over the local one.  The per-level
 * figures are defaults for today's x86 nodes until `mpirun --calibrate` has
 * measured this machine (costmodel_cache.c).
 */
#ifndef CM_TOPO_COSTMODEL_H
#define CM_TOPO_COSTMODEL_H

#include "topo/machine.h"

enum cm_cost_level {
    CM_LVL_SMT = 0, /* the same core */
    CM_LVL_L2,      /* different cores under one L2 */
    CM_LVL_L3,      /* under one L3 group */
    CM_LVL_NUMA,    /* one NUMA node, no shared cache */
    CM_LVL_PACKAGE, /* one package, different NUMA nodes */
    CM_LVL_MACHINE, /* across packages */
    CM_LVL_COUNT
};

struct cm_cost_model {
    int ncores;
    unsigned char *level;            /* ncores x ncores */
    float *scale;                    /* ncores x ncores NUMA distance factor, NULL when all 1 */
    double lat_ns[CM_LVL_COUNT];     /* per message */
    double bw_gbs[CM_LVL_COUNT];     /* GB/s = bytes per ns */
    int present[CM_LVL_COUNT];       /* pairs of the machine at this level */
    int calibrated;                  /* levels measured by mpirun --calibrate */
};

/* The model of m's usable cores; m should be loaded with its caches
 * (cm_machine_load_caches) or the L2/L3 levels fold into the NUMA one.
 * Default figures; 0 or -1 (out of memory). */
int cm_cost_model_build(struct cm_cost_model *cm, const struct cm_machine *m);
void cm_cost_model_free(struct cm_cost_model *cm);

/* The model seen by n processes on cores[0..n) (cores may repeat): their
 * pairs' levels, as a machine of n "cores".  0 or -1 (out of memory). */
int cm_cost_model_subset(struct cm_cost_model *sub, const struct cm_cost_model *cm, const int *cores, int n);

/* The job's model (costmodel_job.c): the machine domain.h loads, here with
 * its caches, and this machine's calibration; built on the first call, NULL
 * when the machine cannot be read. */
const struct cm_cost_model *cm_topo_cost_model(void);

/* The level of cores a and b (a == b: CM_LVL_SMT). */
static inline enum cm_cost_level cm_cost_level_of(const struct cm_cost_model *cm, int a, int b)
{
    return (enum cm_cost_level)cm->level[(size_t)a * cm->ncores + b];
}

/* Cost in ns of msgs messages carrying bytes from core a to core b. */
double cm_cost_pair(const struct cm_cost_model *cm, int a, int b, double msgs, double bytes);

/* "SMT", "L2", "L3", "NUMA", "package", "machine". */
const char *cm_cost_level_name(enum cm_cost_level l);

/* A representative pair of usable cores at each level (-1 when absent):
 * what --calibrate measures. */
void cm_cost_level_pairs(const struct cm_cost_model *cm, int pair[CM_LVL_COUNT][2]);

/* The calibration cache (costmodel_cache.c): a file per machine under
 * $XDG_CACHE_HOME/corempi or ~/.cache/corempi, named by a hash of the
 * topology, with one "level latency_ns bandwidth_GBs" line per measured
 * level.  path gets the file's name; 0, or -1 when no home is known. */
int cm_cost_cache_path(const struct cm_machine *m, char *path, size_t len);
/* Apply the cached figures of m's calibration to cm: 1 applied, 0 none. */
int cm_cost_cache_apply(struct cm_cost_model *cm, const struct cm_machine *m);
/* Write measured figures (lat_ns[l] <= 0: not measured); 0 or -1. */
int cm_cost_cache_store(const struct cm_machine *m, const double lat_ns[CM_LVL_COUNT],
                        const double bw_gbs[CM_LVL_COUNT], char *err, size_t errlen);

#endif
