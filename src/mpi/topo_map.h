/*
 * topo_map.h -- where a process topology's ranks go on the machine
 * (MPI_Cart_map, MPI_Graph_map, and reorder in Cart_create/Graph_create).
 */
#ifndef CM_MPI_TOPO_MAP_H
#define CM_MPI_TOPO_MAP_H

#include "core/comm.h"

/* The new rank of the calling member of c in a Cartesian grid of
 * dims[0..ndims) (row-major cell numbers), or MPI_UNDEFINED when the grid
 * has no cell for it.  Returns MPI_SUCCESS or MPI_ERR_NO_MEM. */
int cm_topo_cart_place(const struct cm_comm *c, int ndims, const int dims[], int *newrank);

/* The same for a graph of nnodes nodes (MPI_Graph_create's index/edges). */
int cm_topo_graph_place(const struct cm_comm *c, int nnodes, const int index[], const int edges[], int *newrank);

#endif
