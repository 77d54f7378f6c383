/*
 * topo_dist_graph.c -- distributed graph topologies: each process knows only
 * its own in- and out-edges.  Dist_graph_create_adjacent gets them directly;
 * Dist_graph_create (any rank may name any edge) sends every edge to its two
 * ends with an all-to-all.  Then the neighbour queries.
 *
 * reorder = true places the graph's nodes (the new ranks) on the cores the
 * processes hold, by the weighted graph (topo_dist_reorder.c): the process
 * given rank k answers for node k.  The identity when nothing is cheaper.
 * Edges received by Dist_graph_create are listed in the order of the rank that
 * named them, then in the order that rank gave them.
 */
#include "core/topo.h"
#include "core/comm.h"
#include "core/error.h"
#include "core/state.h"
#include "mpi/topo_map.h"

#include <stdlib.h>
#include <string.h>
#include "fe_topo.h"

static int has_weights(const int *w)
{
    return w != MPI_UNWEIGHTED && w != MPI_WEIGHTS_EMPTY && w != NULL;
}

static int check_ranks(MPI_Comm comm, const char *call, const char *what, const int *r, int n, int size)
{
    if (n < 0)
        return cm_error(comm, MPI_ERR_ARG, call, "number of %s %d is negative", what, n);
    if (n > 0 && !r)
        return cm_error(comm, MPI_ERR_ARG, call, "%s is NULL", what);
    for (int i = 0; i < n; i++)
        if (r[i] < 0 || r[i] >= size)
            return cm_error(comm, MPI_ERR_RANK, call, "%s[%d] = %d is out of range (communicator size %d)", what, i,
                            r[i], size);
    return MPI_SUCCESS;
}

/* The new communicator: each member at rank `key` (its old rank unless
 * reordered), no attributes, no old topology.  Takes t. */
static int make_comm(MPI_Comm comm_old, int key, struct cm_topo *t, MPI_Comm *out)
{
    MPI_Comm newcomm;
    int rc = PMPI_Comm_split(comm_old, 0, key, &newcomm);
    if (rc) {
        cm_topo_free(t);
        return rc;
    }
    cm_topo_attach(newcomm, t);
    *out = newcomm;
    return MPI_SUCCESS;
}

static struct cm_topo *dist_new(int indegree, int outdegree, int weighted)
{
    struct cm_topo *t = cm_topo_new(MPI_DIST_GRAPH, 2 * ((size_t)indegree + (size_t)outdegree));
    if (!t)
        return NULL;
    size_t used = 0;
    t->indegree = indegree;
    t->outdegree = outdegree;
    t->weighted = weighted;
    t->sources = cm_topo_carve(t, &used, (size_t)indegree);
    t->sourceweights = cm_topo_carve(t, &used, (size_t)indegree);
    t->destinations = cm_topo_carve(t, &used, (size_t)outdegree);
    t->destweights = cm_topo_carve(t, &used, (size_t)outdegree);
    return t;
}

/* reorder: t becomes the node this process was given (*key its new rank). */
static int reorder_into(MPI_Comm comm_old, const struct cm_comm *old, struct cm_topo **t, int *key, const char *call)
{
    int *node, rc = cm_topo_dist_reorder(comm_old, old, *t, key, &node, call);
    if (rc)
        return rc;
    struct cm_topo *n = dist_new(node[0], node[1], (*t)->weighted);
    if (!n) {
        free(node);
        return cm_error(comm_old, MPI_ERR_NO_MEM, call, "out of memory");
    }
    const int *v = node + 2;
    memcpy(n->sources, v, (size_t)node[0] * sizeof(int));
    memcpy(n->sourceweights, v + node[0], (size_t)node[0] * sizeof(int));
    memcpy(n->destinations, v + 2 * node[0], (size_t)node[1] * sizeof(int));
    memcpy(n->destweights, v + 2 * node[0] + node[1], (size_t)node[1] * sizeof(int));
    free(node);
    cm_topo_free(*t);
    *t = n;
    return MPI_SUCCESS;
}

int cm_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[],
                                  int outdegree, const int destinations[], const int destweights[], MPI_Info info,
                                  int reorder, MPI_Comm *comm_dist_graph)
{
    CM_CALL_LOOKUP(struct cm_comm, old, "MPI_Dist_graph_create_adjacent", cm_topo_user_comm, comm_old);
    (void)info;
    CM_ARG_NOT_NULL(comm_old, comm_dist_graph, call);
    if ((rc = check_ranks(comm_old, call, "sources", sources, indegree, old->size)) ||
        (rc = check_ranks(comm_old, call, "destinations", destinations, outdegree, old->size)))
        return rc;
    int weighted = sourceweights != MPI_UNWEIGHTED && destweights != MPI_UNWEIGHTED;
    if (weighted && ((indegree > 0 && !has_weights(sourceweights)) || (outdegree > 0 && !has_weights(destweights))))
        return cm_error(comm_old, MPI_ERR_ARG, call, "%s is missing (use MPI_UNWEIGHTED for an unweighted graph)",
                        indegree > 0 && !has_weights(sourceweights) ? "sourceweights" : "destweights");
    struct cm_topo *t = dist_new(indegree, outdegree, weighted);
    if (!t)
        return cm_error(comm_old, MPI_ERR_NO_MEM, call, "out of memory");
    for (int i = 0; i < indegree; i++) {
        t->sources[i] = sources[i];
        t->sourceweights[i] = weighted ? sourceweights[i] : 1;
    }
    for (int i = 0; i < outdegree; i++) {
        t->destinations[i] = destinations[i];
        t->destweights[i] = weighted ? destweights[i] : 1;
    }
    int key = old->rank;
    if (reorder && (rc = reorder_into(comm_old, old, &t, &key, call))) {
        cm_topo_free(t);
        return rc;
    }
    return make_comm(comm_old, key, t, comm_dist_graph);
}

/* One edge as it travels to one of its ends. */
struct edge_msg {
    int to_source_end; /* 1: the receiver is the edge's source (an out-edge for it) */
    int peer;          /* the other end */
    int weight;
};

int cm_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                         const int destinations[], const int weights[], MPI_Info info, int reorder,
                         MPI_Comm *comm_dist_graph)
{
    CM_CALL_LOOKUP(struct cm_comm, old, "MPI_Dist_graph_create", cm_topo_user_comm, comm_old);
    (void)info;
    CM_ARG_NOT_NULL(comm_old, comm_dist_graph, call);
    if ((rc = check_ranks(comm_old, call, "sources", sources, n, old->size)))
        return rc;
    if (n > 0 && !degrees)
        return cm_error(comm_old, MPI_ERR_ARG, call, "degrees is NULL");
    long long nedges = 0;
    for (int i = 0; i < n; i++) {
        if (degrees[i] < 0)
            return cm_error(comm_old, MPI_ERR_ARG, call, "degrees[%d] = %d is negative", i, degrees[i]);
        nedges += degrees[i];
    }
    if (nedges > 0x3fffffff / 3)
        return cm_error(comm_old, MPI_ERR_ARG, call, "too many edges (%lld)", nedges);
    if ((rc = check_ranks(comm_old, call, "destinations", destinations, (int)nedges, old->size)))
        return rc;
    int weighted = weights != MPI_UNWEIGHTED;
    if (weighted && nedges > 0 && !has_weights(weights))
        return cm_error(comm_old, MPI_ERR_ARG, call, "weights is missing (use MPI_UNWEIGHTED for an unweighted graph)");

    int size = old->size;
    int *scount = calloc((size_t)size, sizeof(int)), *rcount = calloc((size_t)size, sizeof(int));
    int *sdispl = calloc((size_t)size + 1, sizeof(int)), *rdispl = calloc((size_t)size + 1, sizeof(int));
    struct edge_msg *out = malloc((size_t)(2 * nedges + 1) * sizeof *out), *in = NULL;
    struct cm_topo *t = NULL;
    if (!scount || !rcount || !sdispl || !rdispl || !out) {
        rc = cm_error(comm_old, MPI_ERR_NO_MEM, call, "out of memory");
        goto done;
    }
    /* Bucket every edge by its two ends. */
    for (int i = 0, e = 0; i < n; i++)
        for (int j = 0; j < degrees[i]; j++, e++) {
            scount[sources[i]]++;
            scount[destinations[e]]++;
        }
    for (int r = 0; r < size; r++)
        sdispl[r + 1] = sdispl[r] + scount[r];
    memset(scount, 0, (size_t)size * sizeof(int));
    for (int i = 0, e = 0; i < n; i++)
        for (int j = 0; j < degrees[i]; j++, e++) {
            int s = sources[i], d = destinations[e], w = weighted ? weights[e] : 1;
            out[sdispl[s] + scount[s]++] = (struct edge_msg){ 1, d, w };
            out[sdispl[d] + scount[d]++] = (struct edge_msg){ 0, s, w };
        }
    /* Counts and displacements travel in ints (3 per edge). */
    for (int r = 0; r <= size; r++) {
        sdispl[r] *= 3;
        if (r < size)
            scount[r] *= 3;
    }
    if ((rc = PMPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, comm_old)))
        goto done;
    for (int r = 0; r < size; r++) {
        if ((long long)rdispl[r] + rcount[r] > 0x7fffffff) {
            rc = cm_error(comm_old, MPI_ERR_ARG, call, "too many edges arrive at rank %d", old->rank);
            goto done;
        }
        rdispl[r + 1] = rdispl[r] + rcount[r];
    }
    in = malloc(((size_t)rdispl[size] + 3) * sizeof(int));
    if (!in) {
        rc = cm_error(comm_old, MPI_ERR_NO_MEM, call, "out of memory");
        goto done;
    }
    if ((rc = PMPI_Alltoallv(out, scount, sdispl, MPI_INT, in, rcount, rdispl, MPI_INT, comm_old)))
        goto done;
    int nin = rdispl[size] / 3, indegree = 0, outdegree = 0;
    for (int k = 0; k < nin; k++)
        if (in[k].to_source_end)
            outdegree++;
        else
            indegree++;
    t = dist_new(indegree, outdegree, weighted);
    if (!t) {
        rc = cm_error(comm_old, MPI_ERR_NO_MEM, call, "out of memory");
        goto done;
    }
    for (int k = 0, i = 0, o = 0; k < nin; k++) {
        if (in[k].to_source_end) {
            t->destinations[o] = in[k].peer;
            t->destweights[o++] = in[k].weight;
        } else {
            t->sources[i] = in[k].peer;
            t->sourceweights[i++] = in[k].weight;
        }
    }
    int key = old->rank;
    if (reorder && (rc = reorder_into(comm_old, old, &t, &key, call)))
        goto done;
    rc = make_comm(comm_old, key, t, comm_dist_graph);
    t = NULL;
done:
    cm_topo_free(t);
    free(scount);
    free(rcount);
    free(sdispl);
    free(rdispl);
    free(out);
    free(in);
    return rc;
}

int cm_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted)
{
    CM_CALL_LOOKUP(struct cm_topo, t, "MPI_Dist_graph_neighbors_count", cm_topo_of, comm, MPI_DIST_GRAPH);
    if (!indegree || !outdegree || !weighted)
        return cm_error(comm, MPI_ERR_ARG, call, "%s is NULL", !indegree ? "indegree" : !outdegree ? "outdegree"
                                                                                                  : "weighted");
    *indegree = t->indegree;
    *outdegree = t->outdegree;
    *weighted = t->weighted;
    return MPI_SUCCESS;
}

int cm_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[], int maxoutdegree,
                            int destinations[], int destweights[])
{
    CM_CALL_LOOKUP(struct cm_topo, t, "MPI_Dist_graph_neighbors", cm_topo_of, comm, MPI_DIST_GRAPH);
    if (maxindegree < 0 || maxoutdegree < 0)
        return cm_error(comm, MPI_ERR_ARG, call, "%s is negative", maxindegree < 0 ? "maxindegree" : "maxoutdegree");
    int ni = maxindegree < t->indegree ? maxindegree : t->indegree;
    int no = maxoutdegree < t->outdegree ? maxoutdegree : t->outdegree;
    if ((ni > 0 && !sources) || (no > 0 && !destinations))
        return cm_error(comm, MPI_ERR_ARG, call, "%s is NULL", ni > 0 && !sources ? "sources" : "destinations");
    /* Weights are written only for a weighted graph, and only where the caller gave room. */
    for (int i = 0; i < ni; i++) {
        sources[i] = t->sources[i];
        if (t->weighted && has_weights(sourceweights))
            sourceweights[i] = t->sourceweights[i];
    }
    for (int i = 0; i < no; i++) {
        destinations[i] = t->destinations[i];
        if (t->weighted && has_weights(destweights))
            destweights[i] = t->destweights[i];
    }
    return MPI_SUCCESS;
}
