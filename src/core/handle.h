/*
 * handle.h -- public handle <-> table index, the one place that knows how
 * a handle's value is made (docs/abi.md section 2).
 *
 * Today's handles are the table index itself.  With the MPI-5.0 standard
 * header (MPI_ABI_VERSION defined) a handle is a pointer-sized value:
 * predefined ones have the standard's values, NPREDEF consecutive ones from
 * FIRST, at indices 0..NPREDEF-1 (NULL first, as today); created ones are
 * kind << 24 | index (index >= NPREDEF), never 0, never below 4096, always
 * a non-negative int (so MPI_<Handle>_toint is a cast), and a handle of
 * another kind never maps to an index.  An index function returns -1 for
 * a value that is no handle of its kind; callers still bound it by their
 * table's length.  Communicators: core/comm.h strips CM_COMM_COLL_BIT
 * first.  Datatypes and ops map predefined values into dense tables (below).
 */
#ifndef CM_CORE_HANDLE_H
#define CM_CORE_HANDLE_H

#include <stdint.h>
#include "mpi.h"

enum cm_h_kind {
    CM_H_COMM = 1, CM_H_GROUP, CM_H_DATATYPE, CM_H_OP, CM_H_REQUEST,
    CM_H_ERRHANDLER, CM_H_INFO, CM_H_MESSAGE, CM_H_SESSION, CM_H_WIN, CM_H_FILE
};
#define CM_H_KIND_SHIFT 24
#define CM_H_INDEX_MAX ((1 << CM_H_KIND_SHIFT) - 1)

/* Needed by both headers: MPI_Session is a pointer in both (mpi.h). */
static inline int cm_h_index(uintptr_t v, enum cm_h_kind kind, uintptr_t first, int npredef)
{
    if (v - first < (uintptr_t)npredef)
        return (int)(v - first);
    if ((v >> CM_H_KIND_SHIFT) != (uintptr_t)kind)
        return -1;
    int i = (int)(v & CM_H_INDEX_MAX);
    return i >= npredef ? i : -1;
}
static inline uintptr_t cm_h_value(int index, enum cm_h_kind kind, uintptr_t first, int npredef)
{
    return index < npredef ? first + (uintptr_t)index
                           : (uintptr_t)kind << CM_H_KIND_SHIFT | (uintptr_t)index;
}
#define CM_H_PAIR_PTR(name, Type, kind, first, npredef)                                    \
    static inline int cm_##name##_index(Type h)                                            \
    {                                                                                      \
        return cm_h_index((uintptr_t)h, kind, first, npredef);                             \
    }                                                                                      \
    static inline Type cm_##name##_handle(int index)                                       \
    {                                                                                      \
        return (Type)cm_h_value(index, kind, first, npredef);                              \
    }
#ifdef MPI_ABI_VERSION
#define CM_H_PAIR(name, Type, kind, first, npredef) CM_H_PAIR_PTR(name, Type, kind, first, npredef)
#else
#define CM_H_PAIR(name, Type, kind, first, npredef)                                        \
    static inline int cm_##name##_index(Type h) { return (int)h; }                         \
    static inline Type cm_##name##_handle(int index) { return (Type)index; }
#endif

/* The first predefined value and how many (MPI-5.0 ABI tables). */
CM_H_PAIR(group, MPI_Group, CM_H_GROUP, 0x108, 2)           /* NULL, EMPTY */
CM_H_PAIR(req, MPI_Request, CM_H_REQUEST, 0x180, 1)         /* NULL */
CM_H_PAIR(info, MPI_Info, CM_H_INFO, 0x130, 2)              /* NULL, ENV */
CM_H_PAIR(errh, MPI_Errhandler, CM_H_ERRHANDLER, 0x140, 4)  /* NULL, FATAL, ABORT, RETURN */
CM_H_PAIR(msg, MPI_Message, CM_H_MESSAGE, 0x128, 2)         /* NULL, NO_PROC */
CM_H_PAIR(comm, MPI_Comm, CM_H_COMM, 0x100, 3)              /* NULL, WORLD, SELF */
CM_H_PAIR_PTR(session, MPI_Session, CM_H_SESSION, 0x120, 1) /* NULL */
CM_H_PAIR_PTR(win, MPI_Win, CM_H_WIN, 0x110, 1)             /* NULL */
CM_H_PAIR_PTR(file, MPI_File, CM_H_FILE, 0x118, 1)          /* NULL (src/io) */


/* Predefined datatypes and ops live in dense tables (index 1..N-1, 0 is the
 * NULL handle) so the [op][type] kernel table stays small and direct.
 * Datatypes: core/dt_predefined.def, one line per type (name, low byte of the
 * standard's value, class, C type); ops: the list below (name, low byte).
 * The order is the dense order.  Datatypes are 0x200 | byte, ops 0x20 | byte;
 * the byte column is the MPI-5.0 ABI's (the Forum's header, docs/abi.md), checked
 * both ways by test abi.handles (cm_dt_handle(i) == MPI_x and back). */
#define CM_OP_PREDEFINED_LIST(X)                                                          \
    X(MAX, 0x03) X(MIN, 0x02) X(SUM, 0x01) X(PROD, 0x04) X(LAND, 0x10) X(BAND, 0x08)      \
    X(LOR, 0x11) X(BOR, 0x09) X(LXOR, 0x12) X(BXOR, 0x0a) X(MINLOC, 0x18)                 \
    X(MAXLOC, 0x19) X(REPLACE, 0x1c) X(NO_OP, 0x1d)

/* Dense indices by public name: CM_DTI(MPI_INT), CM_OPI(MPI_SUM) (the
 * argument is pasted, never expanded). */
#define CM_DTI(name) CM_DTI_##name
#define CM_OPI(name) CM_OPI_##name
#define CM_H_OPI_ENUM(n, b) CM_OPI_MPI_##n,
#define CM_DT(n, b, c, T) CM_DTI_MPI_##n,
enum {
    CM_DTI_MPI_DATATYPE_NULL,
#include "core/dt_predefined.def"
    CM_DT_NUM_PREDEFINED
};
#undef CM_DT
enum { CM_OPI_MPI_OP_NULL, CM_OP_PREDEFINED_LIST(CM_H_OPI_ENUM) CM_OP_NUM_PREDEFINED };
#define CM_DTI_MPI_LONG_LONG CM_DTI_MPI_LONG_LONG_INT
#define CM_DTI_MPI_C_COMPLEX CM_DTI_MPI_C_FLOAT_COMPLEX

#ifdef MPI_ABI_VERSION
/* byte -> dense index (0: no predefined type, or NULL) and dense index -> byte. */
#define CM_H_BYTE_TO_OPI(n, b) [b] = CM_OPI_MPI_##n,
#define CM_H_OPI_TO_BYTE(n, b) [CM_OPI_MPI_##n] = b,
#define CM_DT(n, b, c, T) [b] = CM_DTI_MPI_##n,
static const unsigned char cm_h_dt_of_byte[256] = {
#include "core/dt_predefined.def"
};
#undef CM_DT
#define CM_DT(n, b, c, T) [CM_DTI_MPI_##n] = b,
static const unsigned char cm_h_byte_of_dt[CM_DT_NUM_PREDEFINED] = {
#include "core/dt_predefined.def"
};
#undef CM_DT
static const unsigned char cm_h_op_of_byte[32] = { CM_OP_PREDEFINED_LIST(CM_H_BYTE_TO_OPI) };
static const unsigned char cm_h_byte_of_op[CM_OP_NUM_PREDEFINED] = { CM_OP_PREDEFINED_LIST(CM_H_OPI_TO_BYTE) };

/* base: the NULL handle's value (0x200, 0x20); span: values base..base+span-1
 * are predefined. */
static inline int cm_h_dense_index(uintptr_t v, uintptr_t base, uintptr_t span,
                                   const unsigned char *of_byte, enum cm_h_kind kind, int npredef)
{
    if (v - base < span) {
        int i = of_byte[v - base];
        return i ? i : v == base ? 0 : -1;
    }
    if ((v >> CM_H_KIND_SHIFT) != (uintptr_t)kind)
        return -1;
    int i = (int)(v & CM_H_INDEX_MAX);
    return i >= npredef ? i : -1;
}
static inline int cm_dt_index(MPI_Datatype h)
{
    return cm_h_dense_index((uintptr_t)h, 0x200, 0x100, cm_h_dt_of_byte, CM_H_DATATYPE,
                            CM_DT_NUM_PREDEFINED);
}
static inline MPI_Datatype cm_dt_handle(int index)
{
    return (MPI_Datatype)(index < CM_DT_NUM_PREDEFINED ? 0x200 | (uintptr_t)cm_h_byte_of_dt[index]
                                                       : (uintptr_t)CM_H_DATATYPE << CM_H_KIND_SHIFT | (uintptr_t)index);
}
static inline int cm_op_index(MPI_Op h)
{
    return cm_h_dense_index((uintptr_t)h, 0x20, 0x20, cm_h_op_of_byte, CM_H_OP, CM_OP_NUM_PREDEFINED);
}
static inline MPI_Op cm_op_handle(int index)
{
    return (MPI_Op)(index < CM_OP_NUM_PREDEFINED ? 0x20 | (uintptr_t)cm_h_byte_of_op[index]
                                                 : (uintptr_t)CM_H_OP << CM_H_KIND_SHIFT | (uintptr_t)index);
}
#else
static inline int cm_dt_index(MPI_Datatype h) { return (int)h; }
static inline MPI_Datatype cm_dt_handle(int index) { return (MPI_Datatype)index; }
static inline int cm_op_index(MPI_Op h) { return (int)h; }
static inline MPI_Op cm_op_handle(int index) { return (MPI_Op)index; }
#endif

#endif
