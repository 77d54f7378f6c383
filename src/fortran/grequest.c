/* grequest.c -- MPI_GREQUEST_START from Fortran.  The Fortran query, free
 * and cancel procedures take every argument by address and return their
 * error in a last ierror argument; C's return it.  So the request is
 * started with C trampolines whose extra_state is a record of the three
 * procedures and the user's extra_state; the free trampoline, which MPI
 * calls exactly once per request, frees the record. */
#include "fbind_util.h"

typedef void cmf_query_fn(MPI_Aint *extra, MPI_Fint *status, MPI_Fint *ierror);
typedef void cmf_free_fn(MPI_Aint *extra, MPI_Fint *ierror);
typedef void cmf_cancel_fn(MPI_Aint *extra, MPI_Fint *complete, MPI_Fint *ierror);

struct cmf_grequest {
    cmf_query_fn *query;
    cmf_free_fn *free;
    cmf_cancel_fn *cancel;
    MPI_Aint extra;
};

/* A C status is the Fortran one (fbind_util.h), so query writes it in place. */
static int query_tramp(void *extra, MPI_Status *status)
{
    struct cmf_grequest *g = extra;
    MPI_Fint ierror = MPI_SUCCESS;
    g->query(&g->extra, (MPI_Fint *)(void *)status, &ierror);
    return ierror;
}

static int free_tramp(void *extra)
{
    struct cmf_grequest *g = extra;
    MPI_Fint ierror = MPI_SUCCESS;
    g->free(&g->extra, &ierror);
    free(g);
    return ierror;
}

static int cancel_tramp(void *extra, int complete)
{
    struct cmf_grequest *g = extra;
    MPI_Fint fcomplete = cmf_to_logical(complete), ierror = MPI_SUCCESS;
    g->cancel(&g->extra, &fcomplete, &ierror);
    return ierror;
}

static int grequest_start(int (*start)(MPI_Grequest_query_function *, MPI_Grequest_free_function *,
                                       MPI_Grequest_cancel_function *, void *, MPI_Request *),
                          cmf_query_fn *query, cmf_free_fn *freefn, cmf_cancel_fn *cancel,
                          MPI_Aint *extra, MPI_Fint *request)
{
    struct cmf_grequest *g = cmf_alloc(sizeof *g);
    g->query = query;
    g->free = freefn;
    g->cancel = cancel;
    g->extra = *extra;
    MPI_Request c = MPI_REQUEST_NULL;
    int rc = start(query_tramp, free_tramp, cancel_tramp, g, &c);
    if (rc != MPI_SUCCESS)
        free(g);
    else
        *request = CMF_TOINT(c);
    return rc;
}

void mpi_grequest_start_(cmf_query_fn *query, cmf_free_fn *freefn, cmf_cancel_fn *cancel,
                         MPI_Aint *extra, MPI_Fint *request, MPI_Fint *ierror)
{
    *ierror = grequest_start(MPI_Grequest_start, query, freefn, cancel, extra, request);
}

void pmpi_grequest_start_(cmf_query_fn *query, cmf_free_fn *freefn, cmf_cancel_fn *cancel,
                          MPI_Aint *extra, MPI_Fint *request, MPI_Fint *ierror)
{
    *ierror = grequest_start(PMPI_Grequest_start, query, freefn, cancel, extra, request);
}

CMF_NAMES(grequest_start, GREQUEST_START)
CMF_ALIAS_HIDDEN(mpi_grequest_start_, cmf08_grequest_start_)
