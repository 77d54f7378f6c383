/* deprecated.c -- MPI_KEYVAL_CREATE, MPI_ATTR_PUT, MPI_ATTR_GET from Fortran
 * (deprecated since MPI-2, still in mpif.h and module mpi; not in mpi_f08).
 * Their attribute values and extra_state are default INTEGERs, not
 * INTEGER(KIND=MPI_ADDRESS_KIND): the callbacks go through trampolines of
 * their own (as keyval.c's), and MPI_NULL_COPY_FN, MPI_DUP_FN,
 * MPI_NULL_DELETE_FN are their predefined Fortran procedures. */
#include "attr_callbacks.h"

CMF_ATTR_CALLBACKS(i, MPI_Fint)

static int icopy_tramp(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    return icopy_call(CMF_TOINT(comm), keyval, extra, in, out, flag);
}

static int idelete_tramp(MPI_Comm comm, int keyval, void *val, void *extra)
{
    return idelete_call(CMF_TOINT(comm), keyval, val, extra);
}

CMF_LOWER_NAMES(cmf_inull_copy_fn, mpi_null_copy_fn)
CMF_LOWER_NAMES(cmf_idup_fn, mpi_dup_fn)
CMF_LOWER_NAMES(cmf_inull_delete_fn, mpi_null_delete_fn)

static int keyval_create(int (*create)(MPI_Copy_function *, MPI_Delete_function *, int *, void *),
                         cmf_icopy_fn *copy, cmf_idelete_fn *del, MPI_Fint *keyval, MPI_Fint *extra)
{
    return create(icopy_tramp, idelete_tramp, keyval, ikeyval_record(copy, del, *extra));
}

void mpi_keyval_create_(cmf_icopy_fn *copy, cmf_idelete_fn *del, MPI_Fint *keyval, MPI_Fint *extra,
                        MPI_Fint *ierror)
{
    *ierror = keyval_create(MPI_Keyval_create, copy, del, keyval, extra);
}

void pmpi_keyval_create_(cmf_icopy_fn *copy, cmf_idelete_fn *del, MPI_Fint *keyval, MPI_Fint *extra,
                         MPI_Fint *ierror)
{
    *ierror = keyval_create(PMPI_Keyval_create, copy, del, keyval, extra);
}

static int attr_get(int (*get)(MPI_Comm, int, void *, int *), MPI_Fint *comm, MPI_Fint *keyval,
                    MPI_Fint *val, MPI_Fint *flag)
{
    void *v = NULL;
    int f = 0;
    int rc = get(CMF_FROMINT(MPI_Comm, *comm), *keyval, &v, &f);
    *flag = cmf_to_logical(f);
    if (rc == MPI_SUCCESS && f)
        *val = (MPI_Fint)cmf_attr_value(*keyval, v, 0);
    return rc;
}

void mpi_attr_get_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *val, MPI_Fint *flag, MPI_Fint *ierror)
{
    *ierror = attr_get(MPI_Attr_get, comm, keyval, val, flag);
}

void pmpi_attr_get_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *val, MPI_Fint *flag, MPI_Fint *ierror)
{
    *ierror = attr_get(PMPI_Attr_get, comm, keyval, val, flag);
}

void mpi_attr_put_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *val, MPI_Fint *ierror)
{
    *ierror = MPI_Attr_put(CMF_FROMINT(MPI_Comm, *comm), *keyval, (void *)(MPI_Aint)*val);
}

void pmpi_attr_put_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *val, MPI_Fint *ierror)
{
    *ierror = PMPI_Attr_put(CMF_FROMINT(MPI_Comm, *comm), *keyval, (void *)(MPI_Aint)*val);
}

CMF_NAMES(keyval_create, KEYVAL_CREATE)
CMF_NAMES(attr_get, ATTR_GET)
CMF_NAMES(attr_put, ATTR_PUT)
