/* topo_dist_reorder.c -- reorder = true in MPI_Dist_graph_create(_adjacent)
 * (issue 39 item 4).
 *
 * The graph's nodes are ranks of the new communicator: the process that
 * gets new rank k answers for node k (its neighbours are node k's, named
 * by the user's numbers), as in Graph_create.  A process knows only the
 * edges it was given, and the mapper needs them all, so every member's
 * node -- in- and out-edges with weights -- is gathered (two allgathers):
 * all members then place the same weighted pattern with the same result
 * (mpi/topo_map.c), and each takes the node it was given. */
#include "mpi/topo_map.h"
#include "core/error.h"
#include "core/topo.h"

#include <stdlib.h>
#include <string.h>
#include "fe_topo.h"

/* A node as it travels: indegree, outdegree, sources, sourceweights,
 * destinations, destweights. */
static int node_ints(const struct cm_topo *t)
{
    return 2 + 2 * t->indegree + 2 * t->outdegree;
}

int cm_topo_dist_reorder(MPI_Comm comm, const struct cm_comm *old, const struct cm_topo *t, int *key, int **node,
                         const char *call)
{
    int size = old->size, rc, mine_n = node_ints(t);
    int *counts = malloc((size_t)size * sizeof *counts), *displs = malloc(((size_t)size + 1) * sizeof *displs);
    int *mine = malloc((size_t)mine_n * sizeof *mine), *all = NULL, *newrank_of = NULL;
    struct cm_comm_pattern p = {0};
    *node = NULL;
    if (!counts || !displs || !mine) {
        rc = cm_error(comm, MPI_ERR_NO_MEM, call, "out of memory");
        goto out;
    }
    mine[0] = t->indegree;
    mine[1] = t->outdegree;
    memcpy(mine + 2, t->sources, (size_t)t->indegree * sizeof(int));
    memcpy(mine + 2 + t->indegree, t->sourceweights, (size_t)t->indegree * sizeof(int));
    memcpy(mine + 2 + 2 * t->indegree, t->destinations, (size_t)t->outdegree * sizeof(int));
    memcpy(mine + 2 + 2 * t->indegree + t->outdegree, t->destweights, (size_t)t->outdegree * sizeof(int));
    if ((rc = PMPI_Allgather(&mine_n, 1, MPI_INT, counts, 1, MPI_INT, comm)))
        goto out;
    displs[0] = 0;
    for (int r = 0; r < size; r++) {
        if ((long long)displs[r] + counts[r] > 0x7fffffff) {
            rc = cm_error(comm, MPI_ERR_ARG, call, "too many edges to reorder");
            goto out;
        }
        displs[r + 1] = displs[r] + counts[r];
    }
    all = malloc(((size_t)displs[size] + 1) * sizeof *all);
    newrank_of = malloc((size_t)size * sizeof *newrank_of);
    if (!all || !newrank_of || cm_pattern_alloc(&p, size) != 0) {
        rc = cm_error(comm, MPI_ERR_NO_MEM, call, "out of memory");
        goto out;
    }
    if ((rc = PMPI_Allgatherv(mine, mine_n, MPI_INT, all, counts, displs, MPI_INT, comm)))
        goto out;
    /* An out-edge's weight is its traffic (MPI_UNWEIGHTED edges weigh 1, as stored). */
    for (int r = 0; r < size; r++) {
        const int *b = all + displs[r];
        const int *dst = b + 2 + 2 * b[0], *w = dst + b[1];
        for (int i = 0; i < b[1]; i++)
            if (dst[i] != r && w[i] > 0) {
                p.msgs[(size_t)r * size + dst[i]] += w[i];
                p.bytes[(size_t)r * size + dst[i]] += w[i];
            }
    }
    if ((rc = cm_topo_map_members(old, &p, newrank_of)) != MPI_SUCCESS) {
        rc = cm_error(comm, rc, call, "out of memory");
        goto out;
    }
    *key = newrank_of[old->rank];
    *node = malloc((size_t)counts[*key] * sizeof **node);
    if (!*node) {
        rc = cm_error(comm, MPI_ERR_NO_MEM, call, "out of memory");
        goto out;
    }
    memcpy(*node, all + displs[*key], (size_t)counts[*key] * sizeof **node);
out:
    cm_pattern_free(&p);
    free(counts);
    free(displs);
    free(mine);
    free(all);
    free(newrank_of);
    return rc;
}
