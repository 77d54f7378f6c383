/*
 * hier.h -- the machine's hierarchy as the collectives see it.
 *
 * A rank's place is the core mpirun put it on (control block bound_core, an
 * hwloc logical core index) on the machine mpirun saw (the real one, or
 * COREMPI_TOPOLOGY), loaded once by src/topo (topo/domain.h).  The top level
 * is the largest level (package, NUMA node, L3 group) that splits a
 * communicator's ranks.
 */
#ifndef CM_COLL_HIER_H
#define CM_COLL_HIER_H

#include <mpi.h>

/* Ranks per top-level domain when the communicator's ranks fill the domains
 * in consecutive, equal blocks (the hybrid algorithms' groups); 0 when there
 * is no such split (one domain, unplaced ranks, or an irregular layout). */
int cm_coll_hier_group_size(MPI_Comm comm);

/* Start counting messages that cross the top level of the world's ranks
 * (cm_p2p_level_msgs/bytes).  Returns 0, or -1 when there is no hierarchy. */
int cm_coll_hier_count_levels(void);

#endif
