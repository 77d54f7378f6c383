/*
 * datatype_f90.c -- choosing a predefined datatype by size or by Fortran
 * precision and range: MPI_Type_match_size, MPI_Type_create_f90_integer/
 * real/complex.
 *
 * The answers are the Fortran sized types (MPI_INTEGER1..16, MPI_REAL2..16,
 * MPI_COMPLEX4..32) with gfortran's layout (core/dt_predefined.def), and
 * MPI_LONG_DOUBLE for gfortran's REAL(10).  Choosing the smallest type that
 * meets the request is what MPI-4.1 19.1.9 asks of these calls.
 *
 * Type_match_size returns the named type itself.  The f90 calls return a
 * type of that layout which is not named: MPI_Type_get_envelope says
 * MPI_COMBINER_F90_REAL/COMPLEX/INTEGER and MPI_Type_get_contents gives
 * back {p, r} (or {r}) as the program passed them (MPI-4.1 5.1.13).  It is
 * predefined all the same: Type_free refuses it (t->fixed), and the same
 * arguments give the same handle (found in the datatype table, not a cache
 * of our own, so nothing outlives MPI_Finalize), as 19.1.9 advises.
 */
#include "core/datatype.h"
#include "core/error.h"
#include "core/state.h"
#include "fe_lang.h"

/* Decimal precision and exponent range of the real kinds (Fortran's
 * PRECISION() and RANGE() of gfortran's kinds 4, 8, 10, 16).  Kind 10 (x87
 * extended) has no Fortran handle in the ABI: its C type stands in. */
static const struct {
    int p, r;
    MPI_Datatype real, complex;
} reals[] = {
    { 6, 37, MPI_REAL4, MPI_COMPLEX8 },
    { 15, 307, MPI_REAL8, MPI_COMPLEX16 },
    { 18, 4931, MPI_LONG_DOUBLE, MPI_C_LONG_DOUBLE_COMPLEX },
    { 33, 4931, MPI_REAL16, MPI_COMPLEX32 },
};

/* Size of a predefined type, 0 when this build lacks it (core/dt_basic.h). */
static int usable_size(MPI_Datatype t)
{
    const struct cm_datatype *d = cm_dt_lookup(t);
    return d ? (int)d->size : 0;
}

/* The f90 type of combiner with these ints, laid out as the named type base. */
static int f90_type(const char *call, int combiner, int ni, const int *ints, MPI_Datatype base,
                    MPI_Datatype *newtype)
{
    /* MPI_THREAD_MULTIPLE: one thread at a time finds or makes the type
     * (two would make two); the scan holds the table still. */
    static pthread_mutex_t f90_lock = PTHREAD_MUTEX_INITIALIZER;
    cm_mt_lock(&f90_lock);
    cm_dt_table_hold(1);
    for (int i = CM_DT_NUM_PREDEFINED; i < cm_dt_table_len; i++) {
        struct cm_datatype *t = cm_dt_table[i];
        if (t && t->fixed && cm_dt_contents_are(t, combiner, ni, ints)) {
            cm_dt_table_hold(0);
            cm_mt_unlock(&f90_lock);
            return *newtype = cm_dt_handle(i), MPI_SUCCESS;
        }
    }
    cm_dt_table_hold(0);
    MPI_Datatype h;
    int rc = PMPI_Type_dup(base, &h);
    if (rc != MPI_SUCCESS) {
        cm_mt_unlock(&f90_lock);
        return rc;
    }
    struct cm_datatype *t = cm_dt_lookup(h);
    cm_dt_free_contents(t); /* the Type_dup record */
    if (cm_dt_set_contents(t, combiner, ni, ints, 0, NULL, 0, NULL) != MPI_SUCCESS) {
        cm_dt_release(h);
        cm_mt_unlock(&f90_lock);
        return cm_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, call, "out of memory");
    }
    t->committed = 1;
    __atomic_store_n(&t->fixed, 1, __ATOMIC_RELEASE);
    cm_mt_unlock(&f90_lock);
    *newtype = h;
    return MPI_SUCCESS;
}

int cm_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
    static const char call[] = "MPI_Type_match_size";
    /* the Fortran sized types, as MPI-4.1 §19.1.9 asks (MPI_REAL4 for a
     * 4-byte real, ...), smallest first */
    static const MPI_Datatype ints[] = { MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4, MPI_INTEGER8, MPI_INTEGER16 };
    static const MPI_Datatype flts[] = { MPI_REAL2, MPI_REAL4, MPI_REAL8, MPI_REAL16 };
    static const MPI_Datatype cpxs[] = { MPI_COMPLEX4, MPI_COMPLEX8, MPI_COMPLEX16, MPI_COMPLEX32 };
    /* MPIX_TYPECLASS_LOGICAL: the ABI header reserves it (191); same rule */
    static const MPI_Datatype logs[] = { MPI_LOGICAL1, MPI_LOGICAL2, MPI_LOGICAL4, MPI_LOGICAL8, MPI_LOGICAL16 };
    cm_check_initialized(call);
    CM_ARG_NOT_NULL(MPI_COMM_WORLD, datatype, call);
    const MPI_Datatype *list = typeclass == MPI_TYPECLASS_INTEGER ? ints
                             : typeclass == MPI_TYPECLASS_REAL    ? flts
                             : typeclass == MPI_TYPECLASS_COMPLEX ? cpxs
                             : typeclass == MPIX_TYPECLASS_LOGICAL ? logs : NULL;
    size_t n = typeclass == MPI_TYPECLASS_INTEGER || typeclass == MPIX_TYPECLASS_LOGICAL ? sizeof ints / sizeof ints[0]
                                                                                       : sizeof flts / sizeof flts[0];
    if (!list)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call,
                        "typeclass %d is not MPI_TYPECLASS_INTEGER, _REAL, _COMPLEX or MPIX_TYPECLASS_LOGICAL", typeclass);
    for (size_t i = 0; i < n; i++)
        if (usable_size(list[i]) == size)
            return *datatype = list[i], MPI_SUCCESS;
    return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "no predefined type of typeclass %d has size %d", typeclass,
                    size);
}

int cm_Type_create_f90_integer(int r, MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_f90_integer";
    /* decimal exponent range of INTEGER1..16: 10^r - 1 must fit */
    static const struct { int r; MPI_Datatype t; } ints[] = {
        { 2, MPI_INTEGER1 }, { 4, MPI_INTEGER2 }, { 9, MPI_INTEGER4 }, { 18, MPI_INTEGER8 }, { 38, MPI_INTEGER16 } };
    cm_check_initialized(call);
    CM_ARG_NOT_NULL(MPI_COMM_WORLD, newtype, call);
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        if (r <= ints[i].r && usable_size(ints[i].t))
            return f90_type(call, MPI_COMBINER_F90_INTEGER, 1, &r, ints[i].t, newtype);
    return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "no integer type has a decimal range of %d (at most %d)", r,
                    usable_size(MPI_INTEGER16) ? 38 : 18);
}

static int f90_real(const char *call, int p, int r, int complex, MPI_Datatype *newtype)
{
    cm_check_initialized(call);
    CM_ARG_NOT_NULL(MPI_COMM_WORLD, newtype, call);
    if (p == MPI_UNDEFINED && r == MPI_UNDEFINED)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "p and r are both MPI_UNDEFINED");
    for (size_t i = 0; i < sizeof reals / sizeof reals[0]; i++) {
        MPI_Datatype t = complex ? reals[i].complex : reals[i].real;
        if ((p == MPI_UNDEFINED || p <= reals[i].p) && (r == MPI_UNDEFINED || r <= reals[i].r) && usable_size(t))
            return f90_type(call, complex ? MPI_COMBINER_F90_COMPLEX : MPI_COMBINER_F90_REAL, 2, (int[]){ p, r }, t,
                            newtype);
    }
    return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call,
                    "no real type has precision %d and range %d (at most %d and 4931)", p, r,
                    usable_size(MPI_REAL16) ? 33 : 18);
}

int cm_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
    return f90_real("MPI_Type_create_f90_real", p, r, 0, newtype);
}

int cm_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
    return f90_real("MPI_Type_create_f90_complex", p, r, 1, newtype);
}
