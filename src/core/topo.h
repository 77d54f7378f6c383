/*
 * topo.h -- process topologies attached to communicators (cm_comm.topo):
 * the object and its helpers, with Topo_test, here (core/topo.c); the API
 * that builds and reads them is the front's: Cartesian (mpi/topo_cart.c),
 * graph (mpi/topo_graph.c), distributed graph (mpi/topo_dist_graph.c), and
 * the neighborhood collectives (mpi/topo_neighbor.c).
 *
 * (src/topo/ is something else: the machine's hwloc topology and placement.)
 */
#ifndef CM_CORE_TOPO_H
#define CM_CORE_TOPO_H

#include <stddef.h>
#include "mpi.h"

struct cm_comm;

struct cm_topo {
    int kind;                  /* MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH */

    /* MPI_CART: row-major grid (the last dimension varies fastest). */
    int ndims;
    int *dims, *periods;
    int *coords;               /* of this process */

    /* MPI_GRAPH: the whole graph, as given to Graph_create. */
    int nnodes, nedges;
    int *index, *edges;

    /* MPI_DIST_GRAPH: this process's adjacency only. */
    int indegree, outdegree;
    int weighted;
    int *sources, *sourceweights;
    int *destinations, *destweights;

    /* All arrays above point into this one block (so dup is one copy). */
    int *ints;
    size_t nints;
};

/* Hooks for communicator creation (mpi/comm_create.c). */
void cm_topo_free(void *topo);
void *cm_topo_dup(const void *topo);

/* A topology of the given kind with room for nints ints; arrays are carved
 * out of it with cm_topo_carve in order.  NULL when out of memory. */
struct cm_topo *cm_topo_new(int kind, size_t nints);
int *cm_topo_carve(struct cm_topo *t, size_t *used, size_t n);

/* Attach t to newcomm (a communicator just made for it); NULL newcomm frees t. */
void cm_topo_attach(MPI_Comm newcomm, struct cm_topo *t);

/* Validate comm (a user communicator) and find its topology.  kind 0 accepts
 * any topology, otherwise the topology must be of that kind.  Raises the
 * error (MPI_ERR_COMM / MPI_ERR_TOPOLOGY) and returns NULL on failure. */
struct cm_topo *cm_topo_of(MPI_Comm comm, int kind, const char *call, int *rc);

/* Validate a user communicator for a topology constructor. */
struct cm_comm *cm_topo_user_comm(MPI_Comm comm, const char *call, int *rc);

#endif
