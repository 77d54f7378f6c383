/*
 * topo_map.c -- placing a process topology on the machine (seed 001 and
 * issue 39: choose the mapping from the communication pattern and the
 * machine's layout).
 *
 * The topology's nodes are a communication pattern (a grid's neighbours, a
 * graph's edges, a distributed graph's weighted edges); the first n members
 * of the communicator hold n cores, the ones mpirun bound them to (each
 * rank's control block has its bound_core).  The mapper of --map-by auto
 * (topo/mapper.h) puts the nodes on those cores at the least cost in the
 * job's cost model, and the member on the core of node k gets rank k.
 *
 * Invariant: when no placement is cheaper than the identity -- one level
 * between every two members (all in one L3 group, say), the machine
 * unknown, or ranks not bound -- the mapping is the identity (new rank =
 * old rank): the mapper keeps a placement only when it is strictly
 * cheaper, and users of reorder=1 on one socket keep the ranks they
 * expect.  Every member computes the same mapping from the same shared
 * data (the search is deterministic), so it is a permutation without any
 * message.
 */
#include "mpi/topo_map.h"
#include "core/error.h"
#include "core/state.h"
#include "core/topo.h"
#include "shm/segment.h"
#include "topo/mapper.h"

#include <stdlib.h>

int cm_topo_map_members(const struct cm_comm *c, const struct cm_comm_pattern *p, int newrank_of[])
{
    int n = p->n, rc = MPI_SUCCESS;
    for (int i = 0; i < c->size; i++)
        newrank_of[i] = i < n ? i : MPI_UNDEFINED;
    const struct cm_cost_model *cm = n > 1 && cm_g.seg ? cm_topo_cost_model() : NULL;
    if (!cm)
        return MPI_SUCCESS;
    int *cores = malloc((size_t)n * sizeof *cores), *slot = malloc((size_t)n * sizeof *slot);
    struct cm_cost_model sub = {0};
    struct cm_map_info info;
    if (!cores || !slot) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    for (int i = 0; i < n; i++) {
        /* A process of another job (core/remote.h): its core is not known. */
        cores[i] = c->world_of[i] >= cm_g.slots ? -1 : cm_seg_ctl(cm_g.seg, (uint32_t)c->world_of[i])->bound_core;
        if (cores[i] < 0 || cores[i] >= cm->ncores)
            goto out; /* unbound: the identity */
    }
    if (cm_cost_model_subset(&sub, cm, cores, n) != 0 || cm_map_auto(&sub, p, slot, &info) != 0) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    for (int k = 0; k < n; k++) /* node k is on member slot[k]'s core */
        newrank_of[slot[k]] = k;
out:
    cm_cost_model_free(&sub);
    free(cores);
    free(slot);
    return rc;
}

static void edge(struct cm_comm_pattern *p, int a, int b, double weight)
{
    p->msgs[(size_t)a * p->n + b] += weight;
    p->bytes[(size_t)a * p->n + b] += weight;
}

/* The calling member's new rank for pattern p (its nodes: p->n <= size). */
static int place_pattern(const struct cm_comm *c, struct cm_comm_pattern *p, int *newrank)
{
    int *newrank_of = malloc((size_t)c->size * sizeof *newrank_of);
    int rc = newrank_of ? cm_topo_map_members(c, p, newrank_of) : MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS)
        *newrank = newrank_of[c->rank];
    free(newrank_of);
    cm_pattern_free(p);
    return rc;
}

int cm_topo_cart_place(const struct cm_comm *c, int ndims, const int dims[], const int periods[], int *newrank)
{
    int cells = 1;
    for (int i = 0; i < ndims; i++)
        cells *= dims[i];
    struct cm_comm_pattern p;
    if (cm_pattern_alloc(&p, cells) != 0) /* cells <= size: checked by the callers */
        return MPI_ERR_NO_MEM;
    /* Each cell talks to its neighbours along every dimension (row-major),
     * across the wrap too where the dimension is periodic. */
    for (int cell = 0; cell < cells; cell++) {
        int stride = 1;
        for (int d = ndims - 1; d >= 0; d--) {
            int coord = cell / stride % dims[d];
            int next = coord + 1 < dims[d] ? cell + stride : periods && periods[d] ? cell - coord * stride : -1;
            if (next >= 0 && next != cell) {
                edge(&p, cell, next, 1);
                edge(&p, next, cell, 1);
            }
            stride *= dims[d];
        }
    }
    return place_pattern(c, &p, newrank);
}

int cm_topo_graph_place(const struct cm_comm *c, int nnodes, const int index[], const int edges[], int *newrank)
{
    struct cm_comm_pattern p;
    if (cm_pattern_alloc(&p, nnodes) != 0) /* nnodes <= size: checked by the callers */
        return MPI_ERR_NO_MEM;
    for (int v = 0; v < nnodes; v++)
        for (int e = v ? index[v - 1] : 0; e < index[v]; e++)
            if (edges[e] >= 0 && edges[e] < nnodes && edges[e] != v)
                edge(&p, v, edges[e], 1);
    return place_pattern(c, &p, newrank);
}

int cm_topo_split(MPI_Comm comm_old, int newrank, struct cm_topo *(*make)(const void *arg, int newrank),
                  const void *arg, MPI_Comm *out, const char *call)
{
    int member = newrank != MPI_UNDEFINED, rc;
    MPI_Comm newcomm;
    /* The keys are a permutation of 0..members-1: each member's new rank. */
    if ((rc = PMPI_Comm_split(comm_old, member ? 0 : MPI_UNDEFINED, newrank, &newcomm)))
        return rc;
    if (member) {
        struct cm_topo *t = make(arg, newrank);
        if (!t) {
            PMPI_Comm_free(&newcomm);
            return cm_error(comm_old, MPI_ERR_NO_MEM, call, "out of memory");
        }
        cm_topo_attach(newcomm, t);
    }
    *out = newcomm;
    return MPI_SUCCESS;
}
