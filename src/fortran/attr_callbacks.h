/* attr_callbacks.h -- what keyval.c (MPI_{COMM,TYPE,WIN}_CREATE_KEYVAL,
 * attribute values INTEGER(KIND=MPI_ADDRESS_KIND)) and deprecated.c
 * (MPI_KEYVAL_CREATE, default INTEGER values) share: Fortran attribute
 * callbacks run from C.
 *
 * CMF_ATTR_CALLBACKS(p, V), V the Fortran value type (MPI_Aint or MPI_Fint),
 * defines with prefix p:
 *   cmf_<p>copy_fn, cmf_<p>delete_fn   the Fortran procedures' C types;
 *   <p>keyval_record(copy, del, extra) the record of a new keyval, which the
 *     C trampolines get as their extra_state; records stay on a list for the
 *     life of the process (a keyval's callbacks may run until its last
 *     attribute is deleted, after the keyval is freed);
 *   <p>copy_call, <p>delete_call       the trampolines' bodies (the object
 *     already a Fortran integer);
 *   cmf_<p>null_copy_fn, cmf_<p>dup_fn, cmf_<p>null_delete_fn   the
 *     predefined callbacks, callable from Fortran (MPI-4.1 §7.7.2). */
#ifndef CMF_ATTR_CALLBACKS_H
#define CMF_ATTR_CALLBACKS_H
#include "fbind_util.h"

#define CMF_ATTR_CALLBACKS(p, V)                                                                  \
    typedef void cmf_##p##copy_fn(MPI_Fint *obj, MPI_Fint *keyval, V *extra, V *in, V *out,       \
                                  MPI_Fint *flag, MPI_Fint *ierror);                              \
    typedef void cmf_##p##delete_fn(MPI_Fint *obj, MPI_Fint *keyval, V *val, V *extra,            \
                                    MPI_Fint *ierror);                                            \
    struct cmf_##p##keyval {                                                                      \
        cmf_##p##copy_fn *copy;                                                                   \
        cmf_##p##delete_fn *del;                                                                  \
        V extra;                                                                                  \
        struct cmf_##p##keyval *next;                                                             \
    };                                                                                            \
    static struct cmf_##p##keyval *cmf_##p##keyvals;                                              \
    static struct cmf_##p##keyval *p##keyval_record(cmf_##p##copy_fn *copy,                      \
                                                    cmf_##p##delete_fn *del, V extra)             \
    {                                                                                             \
        struct cmf_##p##keyval *k = cmf_alloc(sizeof *k);                                         \
        k->copy = copy;                                                                           \
        k->del = del;                                                                             \
        k->extra = extra;                                                                         \
        k->next = cmf_##p##keyvals;                                                               \
        cmf_##p##keyvals = k;                                                                     \
        return k;                                                                                 \
    }                                                                                             \
    static int p##copy_call(MPI_Fint obj, int keyval, void *extra, void *in, void *out, int *flag) \
    {                                                                                             \
        struct cmf_##p##keyval *k = extra;                                                        \
        MPI_Fint fkey = keyval, fflag = cmf_logical_false, ierror = MPI_SUCCESS;                  \
        V fin = (V)(MPI_Aint)in, fout = 0;                                                        \
        k->copy(&obj, &fkey, &k->extra, &fin, &fout, &fflag, &ierror);                            \
        *flag = cmf_from_logical(fflag);                                                          \
        if (*flag)                                                                                \
            *(void **)out = (void *)(MPI_Aint)fout;                                               \
        return ierror;                                                                            \
    }                                                                                             \
    static int p##delete_call(MPI_Fint obj, int keyval, void *val, void *extra)                   \
    {                                                                                             \
        struct cmf_##p##keyval *k = extra;                                                        \
        MPI_Fint fkey = keyval, ierror = MPI_SUCCESS;                                             \
        V fval = (V)(MPI_Aint)val;                                                                \
        k->del(&obj, &fkey, &fval, &k->extra, &ierror);                                           \
        return ierror;                                                                            \
    }                                                                                             \
    void cmf_##p##null_copy_fn(MPI_Fint *obj, MPI_Fint *keyval, V *extra, V *in, V *out,          \
                               MPI_Fint *flag, MPI_Fint *ierror)                                  \
    {                                                                                             \
        *flag = cmf_logical_false;                                                                \
        *ierror = MPI_SUCCESS;                                                                    \
    }                                                                                             \
    void cmf_##p##dup_fn(MPI_Fint *obj, MPI_Fint *keyval, V *extra, V *in, V *out,                \
                         MPI_Fint *flag, MPI_Fint *ierror)                                        \
    {                                                                                             \
        *out = *in;                                                                               \
        *flag = cmf_logical_true;                                                                 \
        *ierror = MPI_SUCCESS;                                                                    \
    }                                                                                             \
    void cmf_##p##null_delete_fn(MPI_Fint *obj, MPI_Fint *keyval, V *val, V *extra,               \
                                 MPI_Fint *ierror)                                                \
    {                                                                                             \
        *ierror = MPI_SUCCESS;                                                                    \
    }
#endif
