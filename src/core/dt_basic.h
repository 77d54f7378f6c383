/*
 * dt_basic.h -- facts about the predefined datatypes (dense indices
 * 1..CM_DT_NUM_PREDEFINED-1 of core/handle.h).
 *
 * The datatype engine builds its predefined objects from these, and the
 * reduction code uses them without needing the engine (so it can be unit
 * tested alone).  The pair types of MINLOC/MAXLOC are laid out as the C
 * struct { T val; int idx; }: their size (data bytes) is smaller than their
 * extent (struct size with padding), e.g. MPI_DOUBLE_INT: size 12, extent 16.
 */
#ifndef CM_CORE_DT_BASIC_H
#define CM_CORE_DT_BASIC_H

#include <stddef.h>
#include "mpi.h"
#include "core/handle.h"

/* C types of the Fortran sizes and half floats that not every compiler has
 * (core/dt_predefined.def names them).  Without the compiler type, a stand-in
 * of the right size keeps the table's shape, and cm_dt_basic_missing says
 * why the type cannot be used. */
#ifdef __SIZEOF_INT128__
typedef __int128 cm_int128_t;
#define CM_HAVE_INT128 1
#else
typedef struct { _Alignas(16) unsigned char b[16]; } cm_int128_t;
#define CM_HAVE_INT128 0
#endif
#ifdef __FLT16_MANT_DIG__
typedef _Float16 cm_float16_t;
typedef _Complex _Float16 cm_complex_float16_t;
#define CM_HAVE_FLOAT16 1
#else
typedef struct { unsigned short bits; } cm_float16_t;
typedef struct { unsigned short re, im; } cm_complex_float16_t;
#define CM_HAVE_FLOAT16 0
#endif
#if defined(__FLT128_MANT_DIG__) && __FLT128_MANT_DIG__ == 113
typedef _Float128 cm_float128_t;
typedef _Complex _Float128 cm_complex_float128_t;
#define CM_HAVE_FLOAT128 1
#else
typedef struct { _Alignas(16) unsigned char b[16]; } cm_float128_t;
typedef struct { cm_float128_t re, im; } cm_complex_float128_t;
#define CM_HAVE_FLOAT128 0
#endif
/* bfloat16: the high 16 bits of an IEEE float, handled as bits everywhere. */
typedef unsigned short cm_bfloat16_t;

/* What one element is (core/dt_predefined.def's class column).  NONE: not a
 * predefined type, or one this compiler has no C type for. */
enum cm_dt_class {
    CM_DTC_NONE, CM_DTC_INTEGER, CM_DTC_FLOAT, CM_DTC_COMPLEX, CM_DTC_LOGICAL,
    CM_DTC_BYTE, CM_DTC_CHAR, CM_DTC_PAIR
};

/* 1 when dt is a predefined datatype handle. */
static inline int cm_dt_is_basic(MPI_Datatype dt)
{
    int i = cm_dt_index(dt);
    return i > 0 && i < CM_DT_NUM_PREDEFINED;
}

/* Bytes of data in one element (MPI_Type_size); 0 for a non-predefined handle. */
size_t cm_dt_basic_size(MPI_Datatype dt);

/* Distance between consecutive elements in an array (MPI_Type_get_extent); 0 if not predefined. */
size_t cm_dt_basic_extent(MPI_Datatype dt);

/* Alignment of the C type, for placing it inside derived types; 0 if not predefined. */
size_t cm_dt_basic_align(MPI_Datatype dt);

/* "MPI_INT"; "MPI_DATATYPE_NULL" for 0; NULL for other non-predefined handles. */
const char *cm_dt_basic_name(MPI_Datatype dt);

/* The class of a predefined type; CM_DTC_NONE for any other handle and for
 * a type cm_dt_basic_missing refuses. */
enum cm_dt_class cm_dt_basic_class(MPI_Datatype dt);

/* Why a predefined type of the header is not available in this build
 * ("REAL16 needs _Float128, which this C compiler lacks"), or NULL when it
 * is available (or dt is not predefined).  Such a type has no datatype
 * object: every call refuses it with MPI_ERR_TYPE and this text. */
const char *cm_dt_basic_missing(MPI_Datatype dt);

/* For the MINLOC/MAXLOC pair types: 1, with the value's byte count and the
 * offset of the index (the two blocks of one element are [0, *val_bytes)
 * and [*idx_offset, *idx_offset + size - *val_bytes): the index is an int,
 * or of the value's type in MPI_2REAL etc.).  0 for every other type. */
int cm_dt_basic_pair_layout(MPI_Datatype dt, size_t *val_bytes, size_t *idx_offset);

#endif
