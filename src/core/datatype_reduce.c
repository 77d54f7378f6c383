/*
 * datatype_reduce.c -- a predefined reduction op on a derived datatype
 * (MPI_Reduce_local, and the collectives through it).
 *
 * MPI allows it when all the data is of one basic type.  Blocks of the layout
 * are runs of whole basic elements (merging only ever joins whole elements),
 * so the op is applied block by block in place, with no copies.  The pair
 * types of MINLOC/MAXLOC are the exception: their blocks split each element
 * into value and index, so those go through packed copies laid out as the C
 * struct the kernel expects.
 */
#include "core/datatype.h"
#include "core/dt_basic.h"
#include "core/op.h"

#include <stdlib.h>
#include <string.h>

/* Pair elements: packed (value bytes, index bytes) <-> the C struct layout
 * (the index is an int, or of the value's type: MPI_2REAL etc.). */
static void pairs_spread(const char *packed, char *native, size_t n, size_t val, size_t idx, size_t idx_off,
                         size_t ext)
{
    for (size_t i = 0; i < n; i++) {
        memcpy(native + i * ext, packed + i * (val + idx), val);
        memcpy(native + i * ext + idx_off, packed + i * (val + idx) + val, idx);
    }
}

static void pairs_gather(const char *native, char *packed, size_t n, size_t val, size_t idx, size_t idx_off,
                         size_t ext)
{
    for (size_t i = 0; i < n; i++) {
        memcpy(packed + i * (val + idx), native + i * ext, val);
        memcpy(packed + i * (val + idx) + val, native + i * ext + idx_off, idx);
    }
}

static int reduce_pairs(const void *in, void *inout, int count, const struct cm_datatype *t, MPI_Op op)
{
    size_t val, idx_off, ext = cm_dt_basic_extent(t->basic);
    cm_dt_basic_pair_layout(t->basic, &val, &idx_off);
    size_t idx = cm_dt_basic_size(t->basic) - val;
    size_t n = (size_t)count * t->nbasic, bytes = (size_t)count * t->size;
    char *pin = malloc(bytes), *pio = malloc(bytes);
    char *nin = calloc(n, ext), *nio = calloc(n, ext);
    int rc = MPI_ERR_NO_MEM;
    if (pin && pio && nin && nio) {
        cm_dt_pack(in, count, t, pin);
        cm_dt_pack(inout, count, t, pio);
        pairs_spread(pin, nin, n, val, idx, idx_off, ext);
        pairs_spread(pio, nio, n, val, idx, idx_off, ext);
        rc = cm_op_apply(op, t->basic, nin, nio, n);
        if (rc == MPI_SUCCESS) {
            pairs_gather(nio, pio, n, val, idx, idx_off, ext);
            cm_dt_unpack(pio, bytes, inout, count, t);
        }
    }
    free(pin);
    free(pio);
    free(nin);
    free(nio);
    return rc;
}

int cm_dt_reduce_local_derived(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op)
{
    const struct cm_datatype *t = cm_dt_lookup(datatype);
    if (!t)
        return MPI_ERR_TYPE;
    if (count <= 0 || t->size == 0)
        return MPI_SUCCESS;
    if (t->basic == 0)
        return MPI_ERR_OP; /* mixed basic types: no predefined op applies */
    if (!cm_op_allowed(op, t->basic))
        return MPI_ERR_OP;
    if (cm_dt_basic_pair_layout(t->basic, NULL, NULL))
        return reduce_pairs(inbuf, inoutbuf, count, t, op);

    size_t bs = cm_dt_basic_size(t->basic);
    const char *in = inbuf;
    char *io = inoutbuf;
    if (t->contig)
        return cm_op_apply(op, t->basic, in + t->true_lb, io + t->true_lb, (size_t)count * t->nbasic);
    for (int e = 0; e < count; e++) {
        MPI_Aint base = (MPI_Aint)e * t->extent;
        for (size_t r = 0; r < t->rep_count; r++) {
            MPI_Aint rb = base + (MPI_Aint)r * t->rep_stride;
            for (size_t b = 0; b < t->nblocks; b++) {
                MPI_Aint d = rb + t->blocks[b].disp;
                int rc = cm_op_apply(op, t->basic, in + d, io + d, t->blocks[b].len / bs);
                if (rc != MPI_SUCCESS)
                    return rc;
            }
        }
    }
    return MPI_SUCCESS;
}
