/*
 * large_types.c -- the large-count datatype constructors other than
 * contiguous_c, vector_c and hvector_c (those count in size_t in
 * core/datatype_create.c).  Their values must fit in an int: each is
 * converted and the int twin builds the type (its record then holds ints;
 * docs/large_counts.md).  A value that does not fit is an error naming the
 * argument.
 */
#include "mpi/large.h"
#include "core/error.h"
#include "core/state.h"
#include "fe_dt.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#define ERR(cls, call, ...) cm_error(MPI_COMM_WORLD, cls, call, __VA_ARGS__)

/* One value as an int: lo is the least allowed (0 for counts). */
static int one(const char *call, const char *arg, MPI_Count v, MPI_Count lo, int *out)
{
    if (v < lo)
        return ERR(MPI_ERR_COUNT, call, "%s is negative (%lld)", arg, (long long)v);
    if (v < INT_MIN || v > INT_MAX)
        return ERR(MPI_ERR_COUNT, call, "%s = %lld does not fit in an int, which this constructor needs "
                   "(docs/large_counts.md)", arg, (long long)v);
    *out = (int)v;
    return MPI_SUCCESS;
}

/* n values as ints in *out (malloc'ed, NULL when n is 0 or a is NULL). */
static int ints(const char *call, const char *arg, const MPI_Count *a, int n, MPI_Count lo, int **out)
{
    *out = NULL;
    if (n <= 0 || !a)
        return MPI_SUCCESS;
    int *v = malloc((size_t)n * sizeof *v);
    if (!v)
        return ERR(MPI_ERR_NO_MEM, call, "out of memory (%d values)", n);
    for (int i = 0; i < n; i++) {
        char name[64];
        snprintf(name, sizeof name, "%s[%d]", arg, i);
        int rc = one(call, name, a[i], lo, &v[i]);
        if (rc) {
            free(v);
            return rc;
        }
    }
    *out = v;
    return MPI_SUCCESS;
}

/* Byte displacements: MPI_Count to MPI_Aint (the same width here). */
static int aints(const char *call, const MPI_Count *a, int n, MPI_Aint **out)
{
    *out = NULL;
    if (n <= 0 || !a)
        return MPI_SUCCESS;
    MPI_Aint *v = malloc((size_t)n * sizeof *v);
    if (!v)
        return ERR(MPI_ERR_NO_MEM, call, "out of memory (%d displacements)", n);
    for (int i = 0; i < n; i++)
        v[i] = (MPI_Aint)a[i];
    *out = v;
    return MPI_SUCCESS;
}

int cm_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                      const MPI_Count array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    const char *call = "MPI_Type_indexed_c";
    int n = 0, *bl = NULL, *d = NULL;
    int rc = one(call, "count", count, 0, &n);
    if (!rc && !(rc = ints(call, "array_of_blocklengths", array_of_blocklengths, n, 0, &bl)) &&
        !(rc = ints(call, "array_of_displacements", array_of_displacements, n, INT_MIN, &d)))
        rc = PMPI_Type_indexed(n, bl, d, oldtype, newtype);
    free(bl);
    free(d);
    return rc;
}

int cm_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                              const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    const char *call = "MPI_Type_create_hindexed_c";
    int n = 0, *bl = NULL;
    MPI_Aint *d = NULL;
    int rc = one(call, "count", count, 0, &n);
    if (!rc && !(rc = ints(call, "array_of_blocklengths", array_of_blocklengths, n, 0, &bl)) &&
        !(rc = aints(call, array_of_displacements, n, &d)))
        rc = PMPI_Type_create_hindexed(n, bl, d, oldtype, newtype);
    free(bl);
    free(d);
    return rc;
}

int cm_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                   const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                   MPI_Datatype *newtype)
{
    const char *call = "MPI_Type_create_indexed_block_c";
    int n = 0, b = 0, *d = NULL;
    int rc = one(call, "count", count, 0, &n);
    if (!rc && !(rc = one(call, "blocklength", blocklength, 0, &b)) &&
        !(rc = ints(call, "array_of_displacements", array_of_displacements, n, INT_MIN, &d)))
        rc = PMPI_Type_create_indexed_block(n, b, d, oldtype, newtype);
    free(d);
    return rc;
}

int cm_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                    const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                    MPI_Datatype *newtype)
{
    const char *call = "MPI_Type_create_hindexed_block_c";
    int n = 0, b = 0;
    MPI_Aint *d = NULL;
    int rc = one(call, "count", count, 0, &n);
    if (!rc && !(rc = one(call, "blocklength", blocklength, 0, &b)) &&
        !(rc = aints(call, array_of_displacements, n, &d)))
        rc = PMPI_Type_create_hindexed_block(n, b, d, oldtype, newtype);
    free(d);
    return rc;
}

int cm_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                            const MPI_Count array_of_displacements[], const MPI_Datatype array_of_types[],
                            MPI_Datatype *newtype)
{
    const char *call = "MPI_Type_create_struct_c";
    int n = 0, *bl = NULL;
    MPI_Aint *d = NULL;
    int rc = one(call, "count", count, 0, &n);
    if (!rc && !(rc = ints(call, "array_of_blocklengths", array_of_blocklengths, n, 0, &bl)) &&
        !(rc = aints(call, array_of_displacements, n, &d)))
        rc = PMPI_Type_create_struct(n, bl, d, array_of_types, newtype);
    free(bl);
    free(d);
    return rc;
}

int cm_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[], const MPI_Count array_of_subsizes[],
                              const MPI_Count array_of_starts[], int order, MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    const char *call = "MPI_Type_create_subarray_c";
    int *sz = NULL, *sub = NULL, *st = NULL;
    int rc = ints(call, "array_of_sizes", array_of_sizes, ndims, 0, &sz);
    if (!rc && !(rc = ints(call, "array_of_subsizes", array_of_subsizes, ndims, 0, &sub)) &&
        !(rc = ints(call, "array_of_starts", array_of_starts, ndims, 0, &st)))
        rc = PMPI_Type_create_subarray(ndims, sz, sub, st, order, oldtype, newtype);
    free(sz);
    free(sub);
    free(st);
    return rc;
}

int cm_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                            const int array_of_distribs[], const int array_of_dargs[],
                            const int array_of_psizes[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int *g = NULL;
    int rc = ints("MPI_Type_create_darray_c", "array_of_gsizes", array_of_gsizes, ndims, 0, &g);
    if (!rc)
        rc = PMPI_Type_create_darray(size, rank, ndims, g, array_of_distribs, array_of_dargs, array_of_psizes,
                                     order, oldtype, newtype);
    free(g);
    return rc;
}

int cm_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent, MPI_Datatype *newtype)
{
    return PMPI_Type_create_resized(oldtype, (MPI_Aint)lb, (MPI_Aint)extent, newtype);
}
