/*
 * hier_test.c -- the hierarchical algorithms keep traffic inside a level.
 * Run as 16 ranks on a synthetic machine of 2 packages x 8 cores
 * (mpirun --topology "package:2 core:8 pu:1"): per operation, hybrid-x-y
 * allgather and HybridA-x-y allreduce send exactly one message per group
 * leader across the package boundary (y = 1 round among 2 leaders), and the
 * hybrid segmented binomial broadcast crosses it once.  Counted by the
 * point-to-point layer's per-level counters; results are checked too.
 */
#include "../mpi/check.h"
#include "coll/coll.h"
#include "coll/hier.h"
#include "p2p/p2p.h"

#include <stdint.h>

static int rank, size;

/* Messages across the top level during op(), summed over all ranks. */
static uint64_t crossings(void (*op)(void))
{
    uint64_t before = cm_p2p_level_msgs[1];
    op();
    uint64_t mine = cm_p2p_level_msgs[1] - before, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    return all;
}

static void allgather_hybrid(void)
{
    int in = rank * 3 + 1, out[64];
    CHECK_MPI(cm_coll_allgather_hybrid(&in, 1, MPI_INT, out, 1, MPI_INT, cm_coll_comm(MPI_COMM_WORLD)));
    for (int r = 0; r < size; r++)
        CHECK(out[r] == r * 3 + 1, "allgather hybrid: slot %d holds %d", r, out[r]);
}

static void allgather_rdb(void)
{
    int in = rank, out[64];
    CHECK_MPI(cm_coll_allgather_rdb(&in, 1, MPI_INT, out, 1, MPI_INT, cm_coll_comm(MPI_COMM_WORLD)));
    for (int r = 0; r < size; r++)
        CHECK(out[r] == r, "allgather rdb: slot %d holds %d", r, out[r]);
}

static void allreduce_hybrid_a(void)
{
    long in[3] = { rank, 1, -rank }, out[3];
    CHECK_MPI(cm_coll_allreduce_hybrid_a(in, out, 3, MPI_LONG, MPI_SUM, cm_coll_comm(MPI_COMM_WORLD)));
    long s = (long)size * (size - 1) / 2;
    CHECK(out[0] == s && out[1] == size && out[2] == -s, "allreduce hybrid_a: %ld %ld %ld", out[0], out[1], out[2]);
}

static int bcast_root;
static void bcast_hybrid(void)
{
    double v[1000];
    for (int i = 0; i < 1000; i++)
        v[i] = rank == bcast_root ? i * 0.5 + bcast_root : -1;
    CHECK_MPI(cm_coll_bcast_hybrid_seg_binomial(v, 1000, MPI_DOUBLE, bcast_root, cm_coll_comm(MPI_COMM_WORLD)));
    for (int i = 0; i < 1000; i++)
        CHECK(v[i] == i * 0.5 + bcast_root, "bcast hybrid from %d: v[%d] = %g", bcast_root, i, v[i]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 16, "run me with 16 ranks (got %d)", size);
    CHECK(cm_coll_hier_count_levels() == 0, "no hierarchy: run under mpirun --topology \"package:2 core:8 pu:1\"");
    int g = cm_coll_hier_group_size(MPI_COMM_WORLD);
    CHECK(g == 8, "top-level group size %d, expected 8 ranks per package", g);

    uint64_t c;
    c = crossings(allgather_hybrid);
    CHECK(c == 2, "hybrid allgather crossed the package boundary %llu times, expected 2 (one per leader)", (unsigned long long)c);
    c = crossings(allreduce_hybrid_a);
    CHECK(c == 2, "HybridA allreduce crossed %llu times, expected 2", (unsigned long long)c);
    for (bcast_root = 0; bcast_root < size; bcast_root += 5) {
        c = crossings(bcast_hybrid);
        CHECK(c == 1, "hybrid segmented bcast from %d crossed %llu times, expected 1", bcast_root, (unsigned long long)c);
    }
    /* The flat recursive doubling, for contrast, crosses with every rank. */
    c = crossings(allgather_rdb);
    CHECK(c == 16, "rdb allgather crossed %llu times, expected 16 (the distance-8 round)", (unsigned long long)c);
    if (rank == 0)
        printf("hier_test: groups of %d; hybrid allgather 2, HybridA 2, hybrid bcast 1, rdb 16 crossings\n", g);
    MPI_Finalize();
    return 0;
}
