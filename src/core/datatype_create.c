/*
 * datatype_create.c -- the type constructors, commit, free, dup, names and
 * address arithmetic.
 *
 * Each constructor checks its arguments, turns itself into "pieces" for
 * cm_dt_build_layout (datatype_flatten.c), records its arguments for
 * Type_get_contents, and registers the result.  Subarray and darray are
 * composed from the same pieces one dimension at a time, as MPI defines them.
 * Old types need not be committed (only types used for communication must).
 */
#include "core/attr.h"
#include "core/datatype.h"
#include "core/error.h"
#include "fe_dt.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Errors of calls without a communicator go to MPI_COMM_WORLD's handler, as
 * in the rest of the datatype code. */
#define ERR(cls, call, ...) cm_error(MPI_COMM_WORLD, cls, call, __VA_ARGS__)

static int check_type(const char *call, MPI_Datatype dt, const char *arg, struct cm_datatype **out)
{
    struct cm_datatype *t = cm_dt_lookup(dt);
    if (!t) {
        if (dt == MPI_DATATYPE_NULL)
            return ERR(MPI_ERR_TYPE, call, "%s is MPI_DATATYPE_NULL", arg);
        return ERR(MPI_ERR_TYPE, call, "invalid datatype %ld (argument %s)", (long)(intptr_t)dt, arg);
    }
    *out = t;
    return MPI_SUCCESS;
}

/* check_type of the argument "datatype", for CM_CALL_LOOKUP; type_at for
 * the calls that take a pointer to the handle. */
static struct cm_datatype *type_of(MPI_Datatype datatype, const char *call, int *rc)
{
    struct cm_datatype *t = NULL;
    *rc = check_type(call, datatype, "datatype", &t);
    return t;
}

static struct cm_datatype *type_at(const MPI_Datatype *datatype, const char *call, int *rc)
{
    if (!datatype) {
        *rc = ERR(MPI_ERR_ARG, call, "datatype is NULL");
        return NULL;
    }
    return type_of(*datatype, call, rc);
}

/* Appends src[0..count) to a contents record's integers ints[0..ni);
 * returns the new length. */
static int append_ints(int *ints, int ni, const int *src, int count)
{
    if (count)
        memcpy(ints + ni, src, (size_t)count * sizeof *ints);
    return ni + count;
}

static int check_out(const char *call, const void *newtype)
{
    return newtype ? MPI_SUCCESS : ERR(MPI_ERR_ARG, call, "newtype is NULL");
}

static int check_count(const char *call, int count)
{
    return count < 0 ? ERR(MPI_ERR_COUNT, call, "negative count %d", count) : MPI_SUCCESS;
}

static int check_array(const char *call, int count, const void *a, const char *name)
{
    return count > 0 && !a ? ERR(MPI_ERR_ARG, call, "%s is NULL with count %d", name, count) : MPI_SUCCESS;
}

static int check_blocklens(const char *call, int count, const int *bl)
{
    for (int i = 0; i < count; i++)
        if (bl[i] < 0)
            return ERR(MPI_ERR_ARG, call, "array_of_blocklengths[%d] = %d is negative", i, bl[i]);
    return MPI_SUCCESS;
}

/* Piece arrays for n pieces. */
struct pieces {
    const struct cm_datatype **old;
    size_t *n;
    MPI_Aint *disp;
};

static int pieces_alloc(struct pieces *p, size_t n)
{
    size_t k = n ? n : 1;
    p->old = malloc(k * sizeof *p->old);
    p->n = malloc(k * sizeof *p->n);
    p->disp = malloc(k * sizeof *p->disp);
    return p->old && p->n && p->disp ? 0 : -1;
}

static void pieces_free(struct pieces *p)
{
    free(p->old);
    free(p->n);
    free(p->disp);
}

static struct cm_datatype *new_type(void)
{
    struct cm_datatype *t = calloc(1, sizeof *t);
    if (t) {
        t->refcount = 1;
        t->rep_count = 1;
        t->sig_rep = 1;
    }
    return t;
}

/* Register t (built, contents set) as *newtype; on failure free it. */
static int publish(const char *call, struct cm_datatype *t, int rc, MPI_Datatype *newtype)
{
    if (rc == MPI_SUCCESS) {
        MPI_Datatype h = cm_dt_register(t);
        if (h != MPI_DATATYPE_NULL) {
            *newtype = h;
            return MPI_SUCCESS;
        }
        rc = MPI_ERR_NO_MEM;
    }
    if (t)
        cm_dt_destroy(t);
    return ERR(rc, call, rc == MPI_ERR_NO_MEM ? "out of memory building the datatype (too many blocks?)"
                         : rc == MPI_ERR_COUNT ? "the datatype's bounds or extent are more than MPI_Aint can "
                                                 "hold"
                                               : "cannot build the datatype");
}

/* The common path: pieces -> layout -> contents -> handle. */
static int make(const char *call, struct pieces *p, size_t np, size_t vec_count, MPI_Aint vec_stride,
                int pad_struct, int combiner, int ni, const int *ints, int na, const MPI_Aint *addrs,
                int nd, const MPI_Datatype *types, MPI_Datatype *newtype)
{
    struct cm_datatype *t = new_type();
    int rc = t ? cm_dt_build_layout(t, np, (const struct cm_datatype *const *)p->old, p->n, p->disp,
                                    vec_count, vec_stride)
               : MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS && pad_struct && !t->sticky_bounds && t->align > 1) {
        /* MPI's epsilon: round the extent up to the strictest alignment inside */
        MPI_Aint a = (MPI_Aint)t->align, r = t->extent % a;
        if (r)
            t->extent += a - r;
        cm_dt_set_contig(t);
    }
    if (rc == MPI_SUCCESS)
        rc = cm_dt_set_contents(t, combiner, ni, ints, na, addrs, nd, types);
    return publish(call, t, rc, newtype);
}

int cm_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    const char *call = "MPI_Type_contiguous";
    struct cm_datatype *old = NULL;
    int rc;
    if ((rc = check_count(call, count)) || (rc = check_type(call, oldtype, "oldtype", &old)) ||
        (rc = check_out(call, newtype)))
        return rc;
    const struct cm_datatype *o = old;
    size_t n = (size_t)count;
    MPI_Aint d = 0;
    struct pieces p = { &o, &n, &d };
    return make(call, &p, 1, 1, 0, 0, MPI_COMBINER_CONTIGUOUS, 1, &count, 0, NULL, 1, &oldtype, newtype);
}

static int vector(const char *call, int count, int blocklength, MPI_Aint stride_bytes, int combiner,
                  int ni, const int *ints, int na, const MPI_Aint *addrs, MPI_Datatype oldtype,
                  MPI_Datatype *newtype)
{
    struct cm_datatype *old = NULL;
    int rc;
    if ((rc = check_count(call, count)) || (rc = check_type(call, oldtype, "oldtype", &old)) ||
        (rc = check_out(call, newtype)))
        return rc;
    if (blocklength < 0)
        return ERR(MPI_ERR_ARG, call, "negative blocklength %d", blocklength);
    const struct cm_datatype *o = old;
    size_t n = (size_t)blocklength;
    MPI_Aint d = 0;
    struct pieces p = { &o, &n, &d };
    return make(call, &p, 1, (size_t)count, stride_bytes, 0, combiner, ni, ints, na, addrs, 1, &oldtype,
                newtype);
}

int cm_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    struct cm_datatype *old = cm_dt_lookup(oldtype);
    int ints[3] = { count, blocklength, stride };
    MPI_Aint bytes = 0;
    if (old && __builtin_mul_overflow((MPI_Aint)stride, old->extent, &bytes))
        return ERR(MPI_ERR_COUNT, "MPI_Type_vector", "stride %d of the old type's extent %ld is more than MPI_Aint "
                   "can hold in bytes", stride, (long)old->extent);
    return vector("MPI_Type_vector", count, blocklength, bytes,
                  MPI_COMBINER_VECTOR, 3, ints, 0, NULL, oldtype, newtype);
}

int cm_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                           MPI_Datatype *newtype)
{
    int ints[2] = { count, blocklength };
    return vector("MPI_Type_create_hvector", count, blocklength, stride, MPI_COMBINER_HVECTOR, 2, ints, 1,
                  &stride, oldtype, newtype);
}

/* The large-count constructors whose counts are not capped at INT_MAX
 * (the layout counts in size_t): contiguous_c is vector_c with one block.
 * Their record holds the arguments as large counts, as MPI asks of the _c
 * constructors.  The others (indexed_c, struct_c, ...) live in
 * src/mpi/large_types.c and take int values only. */
static int vector_large(const char *call, MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                        int stride_in_bytes, int combiner, int nl, const MPI_Count *record, MPI_Datatype oldtype,
                        MPI_Datatype *newtype)
{
    struct cm_datatype *old = NULL;
    int rc;
    if (count < 0)
        return ERR(MPI_ERR_COUNT, call, "negative count %lld", (long long)count);
    if (blocklength < 0)
        return ERR(MPI_ERR_ARG, call, "negative blocklength %lld", (long long)blocklength);
    if ((rc = check_type(call, oldtype, "oldtype", &old)) || (rc = check_out(call, newtype)))
        return rc;
    const struct cm_datatype *o = old;
    size_t n = (size_t)blocklength;
    MPI_Aint d = 0;
    __int128 stride_bytes = stride_in_bytes ? (__int128)stride : (__int128)stride * old->extent;
    if (stride_bytes > INT64_MAX || stride_bytes < INT64_MIN)
        return ERR(MPI_ERR_COUNT, call, "stride %lld of the old type's extent %ld is more than MPI_Aint can hold in bytes",
                   (long long)stride, (long)old->extent);
    struct cm_datatype *t = new_type();
    rc = t ? cm_dt_build_layout(t, 1, &o, &n, &d, (size_t)count, (MPI_Aint)stride_bytes) : MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS)
        rc = cm_dt_set_contents_large(t, combiner, nl, record, 1, &oldtype);
    return publish(call, t, rc, newtype);
}

int cm_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    /* count elements = one block of count elements */
    if (count < 0)
        return ERR(MPI_ERR_COUNT, "MPI_Type_contiguous_c", "negative count %lld", (long long)count);
    return vector_large("MPI_Type_contiguous_c", 1, count, 0, 1, MPI_COMBINER_CONTIGUOUS, 1, &count, oldtype,
                        newtype);
}

int cm_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype)
{
    MPI_Count rec[3] = { count, blocklength, stride };
    return vector_large("MPI_Type_vector_c", count, blocklength, stride, 0, MPI_COMBINER_VECTOR, 3, rec, oldtype,
                        newtype);
}

int cm_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    MPI_Count rec[3] = { count, blocklength, stride };
    return vector_large("MPI_Type_create_hvector_c", count, blocklength, stride, 1, MPI_COMBINER_HVECTOR, 3, rec,
                        oldtype, newtype);
}

/* indexed, hindexed, indexed_block, hindexed_block: one old type, a list of
 * (blocklength, displacement); displacements in bytes or in old extents. */
static int indexed(const char *call, int count, const int *bls, int one_bl, const int *idisp,
                   const MPI_Aint *adisp, MPI_Datatype oldtype, MPI_Datatype *newtype, int combiner)
{
    int per_block = combiner == MPI_COMBINER_INDEXED || combiner == MPI_COMBINER_HINDEXED;
    int int_disp = combiner == MPI_COMBINER_INDEXED || combiner == MPI_COMBINER_INDEXED_BLOCK;
    struct cm_datatype *old = NULL;
    int rc;
    if ((rc = check_count(call, count)) || (rc = check_type(call, oldtype, "oldtype", &old)) ||
        (rc = check_out(call, newtype)) ||
        (rc = check_array(call, count, int_disp ? (const void *)idisp : (const void *)adisp,
                          "array_of_displacements")))
        return rc;
    if (per_block && ((rc = check_array(call, count, bls, "array_of_blocklengths")) ||
                      (rc = check_blocklens(call, count, bls))))
        return rc;
    if (!per_block && one_bl < 0)
        return ERR(MPI_ERR_ARG, call, "negative blocklength %d", one_bl);

    struct pieces p;
    if (pieces_alloc(&p, (size_t)count)) {
        pieces_free(&p);
        return ERR(MPI_ERR_NO_MEM, call, "out of memory");
    }
    for (int i = 0; i < count; i++) {
        p.old[i] = old;
        p.n[i] = (size_t)(per_block ? bls[i] : one_bl);
        p.disp[i] = int_disp ? (MPI_Aint)idisp[i] * old->extent : adisp[i];
    }
    /* the contents record: MPI's order of integers for each combiner */
    int ni = 0, na = 0;
    int *ints = malloc(((size_t)count * 2 + 2) * sizeof *ints);
    if (!ints) {
        pieces_free(&p);
        return ERR(MPI_ERR_NO_MEM, call, "out of memory");
    }
    ints[ni++] = count;
    if (per_block)
        ni = append_ints(ints, ni, bls, count);
    else
        ints[ni++] = one_bl;
    if (int_disp)
        ni = append_ints(ints, ni, idisp, count);
    else
        na = count;
    rc = make(call, &p, (size_t)count, 1, 0, 0, combiner, ni, ints, na, adisp, 1, &oldtype, newtype);
    free(ints);
    pieces_free(&p);
    return rc;
}

int cm_Type_indexed(int count, const int array_of_blocklengths[], const int array_of_displacements[],
                    MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return indexed("MPI_Type_indexed", count, array_of_blocklengths, 0, array_of_displacements, NULL,
                   oldtype, newtype, MPI_COMBINER_INDEXED);
}

int cm_Type_create_hindexed(int count, const int array_of_blocklengths[],
                            const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                            MPI_Datatype *newtype)
{
    return indexed("MPI_Type_create_hindexed", count, array_of_blocklengths, 0, NULL,
                   array_of_displacements, oldtype, newtype, MPI_COMBINER_HINDEXED);
}

int cm_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                 MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return indexed("MPI_Type_create_indexed_block", count, NULL, blocklength, array_of_displacements, NULL,
                   oldtype, newtype, MPI_COMBINER_INDEXED_BLOCK);
}

int cm_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint array_of_displacements[],
                                  MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return indexed("MPI_Type_create_hindexed_block", count, NULL, blocklength, NULL, array_of_displacements,
                   oldtype, newtype, MPI_COMBINER_HINDEXED_BLOCK);
}

int cm_Type_create_struct(int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],
                          const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    const char *call = "MPI_Type_create_struct";
    int rc;
    if ((rc = check_count(call, count)) || (rc = check_out(call, newtype)) ||
        (rc = check_array(call, count, array_of_blocklengths, "array_of_blocklengths")) ||
        (rc = check_array(call, count, array_of_displacements, "array_of_displacements")) ||
        (rc = check_array(call, count, array_of_types, "array_of_types")) ||
        (rc = check_blocklens(call, count, array_of_blocklengths)))
        return rc;
    struct pieces p;
    if (pieces_alloc(&p, (size_t)count)) {
        pieces_free(&p);
        return ERR(MPI_ERR_NO_MEM, call, "out of memory");
    }
    for (int i = 0; i < count; i++) {
        struct cm_datatype *o = NULL;
        char arg[48];
        snprintf(arg, sizeof arg, "array_of_types[%d]", i);
        if ((rc = check_type(call, array_of_types[i], arg, &o))) {
            pieces_free(&p);
            return rc;
        }
        p.old[i] = o;
        p.n[i] = (size_t)array_of_blocklengths[i];
        p.disp[i] = array_of_displacements[i];
    }
    int *ints = malloc(((size_t)count + 1) * sizeof *ints);
    if (!ints) {
        pieces_free(&p);
        return ERR(MPI_ERR_NO_MEM, call, "out of memory");
    }
    ints[0] = count;
    if (count)
        memcpy(ints + 1, array_of_blocklengths, (size_t)count * sizeof *ints);
    rc = make(call, &p, (size_t)count, 1, 0, 1, MPI_COMBINER_STRUCT, count + 1, ints, count,
              array_of_displacements, count, array_of_types, newtype);
    free(ints);
    pieces_free(&p);
    return rc;
}

/* --- subarray and darray: one dimension at a time ------------------------------- */

/* The local part of one dimension: blocks (start, len) in elements of that dimension. */
struct dimpart {
    size_t n;
    MPI_Aint *start;
    size_t *len;
};

/* Build into res the grid type: dims[] lists the dimensions fastest first;
 * each level is resized to lb 0 and the full extent of its dimensions, as in
 * MPI's definitions.  res gets lb 0, extent prod(gsizes) * extent(old). */
static int build_grid(struct cm_datatype *res, const struct cm_datatype *old, int ndims, const int *dims,
                      const int *gsizes, const struct dimpart *part)
{
    const struct cm_datatype *cur = old;
    struct cm_datatype *prev = NULL;
    MPI_Aint unit = old->extent;
    int rc = MPI_SUCCESS;
    for (int k = 0; k < ndims && rc == MPI_SUCCESS; k++) {
        int d = dims[k];
        const struct dimpart *dp = &part[d];
        struct cm_datatype *nt = new_type();
        struct pieces p = { 0 };
        if (!nt || pieces_alloc(&p, dp->n)) {
            free(nt);
            rc = MPI_ERR_NO_MEM;
            pieces_free(&p);
            break;
        }
        for (size_t i = 0; i < dp->n; i++) {
            p.old[i] = cur;
            p.n[i] = dp->len[i];
            p.disp[i] = dp->start[i] * unit;
        }
        rc = cm_dt_build_layout(nt, dp->n, (const struct cm_datatype *const *)p.old, p.n, p.disp, 1, 0);
        pieces_free(&p);
        nt->lb = 0;
        nt->extent = (MPI_Aint)gsizes[d] * unit;
        nt->sticky_bounds = 1;
        cm_dt_set_contig(nt);
        if (prev)
            cm_dt_destroy(prev);
        prev = nt;
        cur = nt;
        unit = nt->extent;
    }
    if (rc == MPI_SUCCESS && prev) {
        /* move prev's insides into res */
        free(res->blocks);
        free(res->sig);
        *res = *prev;
        res->refcount = 1;
        res->contents = NULL;
        free(prev);
    } else if (prev) {
        cm_dt_destroy(prev);
    }
    return rc;
}

static int grid_dims(int ndims, int order, int *dims)
{
    for (int k = 0; k < ndims; k++)
        dims[k] = order == MPI_ORDER_C ? ndims - 1 - k : k;
    return 0;
}

int cm_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                            const int array_of_starts[], int order, MPI_Datatype oldtype,
                            MPI_Datatype *newtype)
{
    const char *call = "MPI_Type_create_subarray";
    struct cm_datatype *old = NULL;
    int rc;
    if (ndims <= 0)
        return ERR(MPI_ERR_DIMS, call, "ndims %d must be positive", ndims);
    if ((rc = check_type(call, oldtype, "oldtype", &old)) || (rc = check_out(call, newtype)) ||
        (rc = check_array(call, ndims, array_of_sizes, "array_of_sizes")) ||
        (rc = check_array(call, ndims, array_of_subsizes, "array_of_subsizes")) ||
        (rc = check_array(call, ndims, array_of_starts, "array_of_starts")))
        return rc;
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return ERR(MPI_ERR_ARG, call, "order %d is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN", order);
    for (int d = 0; d < ndims; d++) {
        int s = array_of_sizes[d], ss = array_of_subsizes[d], st = array_of_starts[d];
        if (s <= 0 || ss < 0 || ss > s || st < 0 || st > s - ss)
            return ERR(MPI_ERR_ARG, call,
                       "dimension %d: size %d, subsize %d, start %d (need 0 <= subsize <= size, "
                       "0 <= start <= size - subsize)", d, s, ss, st);
    }
    struct dimpart *part = calloc((size_t)ndims, sizeof *part);
    MPI_Aint *starts = calloc((size_t)ndims, sizeof *starts);
    size_t *lens = calloc((size_t)ndims, sizeof *lens);
    int *dims = calloc((size_t)ndims, sizeof *dims);
    int *ints = malloc((3 * (size_t)ndims + 2) * sizeof *ints);
    struct cm_datatype *t = new_type();
    rc = part && starts && lens && dims && ints && t ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS) {
        for (int d = 0; d < ndims; d++) {
            starts[d] = array_of_starts[d];
            lens[d] = (size_t)array_of_subsizes[d];
            part[d] = (struct dimpart){ 1, &starts[d], &lens[d] };
        }
        grid_dims(ndims, order, dims);
        rc = build_grid(t, old, ndims, dims, array_of_sizes, part);
    }
    if (rc == MPI_SUCCESS) {
        ints[0] = ndims;
        memcpy(ints + 1, array_of_sizes, (size_t)ndims * sizeof *ints);
        memcpy(ints + 1 + ndims, array_of_subsizes, (size_t)ndims * sizeof *ints);
        memcpy(ints + 1 + 2 * ndims, array_of_starts, (size_t)ndims * sizeof *ints);
        ints[1 + 3 * ndims] = order;
        rc = cm_dt_set_contents(t, MPI_COMBINER_SUBARRAY, 3 * ndims + 2, ints, 0, NULL, 1, &oldtype);
    }
    free(part);
    free(starts);
    free(lens);
    free(dims);
    free(ints);
    return publish(call, t, rc, newtype);
}

/* The blocks this process owns in one dimension of a darray. */
static int darray_dim(const char *call, int d, int gsize, int distrib, int darg, int psize, int coord,
                      struct dimpart *out)
{
    MPI_Aint b;
    size_t nblocks;
    switch (distrib) {
    case MPI_DISTRIBUTE_NONE:
        if (psize != 1)
            return ERR(MPI_ERR_ARG, call, "dimension %d: MPI_DISTRIBUTE_NONE needs psize 1, not %d", d, psize);
        b = gsize;
        nblocks = 1;
        break;
    case MPI_DISTRIBUTE_BLOCK:
        b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsize + psize - 1) / psize : darg;
        if (b <= 0 || b * psize < gsize)
            return ERR(MPI_ERR_ARG, call, "dimension %d: block size %ld times %d processes does not cover %d",
                       d, (long)b, psize, gsize);
        nblocks = 1;
        break;
    case MPI_DISTRIBUTE_CYCLIC:
        b = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
        if (b <= 0)
            return ERR(MPI_ERR_ARG, call, "dimension %d: cyclic block size %d must be positive", d, darg);
        nblocks = (size_t)((gsize + b * psize - 1) / (b * psize));
        break;
    default:
        return ERR(MPI_ERR_ARG, call, "dimension %d: invalid distribution %d", d, distrib);
    }
    out->start = malloc(nblocks * sizeof *out->start);
    out->len = malloc(nblocks * sizeof *out->len);
    if (!out->start || !out->len)
        return ERR(MPI_ERR_NO_MEM, call, "out of memory");
    out->n = 0;
    for (MPI_Aint s = coord * b; s < gsize; s += b * psize) {
        out->start[out->n] = s;
        out->len[out->n++] = (size_t)(gsize - s < b ? gsize - s : b);
        if (distrib != MPI_DISTRIBUTE_CYCLIC)
            break;
    }
    return MPI_SUCCESS;
}

int cm_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                          const int array_of_distribs[], const int array_of_dargs[],
                          const int array_of_psizes[], int order, MPI_Datatype oldtype,
                          MPI_Datatype *newtype)
{
    const char *call = "MPI_Type_create_darray";
    struct cm_datatype *old = NULL;
    int rc;
    if (size <= 0 || rank < 0 || rank >= size)
        return ERR(MPI_ERR_ARG, call, "rank %d outside a process grid of size %d", rank, size);
    if (ndims <= 0)
        return ERR(MPI_ERR_DIMS, call, "ndims %d must be positive", ndims);
    if ((rc = check_type(call, oldtype, "oldtype", &old)) || (rc = check_out(call, newtype)) ||
        (rc = check_array(call, ndims, array_of_gsizes, "array_of_gsizes")) ||
        (rc = check_array(call, ndims, array_of_distribs, "array_of_distribs")) ||
        (rc = check_array(call, ndims, array_of_dargs, "array_of_dargs")) ||
        (rc = check_array(call, ndims, array_of_psizes, "array_of_psizes")))
        return rc;
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return ERR(MPI_ERR_ARG, call, "order %d is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN", order);
    long long prod = 1;
    for (int d = 0; d < ndims; d++) {
        if (array_of_gsizes[d] <= 0 || array_of_psizes[d] <= 0)
            return ERR(MPI_ERR_ARG, call, "dimension %d: gsize %d and psize %d must be positive", d,
                       array_of_gsizes[d], array_of_psizes[d]);
        prod *= array_of_psizes[d];
    }
    if (prod != size)
        return ERR(MPI_ERR_ARG, call, "the process grid has %lld processes, size is %d", prod, size);

    struct dimpart *part = calloc((size_t)ndims, sizeof *part);
    int *dims = calloc((size_t)ndims, sizeof *dims);
    int *ints = malloc((4 * (size_t)ndims + 4) * sizeof *ints);
    struct cm_datatype *t = new_type();
    if (!part || !dims || !ints || !t) {
        free(part);
        free(dims);
        free(ints);
        free(t);
        return ERR(MPI_ERR_NO_MEM, call, "out of memory");
    }
    /* the process grid is row-major whatever the array order */
    int r = rank;
    for (int d = ndims - 1; d >= 0 && rc == MPI_SUCCESS; d--) {
        int coord = r % array_of_psizes[d];
        r /= array_of_psizes[d];
        rc = darray_dim(call, d, array_of_gsizes[d], array_of_distribs[d], array_of_dargs[d],
                        array_of_psizes[d], coord, &part[d]);
    }
    if (rc == MPI_SUCCESS) {
        grid_dims(ndims, order, dims);
        rc = build_grid(t, old, ndims, dims, array_of_gsizes, part);
        if (rc == MPI_SUCCESS) {
            int k = 0;
            ints[k++] = size;
            ints[k++] = rank;
            ints[k++] = ndims;
            const int *arrays[4] = { array_of_gsizes, array_of_distribs, array_of_dargs, array_of_psizes };
            for (int a = 0; a < 4; a++) {
                memcpy(ints + k, arrays[a], (size_t)ndims * sizeof *ints);
                k += ndims;
            }
            ints[k++] = order;
            rc = cm_dt_set_contents(t, MPI_COMBINER_DARRAY, k, ints, 0, NULL, 1, &oldtype);
        }
        rc = publish(call, t, rc, newtype); /* on failure: frees t and raises */
    } else {
        free(t); /* darray_dim raised the error */
    }
    for (int d = 0; d < ndims; d++) {
        free(part[d].start);
        free(part[d].len);
    }
    free(part);
    free(dims);
    free(ints);
    return rc;
}

/* --- resized, dup ------------------------------------------------------------------ */

/* t becomes a copy of old's data description (layout, signature, sizes). */
static int copy_type(struct cm_datatype *t, const struct cm_datatype *old)
{
    t->size = old->size;
    t->lb = old->lb;
    t->extent = old->extent;
    t->basic = old->basic;
    t->sig_class = old->sig_class;
    t->nbasic = old->nbasic;
    t->align = old->align;
    t->sticky_bounds = old->sticky_bounds;
    t->sig_rep = old->sig_rep;
    t->nsig = old->nsig;
    if (old->nsig) {
        t->sig = malloc(old->nsig * sizeof *t->sig);
        if (!t->sig)
            return MPI_ERR_NO_MEM;
        memcpy(t->sig, old->sig, old->nsig * sizeof *t->sig);
    }
    return cm_dt_copy_layout(t, old);
}

int cm_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype)
{
    const char *call = "MPI_Type_create_resized";
    struct cm_datatype *old = NULL;
    int rc;
    MPI_Aint ub;
    if ((rc = check_type(call, oldtype, "oldtype", &old)) || (rc = check_out(call, newtype)))
        return rc;
    if (__builtin_add_overflow(lb, extent, &ub))
        return ERR(MPI_ERR_COUNT, call, "lb %ld + extent %ld is more than MPI_Aint can hold", (long)lb, (long)extent);
    struct cm_datatype *t = new_type();
    rc = t ? copy_type(t, old) : MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS) {
        t->lb = lb;
        t->extent = extent;
        t->sticky_bounds = 1;
        cm_dt_set_contig(t);
        MPI_Aint a[2] = { lb, extent };
        rc = cm_dt_set_contents(t, MPI_COMBINER_RESIZED, 0, NULL, 2, a, 1, &oldtype);
    }
    return publish(call, t, rc, newtype);
}

int cm_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    const char *call = "MPI_Type_dup";
    struct cm_datatype *old = NULL;
    int rc;
    if ((rc = check_type(call, oldtype, "oldtype", &old)) || (rc = check_out(call, newtype)))
        return rc;
    struct cm_datatype *t = new_type();
    rc = t ? copy_type(t, old) : MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS) {
        t->committed = old->committed;
        rc = cm_dt_set_contents(t, MPI_COMBINER_DUP, 0, NULL, 0, NULL, 1, &oldtype);
    }
    if ((rc = publish(call, t, rc, newtype)) != MPI_SUCCESS)
        return rc;
    /* The copy callbacks see the new handle only after it exists. */
    if ((rc = cm_attr_type_dup(oldtype, *newtype)) != MPI_SUCCESS) {
        cm_dt_release(*newtype);
        *newtype = MPI_DATATYPE_NULL;
        return ERR(rc, call, "a copy callback of an attribute of oldtype failed with code %d", rc);
    }
    return MPI_SUCCESS;
}

/* --- commit, free, names ----------------------------------------------------------- */

int cm_Type_commit(MPI_Datatype *datatype)
{
    CM_CALL_LOOKUP(struct cm_datatype, t, "MPI_Type_commit", type_at, datatype);
    /* the layout is final from construction on: nothing more to compute */
    t->committed = 1;
    return MPI_SUCCESS;
}

int cm_Type_free(MPI_Datatype *datatype)
{
    CM_CALL_LOOKUP(struct cm_datatype, t, "MPI_Type_free", type_at, datatype);
    if (t->predefined)
        return ERR(MPI_ERR_TYPE, call, "%s is a predefined datatype and cannot be freed", t->name);
    if (t->fixed)
        return ERR(MPI_ERR_TYPE, call, "the datatype is one of MPI_Type_create_f90_*'s, which are predefined "
                                       "and cannot be freed");
    MPI_Datatype h = *datatype;
    if ((rc = cm_attr_type_free(h)) != MPI_SUCCESS)
        return ERR(rc, call, "a delete callback of an attribute of the datatype failed with code %d", rc);
    *datatype = MPI_DATATYPE_NULL;
    cm_dt_release(h);
    return MPI_SUCCESS;
}

int cm_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
    CM_CALL_LOOKUP(struct cm_datatype, t, "MPI_Type_set_name", type_of, datatype);
    if (!type_name)
        return ERR(MPI_ERR_ARG, call, "type_name is NULL");
    size_t n = strlen(type_name);
    if (n > MPI_MAX_OBJECT_NAME - 1)
        n = MPI_MAX_OBJECT_NAME - 1;
    memcpy(t->name, type_name, n);
    t->name[n] = '\0';
    return MPI_SUCCESS;
}

int cm_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    const char *call = "MPI_Type_get_name";
    struct cm_datatype *t = NULL;
    int rc;
    if (!type_name || !resultlen)
        return ERR(MPI_ERR_ARG, call, "%s is NULL", type_name ? "resultlen" : "type_name");
    /* MPI-4.1 section 7.8: the null handle is named after itself */
    if (datatype == MPI_DATATYPE_NULL) {
        strcpy(type_name, "MPI_DATATYPE_NULL");
        *resultlen = (int)strlen(type_name);
        return MPI_SUCCESS;
    }
    if ((rc = check_type(call, datatype, "datatype", &t)))
        return rc;
    size_t n = strlen(t->name);
    memcpy(type_name, t->name, n + 1);
    *resultlen = (int)n;
    return MPI_SUCCESS;
}

/* --- addresses ------------------------------------------------------------------------ */

int cm_Get_address(const void *location, MPI_Aint *address)
{
    if (!address)
        return ERR(MPI_ERR_ARG, "MPI_Get_address", "address is NULL");
    *address = (MPI_Aint)location;
    return MPI_SUCCESS;
}

MPI_Aint cm_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}

MPI_Aint cm_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}
