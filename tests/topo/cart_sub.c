/*
 * cart_sub.c -- MPI_Cart_sub on 2-D and 3-D grids of the whole job: every
 * choice of kept dimensions gives slices of the right size, ranks, grid and
 * members (checked by summing world ranks over the slice), keeping the
 * periods of the kept dimensions; keeping none gives one process each.
 */
#include "topo_check.h"

static void check_sub(MPI_Comm cart, int nd, const int *dims, const int *periods, const int *remain)
{
    int wrank, coords[3];
    MPI_Comm_rank(cart, &wrank);
    OK(MPI_Cart_coords(cart, wrank, 3, coords));
    MPI_Comm sub;
    OK(MPI_Cart_sub(cart, remain, &sub));
    CHECK(sub != MPI_COMM_NULL, "Cart_sub gave MPI_COMM_NULL");

    /* Expected: size = product of kept dims; rank = row-major index of kept coords. */
    int esize = 1, erank = 0, kept = 0, kdims[3], kper[3], kcoords[3];
    for (int i = 0; i < nd; i++)
        if (remain[i]) {
            esize *= dims[i];
            erank = erank * dims[i] + coords[i];
            kdims[kept] = dims[i];
            kper[kept] = periods[i];
            kcoords[kept++] = coords[i];
        }
    int size, rank, status, sd;
    MPI_Comm_size(sub, &size);
    MPI_Comm_rank(sub, &rank);
    CHECK(size == esize && rank == erank, "Cart_sub: size %d rank %d, expected %d %d", size, rank, esize, erank);
    OK(MPI_Topo_test(sub, &status));
    CHECK(status == MPI_CART, "Cart_sub result is not Cartesian (%d)", status);
    OK(MPI_Cartdim_get(sub, &sd));
    CHECK(sd == kept, "Cart_sub ndims %d, expected %d", sd, kept);
    if (kept > 0) {
        int gd[3], gp[3], gc[3];
        OK(MPI_Cart_get(sub, 3, gd, gp, gc));
        for (int i = 0; i < kept; i++)
            CHECK(gd[i] == kdims[i] && !gp[i] == !kper[i] && gc[i] == kcoords[i],
                  "Cart_sub grid dim %d: (%d,%d,%d) expected (%d,%d,%d)", i, gd[i], gp[i], gc[i], kdims[i], kper[i],
                  kcoords[i]);
    }
    /* Members: the processes that share my dropped coordinates.  Sum of their cart ranks. */
    long long expect = 0;
    int total = 1;
    for (int i = 0; i < nd; i++)
        total *= dims[i];
    for (int r = 0; r < total; r++) {
        int c[3];
        OK(MPI_Cart_coords(cart, r, 3, c));
        int same = 1;
        for (int i = 0; i < nd; i++)
            if (!remain[i] && c[i] != coords[i])
                same = 0;
        if (same)
            expect += r;
    }
    long long mine = wrank, sum = 0;
    OK(MPI_Allreduce(&mine, &sum, 1, MPI_LONG_LONG, MPI_SUM, sub));
    CHECK(sum == expect, "Cart_sub slice members: rank sum %lld, expected %lld", sum, expect);
    OK(MPI_Comm_free(&sub));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int nd = 2; nd <= 3; nd++) {
        int dims[3] = { 0, 0, 0 }, periods[3] = { 1, 0, 1 };
        OK(MPI_Dims_create(size, nd, dims));
        MPI_Comm cart;
        OK(MPI_Cart_create(MPI_COMM_WORLD, nd, dims, periods, 0, &cart));
        for (int mask = 0; mask < (1 << nd); mask++) {
            int remain[3];
            for (int i = 0; i < nd; i++)
                remain[i] = (mask >> i) & 1;
            check_sub(cart, nd, dims, periods, remain);
        }
        OK(MPI_Comm_free(&cart));
    }
    topo_pass("cart_sub");
    MPI_Finalize();
    return 0;
}
