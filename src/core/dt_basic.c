/*
 * dt_basic.c -- size, extent, alignment, class and name of each predefined
 * datatype, all read from core/dt_predefined.def.
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
    enum cm_dt_class cls;
    size_t size;         /* data bytes */
    size_t extent;       /* array stride */
    size_t align;
    size_t pair_val;     /* pair types only: bytes of the value */
    size_t pair_idx_off; /* pair types only: offset of the index */
};

/* One row per line of core/dt_predefined.def; the class picks the row's
 * shape (a pair's data is its two members, without the padding). */
#define CM_ROW_PLAIN(n, c, T) [CM_DTI_MPI_##n] = { "MPI_" #n, CM_DTC_##c, sizeof(T), sizeof(T), alignof(T), 0, 0 },
#define CM_ROW_PAIR(n, c, T)                                                                  \
    [CM_DTI_MPI_##n] = { "MPI_" #n, CM_DTC_PAIR, sizeof(((T *)0)->val) + sizeof(((T *)0)->idx), \
                         sizeof(T), alignof(T), sizeof(((T *)0)->val), offsetof(T, idx) },
#define CM_ROW_INTEGER CM_ROW_PLAIN
#define CM_ROW_FLOAT CM_ROW_PLAIN
#define CM_ROW_COMPLEX CM_ROW_PLAIN
#define CM_ROW_LOGICAL CM_ROW_PLAIN
#define CM_ROW_BYTE CM_ROW_PLAIN
#define CM_ROW_CHAR CM_ROW_PLAIN
#define CM_ROW_NONE CM_ROW_PLAIN
#define CM_DT(n, b, c, T) CM_ROW_##c(n, c, T)

static const struct cm_dt_basic_info cm_dt_basic_table[CM_DT_NUM_PREDEFINED] = {
    [CM_DTI_MPI_DATATYPE_NULL] = { "MPI_DATATYPE_NULL", CM_DTC_NONE, 0, 0, 0, 0, 0 },
#include "core/dt_predefined.def"
};
#undef CM_DT

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

const char *cm_dt_basic_missing(MPI_Datatype dt)
{
#if !CM_HAVE_FLOAT16
    if (dt == MPI_REAL2 || dt == MPI_COMPLEX4 || dt == MPI_FLOAT16)
        return "needs _Float16, which this C compiler lacks";
#endif
#if !CM_HAVE_FLOAT128
    if (dt == MPI_REAL16 || dt == MPI_COMPLEX32)
        return "needs _Float128 (gfortran's REAL(16)), which this C compiler lacks";
#endif
#if !CM_HAVE_INT128
    if (dt == MPI_INTEGER16 || dt == MPI_LOGICAL16)
        return "needs __int128, which this C compiler lacks";
#endif
    (void)dt;
    return NULL;
}

enum cm_dt_class cm_dt_basic_class(MPI_Datatype dt)
{
    if (!cm_dt_is_basic(dt) || cm_dt_basic_missing(dt))
        return CM_DTC_NONE;
    return cm_dt_basic_table[cm_dt_index(dt)].cls;
}
