/*
 * graph.c -- graph and distributed-graph topologies: Graph_create and its
 * queries (whole job and a graph smaller than the job), Dist_graph_create_adjacent
 * (weighted and MPI_UNWEIGHTED), and the general Dist_graph_create where each
 * rank names edges of another rank, so the edges must travel to both ends.
 */
#include "topo_check.h"
#pragma GCC diagnostic ignored "-Wstringop-overread" /* MPI_UNWEIGHTED is a sentinel pointer */

static int cmp_pair(const void *a, const void *b)
{
    const int *x = a, *y = b;
    return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

/* A graph of n nodes: node i is linked to i+1 and i-1 (a ring) and node 0 to everyone. */
static void build_graph(int n, int *index, int *edges)
{
    int e = 0;
    for (int i = 0; i < n; i++) {
        if (n > 1) {
            edges[e++] = (i + 1) % n;
            edges[e++] = (i + n - 1) % n;
        }
        if (i == 0)
            for (int j = 1; j < n; j++)
                edges[e++] = j;
        else
            edges[e++] = 0;
        index[i] = e;
    }
}

static void check_graph(int nnodes)
{
    int wrank;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    int *index = malloc(sizeof(int) * (nnodes + 1)), *edges = malloc(sizeof(int) * (4 * nnodes + 4));
    build_graph(nnodes, index, edges);
    MPI_Comm g;
    OK(MPI_Graph_create(MPI_COMM_WORLD, nnodes, index, edges, 0, &g));
    if (wrank >= nnodes) {
        CHECK(g == MPI_COMM_NULL, "rank %d is not a node but got a communicator", wrank);
        free(index);
        free(edges);
        return;
    }
    int st, nn, ne, size;
    MPI_Comm_size(g, &size);
    CHECK(size == nnodes, "graph communicator size %d, expected %d", size, nnodes);
    OK(MPI_Topo_test(g, &st));
    CHECK(st == MPI_GRAPH, "Topo_test %d", st);
    OK(MPI_Graphdims_get(g, &nn, &ne));
    CHECK(nn == nnodes && ne == index[nnodes - 1], "Graphdims_get (%d, %d)", nn, ne);
    int *gi = malloc(sizeof(int) * (nn + 1)), *ge = malloc(sizeof(int) * (ne + 1));
    OK(MPI_Graph_get(g, nn, ne, gi, ge));
    CHECK(memcmp(gi, index, sizeof(int) * nn) == 0 && memcmp(ge, edges, sizeof(int) * ne) == 0,
          "Graph_get differs from what was given");
    for (int r = 0; r < nnodes; r++) {
        int cnt, first = r ? index[r - 1] : 0;
        OK(MPI_Graph_neighbors_count(g, r, &cnt));
        CHECK(cnt == index[r] - first, "Graph_neighbors_count(%d) = %d", r, cnt);
        int nb[64];
        OK(MPI_Graph_neighbors(g, r, 64, nb));
        for (int k = 0; k < cnt; k++)
            CHECK(nb[k] == edges[first + k], "Graph_neighbors(%d)[%d] = %d, expected %d", r, k, nb[k], edges[first + k]);
    }
    /* Comm_dup keeps the graph, and the copy outlives the original */
    MPI_Comm gd;
    OK(MPI_Comm_dup(g, &gd));
    OK(MPI_Comm_free(&g));
    OK(MPI_Topo_test(gd, &st));
    CHECK(st == MPI_GRAPH, "Comm_dup of a graph communicator: Topo_test %d", st);
    OK(MPI_Graph_get(gd, nn, ne, gi, ge));
    CHECK(memcmp(gi, index, sizeof(int) * nn) == 0 && memcmp(ge, edges, sizeof(int) * ne) == 0,
          "Graph_get of the duplicate differs");
    free(gi);
    free(ge);
    free(index);
    free(edges);
    OK(MPI_Comm_free(&gd));
}

static void check_adjacent(int weighted)
{
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    /* out: me+1, me+3; in: me-1, me-3; weight of edge s->d is 1000*s + d */
    int dst[2] = { (rank + 1) % n, (rank + 3) % n }, src[2] = { (rank + n - 1) % n, (rank + 3 * n - 3) % n };
    int dw[2] = { 1000 * rank + dst[0], 1000 * rank + dst[1] };
    int sw[2] = { 1000 * src[0] + rank, 1000 * src[1] + rank };
    MPI_Comm dg;
    OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, weighted ? sw : MPI_UNWEIGHTED, 2, dst,
                                      weighted ? dw : MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg));
    int st, indeg, outdeg, w;
    OK(MPI_Topo_test(dg, &st));
    CHECK(st == MPI_DIST_GRAPH, "Topo_test %d", st);
    OK(MPI_Dist_graph_neighbors_count(dg, &indeg, &outdeg, &w));
    CHECK(indeg == 2 && outdeg == 2 && !w == !weighted, "neighbors_count (%d, %d, %d)", indeg, outdeg, w);
    int s[2], swt[2] = { -1, -1 }, d[2], dwt[2] = { -1, -1 };
    OK(MPI_Dist_graph_neighbors(dg, 2, s, swt, 2, d, dwt));
    for (int i = 0; i < 2; i++) {
        CHECK(s[i] == src[i] && d[i] == dst[i], "adjacent neighbours differ at %d", i);
        if (weighted)
            CHECK(swt[i] == sw[i] && dwt[i] == dw[i], "adjacent weights differ at %d", i);
    }
    MPI_Comm dd;
    OK(MPI_Comm_dup(dg, &dd));
    OK(MPI_Dist_graph_neighbors(dd, 2, s, swt, 2, d, dwt));
    for (int i = 0; i < 2; i++)
        CHECK(s[i] == src[i] && d[i] == dst[i] && (!weighted || (swt[i] == sw[i] && dwt[i] == dw[i])),
              "Comm_dup of a dist graph communicator: neighbours differ at %d", i);
    OK(MPI_Comm_free(&dd));
    int dsize, drank;
    MPI_Comm_size(dg, &dsize);
    MPI_Comm_rank(dg, &drank);
    CHECK(dsize == n && drank == rank, "dist graph communicator: size %d rank %d", dsize, drank);
    OK(MPI_Comm_free(&dg));
}

static void check_general(void)
{
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    /* I describe the out-edges of s = me+2: s -> s+1 and s -> s+2, weight 1000*s + d. */
    int s = (rank + 2) % n, deg = 2, dest[2] = { (s + 1) % n, (s + 2) % n };
    int wt[2] = { 1000 * s + dest[0], 1000 * s + dest[1] };
    MPI_Comm dg;
    OK(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &s, &deg, dest, wt, MPI_INFO_NULL, 0, &dg));
    int indeg, outdeg, w;
    OK(MPI_Dist_graph_neighbors_count(dg, &indeg, &outdeg, &w));
    CHECK(indeg == 2 && outdeg == 2 && w, "general: neighbors_count (%d, %d, %d)", indeg, outdeg, w);
    int sr[2], swt[2], dr[2], dwt[2];
    OK(MPI_Dist_graph_neighbors(dg, 2, sr, swt, 2, dr, dwt));
    /* The order is up to the library: compare as sorted (peer, weight) pairs. */
    int got_in[4] = { sr[0], swt[0], sr[1], swt[1] }, got_out[4] = { dr[0], dwt[0], dr[1], dwt[1] };
    int e1 = (rank + n - 1) % n, e2 = (rank + n - 2) % n;
    int exp_in[4] = { e1, 1000 * e1 + rank, e2, 1000 * e2 + rank };
    int f1 = (rank + 1) % n, f2 = (rank + 2) % n;
    int exp_out[4] = { f1, 1000 * rank + f1, f2, 1000 * rank + f2 };
    qsort(got_in, 2, 2 * sizeof(int), cmp_pair);
    qsort(got_out, 2, 2 * sizeof(int), cmp_pair);
    qsort(exp_in, 2, 2 * sizeof(int), cmp_pair);
    qsort(exp_out, 2, 2 * sizeof(int), cmp_pair);
    CHECK(memcmp(got_in, exp_in, sizeof got_in) == 0, "general: in-edges (%d,%d),(%d,%d) expected (%d,%d),(%d,%d)",
          got_in[0], got_in[1], got_in[2], got_in[3], exp_in[0], exp_in[1], exp_in[2], exp_in[3]);
    CHECK(memcmp(got_out, exp_out, sizeof got_out) == 0, "general: out-edges differ");
    OK(MPI_Comm_free(&dg));

    /* Unweighted, and a rank that names no edge at all (rank 0). */
    int nsrc = rank == 0 ? 0 : 1;
    OK(MPI_Dist_graph_create(MPI_COMM_WORLD, nsrc, &s, &deg, dest, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg));
    OK(MPI_Dist_graph_neighbors_count(dg, &indeg, &outdeg, &w));
    /* Edges of s = 2 (named by rank 0) are missing. */
    int src_missing = (0 + 2) % n;
    int exp_outdeg = rank == src_missing ? 0 : 2;
    int exp_indeg = 2 - (rank == (src_missing + 1) % n) - (rank == (src_missing + 2) % n);
    CHECK(!w && outdeg == exp_outdeg && indeg == exp_indeg, "general unweighted: (%d, %d, %d) expected (%d, %d, 0)",
          indeg, outdeg, w, exp_indeg, exp_outdeg);
    OK(MPI_Comm_free(&dg));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check_graph(size);
    if (size > 1)
        check_graph(size - 1);
    check_adjacent(1);
    check_adjacent(0);
    check_general();
    topo_pass("graph");
    MPI_Finalize();
    return 0;
}
