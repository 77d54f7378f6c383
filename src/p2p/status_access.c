/*
 * status_access.c -- MPI-4.1 accessors of the public status fields
 * (MPI_Status_get/set_source/tag/error): the fields are public in C, these
 * exist for the standard ABI and other languages.  A NULL or ignored status
 * is MPI_ERR_ARG naming the call.
 */
#include "core/state.h"
#include "core/error.h"
#include "fe_p2p.h"


/* Which public field: the same check and access for the six calls. */
enum field { SOURCE, TAG, ERROR };

static int *field_of(MPI_Status *st, enum field f)
{
    return f == SOURCE ? &st->MPI_SOURCE : f == TAG ? &st->MPI_TAG : &st->MPI_ERROR;
}

static int get(const MPI_Status *st, enum field f, int *out, const char *call)
{
    if (st == MPI_STATUS_IGNORE || !st)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "status is NULL or MPI_STATUS_IGNORE");
    if (!out)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "output argument is NULL");
    *out = *field_of((MPI_Status *)st, f);   /* read only */
    return MPI_SUCCESS;
}

static int set(MPI_Status *st, enum field f, int value, const char *call)
{
    if (st == MPI_STATUS_IGNORE || !st)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "status is NULL or MPI_STATUS_IGNORE");
    *field_of(st, f) = value;
    return MPI_SUCCESS;
}

int cm_Status_get_source(const MPI_Status *status, int *source)
{
    return get(status, SOURCE, source, "MPI_Status_get_source");
}

int cm_Status_get_tag(const MPI_Status *status, int *tag)
{
    return get(status, TAG, tag, "MPI_Status_get_tag");
}

int cm_Status_get_error(const MPI_Status *status, int *err)
{
    return get(status, ERROR, err, "MPI_Status_get_error");
}

int cm_Status_set_source(MPI_Status *status, int source)
{
    return set(status, SOURCE, source, "MPI_Status_set_source");
}

int cm_Status_set_tag(MPI_Status *status, int tag)
{
    return set(status, TAG, tag, "MPI_Status_set_tag");
}

int cm_Status_set_error(MPI_Status *status, int err)
{
    return set(status, ERROR, err, "MPI_Status_set_error");
}
