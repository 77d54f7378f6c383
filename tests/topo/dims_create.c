/*
 * dims_create.c -- MPI_Dims_create against a table of known answers
 * (the balanced grids Open MPI and MPICH also return), fixed dimensions,
 * and the impossible cases.
 */
#include "topo_check.h"

struct dims_case {
    int nnodes, ndims;
    int in[4];
    int expect[4];
    int ok; /* 0: must fail */
};

static const struct dims_case cases[] = {
    { 1, 1, { 0 }, { 1 }, 1 },
    { 2, 1, { 0 }, { 2 }, 1 },
    { 1, 3, { 0, 0, 0 }, { 1, 1, 1 }, 1 },
    { 6, 2, { 0, 0 }, { 3, 2 }, 1 },
    { 7, 2, { 0, 0 }, { 7, 1 }, 1 },
    { 8, 3, { 0, 0, 0 }, { 2, 2, 2 }, 1 },
    { 9, 2, { 0, 0 }, { 3, 3 }, 1 },
    { 12, 2, { 0, 0 }, { 4, 3 }, 1 },
    { 12, 3, { 0, 0, 0 }, { 3, 2, 2 }, 1 },
    { 16, 2, { 0, 0 }, { 4, 4 }, 1 },
    { 16, 3, { 0, 0, 0 }, { 4, 2, 2 }, 1 },
    { 16, 4, { 0, 0, 0, 0 }, { 2, 2, 2, 2 }, 1 },
    { 24, 3, { 0, 0, 0 }, { 4, 3, 2 }, 1 },
    { 30, 3, { 0, 0, 0 }, { 5, 3, 2 }, 1 },
    { 36, 2, { 0, 0 }, { 6, 6 }, 1 },
    { 60, 2, { 0, 0 }, { 10, 6 }, 1 },
    { 64, 3, { 0, 0, 0 }, { 4, 4, 4 }, 1 },
    { 100, 3, { 0, 0, 0 }, { 5, 5, 4 }, 1 },
    { 120, 3, { 0, 0, 0 }, { 6, 5, 4 }, 1 },
    { 13, 3, { 0, 0, 0 }, { 13, 1, 1 }, 1 },
    /* closest grid, not a greedy split of primes (Open MPI: 20x18x14, 9x8x5) */
    { 5040, 3, { 0, 0, 0 }, { 21, 16, 15 }, 1 },
    { 360, 3, { 0, 0, 0 }, { 10, 6, 6 }, 1 },
    { 2160, 4, { 0, 0, 0, 0 }, { 10, 6, 6, 6 }, 1 },
    { 7200, 4, { 0, 0, 0, 0 }, { 10, 10, 9, 8 }, 1 },
    { 2095133040, 3, { 0, 0, 0 }, { 1292, 1287, 1260 }, 1 },
    /* fixed dimensions stay, the rest are balanced */
    { 12, 2, { 0, 3 }, { 4, 3 }, 1 },
    { 12, 3, { 2, 0, 0 }, { 2, 3, 2 }, 1 },
    { 24, 3, { 0, 4, 0 }, { 3, 4, 2 }, 1 },
    { 9, 2, { 3, 3 }, { 3, 3 }, 1 },
    { 8, 3, { 0, 1, 0 }, { 4, 1, 2 }, 1 },
    /* impossible */
    { 6, 2, { 0, 4 }, { 0 }, 0 },
    { 10, 2, { 3, 3 }, { 0 }, 0 },
    { 7, 2, { 2, 0 }, { 0 }, 0 },
    { 4, 2, { -1, 0 }, { 0 }, 0 },
};

int main(int argc, char **argv)
{
    topo_init_returning(&argc, &argv);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const struct dims_case *c = &cases[k];
        int dims[4];
        memcpy(dims, c->in, sizeof dims);
        int rc = MPI_Dims_create(c->nnodes, c->ndims, dims);
        if (!c->ok) {
            CHECK(rc != MPI_SUCCESS, "case %zu: Dims_create(%d, %d) should fail", k, c->nnodes, c->ndims);
#ifdef COREMPI
            int cls;
            MPI_Error_class(rc, &cls);
            CHECK(cls == MPI_ERR_DIMS, "case %zu: error class %d, expected MPI_ERR_DIMS", k, cls);
#endif
            continue;
        }
        CHECK(rc == MPI_SUCCESS, "case %zu: Dims_create(%d, %d) failed with %d", k, c->nnodes, c->ndims, rc);
        for (int i = 0; i < c->ndims; i++)
            CHECK(dims[i] == c->expect[i], "case %zu: Dims_create(%d, %d): dims[%d] = %d, expected %d", k, c->nnodes,
                  c->ndims, i, dims[i], c->expect[i]);
    }
    /* Every count a test can run at, in 1..4 dimensions: product right, non-increasing. */
    for (int n = 1; n <= 256; n++)
        for (int nd = 1; nd <= 4; nd++) {
            int dims[4] = { 0, 0, 0, 0 }, prod = 1;
            OK(MPI_Dims_create(n, nd, dims));
            for (int i = 0; i < nd; i++) {
                prod *= dims[i];
                CHECK(i == 0 || dims[i] <= dims[i - 1], "Dims_create(%d, %d) not non-increasing", n, nd);
            }
            CHECK(prod == n, "Dims_create(%d, %d): product %d", n, nd, prod);
        }
    /* Against an exhaustive search: no non-increasing factorization has a
     * smaller spread, or the same spread and a smaller sum (the definition in
     * src/mpi/topo_dims.c). */
    for (int n = 1; n <= 720; n++) {
        int dims[3] = { 0, 0, 0 };
        OK(MPI_Dims_create(n, 3, dims));
        int spread = dims[0] - dims[2], sum = dims[0] + dims[1] + dims[2];
        for (int a = 1; a <= n; a++)
            for (int b = 1; b <= a && a * b <= n; b++) {
                if (n % (a * b) || n / (a * b) > b)
                    continue;
                int c = n / (a * b);
                CHECK(a - c > spread || (a - c == spread && a + b + c >= sum),
                      "Dims_create(%d, 3) = %dx%dx%d, but %dx%dx%d is closer", n, dims[0], dims[1], dims[2], a, b, c);
            }
    }
    /* Many dimensions of a highly composite count near 2^31 stay cheap (the
     * search prunes; without it this takes seconds). */
    int many[12] = { 0 }, prod_many = 1;
    OK(MPI_Dims_create(2095133040, 12, many));
    for (int i = 0; i < 12; i++)
        prod_many *= many[i];
    CHECK(prod_many == 2095133040, "Dims_create(2095133040, 12): product %d", prod_many);
    topo_pass("dims_create");
    MPI_Finalize();
    return 0;
}
