/*
 * domain.h -- the machine this process runs on, loaded once, seen as levels
 * (package, NUMA node, L3 group) and the domains of each level.
 *
 * For the layers above topo that need the machine's shape but not hwloc:
 * nothing here names an hwloc type, so their files do not include hwloc.
 * Cores are hwloc logical core indices, as mpirun records them in each
 * rank's control block (bound_core).
 */
#ifndef CM_TOPO_DOMAIN_H
#define CM_TOPO_DOMAIN_H

enum cm_topo_level { CM_TOPO_PACKAGE, CM_TOPO_NUMA, CM_TOPO_L3, CM_TOPO_LEVELS };

/* The synthetic string or XML file mpirun passed in COREMPI_TOPOLOGY (its
 * --topology), NULL for the real machine: MPI_Init tells it from core's
 * configuration table before anything loads the machine (topo sees no
 * table).  The string must outlive the process's use of the machine. */
void cm_topo_machine_spec(const char *topology);

/* cm_topo_machine_spec's string (NULL: the real machine). */
const char *cm_topo_machine_spec_of_job(void);

/* Load the job's machine on the first call: cm_topo_machine_spec's, else
 * the real machine.  Later calls reuse it.  Returns 0, or -1 when it could not be
 * loaded (then every later call returns -1 too, and cm_topo_machine_error
 * says why).  One load per process: every layer that needs the machine's
 * shape asks here, so they all see the same machine. */
int cm_topo_machine_ready(void);

/* Why the machine could not be loaded ("" when it was, or not yet tried). */
const char *cm_topo_machine_error(void);

/* Index (hwloc logical) of the `level` domain holding core `core`, or -1
 * (machine not loaded, no such core, or the level does not hold it). */
int cm_topo_domain_of_core(enum cm_topo_level level, int core);

#endif
