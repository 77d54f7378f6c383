/* fbind_util.h -- what the generated Fortran bindings (build/gen/fortran/
 * fbind.c, from spec/gen_fortran.py) and the hand-written ones share:
 * the sentinels, logical and string conversion, the facts a length
 * expression of the spec names.  docs/fortran.md has the conventions.
 *
 * This library sits above libmpi (src/layers.txt, "fortran"): it sees only
 * the public mpi.h and calls only MPI_/PMPI_ functions. */
#ifndef CMF_FBIND_UTIL_H
#define CMF_FBIND_UTIL_H
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include <ISO_Fortran_binding.h>

/* A Fortran name for a binding: mpi_send__, mpi_send, MPI_SEND share
 * mpi_send_'s code (gfortran's, f2c's, no-underscore and upper-case manglings). */
#define CMF_ALIAS(target, name) \
    extern __typeof__(target) name __attribute__((alias(#target), visibility("default")));
/* The name module mpi_f08's procedures call (cmf08_send_): not exported. */
#define CMF_ALIAS_HIDDEN(target, name) \
    extern __typeof__(target) name __attribute__((alias(#target), visibility("hidden")));
/* The other Fortran names of a hand-written pair mpi_<n>_ / pmpi_<n>_. */
#define CMF_NAMES(n, N) \
    CMF_ALIAS(mpi_##n##_, mpi_##n##__) CMF_ALIAS(mpi_##n##_, mpi_##n) CMF_ALIAS(mpi_##n##_, MPI_##N) \
    CMF_ALIAS(pmpi_##n##_, pmpi_##n##__) CMF_ALIAS(pmpi_##n##_, pmpi_##n) CMF_ALIAS(pmpi_##n##_, PMPI_##N)
/* A predefined callback's names: lower case only (mpi.h has the upper-case
 * ones as the C constants). */
#define CMF_LOWER_NAMES(target, n) \
    CMF_ALIAS(target, n##_) CMF_ALIAS(target, n##__) CMF_ALIAS(target, n)

/* The sentinels: common blocks /MPI_FORTRAN_<NAME>/ of mpif.h and module mpi;
 * their address is what a Fortran program passes. */
extern MPI_Fint mpi_fortran_bottom_, mpi_fortran_in_place_, mpi_fortran_buffer_automatic_;
extern MPI_Fint mpi_fortran_status_ignore_[MPI_F_STATUS_SIZE];
extern MPI_Fint mpi_fortran_statuses_ignore_[MPI_F_STATUS_SIZE];
extern MPI_Fint mpi_fortran_errcodes_ignore_[1], mpi_fortran_unweighted_[1];
extern MPI_Fint mpi_fortran_weights_empty_[1];
extern char mpi_fortran_argv_null_[1], mpi_fortran_argvs_null_[1];

/* A Fortran integer handle and the C one: MPI_<Handle>_fromint/_toint,
 * which the MPI-5.0 ABI makes casts in corempi (docs/abi.md section 5:
 * every handle value fits an int), inlined: a Fortran call pays no call
 * per handle argument. */
#define CMF_FROMINT(Type, i) ((Type)(intptr_t)(i))
#define CMF_TOINT(h) ((MPI_Fint)(intptr_t)(h))

/* A choice buffer: MPI_BOTTOM, MPI_IN_PLACE, MPI_BUFFER_AUTOMATIC become C's. */
static inline void *cmf_buf(void *p)
{
    if (p == &mpi_fortran_bottom_)
        return MPI_BOTTOM;
    if (p == &mpi_fortran_in_place_)
        return MPI_IN_PLACE;
    if (p == &mpi_fortran_buffer_automatic_)
        return MPI_BUFFER_AUTOMATIC;
    return p;
}

/* Whether the array a descriptor describes is contiguous (Fortran's
 * rule: a dimension of extent 1 may have any stride; an empty array is),
 * for mpi_f08's direct entries (spec/gen_fortran.py direct_entry); a scalar
 * (a sentinel, one value) is rank 0. */
static inline int cmf_contiguous(const CFI_cdesc_t *d)
{
    CFI_index_t want = (CFI_index_t)d->elem_len;
    for (int k = 0; k < d->rank; k++) {
        CFI_index_t e = d->dim[k].extent;
        if (e == 0)
            return 1;
        if (e != 1 && d->dim[k].sm != want)
            return 0;
        want *= e;
    }
    return 1;
}

/* Room for a descriptor of any rank.  The sections' path hands the caller's
 * descriptors on to a BIND(C) Fortran procedure (cmf08s_<name>), whose entry
 * code reads dim[0] even of a rank-0 descriptor (gfortran 12; ASan in
 * fortran.sections: MPI_IN_PLACE beside a section), past the end of the 24
 * bytes the caller made for a scalar.  The copy has every dimension's room;
 * the caller's base address and dimensions are copied, the rest is zero. */
typedef CFI_CDESC_T(CFI_MAX_RANK) cmf_desc_room_t;
static inline CFI_cdesc_t *cmf_desc_room(CFI_cdesc_t *d, cmf_desc_room_t *room)
{
    memset(room, 0, sizeof *room);
    memcpy(room, d, sizeof(CFI_cdesc_t) + (size_t)d->rank * sizeof(CFI_dim_t));
    return (CFI_cdesc_t *)room;
}

/* A Fortran status is MPI_STATUS_SIZE (8) integers laid out as MPI_Status
 * (mpi.h: MPI_F_STATUS_SIZE, MPI_F_SOURCE...), so it is passed as it is. */
static inline MPI_Status *cmf_status(MPI_Fint *s)
{
    if (s == mpi_fortran_status_ignore_ || s == mpi_fortran_statuses_ignore_)
        return NULL;
    return (MPI_Status *)(void *)s;
}

static inline int *cmf_intarray(MPI_Fint *a)
{
    if (a == mpi_fortran_errcodes_ignore_)
        return MPI_ERRCODES_IGNORE;
    if (a == mpi_fortran_unweighted_)
        return MPI_UNWEIGHTED;
    if (a == mpi_fortran_weights_empty_)
        return MPI_WEIGHTS_EMPTY;
    return a;
}

/* LOGICAL: what the compiler writes for .TRUE./.FALSE. (gfortran: 1, 0;
 * MPI_Abi_set_fortran_booleans may change them, fbind_util.c). */
extern MPI_Fint cmf_logical_true, cmf_logical_false;
static inline int cmf_from_logical(MPI_Fint l) { return l != cmf_logical_false; }
static inline MPI_Fint cmf_to_logical(int v) { return v ? cmf_logical_true : cmf_logical_false; }

static inline size_t cmf_max(size_t a, size_t b) { return a > b ? a : b; }

void *cmf_alloc(size_t n);
/* A Fortran CHARACTER*(len) argument as a C string (trailing blanks off): free it. */
char *cmf_cstring(const char *f, size_t len);
/* The C string c into a Fortran CHARACTER*(len), blank-padded. */
void cmf_fstring(const char *c, char *f, size_t len);

/* An argument list: a Fortran array of CHARACTER*(len), its end a blank
 * element (MPI-4.1 §11.8.2), as C's NULL-terminated char **; MPI_ARGV_NULL
 * as NULL.  cmf_argv_free frees it. */
char **cmf_argv(const char *f, size_t len);
void cmf_argv_free(char **argv);
/* n strings (trimmed), as a char ** of n: freed by cmf_argv_free (n+1 with NULL). */
char **cmf_strings(const char *f, size_t len, int n);
/* ARRAY_OF_ARGV(N, *): list i is elements (i, 1), (i, 2) ... up to a blank
 * one; MPI_ARGVS_NULL as NULL.  cmf_argvs_free frees it. */
char ***cmf_argvs(const char *f, size_t len, int n);
void cmf_argvs_free(char ***argvs);

/* The facts a spec length expression names (docs/spec.md). */
int cmf_size(MPI_Comm comm);
int cmf_rsize(MPI_Comm comm);
int cmf_rank(MPI_Comm comm);
int cmf_ndims(MPI_Comm comm);
int cmf_indegree(MPI_Comm comm);
int cmf_outdegree(MPI_Comm comm);

/* An attribute's value as Fortran sees it: a predefined attribute's C value
 * is the address of an int (an MPI_Aint for MPI_WIN_SIZE; MPI_WIN_BASE the
 * base itself), a Fortran program gets the number. */
MPI_Aint cmf_attr_value(int keyval, void *c_value, int is_win);
#endif
