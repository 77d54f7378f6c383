/*
 * topo_dims.c -- MPI_Dims_create: the most balanced grid of nnodes processes.
 *
 * "Most balanced" is made precise as: among all ways to write the free part of
 * nnodes as a non-increasing list of factors, the lexicographically smallest
 * list (smallest largest factor, then smallest second factor, ...).  This
 * gives the answers of Open MPI and MPICH on the usual cases (6 -> 3x2,
 * 12 in 3 -> 3x2x2, 16 in 3 -> 4x2x2) and is exact where a greedy split of
 * prime factors is not.  The search walks divisors, pruned by the k-th root
 * bound, so it is cheap for any int nnodes (a prime near 2^31 included).
 */
#include "core/error.h"
#include "core/state.h"

#include <stdlib.h>

#pragma weak MPI_Dims_create = PMPI_Dims_create

/* Smallest integer r with r^k >= n. */
static long root_ceil(long n, int k)
{
    long r = 1;
    for (;;) {
        long p = 1;
        int over = 0;
        for (int i = 0; i < k && !over; i++) {
            p *= r;
            over = p >= n;
        }
        if (over || p >= n)
            return r;
        r++;
    }
}

/* All divisors of n, ascending (at most 1600 for n < 2^31). */
static int divisors(long n, long **out)
{
    long *d = malloc(2048 * sizeof(long));
    if (!d)
        return -1;
    int nd = 0, hi = 2047;
    for (long x = 1; x * x <= n; x++)
        if (n % x == 0) {
            d[nd++] = x;
            if (x != n / x)
                d[hi--] = n / x;
        }
    /* the large divisors were stored from the top down: move them after the small ones */
    for (int i = hi + 1; i < 2048; i++)
        d[nd++] = d[i];
    *out = d;
    return nd;
}

/* Lexicographically smallest non-increasing f[0..k) with product n and f[0] <= cap,
 * using div (the divisors of the original nnodes, ascending). Returns 1 and fills f if one exists. */
static int balanced(long n, int k, long cap, const long *div, int ndiv, int *f)
{
    if (k == 0)
        return n == 1;
    if (k == 1) {
        if (n > cap)
            return 0;
        f[0] = (int)n;
        return 1;
    }
    long lo = root_ceil(n, k);
    for (int i = 0; i < ndiv && div[i] <= cap && div[i] <= n; i++) {
        long d = div[i];
        if (d < lo || n % d)
            continue;
        if (balanced(n / d, k - 1, d, div, ndiv, f + 1)) {
            f[0] = (int)d;
            return 1;
        }
    }
    return 0;
}

int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
    static const char call[] = "MPI_Dims_create";
    CM_ENTER(Dims_create);
    cm_check_initialized(call);
    if (nnodes <= 0)
        return cm_error(MPI_COMM_SELF, MPI_ERR_ARG, call, "nnodes %d must be positive", nnodes);
    if (ndims < 0)
        return cm_error(MPI_COMM_SELF, MPI_ERR_DIMS, call, "ndims %d is negative", ndims);
    if (ndims > 0 && !dims)
        return cm_error(MPI_COMM_SELF, MPI_ERR_ARG, call, "dims is NULL");
    long fixed = 1;
    int nfree = 0;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0)
            return cm_error(MPI_COMM_SELF, MPI_ERR_DIMS, call, "dims[%d] = %d is negative", i, dims[i]);
        if (dims[i] == 0)
            nfree++;
        else if ((fixed *= dims[i]) > nnodes)
            break;
    }
    if (nnodes % fixed)
        return cm_error(MPI_COMM_SELF, MPI_ERR_DIMS, call,
                        "nnodes %d is not a multiple of the product of the fixed (non-zero) dims", nnodes);
    long rest = nnodes / fixed;
    if (nfree == 0) {
        if (rest != 1)
            return cm_error(MPI_COMM_SELF, MPI_ERR_DIMS, call,
                            "all dims are fixed and their product %ld is not nnodes %d", fixed, nnodes);
        return MPI_SUCCESS;
    }
    int *f = malloc((size_t)nfree * sizeof(int));
    long *div = NULL;
    int ndiv = f ? divisors(rest, &div) : -1;
    if (ndiv < 0) {
        free(f);
        return cm_error(MPI_COMM_SELF, MPI_ERR_NO_MEM, call, "out of memory");
    }
    balanced(rest, nfree, rest, div, ndiv, f); /* always succeeds: rest x 1 x ... x 1 fits */
    for (int i = 0, j = 0; i < ndims; i++)
        if (dims[i] == 0)
            dims[i] = f[j++];
    free(div);
    free(f);
    return MPI_SUCCESS;
}
