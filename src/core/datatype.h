/*
 * datatype.h -- datatypes: handle table, sizes, extents, and packing.
 *
 * Predefined types are built at MPI_Init and never freed.  A datatype is
 * "contiguous" when count elements occupy size*count bytes starting at
 * buf + true_lb with no holes; point-to-point then copies straight from/to the
 * user's buffer.  Other types are packed into a staging buffer.
 *
 * Layout of one element (every type, predefined or derived, has one):
 *   for rep in [0, rep_count):           (a "vector" repetition)
 *     for b in [0, nblocks):
 *       bytes [disp_b + rep*rep_stride, + len_b) of the element
 * in the order the data travels (typemap order).  Adjacent blocks are merged
 * when the typemap allows it; a vector of count x blocklen x stride is ONE
 * block repeated count times, so packing it costs one copy per block and no
 * per-block bookkeeping.  notes/datatypes.md has the details.
 *
 * Files: datatype.c (table, predefined types, queries), datatype_create.c
 * (constructors, commit/free/dup/names), datatype_flatten.c (building the
 * layout), datatype_pack.c (the pack engine, MPI_Pack*, external32),
 * datatype_contents.c (envelope/contents), datatype_reduce.c (Reduce_local on
 * derived types).
 */
#ifndef CM_CORE_DATATYPE_H
#define CM_CORE_DATATYPE_H

#include <stddef.h>
#include <stdint.h>
#include "mpi.h"
#include "core/handle.h"
#include "core/thread.h"

struct cm_dt_block {        /* one contiguous run of a flattened type */
    MPI_Aint disp;          /* from the element's start (buf) */
    size_t len;             /* bytes */
    size_t packed;          /* offset of this run in the packed bytes of one repetition */
};

/* Type signature of a mixed type (basic == 0): runs of n basic elements, the
 * whole list repeated sig_rep times.  Used by Get_elements and external32. */
struct cm_dt_run {
    MPI_Datatype basic;
    size_t n;
};

struct cm_datatype {
    size_t size;            /* bytes of data in one element */
    MPI_Aint lb, extent;
    MPI_Aint true_lb, true_extent;
    int contig;             /* see above */
    int predefined;
    int fixed;              /* not named but the library's (MPI_Type_create_f90_*): Type_free refuses it */
    int committed;
    int refcount;           /* user handle + types built on it + pending requests */
    int sticky_bounds;      /* lb/ub were set by Type_create_resized (no struct padding) */
    MPI_Datatype basic;     /* the one predefined type all data is made of, or 0 if mixed */
    unsigned char sig_class; /* cm_dt_sig_class_of(basic), kept beside it */
    size_t nbasic;          /* number of basic elements in one element */
    size_t align;           /* largest alignment of the basic types inside */
    struct cm_dt_block *blocks; /* layout of one repetition of one element (see above) */
    size_t nblocks;
    size_t rep_count;       /* >= 1 */
    MPI_Aint rep_stride;    /* bytes between repetitions */
    struct cm_dt_run *sig;  /* mixed types only */
    size_t nsig, sig_rep;
    char name[MPI_MAX_OBJECT_NAME];
    void *contents;         /* constructor arguments (core/datatype_contents.c) */
    void *attrs;
};

/* The class of a type signature that the collectives' default check
 * compares (coll/direct/direct.h, argument agreement): the dense index of
 * the one predefined type the data is made of, a homogeneous pair type
 * counting as its value type (n MPI_2INT match 2n MPI_INT), CM_DT_SIG_MIXED
 * for any mix of types, 0 for MPI_PACKED (matches any signature).  Equal
 * signatures have equal classes; different classes, different signatures. */
#define CM_DT_SIG_MIXED 0xffu
static inline unsigned char cm_dt_sig_class_of(MPI_Datatype basic)
{
    switch (cm_dt_index(basic)) {
    case CM_DTI_MPI_PACKED: return 0;
    case CM_DTI_MPI_2INT: return CM_DTI_MPI_INT;
    case CM_DTI_MPI_2INTEGER: return CM_DTI_MPI_INTEGER;
    case CM_DTI_MPI_2REAL: return CM_DTI_MPI_REAL;
    case CM_DTI_MPI_2DOUBLE_PRECISION: return CM_DTI_MPI_DOUBLE_PRECISION;
    case CM_DTI_MPI_FLOAT_INT: case CM_DTI_MPI_DOUBLE_INT: case CM_DTI_MPI_LONG_INT: case CM_DTI_MPI_SHORT_INT:
    case CM_DTI_MPI_LONG_DOUBLE_INT: case CM_DTI_MPI_DATATYPE_NULL: return CM_DT_SIG_MIXED;
    default: return (unsigned char)cm_dt_index(basic);
    }
}
_Static_assert(CM_DT_NUM_PREDEFINED < CM_DT_SIG_MIXED, "a predefined type's index is its class");

extern struct cm_datatype **cm_dt_table;
extern int cm_dt_table_len;

static inline struct cm_datatype *cm_dt_lookup(MPI_Datatype h)
{
    int i = cm_dt_index(h);
    if (i <= 0 || i >= CM_RACY_LOAD(cm_dt_table_len))
        return NULL;
    return CM_RACY_LOAD(CM_RACY_LOAD(cm_dt_table)[i]);
}

/* A NULL buffer is MPI_BOTTOM: legal when the datatype's displacements are
 * absolute addresses (MPI_Get_address).  It is an error only when the data
 * would start in the first page, where no object can live: a predefined or
 * relative type at NULL.  Returns that start (to name it in the error) or -1
 * when buf may be used. */
static inline MPI_Aint cm_dt_bottom_misuse(const void *buf, int count, const struct cm_datatype *t)
{
    if (buf || count <= 0 || !t || t->size == 0)
        return -1;
    uintptr_t start = (uintptr_t)t->true_lb;
    return start < 4096 ? t->true_lb : -1;
}

/* The error of a buffer at MPI_BOTTOM that cm_dt_bottom_misuse refuses, in
 * one wording for every call that takes a buffer (point-to-point, collectives,
 * Pack): MPI_ERR_BUFFER naming `what`, or MPI_SUCCESS when buf may be used. */
int cm_dt_bottom_check(MPI_Comm comm, const char *call, const char *what, const void *buf, int count,
                       const struct cm_datatype *t);

int cm_dt_init(void);
void cm_dt_finalize(void);

/* Register a new datatype object; returns its handle (MPI_DATATYPE_NULL when out of memory). */
MPI_Datatype cm_dt_register(struct cm_datatype *t);
/* Holds the table still (on = 1) or lets it go (0): a scan of cm_dt_table
 * from another file under MPI_THREAD_MULTIPLE (no slot claimed or freed). */
void cm_dt_table_hold(int on);

/* Pack count elements at buf into out (size*count bytes). */
void cm_dt_pack(const void *buf, int count, const struct cm_datatype *t, void *out);
/* Unpack bytes (a multiple of t->size, or a partial last element) into buf. */
void cm_dt_unpack(const void *in, size_t bytes, void *buf, int count, const struct cm_datatype *t);

/*
 * Piecewise packing, for pipelines (bounce buffers) that move a message in
 * pieces: the packed form of (buf, count, t) is a byte stream of count*size
 * bytes; these copy its bytes [offset, offset+len) out of / into the user's
 * buffer, without touching the rest.  Any offset and length are fine (a piece
 * may start or end inside a basic element).  Each returns the number of bytes
 * copied: len, or less when the stream ends before offset+len.  The cost is
 * O(len) plus a binary search over the blocks of one repetition to find the
 * start, so packing a message in k pieces costs the same as packing it whole.
 */
size_t cm_dt_pack_range(const void *buf, int count, const struct cm_datatype *t,
                        size_t offset, void *out, size_t len);
size_t cm_dt_unpack_range(const void *in, size_t len, void *buf, int count,
                          const struct cm_datatype *t, size_t offset);

/* Check a datatype argument: valid handle, committed.  Returns 0 or raises. */
int cm_dt_check(MPI_Comm comm, MPI_Datatype dt, const char *call, const char *argname);
/* count elements of dt (argument argname) must fit MPI_Count in bytes and
 * MPI_Aint in extents (count x |extent|, and the bounds from lb): else MPI_ERR_COUNT raised on comm
 * naming call.  An invalid dt passes (the caller's own checks report it). */
int cm_dt_check_bytes(MPI_Comm comm, MPI_Count count, MPI_Datatype dt, const char *call, const char *argname);

/* Keep a derived type alive while something (a pending request, another
 * type) still uses it: MPI_Type_free drops the user's reference, and the
 * object and its handle go away with the last release.  No-ops for
 * predefined types and invalid handles. */
void cm_dt_retain(MPI_Datatype dt);
void cm_dt_release(MPI_Datatype dt);

/* Derived type objects alive now (not yet freed by the user, or freed and
 * still held): what MPI_T's objects_datatypes_live reads, so a test can see
 * a leak per call.  A scan of the table: for tools, never a fast path. */
int cm_dt_live_count(void);

/* Number of basic elements in the first `bytes` packed bytes of count
 * elements; -1 when bytes ends inside a basic element. */
long long cm_dt_count_basic(const struct cm_datatype *t, size_t bytes);
/* The inverse: data bytes of the first count basic elements (Status_set_elements). */
long long cm_dt_bytes_of_basic(const struct cm_datatype *t, long long count);

/* --- inside the datatype engine ----------------------------------------- */

/* Frees a type object (blocks, signature, contents; releases the types its
 * contents name).  The handle must already be cleared from the table. */
void cm_dt_destroy(struct cm_datatype *t);

/* datatype_flatten.c: fill the layout of t (blocks, rep_count, rep_stride,
 * true bounds, contig) from pieces: piece i is n[i] copies of old[i], spaced
 * by old[i]'s extent, starting at disp[i] bytes.  With vec_count > 1 the
 * concatenation of the pieces is repeated vec_count times, vec_stride bytes
 * apart (the vector fast path).  Returns MPI_SUCCESS, MPI_ERR_NO_MEM, or
 * MPI_ERR_COUNT when a bound or the extent does not fit an MPI_Aint. */
int cm_dt_build_layout(struct cm_datatype *t, size_t npieces, const struct cm_datatype *const *old,
                       const size_t *n, const MPI_Aint *disp, size_t vec_count, MPI_Aint vec_stride);
/* Copy the layout of old into t (Type_dup, resized); recomputes contig for t's extent. */
int cm_dt_copy_layout(struct cm_datatype *t, const struct cm_datatype *old);
/* Sets t->contig from its layout, size and extent. */
void cm_dt_set_contig(struct cm_datatype *t);

/* datatype_contents.c: record the constructor call (copies the arrays,
 * retains the derived types named).  Returns MPI_SUCCESS or MPI_ERR_NO_MEM. */
int cm_dt_set_contents(struct cm_datatype *t, int combiner, int ni, const int *ints, int na,
                       const MPI_Aint *addrs, int nd, const MPI_Datatype *types);
/* Releases the types named by t's contents and frees them. */
void cm_dt_free_contents(struct cm_datatype *t);
/* 1 when t's record is combiner with exactly these ni ints and nothing else. */
int cm_dt_contents_are(const struct cm_datatype *t, int combiner, int ni, const int *ints);
/* The record of a large-count constructor (Type_contiguous_c, vector_c,
 * hvector_c): no ints or addresses, nl MPI_Count values (MPI_Type_get_envelope_c
 * reports them as num_large_counts; the int envelope reports none). */
int cm_dt_set_contents_large(struct cm_datatype *t, int combiner, int nl, const MPI_Count *large, int nd,
                             const MPI_Datatype *types);

/* datatype_pack.c: external32 conversion of a packed native stream, in place
 * (the same byte count: external32 sizes equal the native sizes here). */
void cm_dt_external32_swap(const struct cm_datatype *t, void *packed, size_t bytes, int to_external);

/* Call fn for each run of the signature of the first `elements` elements
 * (basic type, count); stops when fn returns non-zero. */
int cm_dt_for_each_run(const struct cm_datatype *t, size_t elements,
                       int (*fn)(MPI_Datatype basic, size_t n, void *arg), void *arg);

#endif
