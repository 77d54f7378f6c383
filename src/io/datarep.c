/*
 * datarep.c -- MPI_Register_datarep (MPI-4.1 14.5.3): the table of user
 * data representations, their callbacks and the file extents they give.
 *
 * A registration is local to the process and is never removed.  A second
 * registration of a name, or of a predefined one, is MPI_ERR_DUP_DATAREP
 * raised on MPI_FILE_NULL's handler.  The plain and the _c form keep their
 * own kind of conversion function (int or MPI_Count count); either may be
 * MPI_CONVERSION_FN_NULL(_C), NULL in corempi's header.  What the
 * callbacks do to data is datarep_conv.c's.
 */
#include "io/io.h"
#include "core/error.h"
#include "core/state.h"
#include "fe_io.h"

#include <stdlib.h>
#include <string.h>

static struct cm_io_datarep *reps;

struct cm_io_datarep *cm_io_datarep_find(const char *name)
{
    for (struct cm_io_datarep *r = reps; r; r = r->next)
        if (!strcmp(r->name, name))
            return r;
    return NULL;
}

static int register_rep(const char *call, const char *datarep, const struct cm_io_datarep *fns)
{
    int rc = cm_check_initialized(call);
    if (rc)
        return rc;
    if (!datarep || !fns->extent)
        return cm_io_error_null(MPI_ERR_ARG, call, "%s is NULL", !datarep ? "datarep" : "dtype_file_extent_fn");
    if (strlen(datarep) >= MPI_MAX_DATAREP_STRING)
        return cm_io_error_null(MPI_ERR_ARG, call, "datarep is longer than MPI_MAX_DATAREP_STRING");
    if (!strcmp(datarep, "native") || !strcmp(datarep, "internal") || !strcmp(datarep, "external32") ||
        cm_io_datarep_find(datarep))
        return cm_io_error_null(MPI_ERR_DUP_DATAREP, call, "data representation \"%s\" is already defined", datarep);
    struct cm_io_datarep *r = malloc(sizeof *r);
    if (!r)
        return cm_io_error_null(MPI_ERR_NO_MEM, call, "out of memory");
    *r = *fns;
    strcpy(r->name, datarep);
    for (int i = 0; i < CM_DT_NUM_PREDEFINED; i++)
        r->fext[i] = -1;
    r->next = reps;
    reps = r;
    return MPI_SUCCESS;
}

int cm_Register_datarep(const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn,
                        MPI_Datarep_conversion_function *write_conversion_fn,
                        MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
{
    struct cm_io_datarep r = { .read = read_conversion_fn, .write = write_conversion_fn,
                               .extent = dtype_file_extent_fn, .extra = extra_state };
    return register_rep("MPI_Register_datarep", datarep, &r);
}

int cm_Register_datarep_c(const char *datarep, MPI_Datarep_conversion_function_c *read_conversion_fn,
                          MPI_Datarep_conversion_function_c *write_conversion_fn,
                          MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
{
    struct cm_io_datarep r = { .read_c = read_conversion_fn, .write_c = write_conversion_fn, .large = 1,
                               .extent = dtype_file_extent_fn, .extra = extra_state };
    return register_rep("MPI_Register_datarep_c", datarep, &r);
}
