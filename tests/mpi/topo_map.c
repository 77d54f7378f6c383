/*
 * topo_map.c -- MPI_Cart_map, MPI_Graph_map and reorder in Cart_create /
 * Graph_create (mpi/topo_map.c).
 *
 * Always: the new ranks are a permutation of the topology's nodes with
 * MPI_UNDEFINED for the members left over; Cart_create(reorder=1) and
 * Graph_create(reorder=1) give each member the rank the map gave it, and the
 * grid's neighbours (Cart_shift) reach each other; bad arguments are refused
 * with the right class.
 *   --expect-identity: the machine has one domain (a flat synthetic one), so
 *     the ranks are kept;
 *   --expect-local: the members of each package hold a contiguous run of a
 *     1-D grid's cells (run with --map-by evenodd, where packages interleave
 *     in rank order, so the identity would fail it).
 */
#include <mpi.h>
#include "check.h"

#include <stdlib.h>
#include <string.h>

static int size, rank;

/* every node taken once, the rest MPI_UNDEFINED */
static void check_permutation(int newrank, int nodes, const char *what)
{
    int *all = malloc((size_t)size * sizeof *all), *seen = calloc((size_t)nodes + 1, sizeof *seen);
    CHECK_MPI(MPI_Allgather(&newrank, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD));
    int undefined = 0;
    for (int i = 0; i < size; i++) {
        if (all[i] == MPI_UNDEFINED) {
            undefined++;
            continue;
        }
        CHECK(all[i] >= 0 && all[i] < nodes, "%s: rank %d got %d of %d nodes", what, i, all[i], nodes);
        CHECK(!seen[all[i]]++, "%s: node %d given twice", what, all[i]);
    }
    CHECK(undefined == size - nodes, "%s: %d members without a node, want %d", what, undefined, size - nodes);
    free(all);
    free(seen);
}

static void cart(int expect_identity, int expect_local)
{
    int dims1[1] = { size }, periods1[1] = { 0 }, newrank;
    CHECK_MPI(MPI_Cart_map(MPI_COMM_WORLD, 1, dims1, periods1, &newrank));
    check_permutation(newrank, size, "Cart_map 1-D");
    if (expect_identity)
        CHECK(newrank == rank, "one domain: Cart_map gave %d to rank %d", newrank, rank);
    if (expect_local) {
        MPI_Info info;
        MPI_Comm pkg;
        CHECK_MPI(MPI_Info_create(&info));
        CHECK_MPI(MPI_Info_set(info, "mpi_hw_resource_type", "Package"));
        CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &pkg));
        CHECK(pkg != MPI_COMM_NULL, "no package communicator");
        int n, lo, hi;
        MPI_Comm_size(pkg, &n);
        CHECK_MPI(MPI_Allreduce(&newrank, &lo, 1, MPI_INT, MPI_MIN, pkg));
        CHECK_MPI(MPI_Allreduce(&newrank, &hi, 1, MPI_INT, MPI_MAX, pkg));
        CHECK(hi - lo + 1 == n, "the %d members of my package hold cells %d..%d, not a contiguous run", n, lo, hi);
        CHECK_MPI(MPI_Comm_free(&pkg));
        CHECK_MPI(MPI_Info_free(&info));
    }
    if (size > 1) {
        int less[1] = { size - 1 };
        CHECK_MPI(MPI_Cart_map(MPI_COMM_WORLD, 1, less, periods1, &newrank));
        check_permutation(newrank, size - 1, "Cart_map with a member left over");
    }

    /* 2-D, reordered: the communicator's ranks are the map's, and a shift
     * along each dimension reaches the neighbour the coordinates name. */
    int dims[2] = { 0, 0 }, periods[2] = { 1, 0 }, mapped;
    CHECK_MPI(MPI_Dims_create(size, 2, dims));
    CHECK_MPI(MPI_Cart_map(MPI_COMM_WORLD, 2, dims, periods, &mapped));
    MPI_Comm grid;
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &grid));
    int g;
    MPI_Comm_rank(grid, &g);
    CHECK(g == mapped, "Cart_create(reorder) made me %d, Cart_map said %d", g, mapped);
    int coords[2];
    CHECK_MPI(MPI_Cart_coords(grid, g, 2, coords));
    for (int d = 0; d < 2; d++) {
        int src, dst, got[2] = { -1, -1 };
        CHECK_MPI(MPI_Cart_shift(grid, d, 1, &src, &dst));
        CHECK_MPI(MPI_Sendrecv(coords, 2, MPI_INT, dst, d, got, 2, MPI_INT, src, d, grid, MPI_STATUS_IGNORE));
        if (src != MPI_PROC_NULL) {
            int want = coords[d] == 0 ? dims[d] - 1 : coords[d] - 1;
            CHECK(got[d] == want && got[1 - d] == coords[1 - d],
                  "dim %d: the neighbour below me (%d,%d) is at (%d,%d)", d, coords[0], coords[1], got[0], got[1]);
        }
    }
    CHECK_MPI(MPI_Comm_free(&grid));
}

static void graph(int expect_identity)
{
    /* A ring: node i linked to i-1 and i+1. */
    int *index = malloc((size_t)size * sizeof *index), *edges = malloc(2 * (size_t)size * sizeof *edges), e = 0;
    for (int i = 0; i < size; i++) {
        if (size > 1) {
            edges[e++] = (i + size - 1) % size;
            edges[e++] = (i + 1) % size;
        }
        index[i] = e;
    }
    int newrank;
    CHECK_MPI(MPI_Graph_map(MPI_COMM_WORLD, size, index, edges, &newrank));
    check_permutation(newrank, size, "Graph_map");
    if (expect_identity)
        CHECK(newrank == rank, "one domain: Graph_map gave %d to rank %d", newrank, rank);
    MPI_Comm gc;
    CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 1, &gc));
    int g, nn;
    MPI_Comm_rank(gc, &g);
    CHECK(g == newrank, "Graph_create(reorder) made me %d, Graph_map said %d", g, newrank);
    CHECK_MPI(MPI_Graph_neighbors_count(gc, g, &nn));
    CHECK(nn == index[g] - (g ? index[g - 1] : 0), "node %d has %d neighbours", g, nn);
    CHECK_MPI(MPI_Comm_free(&gc));
    free(index);
    free(edges);
}

static void bad_arguments(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int dims[1] = { size + 1 }, periods[1] = { 0 }, newrank, cls;
    int rc = MPI_Cart_map(MPI_COMM_WORLD, 1, dims, periods, &newrank);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TOPOLOGY, "Cart_map on more cells than ranks: class %d", cls);
    dims[0] = 0;
    rc = MPI_Cart_map(MPI_COMM_WORLD, 1, dims, periods, &newrank);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_DIMS, "Cart_map with dims[0] = 0: class %d", cls);
    dims[0] = 1;
    rc = MPI_Cart_map(MPI_COMM_WORLD, 1, dims, periods, NULL);
    CHECK(rc != MPI_SUCCESS, "Cart_map with newrank NULL succeeded");
    int index[1] = { 0 };
    rc = MPI_Graph_map(MPI_COMM_WORLD, 0, index, NULL, &newrank);
    CHECK(rc != MPI_SUCCESS, "Graph_map of 0 nodes succeeded");
    rc = MPI_Cart_map(MPI_COMM_NULL, 1, dims, periods, &newrank);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_COMM, "Cart_map on MPI_COMM_NULL: class %d", cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int expect_identity = 0, expect_local = 0;
    for (int i = 1; i < argc; i++) {
        expect_identity |= !strcmp(argv[i], "--expect-identity");
        expect_local |= !strcmp(argv[i], "--expect-local");
    }
    cart(expect_identity, expect_local);
    graph(expect_identity);
    bad_arguments();
    if (rank == 0)
        printf("topo_map: ok at %d ranks\n", size);
    MPI_Finalize();
    return 0;
}
