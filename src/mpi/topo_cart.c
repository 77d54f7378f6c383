/*
 * topo_cart.c -- Cartesian topologies: Cart_create, Cart_sub, and the queries
 * (Cart_coords, Cart_rank, Cart_shift, Cart_get, Cartdim_get).
 *
 * Ranks are laid out row-major (the last dimension varies fastest), as the
 * standard requires.  With reorder (and in Cart_map) the grid is laid onto
 * the machine by mpi/topo_map.c: members sharing a package or cache get a
 * compact box of the grid; on one domain the ranks are kept.
 */
#include "mpi/topo_cart.h"
#include "mpi/topo_map.h"
#include "core/comm.h"
#include "core/error.h"
#include "core/state.h"

#include <stdlib.h>
#include <string.h>
#include "fe_topo.h"

static void coords_of(const struct cm_topo *t, int rank, int *coords)
{
    for (int i = t->ndims - 1; i >= 0; i--) {
        coords[i] = rank % t->dims[i];
        rank /= t->dims[i];
    }
}

/* Rank of coords after wrapping periodic dimensions; -1 - i if coordinate i is
 * outside a non-periodic dimension. */
static int rank_of(const struct cm_topo *t, const int *coords)
{
    int rank = 0;
    for (int i = 0; i < t->ndims; i++) {
        int c = coords[i], d = t->dims[i];
        if (t->periods[i])
            c = ((c % d) + d) % d;
        else if (c < 0 || c >= d)
            return -1 - i;
        rank = rank * d + c;
    }
    return rank;
}

void cm_cart_shift(const struct cm_topo *t, int rank, int direction, int disp, int *source, int *dest)
{
    int stack[16];
    int *c = t->ndims <= 16 ? stack : malloc((size_t)t->ndims * sizeof(int));
    if (!c)
        cm_fatal("MPI_Cart_shift", "out of memory");
    coords_of(t, rank, c);
    int mine = c[direction];
    /* disp is added in long long so that a huge displacement cannot overflow. */
    long long d = t->dims[direction];
    long long up = (long long)mine + disp, down = (long long)mine - disp;
    if (t->periods[direction]) {
        up = ((up % d) + d) % d;
        down = ((down % d) + d) % d;
    }
    c[direction] = (int)(up >= 0 && up < d ? up : 0);
    *dest = up >= 0 && up < d ? rank_of(t, c) : MPI_PROC_NULL;
    c[direction] = (int)(down >= 0 && down < d ? down : 0);
    *source = down >= 0 && down < d ? rank_of(t, c) : MPI_PROC_NULL;
    if (c != stack)
        free(c);
}

/* A Cartesian topology object for a grid; coords are filled for rank (if >= 0). */
static struct cm_topo *cart_new(int ndims, const int *dims, const int *periods, int rank)
{
    struct cm_topo *t = cm_topo_new(MPI_CART, 3 * (size_t)ndims);
    if (!t)
        return NULL;
    size_t used = 0;
    t->ndims = ndims;
    t->dims = cm_topo_carve(t, &used, (size_t)ndims);
    t->periods = cm_topo_carve(t, &used, (size_t)ndims);
    t->coords = cm_topo_carve(t, &used, (size_t)ndims);
    for (int i = 0; i < ndims; i++) {
        t->dims[i] = dims[i];
        t->periods[i] = periods[i] != 0;
    }
    if (rank >= 0)
        coords_of(t, rank, t->coords);
    return t;
}

/* Cart_create's and Cart_map's grid arguments; *cells gets the grid's size. */
static int check_grid(MPI_Comm comm, const char *call, int size, int ndims, const int dims[],
                      const int periods[], long long *cells)
{
    if (ndims < 0)
        return cm_error(comm, MPI_ERR_DIMS, call, "ndims %d is negative", ndims);
    if (ndims > 0 && (!dims || !periods))
        return cm_error(comm, MPI_ERR_ARG, call, "%s is NULL", dims ? "periods" : "dims");
    long long product = 1;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0)
            return cm_error(comm, MPI_ERR_DIMS, call, "dims[%d] = %d must be positive", i, dims[i]);
        if (product <= size)
            product *= dims[i];
    }
    if (product > size)
        return cm_error(comm, MPI_ERR_TOPOLOGY, call, "dims product %lld exceeds communicator size %d", product,
                        size);
    *cells = product;
    return MPI_SUCCESS;
}

/* cart_new's arguments, for cm_topo_split. */
struct grid { int ndims; const int *dims, *periods; };

static struct cm_topo *make_grid(const void *arg, int rank)
{
    const struct grid *g = arg;
    return cart_new(g->ndims, g->dims, g->periods, rank);
}

int cm_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                   MPI_Comm *comm_cart)
{
    CM_CALL_LOOKUP(struct cm_comm, old, "MPI_Cart_create", cm_topo_user_comm, comm_old);
    CM_ARG_NOT_NULL(comm_old, comm_cart, call);
    long long cells;
    if ((rc = check_grid(comm_old, call, old->size, ndims, dims, periods, &cells)))
        return rc;
    int newrank = old->rank < cells ? old->rank : MPI_UNDEFINED;
    if (reorder && cm_topo_cart_place(old, ndims, dims, periods, &newrank) != MPI_SUCCESS)
        return cm_error(comm_old, MPI_ERR_NO_MEM, call, "out of memory");
    struct grid g = { ndims, dims, periods };
    return cm_topo_split(comm_old, newrank, make_grid, &g, comm_cart, call);
}

int cm_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank)
{
    CM_CALL_LOOKUP(struct cm_comm, c, "MPI_Cart_map", cm_topo_user_comm, comm);
    CM_ARG_NOT_NULL(comm, newrank, call);
    long long cells;
    if ((rc = check_grid(comm, call, c->size, ndims, dims, periods, &cells)))
        return rc;
    if (cm_topo_cart_place(c, ndims, dims, periods, newrank) != MPI_SUCCESS)
        return cm_error(comm, MPI_ERR_NO_MEM, call, "out of memory");
    return MPI_SUCCESS;
}

int cm_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    CM_CALL_LOOKUP(struct cm_topo, t, "MPI_Cart_coords", cm_topo_of, comm, MPI_CART);
    struct cm_comm *c = cm_comm_lookup(comm, NULL);
    if (rank < 0 || rank >= c->size)
        return cm_error(comm, MPI_ERR_RANK, call, "rank %d is out of range (communicator size %d)", rank, c->size);
    if (maxdims < t->ndims)
        return cm_error(comm, MPI_ERR_ARG, call, "maxdims %d is smaller than the number of dimensions %d", maxdims,
                        t->ndims);
    if (t->ndims > 0 && !coords)
        return cm_error(comm, MPI_ERR_ARG, call, "coords is NULL");
    coords_of(t, rank, coords);
    return MPI_SUCCESS;
}

int cm_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    CM_CALL_LOOKUP(struct cm_topo, t, "MPI_Cart_rank", cm_topo_of, comm, MPI_CART);
    if (!rank || (t->ndims > 0 && !coords))
        return cm_error(comm, MPI_ERR_ARG, call, "%s is NULL", rank ? "coords" : "rank");
    int r = rank_of(t, coords);
    if (r < 0) {
        int i = -1 - r;
        return cm_error(comm, MPI_ERR_RANK, call, "coords[%d] = %d is outside non-periodic dimension %d of size %d", i,
                        coords[i], i, t->dims[i]);
    }
    *rank = r;
    return MPI_SUCCESS;
}

int cm_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest)
{
    CM_CALL_LOOKUP(struct cm_topo, t, "MPI_Cart_shift", cm_topo_of, comm, MPI_CART);
    if (direction < 0 || direction >= t->ndims)
        return cm_error(comm, MPI_ERR_DIMS, call, "direction %d is out of range (the grid has %d dimensions)",
                        direction, t->ndims);
    if (!rank_source || !rank_dest)
        return cm_error(comm, MPI_ERR_ARG, call, "%s is NULL", rank_source ? "rank_dest" : "rank_source");
    cm_cart_shift(t, cm_comm_lookup(comm, NULL)->rank, direction, disp, rank_source, rank_dest);
    return MPI_SUCCESS;
}

int cm_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    CM_CALL_LOOKUP(struct cm_topo, t, "MPI_Cart_sub", cm_topo_of, comm, MPI_CART);
    if (!newcomm || (t->ndims > 0 && !remain_dims))
        return cm_error(comm, MPI_ERR_ARG, call, "%s is NULL", newcomm ? "remain_dims" : "newcomm");
    /* color: my position in the dropped dimensions (which slice I am in);
     * key: my position in the kept ones (my rank in that slice). */
    int color = 0, key = 0, nkept = 0;
    int *dims = malloc(((size_t)t->ndims + 1) * sizeof(int)), *periods = malloc(((size_t)t->ndims + 1) * sizeof(int));
    if (!dims || !periods) {
        free(dims);
        free(periods);
        return cm_error(comm, MPI_ERR_NO_MEM, call, "out of memory");
    }
    for (int i = 0; i < t->ndims; i++) {
        if (remain_dims[i]) {
            key = key * t->dims[i] + t->coords[i];
            dims[nkept] = t->dims[i];
            periods[nkept++] = t->periods[i];
        } else {
            color = color * t->dims[i] + t->coords[i];
        }
    }
    MPI_Comm sub;
    if ((rc = PMPI_Comm_split(comm, color, key, &sub)) == MPI_SUCCESS) {
        struct cm_topo *st = cart_new(nkept, dims, periods, key);
        if (!st) {
            PMPI_Comm_free(&sub);
            rc = cm_error(comm, MPI_ERR_NO_MEM, call, "out of memory");
        } else {
            cm_topo_attach(sub, st);
            *newcomm = sub;
        }
    }
    free(dims);
    free(periods);
    return rc;
}

int cm_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
{
    CM_CALL_LOOKUP(struct cm_topo, t, "MPI_Cart_get", cm_topo_of, comm, MPI_CART);
    if (maxdims < 0)
        return cm_error(comm, MPI_ERR_ARG, call, "maxdims %d is negative", maxdims);
    int n = maxdims < t->ndims ? maxdims : t->ndims;
    if (n > 0 && (!dims || !periods || !coords))
        return cm_error(comm, MPI_ERR_ARG, call, "%s is NULL", !dims ? "dims" : !periods ? "periods" : "coords");
    for (int i = 0; i < n; i++) {
        dims[i] = t->dims[i];
        periods[i] = t->periods[i];
        coords[i] = t->coords[i];
    }
    return MPI_SUCCESS;
}

int cm_Cartdim_get(MPI_Comm comm, int *ndims)
{
    CM_CALL_LOOKUP(struct cm_topo, t, "MPI_Cartdim_get", cm_topo_of, comm, MPI_CART);
    CM_ARG_NOT_NULL(comm, ndims, call);
    *ndims = t->ndims;
    return MPI_SUCCESS;
}
