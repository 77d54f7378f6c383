/*
 * topo_dist_reorder.c -- reorder = true in MPI_Dist_graph_create_adjacent and
 * MPI_Dist_graph_create (issue 39 item 4).
 *
 * Run at 4 ranks on two synthetic packages of two cores with --map-by
 * evenodd: old ranks 0 and 2 share package 0, 1 and 3 package 1.  The graph
 * pairs 0-1 and 2-3 with weight 100 (and 0-2, 1-3 with weight 1): kept in
 * the old order every heavy pair crosses packages, so the reordered
 * communicator must put each heavy pair in one package.  Always: the graph's
 * nodes are the new ranks, so the process of new rank k reports node k's
 * edges with their weights.  --expect-local: the heavy pairs share a
 * package.
 */
#include <mpi.h>
#include "check.h"

#include <stdlib.h>
#include <string.h>

static int size, rank;

static int partner(int r) { return r ^ 1; }   /* heavy */
static int second(int r) { return r ^ 2; }    /* light */

static void check_graph(MPI_Comm c, int expect_local, const char *what)
{
    int me, n, indeg, outdeg, weighted;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &n);
    CHECK(n == size, "%s: %d members", what, n);
    CHECK_MPI(MPI_Dist_graph_neighbors_count(c, &indeg, &outdeg, &weighted));
    CHECK(indeg == 2 && outdeg == 2 && weighted, "%s: degrees %d/%d weighted %d", what, indeg, outdeg, weighted);
    int src[2], sw[2], dst[2], dw[2];
    CHECK_MPI(MPI_Dist_graph_neighbors(c, 2, src, sw, 2, dst, dw));
    /* I answer for node me: its edges, named by node (= new rank). */
    for (int i = 0; i < 2; i++) {
        CHECK(dst[i] == (dw[i] == 100 ? partner(me) : second(me)), "%s: node %d has destination %d weight %d", what, me,
              dst[i], dw[i]);
        CHECK(src[i] == (sw[i] == 100 ? partner(me) : second(me)), "%s: node %d has source %d weight %d", what, me,
              src[i], sw[i]);
    }
    CHECK(dw[0] != dw[1] && sw[0] != sw[1], "%s: node %d lost an edge", what, me);
    if (expect_local) { /* my heavy partner shares my package */
        MPI_Info info;
        MPI_Comm pkg;
        CHECK_MPI(MPI_Info_create(&info));
        CHECK_MPI(MPI_Info_set(info, "mpi_hw_resource_type", "Package"));
        CHECK_MPI(MPI_Comm_split_type(c, MPI_COMM_TYPE_HW_GUIDED, 0, info, &pkg));
        int heavy = dw[0] == 100 ? dst[0] : dst[1], in_pkg;
        MPI_Group g, gp;
        MPI_Comm_group(c, &g);
        MPI_Comm_group(pkg, &gp);
        int t;
        MPI_Group_translate_ranks(g, 1, &heavy, gp, &t);
        in_pkg = t != MPI_UNDEFINED;
        CHECK(in_pkg, "%s: node %d's heavy partner %d is on another package", what, me, heavy);
        MPI_Group_free(&g);
        MPI_Group_free(&gp);
        CHECK_MPI(MPI_Comm_free(&pkg));
        CHECK_MPI(MPI_Info_free(&info));
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int expect_local = argc > 1 && !strcmp(argv[1], "--expect-local");
    if (size != 4) {
        if (rank == 0)
            printf("topo_dist_reorder: needs 4 ranks, skipped\n");
        MPI_Finalize();
        return 0;
    }
    int nb[2] = {partner(rank), second(rank)}, w[2] = {100, 1};
    MPI_Comm c;
    CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, nb, w, 2, nb, w, MPI_INFO_NULL, 1, &c));
    check_graph(c, expect_local, "Dist_graph_create_adjacent");
    CHECK_MPI(MPI_Comm_free(&c));
    /* The same graph, each rank naming its own out-edges. */
    int src[1] = {rank}, deg[1] = {2};
    CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, src, deg, nb, w, MPI_INFO_NULL, 1, &c));
    check_graph(c, expect_local, "Dist_graph_create");
    CHECK_MPI(MPI_Comm_free(&c));
    /* reorder = 0 keeps the ranks. */
    CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, nb, w, 2, nb, w, MPI_INFO_NULL, 0, &c));
    int me;
    MPI_Comm_rank(c, &me);
    CHECK(me == rank, "reorder = 0 changed rank %d into %d", rank, me);
    CHECK_MPI(MPI_Comm_free(&c));
    if (rank == 0)
        printf("topo_dist_reorder: ok\n");
    MPI_Finalize();
    return 0;
}
