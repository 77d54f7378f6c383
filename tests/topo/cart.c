/*
 * cart.c -- Cartesian topologies at the job's size, in 1, 2 and 3 dimensions,
 * periodic and not: coordinates, ranks, shifts (checked against values
 * computed here and by real messages along them), Cart_get, Topo_test,
 * a grid smaller than the job (extra ranks get MPI_COMM_NULL), and ndims 0.
 */
#include "topo_check.h"

/* Row-major coordinates, computed independently of the library. */
static void coords_of(int rank, int nd, const int *dims, int *c)
{
    for (int i = nd - 1; i >= 0; i--) {
        c[i] = rank % dims[i];
        rank /= dims[i];
    }
}

static int rank_of(int nd, const int *dims, const int *c)
{
    int r = 0;
    for (int i = 0; i < nd; i++)
        r = r * dims[i] + c[i];
    return r;
}

/* The neighbour of me at displacement disp along dim, or MPI_PROC_NULL. */
static int expected_neighbor(int me, int nd, const int *dims, const int *periods, int dim, int disp)
{
    int c[3];
    coords_of(me, nd, dims, c);
    int x = c[dim] + disp;
    if (periods[dim])
        x = ((x % dims[dim]) + dims[dim]) % dims[dim];
    else if (x < 0 || x >= dims[dim])
        return MPI_PROC_NULL;
    c[dim] = x;
    return rank_of(nd, dims, c);
}

static void check_grid(int nd, const int *dims, const int *periods)
{
    int wrank, wsize;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm cart;
    OK(MPI_Cart_create(MPI_COMM_WORLD, nd, dims, periods, 0, &cart));
    int n = 1;
    for (int i = 0; i < nd; i++)
        n *= dims[i];
    if (wrank >= n) {
        CHECK(cart == MPI_COMM_NULL, "rank %d is outside the %d-process grid but got a communicator", wrank, n);
        return;
    }
    CHECK(cart != MPI_COMM_NULL, "no communicator for a grid member");
    int rank, size, status, ndims;
    MPI_Comm_rank(cart, &rank);
    MPI_Comm_size(cart, &size);
    CHECK(size == n, "size %d, expected %d", size, n);
    /* reorder = 0 keeps the ranks */
    CHECK(rank == wrank, "rank %d, expected %d", rank, wrank);
    OK(MPI_Topo_test(cart, &status));
    CHECK(status == MPI_CART, "Topo_test %d", status);
    OK(MPI_Cartdim_get(cart, &ndims));
    CHECK(ndims == nd, "Cartdim_get %d, expected %d", ndims, nd);

    int gd[3], gp[3], gc[3], c[3], mine[3];
    OK(MPI_Cart_get(cart, 3, gd, gp, gc));
    coords_of(rank, nd, dims, mine);
    for (int i = 0; i < nd; i++) {
        CHECK(gd[i] == dims[i] && !gp[i] == !periods[i], "Cart_get dims/periods differ in dim %d", i);
        CHECK(gc[i] == mine[i], "Cart_get coords[%d] = %d, expected %d", i, gc[i], mine[i]);
    }
    for (int r = 0; r < n; r++) {
        int back;
        OK(MPI_Cart_coords(cart, r, 3, c));
        int e[3];
        coords_of(r, nd, dims, e);
        for (int i = 0; i < nd; i++)
            CHECK(c[i] == e[i], "Cart_coords(%d)[%d] = %d, expected %d", r, i, c[i], e[i]);
        OK(MPI_Cart_rank(cart, c, &back));
        CHECK(back == r, "Cart_rank(Cart_coords(%d)) = %d", r, back);
    }
    /* periodic dimensions wrap in Cart_rank */
    for (int i = 0; i < nd; i++)
        if (periods[i]) {
            int w[3], r;
            memcpy(w, mine, sizeof w);
            w[i] = mine[i] - dims[i];
            OK(MPI_Cart_rank(cart, w, &r));
            CHECK(r == rank, "Cart_rank with a wrapped coordinate: %d, expected %d", r, rank);
            w[i] = mine[i] + 2 * dims[i];
            OK(MPI_Cart_rank(cart, w, &r));
            CHECK(r == rank, "Cart_rank with a twice-wrapped coordinate: %d", r);
        }

    for (int dim = 0; dim < nd; dim++)
        for (int disp = -3; disp <= 3; disp++) {
            int src, dst;
            OK(MPI_Cart_shift(cart, dim, disp, &src, &dst));
            int esrc = expected_neighbor(rank, nd, dims, periods, dim, -disp);
            int edst = expected_neighbor(rank, nd, dims, periods, dim, disp);
            CHECK(src == esrc && dst == edst, "Cart_shift(dim %d, disp %d) = (%d, %d), expected (%d, %d)", dim, disp,
                  src, dst, esrc, edst);
            /* Data moves along the shift: I get the rank of my source. */
            int got = -7;
            OK(MPI_Sendrecv(&rank, 1, MPI_INT, dst, 5, &got, 1, MPI_INT, src, 5, cart, MPI_STATUS_IGNORE));
            CHECK(got == (src == MPI_PROC_NULL ? -7 : src), "shift dim %d disp %d: got %d from %d", dim, disp, got, src);
        }
    OK(MPI_Comm_free(&cart));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int nd = 1; nd <= 3; nd++)
        for (int pmask = 0; pmask < (1 << nd); pmask++) {
            int dims[3] = { 0, 0, 0 }, periods[3];
            OK(MPI_Dims_create(size, nd, dims));
            for (int i = 0; i < nd; i++)
                periods[i] = (pmask >> i) & 1;
            check_grid(nd, dims, periods);
        }
    /* A grid smaller than the job: the last rank(s) stay out. */
    if (size > 1) {
        int dims[2] = { 0, 0 }, periods[2] = { 1, 0 };
        OK(MPI_Dims_create(size - 1, 2, dims));
        check_grid(2, dims, periods);
    }
    /* A 1-D ring of everyone, in a dimension of size 1 too. */
    {
        int dims[2] = { size, 1 }, periods[2] = { 1, 1 };
        check_grid(2, dims, periods);
    }
    /* ndims 0: a zero-dimensional grid of one process. */
    {
        MPI_Comm c0;
        int rank;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        OK(MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &c0));
        if (rank == 0) {
            int n, s;
            CHECK(c0 != MPI_COMM_NULL, "ndims 0: rank 0 got MPI_COMM_NULL");
            MPI_Comm_size(c0, &s);
            OK(MPI_Cartdim_get(c0, &n));
            CHECK(s == 1 && n == 0, "ndims 0: size %d ndims %d", s, n);
            OK(MPI_Comm_free(&c0));
        } else {
            CHECK(c0 == MPI_COMM_NULL, "ndims 0: rank %d got a communicator", rank);
        }
    }
    /* Comm_dup keeps the topology. */
    {
        int dims[1] = { size }, periods[1] = { 0 }, st, d1[1], p1[1], c1[1];
        MPI_Comm cart, dup;
        OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart));
        OK(MPI_Comm_dup(cart, &dup));
        OK(MPI_Topo_test(dup, &st));
        CHECK(st == MPI_CART, "Comm_dup lost the Cartesian topology (%d)", st);
        OK(MPI_Cart_get(dup, 1, d1, p1, c1));
        CHECK(d1[0] == size && p1[0] == 0, "Comm_dup changed the grid");
        OK(MPI_Comm_free(&cart));
        OK(MPI_Cart_get(dup, 1, d1, p1, c1)); /* the copy outlives the original */
        OK(MPI_Comm_free(&dup));
        OK(MPI_Topo_test(MPI_COMM_WORLD, &st));
        CHECK(st == MPI_UNDEFINED, "MPI_COMM_WORLD has a topology (%d)", st);
    }
    topo_pass("cart");
    MPI_Finalize();
    return 0;
}
