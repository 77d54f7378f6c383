/*
 * datatype_f90.c -- choosing a predefined datatype by size or by Fortran
 * precision and range: MPI_Type_match_size, MPI_Type_create_f90_integer/
 * real/complex.
 *
 * The answers are C predefined types of gfortran's layout (integer kinds are
 * two's complement int8..int64, real kinds IEEE float/double/x87 long
 * double), so the result is predefined: it must not be freed, and
 * Type_free refuses it like any predefined type.  Choosing the smallest type
 * that meets the request is what MPI-4.1 19.1.9 asks of these calls.
 */
#include "core/datatype.h"
#include "core/error.h"
#include "core/state.h"

#pragma weak MPI_Type_match_size = PMPI_Type_match_size
#pragma weak MPI_Type_create_f90_integer = PMPI_Type_create_f90_integer
#pragma weak MPI_Type_create_f90_real = PMPI_Type_create_f90_real
#pragma weak MPI_Type_create_f90_complex = PMPI_Type_create_f90_complex

/* Decimal precision and exponent range of the real types (Fortran's
 * PRECISION() and RANGE() of real kinds 4, 8, 10). */
static const struct {
    int p, r;
    MPI_Datatype real, complex;
} reals[] = {
    { 6, 37, MPI_FLOAT, MPI_C_FLOAT_COMPLEX },
    { 15, 307, MPI_DOUBLE, MPI_C_DOUBLE_COMPLEX },
    { 18, 4931, MPI_LONG_DOUBLE, MPI_C_LONG_DOUBLE_COMPLEX },
};

int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
    static const char call[] = "MPI_Type_match_size";
    static const MPI_Datatype ints[] = { MPI_INT8_T, MPI_INT16_T, MPI_INT32_T, MPI_INT64_T };
    CM_ENTER(Type_match_size);
    cm_check_initialized(call);
    if (!datatype)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "datatype is NULL");
    if (typeclass == MPI_TYPECLASS_INTEGER) {
        for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
            if ((int)cm_dt_lookup(ints[i])->size == size)
                return *datatype = ints[i], MPI_SUCCESS;
    } else if (typeclass == MPI_TYPECLASS_REAL || typeclass == MPI_TYPECLASS_COMPLEX) {
        for (size_t i = 0; i < sizeof reals / sizeof reals[0]; i++) {
            MPI_Datatype t = typeclass == MPI_TYPECLASS_REAL ? reals[i].real : reals[i].complex;
            if ((int)cm_dt_lookup(t)->size == size)
                return *datatype = t, MPI_SUCCESS;
        }
    } else {
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call,
                        "typeclass %d is not MPI_TYPECLASS_INTEGER, _REAL or _COMPLEX", typeclass);
    }
    return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "no predefined type of typeclass %d has size %d", typeclass,
                    size);
}

int PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_f90_integer";
    /* decimal exponent range of int8..int64: 10^r - 1 must fit */
    static const struct { int r; MPI_Datatype t; } ints[] = {
        { 2, MPI_INT8_T }, { 4, MPI_INT16_T }, { 9, MPI_INT32_T }, { 18, MPI_INT64_T } };
    CM_ENTER(Type_create_f90_integer);
    cm_check_initialized(call);
    if (!newtype)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "newtype is NULL");
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        if (r <= ints[i].r)
            return *newtype = ints[i].t, MPI_SUCCESS;
    return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "no integer type has a decimal range of %d (at most 18)", r);
}

static int f90_real(const char *call, int p, int r, int complex, MPI_Datatype *newtype)
{
    cm_check_initialized(call);
    if (!newtype)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "newtype is NULL");
    if (p == MPI_UNDEFINED && r == MPI_UNDEFINED)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "p and r are both MPI_UNDEFINED");
    for (size_t i = 0; i < sizeof reals / sizeof reals[0]; i++)
        if ((p == MPI_UNDEFINED || p <= reals[i].p) && (r == MPI_UNDEFINED || r <= reals[i].r))
            return *newtype = complex ? reals[i].complex : reals[i].real, MPI_SUCCESS;
    return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call,
                    "no real type has precision %d and range %d (at most 18 and 4931)", p, r);
}

int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
    CM_ENTER(Type_create_f90_real);
    return f90_real("MPI_Type_create_f90_real", p, r, 0, newtype);
}

int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
    CM_ENTER(Type_create_f90_complex);
    return f90_real("MPI_Type_create_f90_complex", p, r, 1, newtype);
}
