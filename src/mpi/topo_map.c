/*
 * topo_map.c -- placing a process topology on the machine (seed 001: choose
 * the mapping from the communication pattern and the chip's layout).
 *
 * The members are put in locality order: sorted by the package, NUMA node,
 * L3 group and core of the core each was bound to at launch (mpirun records
 * it in the rank's control block), ties by rank.  The topology's nodes are
 * put in an order in which neighbours come close together: for a grid, the
 * cells of a recursive bisection along the longest side (each run of
 * consecutive cells is a compact box), for a graph, breadth-first from the
 * lowest unvisited node.  The i-th member in locality order takes the i-th
 * node: members that share a domain get a compact piece of the topology, so
 * most neighbour traffic stays inside a package or cache.
 *
 * Invariant: when the members do not span two domains of any level (one L3,
 * or the machine unknown, or ranks not bound), the mapping is the identity
 * (new rank = old rank): there is no locality to gain, and users of
 * reorder=1 on one socket keep the ranks they expect.  Every member computes
 * the same orders from the same shared data, so the mapping is a
 * permutation without any message.
 */
#include "mpi/topo_map.h"
#include "core/error.h"
#include "core/state.h"
#include "core/topo.h"
#include "shm/segment.h"
#include "topo/domain.h"

#include <stdlib.h>

#define KEY_LEVELS (CM_TOPO_LEVELS + 1)   /* the domain levels, then the core */

struct member {
    int key[KEY_LEVELS];
    int rank;
};

static int by_locality(const void *a, const void *b)
{
    const struct member *x = a, *y = b;
    for (int l = 0; l < KEY_LEVELS; l++)
        if (x->key[l] != y->key[l])
            return x->key[l] < y->key[l] ? -1 : 1;
    return x->rank - y->rank;
}

/* The calling member's position in locality order, or -1 when the members
 * span one domain only (then the mapping is the identity, see the file
 * comment), -2 when out of memory. */
static int locality_position(const struct cm_comm *c)
{
    if (cm_topo_machine_ready() != 0 || !cm_g.seg)
        return -1;
    struct member *m = malloc((size_t)c->size * sizeof *m);
    if (!m)
        return -2;
    int spread = 0;
    for (int i = 0; i < c->size; i++) {
        /* A process of another job (core/remote.h): its core is not known. */
        int core = c->world_of[i] >= cm_g.slots ? -1 : cm_seg_ctl(cm_g.seg, (uint32_t)c->world_of[i])->bound_core;
        for (int l = 0; l < CM_TOPO_LEVELS; l++) {
            m[i].key[l] = core < 0 ? -1 : cm_topo_domain_of_core((enum cm_topo_level)l, core);
            spread |= i > 0 && m[i].key[l] != m[0].key[l];
        }
        m[i].key[CM_TOPO_LEVELS] = core;
        m[i].rank = i;
    }
    int pos = -1;
    if (spread) {
        qsort(m, (size_t)c->size, sizeof *m, by_locality);
        for (int i = 0; i < c->size; i++)
            if (m[i].rank == c->rank)
                pos = i;
    }
    free(m);
    return pos;
}

/* Appends the row-major numbers of the cells of box [lo, hi) to out, in
 * recursive-bisection order. */
static void bisect(int ndims, const int dims[], int lo[], int hi[], int out[], int *k)
{
    int d = -1;
    for (int i = 0; i < ndims; i++)
        if (hi[i] - lo[i] > 1 && (d < 0 || hi[i] - lo[i] > hi[d] - lo[d]))
            d = i;
    if (d < 0) {
        int cell = 0;
        for (int i = 0; i < ndims; i++)
            cell = cell * dims[i] + lo[i];
        out[(*k)++] = cell;
        return;
    }
    int save_lo = lo[d], save_hi = hi[d], mid = lo[d] + (hi[d] - lo[d]) / 2;
    hi[d] = mid;
    bisect(ndims, dims, lo, hi, out, k);
    hi[d] = save_hi;
    lo[d] = mid;
    bisect(ndims, dims, lo, hi, out, k);
    lo[d] = save_lo;
}

/* What both placements do before ordering n cells: *pos, the calling
 * member's position in locality order.  Returns 1 when *newrank is already
 * decided (one domain: the identity; a position past the cells: no cell), 0
 * when the caller orders the cells and takes cell *pos, -1 when out of
 * memory. */
static int placed_early(const struct cm_comm *c, int n, int *pos, int *newrank)
{
    *pos = locality_position(c);
    if (*pos == -2)
        return -1;
    if (*pos == -1 || *pos >= n) {
        *newrank = *pos == -1 && c->rank < n ? c->rank : MPI_UNDEFINED;
        return 1;
    }
    return 0;
}

int cm_topo_cart_place(const struct cm_comm *c, int ndims, const int dims[], int *newrank)
{
    int cells = 1;
    for (int i = 0; i < ndims; i++)
        cells *= dims[i];
    int pos, early = placed_early(c, cells, &pos, newrank);
    if (early)
        return early < 0 ? MPI_ERR_NO_MEM : MPI_SUCCESS;
    int *order = malloc((size_t)cells * sizeof *order), *lo = calloc((size_t)ndims + 1, sizeof *lo),
        *hi = malloc(((size_t)ndims + 1) * sizeof *hi);
    if (!order || !lo || !hi) {
        free(order), free(lo), free(hi);
        return MPI_ERR_NO_MEM;
    }
    for (int i = 0; i < ndims; i++)
        hi[i] = dims[i];
    int k = 0;
    bisect(ndims, dims, lo, hi, order, &k);
    *newrank = order[pos];
    free(order), free(lo), free(hi);
    return MPI_SUCCESS;
}

int cm_topo_graph_place(const struct cm_comm *c, int nnodes, const int index[], const int edges[], int *newrank)
{
    int pos, early = placed_early(c, nnodes, &pos, newrank);
    if (early)
        return early < 0 ? MPI_ERR_NO_MEM : MPI_SUCCESS;
    /* Breadth-first from the lowest unvisited node: a node's neighbours
     * follow it closely, so they land on members near it. */
    int *order = malloc((size_t)nnodes * sizeof *order);
    char *seen = calloc((size_t)nnodes, 1);
    if (!order || !seen) {
        free(order), free(seen);
        return MPI_ERR_NO_MEM;
    }
    int head = 0, tail = 0;
    for (int start = 0; start < nnodes; start++) {
        if (seen[start])
            continue;
        seen[start] = 1;
        order[tail++] = start;
        while (head < tail) {
            int v = order[head++];
            for (int e = v ? index[v - 1] : 0; e < index[v]; e++) {
                int w = edges[e];
                if (w >= 0 && w < nnodes && !seen[w]) {
                    seen[w] = 1;
                    order[tail++] = w;
                }
            }
        }
    }
    *newrank = order[pos];
    free(order), free(seen);
    return MPI_SUCCESS;
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
