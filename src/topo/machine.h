/*
 * machine.h -- the cores a job may use, from hwloc, and binding to them.
 *
 * Loading is kept cheap because it sits on mpirun's start-up path: no hwloc
 * plugins (they dlopen GL/OpenCL/PCI libraries: tens of ms), no I/O objects,
 * no caches.  A topology may also come from an hwloc synthetic string
 * ("package:2 core:8 pu:1") or an XML file, to test big-node placement on a
 * small machine; its PUs do not exist here, so nothing can be bound to them.
 */
#ifndef CM_TOPO_MACHINE_H
#define CM_TOPO_MACHINE_H

#include <stddef.h>
#include <hwloc.h>

struct cm_machine {
    hwloc_topology_t topo;
    int foreign;              /* synthetic or XML: describes another machine */
    int ncores;               /* usable cores, in hwloc's order */
    hwloc_obj_t *cores;
    hwloc_cpuset_t *core_sets; /* each usable core's PUs within the allowed set */
    double load_ms;           /* time spent in hwloc_topology_load */
};

/* Load the machine (spec NULL or "") or the topology spec describes (an XML
 * file if such a file exists, else a synthetic string).  Usable cores are
 * those with a PU in this process's affinity mask (all of them for a foreign
 * topology).  Returns 0, or -1 with a message in err.  Sets and restores
 * HWLOC_PLUGINS_PATH around hwloc_topology_init: call it before any thread
 * exists (mpirun does; a library caller should load its own way). */
int cm_machine_load(struct cm_machine *m, const char *spec, char *err, size_t errlen);
/* The same keeping the L2 and L3 caches (a few hundred microseconds more):
 * the cost model (costmodel.h) needs them as levels. */
int cm_machine_load_caches(struct cm_machine *m, const char *spec, char *err, size_t errlen);

/* The job's machine as domain.h loads it (once per process), or NULL when it
 * could not be loaded.  For the callers that need hwloc's own tree; the
 * others use domain.h's levels. */
struct cm_machine *cm_topo_machine(void);
void cm_machine_free(struct cm_machine *m);

/* Bind the calling process to usable core `core`; 0 or -1 (errno set). */
int cm_machine_bind_self(const struct cm_machine *m, int core);

/* "package 0[core 1[hwt 1]]" for usable core `core`. */
void cm_machine_core_name(const struct cm_machine *m, int core, char *buf, size_t len);
/* Open MPI-style map of the usable cores: "[./B]" ('B' marks core's PUs,
 * '/' separates cores, one bracket per package). */
void cm_machine_core_map(const struct cm_machine *m, int core, char *buf, size_t len);

/* Number of PUs in this process's affinity mask, without hwloc (cheap). */
int cm_affinity_pu_count(void);

#endif
