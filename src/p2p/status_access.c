/*
 * status_access.c -- MPI-4.1 accessors of the public status fields
 * (MPI_Status_get/set_source/tag/error): the fields are public in C, these
 * exist for the standard ABI and other languages.  A NULL or ignored status
 * is MPI_ERR_ARG naming the call.
 */
#include "core/state.h"
#include "core/error.h"

#pragma weak MPI_Status_get_source = PMPI_Status_get_source
#pragma weak MPI_Status_get_tag = PMPI_Status_get_tag
#pragma weak MPI_Status_get_error = PMPI_Status_get_error
#pragma weak MPI_Status_set_source = PMPI_Status_set_source
#pragma weak MPI_Status_set_tag = PMPI_Status_set_tag
#pragma weak MPI_Status_set_error = PMPI_Status_set_error

/* Which public field: the same check and access for the six calls. */
enum field { SOURCE, TAG, ERROR };

static int *field_of(MPI_Status *st, enum field f)
{
    return f == SOURCE ? &st->MPI_SOURCE : f == TAG ? &st->MPI_TAG : &st->MPI_ERROR;
}

static int get(MPI_Status *st, enum field f, int *out, const char *call)
{
    if (st == MPI_STATUS_IGNORE || !st)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "status is NULL or MPI_STATUS_IGNORE");
    if (!out)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "output argument is NULL");
    *out = *field_of(st, f);
    return MPI_SUCCESS;
}

static int set(MPI_Status *st, enum field f, int value, const char *call)
{
    if (st == MPI_STATUS_IGNORE || !st)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "status is NULL or MPI_STATUS_IGNORE");
    *field_of(st, f) = value;
    return MPI_SUCCESS;
}

int PMPI_Status_get_source(MPI_Status *status, int *source)
{
    CM_ENTER(Status_get_source);
    return get(status, SOURCE, source, "MPI_Status_get_source");
}

int PMPI_Status_get_tag(MPI_Status *status, int *tag)
{
    CM_ENTER(Status_get_tag);
    return get(status, TAG, tag, "MPI_Status_get_tag");
}

int PMPI_Status_get_error(MPI_Status *status, int *err)
{
    CM_ENTER(Status_get_error);
    return get(status, ERROR, err, "MPI_Status_get_error");
}

int PMPI_Status_set_source(MPI_Status *status, int source)
{
    CM_ENTER(Status_set_source);
    return set(status, SOURCE, source, "MPI_Status_set_source");
}

int PMPI_Status_set_tag(MPI_Status *status, int tag)
{
    CM_ENTER(Status_set_tag);
    return set(status, TAG, tag, "MPI_Status_set_tag");
}

int PMPI_Status_set_error(MPI_Status *status, int err)
{
    CM_ENTER(Status_set_error);
    return set(status, ERROR, err, "MPI_Status_set_error");
}
