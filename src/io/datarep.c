/*
 * datarep.c -- MPI_Register_datarep (MPI-4.1 14.5.3).  corempi keeps the
 * names registered (a second registration of a name, or of a predefined
 * one, is MPI_ERR_DUP_DATAREP) but converts no data yet: set_view with a
 * registered representation answers MPI_ERR_UNSUPPORTED_DATAREP (view.c).
 */
#include "io/io.h"
#include "core/error.h"
#include "core/state.h"
#include "fe_io.h"

#include <stdlib.h>
#include <string.h>

struct rep {
    struct rep *next;
    char name[MPI_MAX_DATAREP_STRING];
};
static struct rep *reps;

static int register_name(const char *call, const char *datarep, int have_extent)
{
    int rc = cm_check_initialized(call);
    if (rc)
        return rc;
    if (!datarep || !have_extent)
        return cm_io_error_null(MPI_ERR_ARG, call, "%s is NULL", !datarep ? "datarep" : "dtype_file_extent_fn");
    if (strlen(datarep) >= MPI_MAX_DATAREP_STRING)
        return cm_io_error_null(MPI_ERR_ARG, call, "datarep is longer than MPI_MAX_DATAREP_STRING");
    int dup = !strcmp(datarep, "native") || !strcmp(datarep, "internal") || !strcmp(datarep, "external32");
    for (struct rep *r = reps; r && !dup; r = r->next)
        dup = !strcmp(r->name, datarep);
    if (dup)
        return cm_io_error_null(MPI_ERR_DUP_DATAREP, call, "data representation \"%s\" is already defined", datarep);
    struct rep *r = calloc(1, sizeof *r);
    if (!r)
        return cm_io_error_null(MPI_ERR_NO_MEM, call, "out of memory");
    strcpy(r->name, datarep);
    r->next = reps;
    reps = r;
    return MPI_SUCCESS;
}

int cm_Register_datarep(const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn,
                        MPI_Datarep_conversion_function *write_conversion_fn,
                        MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
{
    (void)read_conversion_fn, (void)write_conversion_fn, (void)extra_state;
    return register_name("MPI_Register_datarep", datarep, dtype_file_extent_fn != NULL);
}

int cm_Register_datarep_c(const char *datarep, MPI_Datarep_conversion_function_c *read_conversion_fn,
                          MPI_Datarep_conversion_function_c *write_conversion_fn,
                          MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
{
    (void)read_conversion_fn, (void)write_conversion_fn, (void)extra_state;
    return register_name("MPI_Register_datarep_c", datarep, dtype_file_extent_fn != NULL);
}
