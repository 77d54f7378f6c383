/*
 * request.c -- the request of a nonblocking file access.  The access is
 * done when the call returns (rw.c), so the request is a generalized
 * request (MPI-4.1 13.2) completed at once, whose query hands Wait/Test
 * the access's status: Get_count and Get_elements read it as usual.
 */
#include "io/io.h"
#include "core/error.h"

#include <stdlib.h>

static int query(void *extra, MPI_Status *st)
{
    *st = *(MPI_Status *)extra;
    return MPI_SUCCESS;
}

static int release(void *extra)
{
    free(extra);
    return MPI_SUCCESS;
}

static int cancel(void *extra, int complete)
{
    (void)extra;
    (void)complete;
    return MPI_SUCCESS;     /* complete already: nothing to cancel */
}

int cm_io_done_request(struct cm_file *f, const char *call, const MPI_Status *st, MPI_Request *request)
{
    MPI_Status *keep = malloc(sizeof *keep);
    if (!keep)
        return cm_io_error(f, MPI_ERR_NO_MEM, call, "out of memory");
    *keep = *st;
    keep->MPI_ERROR = MPI_SUCCESS;
    int rc = PMPI_Grequest_start(query, release, cancel, keep, request);
    if (rc) {
        free(keep);
        return cm_io_error(f, rc, call, "could not make the request");
    }
    return PMPI_Grequest_complete(*request);
}
