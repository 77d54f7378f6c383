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
 * first.  Datatypes and ops (value maps into dense tables) get theirs with
 * the switch.
 */
#ifndef CM_CORE_HANDLE_H
#define CM_CORE_HANDLE_H

#include <stdint.h>
#include "mpi.h"

enum cm_h_kind {
    CM_H_COMM = 1, CM_H_GROUP, CM_H_DATATYPE, CM_H_OP, CM_H_REQUEST,
    CM_H_ERRHANDLER, CM_H_INFO, CM_H_MESSAGE, CM_H_SESSION
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
CM_H_PAIR(errh, MPI_Errhandler, CM_H_ERRHANDLER, 0x140, 4)  /* NULL, FATAL, RETURN, ABORT */
CM_H_PAIR(msg, MPI_Message, CM_H_MESSAGE, 0x128, 2)         /* NULL, NO_PROC */
CM_H_PAIR(comm, MPI_Comm, CM_H_COMM, 0x100, 3)              /* NULL, WORLD, SELF */
CM_H_PAIR_PTR(session, MPI_Session, CM_H_SESSION, 0x120, 1) /* NULL */

#endif
