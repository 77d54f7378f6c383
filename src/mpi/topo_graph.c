/*
 * topo_graph.c -- graph topologies (MPI-1 style: every process knows the
 * whole graph): Graph_create and its queries.
 *
 * With reorder (and in Graph_map) the graph is laid onto the machine by
 * mpi/topo_map.c; on one domain the ranks are kept.
 */
#include "mpi/topo_map.h"
#include "core/topo.h"
#include "core/comm.h"
#include "core/error.h"
#include "core/state.h"

#include <string.h>
#include "fe_topo.h"

static int check_graph(MPI_Comm comm, const char *call, int size, int nnodes, const int *index, const int *edges)
{
    if (nnodes < 0 || nnodes > size)
        return cm_error(comm, MPI_ERR_ARG, call, "nnodes %d is out of range (communicator size %d)", nnodes, size);
    if (nnodes > 0 && !index)
        return cm_error(comm, MPI_ERR_ARG, call, "index is NULL");
    for (int i = 0; i < nnodes; i++)
        if (index[i] < (i ? index[i - 1] : 0))
            return cm_error(comm, MPI_ERR_ARG, call, "index[%d] = %d is smaller than the previous entry %d", i,
                            index[i], i ? index[i - 1] : 0);
    int nedges = nnodes ? index[nnodes - 1] : 0;
    if (nedges > 0 && !edges)
        return cm_error(comm, MPI_ERR_ARG, call, "edges is NULL");
    for (int e = 0; e < nedges; e++)
        if (edges[e] < 0 || edges[e] >= nnodes)
            return cm_error(comm, MPI_ERR_RANK, call, "edges[%d] = %d is not a node (nnodes %d)", e, edges[e], nnodes);
    return MPI_SUCCESS;
}

/* Graph_create's arguments, for cm_topo_split. */
struct graph { int nnodes; const int *index, *edges; };

/* The graph topology of g (the rank plays no part in it). */
static struct cm_topo *make_graph(const void *arg, int rank)
{
    const struct graph *g = arg;
    (void)rank;
    int nnodes = g->nnodes, nedges = g->index[nnodes - 1];
    struct cm_topo *t = cm_topo_new(MPI_GRAPH, (size_t)nnodes + (size_t)nedges);
    if (!t)
        return NULL;
    size_t used = 0;
    t->nnodes = nnodes;
    t->nedges = nedges;
    t->index = cm_topo_carve(t, &used, (size_t)nnodes);
    t->edges = cm_topo_carve(t, &used, (size_t)nedges);
    memcpy(t->index, g->index, (size_t)nnodes * sizeof(int));
    if (nedges > 0)
        memcpy(t->edges, g->edges, (size_t)nedges * sizeof(int));
    return t;
}

int cm_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder,
                    MPI_Comm *comm_graph)
{
    CM_CALL_LOOKUP(struct cm_comm, old, "MPI_Graph_create", cm_topo_user_comm, comm_old);
    CM_ARG_NOT_NULL(comm_old, comm_graph, call);
    if ((rc = check_graph(comm_old, call, old->size, nnodes, index, edges)))
        return rc;
    int newrank = old->rank < nnodes ? old->rank : MPI_UNDEFINED;
    if (reorder && nnodes > 0 && cm_topo_graph_place(old, nnodes, index, edges, &newrank) != MPI_SUCCESS)
        return cm_error(comm_old, MPI_ERR_NO_MEM, call, "out of memory");
    struct graph g = { nnodes, index, edges };
    return cm_topo_split(comm_old, newrank, make_graph, &g, comm_graph, call);
}

int cm_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank)
{
    CM_CALL_LOOKUP(struct cm_comm, c, "MPI_Graph_map", cm_topo_user_comm, comm);
    CM_ARG_NOT_NULL(comm, newrank, call);
    if (nnodes < 1)
        return cm_error(comm, MPI_ERR_ARG, call, "nnodes %d must be at least 1", nnodes);
    if ((rc = check_graph(comm, call, c->size, nnodes, index, edges)))
        return rc;
    if (cm_topo_graph_place(c, nnodes, index, edges, newrank) != MPI_SUCCESS)
        return cm_error(comm, MPI_ERR_NO_MEM, call, "out of memory");
    return MPI_SUCCESS;
}

int cm_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
    CM_CALL_LOOKUP(struct cm_topo, t, "MPI_Graphdims_get", cm_topo_of, comm, MPI_GRAPH);
    if (!nnodes || !nedges)
        return cm_error(comm, MPI_ERR_ARG, call, "%s is NULL", nnodes ? "nedges" : "nnodes");
    *nnodes = t->nnodes;
    *nedges = t->nedges;
    return MPI_SUCCESS;
}

int cm_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[])
{
    CM_CALL_LOOKUP(struct cm_topo, t, "MPI_Graph_get", cm_topo_of, comm, MPI_GRAPH);
    if (maxindex < 0 || maxedges < 0)
        return cm_error(comm, MPI_ERR_ARG, call, "%s %d is negative", maxindex < 0 ? "maxindex" : "maxedges",
                        maxindex < 0 ? maxindex : maxedges);
    int ni = maxindex < t->nnodes ? maxindex : t->nnodes;
    int ne = maxedges < t->nedges ? maxedges : t->nedges;
    if ((ni > 0 && !index) || (ne > 0 && !edges))
        return cm_error(comm, MPI_ERR_ARG, call, "%s is NULL", ni > 0 && !index ? "index" : "edges");
    if (ni > 0)
        memcpy(index, t->index, (size_t)ni * sizeof(int));
    if (ne > 0)
        memcpy(edges, t->edges, (size_t)ne * sizeof(int));
    return MPI_SUCCESS;
}

static int neighbors_of(MPI_Comm comm, const char *call, const struct cm_topo *t, int rank, int *first, int *count)
{
    if (rank < 0 || rank >= t->nnodes)
        return cm_error(comm, MPI_ERR_RANK, call, "rank %d is not a node of the graph (nnodes %d)", rank, t->nnodes);
    *first = rank ? t->index[rank - 1] : 0;
    *count = t->index[rank] - *first;
    return MPI_SUCCESS;
}

int cm_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
    CM_CALL_LOOKUP(struct cm_topo, t, "MPI_Graph_neighbors_count", cm_topo_of, comm, MPI_GRAPH);
    int first;
    CM_ARG_NOT_NULL(comm, nneighbors, call);
    return neighbors_of(comm, call, t, rank, &first, nneighbors);
}

int cm_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[])
{
    CM_CALL_LOOKUP(struct cm_topo, t, "MPI_Graph_neighbors", cm_topo_of, comm, MPI_GRAPH);
    int first, count;
    if ((rc = neighbors_of(comm, call, t, rank, &first, &count)))
        return rc;
    if (maxneighbors < 0)
        return cm_error(comm, MPI_ERR_ARG, call, "maxneighbors %d is negative", maxneighbors);
    int n = maxneighbors < count ? maxneighbors : count;
    if (n > 0 && !neighbors)
        return cm_error(comm, MPI_ERR_ARG, call, "neighbors is NULL");
    if (n > 0)
        memcpy(neighbors, t->edges + first, (size_t)n * sizeof(int));
    return MPI_SUCCESS;
}
