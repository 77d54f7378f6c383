/*
 * errors.c -- bad arguments to the topology calls return an error under
 * MPI_ERRORS_RETURN (and, on corempi, the documented error class and a
 * message that names the problem), leaving the job usable.
 */
#include "topo_check.h"
#pragma GCC diagnostic ignored "-Wstringop-overread" /* MPI_UNWEIGHTED is a sentinel pointer */

#ifdef COREMPI
#define EXPECT_CLASS(rc, cls) CHECK(topo_error_class(rc) == (cls), "error class %d, expected %s", topo_error_class(rc), #cls)
#else
#define EXPECT_CLASS(rc, cls) ((void)0)
#endif

/* Checks Open MPI 4.1 does not make (it accepts the call): run on corempi only. */
#ifdef COREMPI
#define EXPECT_ERROR_STRICT(call, cls) EXPECT_ERROR(call, cls)
#else
#define EXPECT_ERROR_STRICT(call, cls) ((void)0)
#endif

#define EXPECT_ERROR(call, cls)                                   \
    do {                                                          \
        int rc_ = (call);                                         \
        CHECK(rc_ != MPI_SUCCESS, "%s succeeded", #call);         \
        EXPECT_CLASS(rc_, cls);                                   \
    } while (0)

int main(int argc, char **argv)
{
    topo_init_returning(&argc, &argv);
    int size, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm c = MPI_COMM_NULL;

    /* Cart_create: grid too big, bad dims, bad communicator */
    int big[2] = { size + 1, 2 }, periods[2] = { 0, 0 };
    int rc = MPI_Cart_create(MPI_COMM_WORLD, 2, big, periods, 0, &c);
    CHECK(rc != MPI_SUCCESS, "Cart_create of a grid larger than the job succeeded");
    EXPECT_CLASS(rc, MPI_ERR_TOPOLOGY);
#ifdef COREMPI
    char text[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(rc, text, &len);
    CHECK(strstr(text, "exceeds communicator size") != NULL, "message: %s", text);
#endif
    int negative[2] = { 2, -1 };
    EXPECT_ERROR(MPI_Cart_create(MPI_COMM_WORLD, 2, negative, periods, 0, &c), MPI_ERR_DIMS);
    EXPECT_ERROR(MPI_Cart_create(MPI_COMM_WORLD, -1, negative, periods, 0, &c), MPI_ERR_DIMS);
    EXPECT_ERROR(MPI_Cart_create(MPI_COMM_NULL, 1, &size, periods, 0, &c), MPI_ERR_COMM);

    /* queries on a communicator without (or with another) topology */
    int nd, dims[2], coords[2], st;
    EXPECT_ERROR(MPI_Cartdim_get(MPI_COMM_WORLD, &nd), MPI_ERR_TOPOLOGY);
    EXPECT_ERROR(MPI_Cart_get(MPI_COMM_WORLD, 2, dims, periods, coords), MPI_ERR_TOPOLOGY);
    EXPECT_ERROR(MPI_Graphdims_get(MPI_COMM_WORLD, &nd, &st), MPI_ERR_TOPOLOGY);
    int sendv = 1, recvv[4];
    EXPECT_ERROR(MPI_Neighbor_allgather(&sendv, 1, MPI_INT, recvv, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TOPOLOGY);

    /* a 1-D non-periodic line of everyone */
    int line[1] = { size }, noper[1] = { 0 };
    OK(MPI_Cart_create(MPI_COMM_WORLD, 1, line, noper, 0, &c));
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    int outside[1] = { size }, r;
    EXPECT_ERROR(MPI_Cart_rank(c, outside, &r), MPI_ERR_RANK);
    outside[0] = -1;
    EXPECT_ERROR(MPI_Cart_rank(c, outside, &r), MPI_ERR_RANK);
    EXPECT_ERROR_STRICT(MPI_Cart_coords(c, size, 1, coords), MPI_ERR_RANK);
    EXPECT_ERROR_STRICT(MPI_Cart_coords(c, -1, 1, coords), MPI_ERR_RANK);
    int src, dst;
    EXPECT_ERROR_STRICT(MPI_Cart_shift(c, 1, 1, &src, &dst), MPI_ERR_DIMS);
    EXPECT_ERROR_STRICT(MPI_Cart_shift(c, -1, 1, &src, &dst), MPI_ERR_DIMS);
    EXPECT_ERROR(MPI_Graph_neighbors_count(c, 0, &nd), MPI_ERR_TOPOLOGY);
    EXPECT_ERROR(MPI_Dist_graph_neighbors_count(c, &nd, &st, &r), MPI_ERR_TOPOLOGY);
    /* the communicator still works after all that */
    OK(MPI_Cart_shift(c, 0, 1, &src, &dst));
    CHECK(dst == (rank + 1 < size ? rank + 1 : MPI_PROC_NULL), "shift after errors");
    OK(MPI_Comm_free(&c));

    /* graphs with a node number out of range */
    int index[1] = { 1 }, edges[1] = { 1 };
    (void)index;
    EXPECT_ERROR_STRICT(MPI_Graph_create(MPI_COMM_WORLD, 1, index, edges, 0, &c), MPI_ERR_RANK);
    int nodes = size + 1, idx2[64] = { 0 };
    EXPECT_ERROR(MPI_Graph_create(MPI_COMM_WORLD, nodes, idx2, edges, 0, &c), MPI_ERR_ARG);
    int badsrc[1] = { size };
    EXPECT_ERROR(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, badsrc, MPI_UNWEIGHTED, 0, NULL, MPI_UNWEIGHTED,
                                                MPI_INFO_NULL, 0, &c),
                 MPI_ERR_RANK);
    EXPECT_ERROR(MPI_Dims_create(6, 2, (int[]){ 0, 4 }), MPI_ERR_DIMS);

    topo_pass("errors");
    MPI_Finalize();
    return 0;
}
