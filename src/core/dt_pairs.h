/*
 * dt_pairs.h -- the C layouts of the MINLOC/MAXLOC pair datatypes.
 *
 * The standard defines MPI_DOUBLE_INT etc. as struct { T val; int idx; }, so
 * the compiler's struct layout is the authority on padding (16 bytes for
 * double+int, 32 for long double+int on x86-64).  The index is an int
 * except in the Fortran pairs below, so its size is the type's size minus
 * the value's (core/dt_basic.h).
 */
#ifndef CM_CORE_DT_PAIRS_H
#define CM_CORE_DT_PAIRS_H

struct cm_pair_float_int       { float val;       int idx; };
struct cm_pair_double_int      { double val;      int idx; };
struct cm_pair_long_int        { long val;        int idx; };
struct cm_pair_2int            { int val;         int idx; };
struct cm_pair_short_int       { short val;       int idx; };
struct cm_pair_long_double_int { long double val; int idx; };

/* Fortran's pairs: the index has the value's type (MPI-4.1 §6.9.4). */
struct cm_pair_2integer          { int val;         int idx; };
struct cm_pair_2real             { float val;       float idx; };
struct cm_pair_2double_precision { double val;      double idx; };

#endif
