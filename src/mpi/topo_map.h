/*
 * topo_map.h -- where a process topology's ranks go on the machine
 * (MPI_Cart_map, MPI_Graph_map, and reorder in Cart_create/Graph_create).
 */
#ifndef CM_MPI_TOPO_MAP_H
#define CM_MPI_TOPO_MAP_H

#include "core/comm.h"
#include "topo/mapper.h"

/* Each member's new rank (newrank_of[0..c->size)) for the pattern p of
 * p->n <= c->size nodes: the first p->n members' cores carry the nodes at
 * least cost in the job's model (topo/mapper.h), the identity when nothing
 * is cheaper; MPI_UNDEFINED for members past p->n.  Every member computes
 * the same answer.  MPI_SUCCESS or MPI_ERR_NO_MEM. */
int cm_topo_map_members(const struct cm_comm *c, const struct cm_comm_pattern *p, int newrank_of[]);

/* The new rank of the calling member of c in a Cartesian grid of
 * dims[0..ndims) (row-major cell numbers; periods may be NULL), or
 * MPI_UNDEFINED when the grid has no cell for it.  Returns MPI_SUCCESS or
 * MPI_ERR_NO_MEM. */
int cm_topo_cart_place(const struct cm_comm *c, int ndims, const int dims[], const int periods[], int *newrank);

/* The same for a graph of nnodes nodes (MPI_Graph_create's index/edges). */
int cm_topo_graph_place(const struct cm_comm *c, int nnodes, const int index[], const int edges[], int *newrank);

/* reorder in Dist_graph_create(_adjacent): gathers every member's node t
 * (collective over comm), places the weighted graph, sets *key to the
 * caller's new rank and *node to that node's edges (malloc'd: indegree,
 * outdegree, sources, sourceweights, destinations, destweights).
 * MPI_SUCCESS or the error raised (naming call). */
struct cm_topo;
int cm_topo_dist_reorder(MPI_Comm comm, const struct cm_comm *old, const struct cm_topo *t, int *key, int **node,
                         const char *call);

/* Cart_create's and Graph_create's new communicator once each rank knows
 * its new rank (MPI_UNDEFINED: not a member): comm_old split by it
 * (collective), then, on a member, make(arg, newrank) attached as its
 * topology.  MPI_SUCCESS, or the error raised (naming call). */
struct cm_topo;
int cm_topo_split(MPI_Comm comm_old, int newrank, struct cm_topo *(*make)(const void *arg, int newrank),
                  const void *arg, MPI_Comm *out, const char *call);

#endif
