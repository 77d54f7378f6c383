/*
 * dt_basic.c -- size, extent, alignment and name of each predefined datatype.
 */
#include <stdalign.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <wchar.h>
#include <complex.h>
#include "core/dt_basic.h"
#include "core/dt_pairs.h"

struct cm_dt_basic_info {
    const char *name;
    size_t size;         /* data bytes */
    size_t extent;       /* array stride */
    size_t align;
    size_t pair_val;     /* pair types only: bytes of the value */
    size_t pair_idx_off; /* pair types only: offset of the int index */
};

#define CM_PLAIN(h, T) [CM_DTI_##h] = { #h, sizeof(T), sizeof(T), alignof(T), 0, 0 }
#define CM_PAIR(h, S, VT) \
    [CM_DTI_##h] = { #h, sizeof(VT) + sizeof(int), sizeof(S), alignof(S), sizeof(VT), offsetof(S, idx) }

static const struct cm_dt_basic_info cm_dt_basic_table[CM_DT_NUM_PREDEFINED] = {
    [CM_DTI_MPI_DATATYPE_NULL] = { "MPI_DATATYPE_NULL", 0, 0, 0, 0, 0 },
    CM_PLAIN(MPI_CHAR, char),
    CM_PLAIN(MPI_SIGNED_CHAR, signed char),
    CM_PLAIN(MPI_UNSIGNED_CHAR, unsigned char),
    CM_PLAIN(MPI_BYTE, unsigned char),
    CM_PLAIN(MPI_SHORT, short),
    CM_PLAIN(MPI_UNSIGNED_SHORT, unsigned short),
    CM_PLAIN(MPI_INT, int),
    CM_PLAIN(MPI_UNSIGNED, unsigned),
    CM_PLAIN(MPI_LONG, long),
    CM_PLAIN(MPI_UNSIGNED_LONG, unsigned long),
    CM_PLAIN(MPI_LONG_LONG_INT, long long),
    CM_PLAIN(MPI_UNSIGNED_LONG_LONG, unsigned long long),
    CM_PLAIN(MPI_FLOAT, float),
    CM_PLAIN(MPI_DOUBLE, double),
    CM_PLAIN(MPI_LONG_DOUBLE, long double),
    CM_PLAIN(MPI_WCHAR, wchar_t),
    CM_PLAIN(MPI_C_BOOL, bool),
    CM_PLAIN(MPI_INT8_T, int8_t),
    CM_PLAIN(MPI_INT16_T, int16_t),
    CM_PLAIN(MPI_INT32_T, int32_t),
    CM_PLAIN(MPI_INT64_T, int64_t),
    CM_PLAIN(MPI_UINT8_T, uint8_t),
    CM_PLAIN(MPI_UINT16_T, uint16_t),
    CM_PLAIN(MPI_UINT32_T, uint32_t),
    CM_PLAIN(MPI_UINT64_T, uint64_t),
    CM_PLAIN(MPI_AINT, MPI_Aint),
    CM_PLAIN(MPI_OFFSET, MPI_Offset),
    CM_PLAIN(MPI_COUNT, MPI_Count),
    CM_PLAIN(MPI_C_FLOAT_COMPLEX, float _Complex),
    CM_PLAIN(MPI_C_DOUBLE_COMPLEX, double _Complex),
    CM_PLAIN(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex),
    CM_PLAIN(MPI_PACKED, unsigned char),
    CM_PAIR(MPI_FLOAT_INT, struct cm_pair_float_int, float),
    CM_PAIR(MPI_DOUBLE_INT, struct cm_pair_double_int, double),
    CM_PAIR(MPI_LONG_INT, struct cm_pair_long_int, long),
    CM_PAIR(MPI_2INT, struct cm_pair_2int, int),
    CM_PAIR(MPI_SHORT_INT, struct cm_pair_short_int, short),
    CM_PAIR(MPI_LONG_DOUBLE_INT, struct cm_pair_long_double_int, long double),
    /* C++ bool and std::complex<T>: the layout of the C types (mpi.h) */
    CM_PLAIN(MPI_CXX_BOOL, bool),
    CM_PLAIN(MPI_CXX_FLOAT_COMPLEX, float _Complex),
    CM_PLAIN(MPI_CXX_DOUBLE_COMPLEX, double _Complex),
    CM_PLAIN(MPI_CXX_LONG_DOUBLE_COMPLEX, long double _Complex),
};

size_t cm_dt_basic_size(MPI_Datatype dt)
{
    return cm_dt_is_basic(dt) ? cm_dt_basic_table[cm_dt_index(dt)].size : 0;
}

size_t cm_dt_basic_extent(MPI_Datatype dt)
{
    return cm_dt_is_basic(dt) ? cm_dt_basic_table[cm_dt_index(dt)].extent : 0;
}

size_t cm_dt_basic_align(MPI_Datatype dt)
{
    return cm_dt_is_basic(dt) ? cm_dt_basic_table[cm_dt_index(dt)].align : 0;
}

const char *cm_dt_basic_name(MPI_Datatype dt)
{
    if (dt == MPI_DATATYPE_NULL)
        return cm_dt_basic_table[0].name;
    return cm_dt_is_basic(dt) ? cm_dt_basic_table[cm_dt_index(dt)].name : NULL;
}

int cm_dt_basic_pair_layout(MPI_Datatype dt, size_t *val_bytes, size_t *idx_offset)
{
    if (!cm_dt_is_basic(dt) || cm_dt_basic_table[cm_dt_index(dt)].pair_val == 0)
        return 0;
    if (val_bytes)
        *val_bytes = cm_dt_basic_table[cm_dt_index(dt)].pair_val;
    if (idx_offset)
        *idx_offset = cm_dt_basic_table[cm_dt_index(dt)].pair_idx_off;
    return 1;
}
