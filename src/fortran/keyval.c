/* keyval.c -- MPI_{COMM,TYPE,WIN}_CREATE_KEYVAL from Fortran, and the
 * predefined callbacks as Fortran procedures (MPI_COMM_NULL_COPY_FN ...).
 *
 * A Fortran copy callback takes every argument by address, the attribute
 * values as INTEGER(KIND=MPI_ADDRESS_KIND), a LOGICAL flag and an ierror;
 * C's takes values and returns the error.  So the keyval is created with C
 * trampolines, and the extra_state C hands them is a record of the Fortran
 * procedures and the user's own extra_state (attr_callbacks.h).  The
 * predefined Fortran procedures become the C constants, so corempi runs
 * them as for C. */
#include "attr_callbacks.h"

CMF_ATTR_CALLBACKS(, MPI_Aint)

CMF_LOWER_NAMES(cmf_null_copy_fn, mpi_comm_null_copy_fn)
CMF_LOWER_NAMES(cmf_null_copy_fn, mpi_type_null_copy_fn)
CMF_LOWER_NAMES(cmf_null_copy_fn, mpi_win_null_copy_fn)
CMF_LOWER_NAMES(cmf_dup_fn, mpi_comm_dup_fn)
CMF_LOWER_NAMES(cmf_dup_fn, mpi_type_dup_fn)
CMF_LOWER_NAMES(cmf_dup_fn, mpi_win_dup_fn)
CMF_LOWER_NAMES(cmf_null_delete_fn, mpi_comm_null_delete_fn)
CMF_LOWER_NAMES(cmf_null_delete_fn, mpi_type_null_delete_fn)
CMF_LOWER_NAMES(cmf_null_delete_fn, mpi_win_null_delete_fn)

/* One kind of object: its trampolines and MPI_<KIND>_CREATE_KEYVAL, the
 * mpi_/pmpi_ pair and their names.  Kind: Comm, Type (MPI_Datatype), Win. */
#define CMF_KEYVAL_KIND(Kind, CType, kind, KIND)                                                 \
    static int kind##_copy_tramp(CType obj, int keyval, void *extra, void *in, void *out, int *flag) \
    {                                                                                            \
        return copy_call(CMF_TOINT(obj), keyval, extra, in, out, flag);                          \
    }                                                                                            \
    static int kind##_delete_tramp(CType obj, int keyval, void *val, void *extra)                \
    {                                                                                            \
        return delete_call(CMF_TOINT(obj), keyval, val, extra);                                  \
    }                                                                                            \
    static int kind##_create_keyval(int (*create)(MPI_##Kind##_copy_attr_function *,             \
                                                  MPI_##Kind##_delete_attr_function *, int *, void *), \
                                    cmf_copy_fn *copy, cmf_delete_fn *del, MPI_Fint *keyval,     \
                                    MPI_Aint *extra)                                             \
    {                                                                                            \
        /* Both predefined: no trampoline, the user's extra_state as it is. */                   \
        MPI_##Kind##_copy_attr_function *c = copy == cmf_null_copy_fn ? MPI_##KIND##_NULL_COPY_FN \
                                           : copy == cmf_dup_fn     ? MPI_##KIND##_DUP_FN        \
                                                                    : kind##_copy_tramp;         \
        MPI_##Kind##_delete_attr_function *d =                                                   \
            del == cmf_null_delete_fn ? MPI_##KIND##_NULL_DELETE_FN : kind##_delete_tramp;       \
        if (c != kind##_copy_tramp && d != kind##_delete_tramp)                                  \
            return create(c, d, keyval, (void *)*extra);                                         \
        return create(c, d, keyval, keyval_record(copy, del, *extra));                           \
    }                                                                                            \
    void mpi_##kind##_create_keyval_(cmf_copy_fn *copy, cmf_delete_fn *del, MPI_Fint *keyval,    \
                                     MPI_Aint *extra, MPI_Fint *ierror)                          \
    {                                                                                            \
        *ierror = kind##_create_keyval(MPI_##Kind##_create_keyval, copy, del, keyval, extra);    \
    }                                                                                            \
    void pmpi_##kind##_create_keyval_(cmf_copy_fn *copy, cmf_delete_fn *del, MPI_Fint *keyval,   \
                                      MPI_Aint *extra, MPI_Fint *ierror)                         \
    {                                                                                            \
        *ierror = kind##_create_keyval(PMPI_##Kind##_create_keyval, copy, del, keyval, extra);   \
    }                                                                                            \
    CMF_NAMES(kind##_create_keyval, KIND##_CREATE_KEYVAL)                                        \
    CMF_ALIAS_HIDDEN(mpi_##kind##_create_keyval_, cmf08_##kind##_create_keyval_)

CMF_KEYVAL_KIND(Comm, MPI_Comm, comm, COMM)
CMF_KEYVAL_KIND(Type, MPI_Datatype, type, TYPE)
CMF_KEYVAL_KIND(Win, MPI_Win, win, WIN)
