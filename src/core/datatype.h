/*
 * datatype.h -- datatypes: handle table, sizes, extents, and packing.
 *
 * Predefined types are built at MPI_Init and never freed.  A datatype is
 * "contiguous" when count elements occupy size*count bytes starting at
 * buf + true_lb with no holes; point-to-point then copies straight from/to the
 * user's buffer.  Other types are packed into a staging buffer.
 */
#ifndef CM_CORE_DATATYPE_H
#define CM_CORE_DATATYPE_H

#include <stddef.h>
#include <stdint.h>
#include "mpi.h"

struct cm_dt_block {        /* one contiguous run of a flattened type */
    MPI_Aint disp;          /* from the element's start (buf) */
    size_t len;             /* bytes */
};

struct cm_datatype {
    size_t size;            /* bytes of data in one element */
    MPI_Aint lb, extent;
    MPI_Aint true_lb, true_extent;
    int contig;             /* see above */
    int predefined;
    int committed;
    int refcount;
    MPI_Datatype basic;     /* the one predefined type all data is made of, or 0 if mixed */
    size_t nbasic;          /* number of basic elements in one element */
    struct cm_dt_block *blocks; /* flattened layout of one element (non-contiguous types) */
    size_t nblocks;
    char name[MPI_MAX_OBJECT_NAME];
    void *contents;         /* constructor arguments (core/datatype_create.c) */
    void *attrs;
};

extern struct cm_datatype **cm_dt_table;
extern int cm_dt_table_len;

static inline struct cm_datatype *cm_dt_lookup(MPI_Datatype h)
{
    if (h <= 0 || h >= cm_dt_table_len)
        return NULL;
    return cm_dt_table[h];
}

int cm_dt_init(void);
void cm_dt_finalize(void);

/* Register a new datatype object; returns its handle. */
MPI_Datatype cm_dt_register(struct cm_datatype *t);

/* Pack count elements at buf into out (size*count bytes). */
void cm_dt_pack(const void *buf, int count, const struct cm_datatype *t, void *out);
/* Unpack bytes (a multiple of t->size, or a partial last element) into buf. */
void cm_dt_unpack(const void *in, size_t bytes, void *buf, int count, const struct cm_datatype *t);

/* Check a datatype argument: valid handle, committed.  Returns 0 or raises. */
int cm_dt_check(MPI_Comm comm, MPI_Datatype dt, const char *call, const char *argname);

#endif
