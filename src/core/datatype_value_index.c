/*
 * datatype_value_index.c -- MPI_Type_get_value_index (MPI-4.1): the
 * predefined (value, index) pair type for MINLOC/MAXLOC, or
 * MPI_DATATYPE_NULL when no predefined pair has that value and index type
 * (MPI_INT, MPI_INT is MPI_2INT; MPI_INTEGER, MPI_INTEGER is MPI_2INTEGER).
 */
#include "core/datatype.h"
#include "core/error.h"
#include "core/state.h"
#include "fe_dt.h"

int cm_Type_get_value_index(MPI_Datatype value_type, MPI_Datatype index_type, MPI_Datatype *pair_type)
{
    static const char call[] = "MPI_Type_get_value_index";
    static const struct { MPI_Datatype value, pair; } pairs[] = {
        { MPI_FLOAT, MPI_FLOAT_INT }, { MPI_DOUBLE, MPI_DOUBLE_INT },  { MPI_LONG, MPI_LONG_INT },
        { MPI_INT, MPI_2INT },        { MPI_SHORT, MPI_SHORT_INT },    { MPI_LONG_DOUBLE, MPI_LONG_DOUBLE_INT },
    };
    cm_check_initialized(call);
    CM_ARG_NOT_NULL(MPI_COMM_WORLD, pair_type, call);
    if (!cm_dt_lookup(value_type))
        return cm_error(MPI_COMM_WORLD, MPI_ERR_TYPE, call, "invalid datatype %ld (argument value_type)", (long)(intptr_t)value_type);
    if (!cm_dt_lookup(index_type))
        return cm_error(MPI_COMM_WORLD, MPI_ERR_TYPE, call, "invalid datatype %ld (argument index_type)", (long)(intptr_t)index_type);
    *pair_type = MPI_DATATYPE_NULL;
    if (index_type == MPI_INT)
        for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
            if (pairs[i].value == value_type)
                *pair_type = pairs[i].pair;
    /* Fortran's pairs: the index has the value's type */
    if (value_type == index_type)
        *pair_type = value_type == MPI_INTEGER ? MPI_2INTEGER
                   : value_type == MPI_REAL ? MPI_2REAL
                   : value_type == MPI_DOUBLE_PRECISION ? MPI_2DOUBLE_PRECISION : *pair_type;
    return MPI_SUCCESS;
}
