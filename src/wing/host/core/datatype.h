/*
 * core/datatype.h for the wing: the engine reads a type's size, bounds and
 * signature class from this record; wing/types.c fills one per host type
 * it has decoded through the host's own MPI_Type_get_envelope and
 * MPI_Type_get_extent (docs/wing.md, "Types and ops").
 */
#ifndef CM_CORE_DATATYPE_H
#define CM_CORE_DATATYPE_H
#include <stddef.h>
#include <mpi.h>

struct cm_datatype {
    size_t size;                /* bytes of data in one element */
    MPI_Aint lb, extent;
    MPI_Aint true_lb, true_extent;
    int basic;                  /* the wing's index of the one basic type it is (0: derived) */
    int elem;                   /* the wing's index of the basic type it is made of (0: mixed) */
    unsigned char sig_class;    /* 1 + elem for a homogeneous type, 0xff mixed, 0 none */
    MPI_Datatype handle;        /* the host's handle it describes */
    MPI_Datatype elem_handle;   /* the one named type all its data is made of, else MPI_DATATYPE_NULL */
};
#define CM_DT_SIG_MIXED 0xffu

/* The record of host type h (decoded on first use, then cached); NULL for
 * MPI_DATATYPE_NULL or a type the host refuses to describe. */
const struct cm_datatype *cm_wing_dt(MPI_Datatype h);
static inline const struct cm_datatype *cm_dt_lookup(MPI_Datatype h) { return cm_wing_dt(h); }

/* Bytes [off, off + len) of the packed form of count elements of t
 * (through the host's PMPI_Pack of the whole: the engine asks for pieces
 * only of vectors larger than a slot); returns len. */
size_t cm_dt_pack_range(const void *buf, int count, const struct cm_datatype *t, size_t off, void *out, size_t len);
size_t cm_dt_unpack_range(const void *in, size_t len, void *buf, int count, const struct cm_datatype *t, size_t off);
#endif
