/* section.c -- non-contiguous array sections passed to mpi_f08's
 * TYPE(*), DIMENSION(..) choice buffers (MPI_SUBARRAYS_SUPPORTED = .TRUE.).
 *
 * A module procedure of mpi_f08 (spec/gen_fortran_f08.py) passes a
 * contiguous buffer's address as it is; for a section it calls
 * cmf_section with the section's descriptor (ISO_Fortran_binding.h), and
 * passes the address and the datatype it gets back: the user's memory
 * itself, never a copy, so a nonblocking call reads and writes the section
 * until it completes.
 *
 * The standard's rule (MPI-4.1 19.1.12): the call behaves as if the
 * section were copied into a contiguous array.  Element j of that array is,
 * for a section of rank r, A(i1, .., ir) with j = i1 + e1*(i2 + e2*(...)).
 * When the strides make the elements an arithmetic sequence (any 1-D
 * section, a(2,:), and a section whose dimensions merge), element j is at
 * base + j*stride, and the user's datatype resized to extent = stride
 * describes exactly those bytes for every count and displacement, so the
 * counts and displacements of the call stay as they are (gatherv's
 * displs too).  That needs one datatype item per array element: lb 0,
 * extent = the element's length, its bytes inside the element.  Other
 * sections (b(1:2,1:3)) become count 1 of a datatype of the first count
 * elements when the count and the datatype are that buffer's alone (send,
 * recv, bcast ...; not a reduction).  Other cases are an error naming the
 * call, the rank and the argument. */
#include <ISO_Fortran_binding.h>
#include <stdio.h>
#include "fbind_util.h"

/* Called by module mpi_f08 only, which is in this library. */
#define CMF_HIDDEN __attribute__((visibility("hidden")))

/* Object kinds (the generated code passes the call's first handle of these). */
enum { CMF_OBJ_NONE = 0, CMF_OBJ_COMM = 1, CMF_OBJ_WIN = 2 };
/* Modes: what the buffer is (the low 2 bits), and what the call allows. */
enum { CMF_SEC_BASE = 0, CMF_SEC_TYPED = 1, CMF_SEC_UNSUPPORTED = 2, CMF_SEC_OWN_COUNT = 3, CMF_SEC_KIND = 3 };
enum {
    CMF_SEC_COPY = 4,           /* a blocking call: a contiguous copy may stand in */
    CMF_SEC_SHARED = 8,         /* ... and the datatype describes other buffers too: always copy */
    CMF_SEC_OUT = 16,           /* the call may write the buffer: copy back */
    CMF_SEC_SAME_LAYOUT = 32    /* a nonblocking reduction whose count is its buffers' own */
};

static int section_error(const char *call, const char *arg, int obj_kind, MPI_Fint obj,
                         int code, const char *why)
{
    int rank = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "corempi: %s (rank %d): argument %s: %s\n",
            call, rank, arg, why);
    if (obj_kind == CMF_OBJ_COMM)
        PMPI_Comm_call_errhandler(CMF_FROMINT(MPI_Comm, obj), code);
    else if (obj_kind == CMF_OBJ_WIN)
        PMPI_Win_call_errhandler(CMF_FROMINT(MPI_Win, obj), code);
    else
        PMPI_Comm_call_errhandler(MPI_COMM_SELF, code);
    return code;
}

/* The stride (bytes) of the section's elements when they are an arithmetic
 * sequence, else 0.  Dimensions of extent 1 say nothing; dimension k+1
 * merges into the sequence when its stride is extent(k) strides of k. */
static MPI_Aint sequence_stride(const CFI_cdesc_t *d)
{
    MPI_Aint stride = 0, span = 0;  /* span: elements so far, each stride apart */
    for (int k = 0; k < d->rank; k++)
        if (d->dim[k].extent == 0)  /* empty: no element to place */
            return (MPI_Aint)d->elem_len;
    for (int k = 0; k < d->rank; k++) {
        MPI_Aint e = d->dim[k].extent, sm = d->dim[k].sm;
        if (e == 1)
            continue;
        if (span == 0) {
            stride = sm;
            span = e;
        } else if (sm == span * stride) {
            span *= e;
        } else {
            return 0;
        }
    }
    return stride ? stride : (MPI_Aint)d->elem_len;
}

/* Whether datatype describes one array element of len bytes (above). */
static int one_item_per_element(MPI_Datatype t, size_t len)
{
    MPI_Aint lb, extent, tlb, textent;
    if (PMPI_Type_get_extent(t, &lb, &extent) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent(t, &tlb, &textent) != MPI_SUCCESS)
        return 0;
    return lb == 0 && extent == (MPI_Aint)len && tlb >= 0 && tlb + textent <= (MPI_Aint)len;
}

/* The first count elements of a section whose elements are not equally
 * spaced, as one datatype (the call then sends count 1 of it).  B_0 is
 * one element t (its extent made dimension 0's stride), B_k+1 is extent(k)
 * B_k with dimension k+1's stride; count is written in the mixed radix of
 * the extents, count = sum c_k * (e_0 * .. * e_k-1), and the type is c_k
 * copies of B_k for each k, highest first, one after the other. */
static int block_type(const CFI_cdesc_t *d, MPI_Datatype t, MPI_Aint count, MPI_Datatype *out)
{
    MPI_Datatype b[CFI_MAX_RANK] = { 0 }, piece[CFI_MAX_RANK] = { 0 };
    MPI_Aint span[CFI_MAX_RANK] = { 0 }, disp[CFI_MAX_RANK] = { 0 }, off = 0;
    int lens[CFI_MAX_RANK] = { 0 }, np = 0, nb = 0, r = d->rank, rc = MPI_SUCCESS;
    for (int k = 0; k < r && rc == MPI_SUCCESS; k++) {
        MPI_Datatype inner;
        if (k == 0) {
            rc = PMPI_Type_create_resized(t, 0, d->dim[0].sm, &b[0]);
            span[0] = 1;
        } else if ((rc = PMPI_Type_contiguous((int)d->dim[k - 1].extent, b[k - 1], &inner)) == MPI_SUCCESS) {
            rc = PMPI_Type_create_resized(inner, 0, d->dim[k].sm, &b[k]);
            PMPI_Type_free(&inner);
            span[k] = span[k - 1] * d->dim[k - 1].extent;
        }
        if (rc == MPI_SUCCESS)
            nb++;
    }
    for (int k = nb - 1; k >= 0 && rc == MPI_SUCCESS; k--) {
        MPI_Aint c = count / span[k];
        count -= c * span[k];
        if (c == 0)
            continue;
        if ((rc = PMPI_Type_contiguous((int)c, b[k], &piece[np])) != MPI_SUCCESS)
            break;
        lens[np] = 1;
        disp[np++] = off;
        off += c * d->dim[k].sm;
    }
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_create_struct(np, lens, disp, piece, out);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_commit(out);
    for (int k = 0; k < nb; k++)
        PMPI_Type_free(&b[k]);
    for (int k = 0; k < np; k++)
        PMPI_Type_free(&piece[k]);
    return rc;
}

/* The number of elements of section d. */
static MPI_Aint elements(const CFI_cdesc_t *d)
{
    MPI_Aint n = 1;
    for (int k = 0; k < d->rank; k++)
        n *= d->dim[k].extent;
    return n;
}

/* Copies every element of section d, in array element order, between the
 * section and the contiguous buffer tmp (to tmp when in, else from it). */
static void copy_section(const CFI_cdesc_t *d, char *tmp, int in)
{
    CFI_index_t idx[CFI_MAX_RANK] = { 0 };
    MPI_Aint n = elements(d);
    size_t len = d->elem_len;
    for (MPI_Aint j = 0; j < n; j++) {
        char *e = (char *)d->base_addr;
        for (int k = 0; k < d->rank; k++)
            e += idx[k] * d->dim[k].sm;
        if (in)
            memcpy(tmp + j * len, e, len);
        else
            memcpy(e, tmp + j * len, len);
        for (int k = 0; k < d->rank && ++idx[k] == d->dim[k].extent; k++)
            idx[k] = 0;
    }
}

/* The layout of the first section of a nonblocking reduction that became a
 * block_type: the call's other sections of that datatype must match it.
 * key is the call's state (&stride), so a stale record never matches. */
static __thread struct {
    const MPI_Aint *key;
    int rank;
    size_t elem_len;
    CFI_index_t extent[CFI_MAX_RANK], sm[CFI_MAX_RANK];
} first_layout;

static void keep_layout(const CFI_cdesc_t *d, const MPI_Aint *key)
{
    first_layout.key = key;
    first_layout.rank = d->rank;
    first_layout.elem_len = d->elem_len;
    for (int k = 0; k < d->rank; k++) {
        first_layout.extent[k] = d->dim[k].extent;
        first_layout.sm[k] = d->dim[k].sm;
    }
}

static int same_layout(const CFI_cdesc_t *d, const MPI_Aint *key)
{
    if (first_layout.key != key || first_layout.rank != d->rank || first_layout.elem_len != d->elem_len)
        return 0;
    for (int k = 0; k < d->rank; k++)
        if (first_layout.extent[k] != d->dim[k].extent || first_layout.sm[k] != d->dim[k].sm)
            return 0;
    return 1;
}

/* Called by mpi_f08's procedures for a non-contiguous buffer d.
 * mode (low bits): CMF_SEC_BASE (MPI_Get_address: only the address),
 * CMF_SEC_TYPED (a buffer described by *dtype), CMF_SEC_OWN_COUNT (the
 * same, and *count and *dtype describe this buffer alone and no reduction:
 * a section whose elements are not equally spaced becomes count 1 of a
 * block_type), CMF_SEC_UNSUPPORTED (a buffer of bytes or of an array of
 * datatypes: no datatype to resize).  Flags: CMF_SEC_COPY (a blocking
 * call: a section that no resized datatype describes is copied into a
 * contiguous buffer, given back by cmf_section_done), CMF_SEC_SHARED (its
 * datatype describes other buffers: always copied, so each buffer's
 * layout is its own), CMF_SEC_SAME_LAYOUT (a nonblocking reduction whose
 * *count counts its buffers alone: a section whose elements are not
 * equally spaced becomes count 1 of a block_type, which every other section
 * of the call must share).
 * *resolved and *stride are the call's state for this datatype, shared by
 * the buffers that name it (allreduce's sendbuf and recvbuf): on entry
 * *stride 0 and *resolved the user's datatype; the first section sets both
 * to its resized datatype, a second section must have the same stride
 * (*stride -1: a block_type of the buffer's own, -2: one of
 * CMF_SEC_SAME_LAYOUT, both freed after the call).
 * Does nothing when *err is set already (an earlier buffer failed). */
CMF_HIDDEN void cmf_section(CFI_cdesc_t *d, const MPI_Fint *mode, const MPI_Fint *dtype, MPI_Fint *count,
                 MPI_Fint *resolved, MPI_Aint *stride, void **base,
                 const MPI_Fint *obj_kind, const MPI_Fint *obj,
                 const char *call, const char *arg, MPI_Fint *err)
{
    int kind = *mode & CMF_SEC_KIND;
    *base = d->base_addr;
    if (*err != MPI_SUCCESS || kind == CMF_SEC_BASE)
        return;
    if (kind == CMF_SEC_UNSUPPORTED) {
        *err = section_error(call, arg, *obj_kind, *obj, MPI_ERR_BUFFER,
                             "a non-contiguous array section is not supported here (its datatype is MPI_BYTE, MPI_PACKED or an array of "
                             "datatypes): pass a contiguous array");
        return;
    }
    MPI_Aint s = sequence_stride(d);
    MPI_Datatype t = CMF_FROMINT(MPI_Datatype, *dtype), nt;
    if ((*mode & CMF_SEC_COPY) && (s == 0 || (*mode & CMF_SEC_SHARED))) {
        /* as if copied into a contiguous array (MPI-4.1 19.1.12): any
         * datatype, count and displacements then mean what they say */
        char *tmp = malloc((size_t)elements(d) * d->elem_len + 1);   /* + 1: never malloc(0) */
        if (!tmp) {
            *err = section_error(call, arg, *obj_kind, *obj, MPI_ERR_NO_MEM,
                                 "no memory for a contiguous copy of the array section");
            return;
        }
        copy_section(d, tmp, 1);
        *base = tmp;
        return;
    }
    /* The count of a buffer of its own is checked (a receive past the
     * section would write into memory the program did not pass). */
    if ((kind == CMF_SEC_OWN_COUNT || (s == 0 && (*mode & CMF_SEC_SAME_LAYOUT))) && *count > elements(d)) {
        *err = section_error(call, arg, *obj_kind, *obj, MPI_ERR_COUNT,
                             "the count is larger than the non-contiguous array section");
        return;
    }
    if (s == 0 && (*mode & CMF_SEC_SAME_LAYOUT) && *stride == -2) {
        if (!same_layout(d, stride))
            *err = section_error(call, arg, *obj_kind, *obj, MPI_ERR_BUFFER,
                                 "a non-contiguous array section shares its datatype with another section "
                                 "of a different shape or strides in a nonblocking reduction");
        return;
    }
    if (s == 0 && (kind == CMF_SEC_OWN_COUNT || ((*mode & CMF_SEC_SAME_LAYOUT) && *stride == 0))) {
        if (!one_item_per_element(t, d->elem_len)) {
            *err = section_error(call, arg, *obj_kind, *obj, MPI_ERR_TYPE,
                                 "a non-contiguous array section needs a datatype of exactly one array "
                                 "element (lb 0, extent the element's size)");
            return;
        }
        if (*count <= 0)    /* nothing to describe; a negative count is the call's error */
            return;
        int rc = block_type(d, t, *count, &nt);
        if (rc != MPI_SUCCESS) {
            *err = rc;
            return;
        }
        *resolved = CMF_TOINT(nt);
        *count = 1;
        if (kind == CMF_SEC_OWN_COUNT) {
            *stride = -1;   /* a datatype to free after the call */
        } else {
            *stride = -2;
            keep_layout(d, stride);
        }
        return;
    }
    if (s == 0) {
        *err = section_error(call, arg, *obj_kind, *obj, MPI_ERR_BUFFER,
                             "a non-contiguous array section whose elements are not equally spaced (a "
                             "multi-dimensional block) is not supported in a nonblocking call beside "
                             "another buffer of its datatype of another layout, or with counts and "
                             "displacements: pass a 1-D section such as a(1:n:2) or a(i,:), or a derived datatype");
        return;
    }
    if (*stride != 0) {
        if (*stride != s)
            *err = section_error(call, arg, *obj_kind, *obj, MPI_ERR_BUFFER,
                                 "a non-contiguous array section shares its datatype with "
                                 "another section of a different stride");
        return;
    }
    if (!one_item_per_element(t, d->elem_len)) {
        *err = section_error(call, arg, *obj_kind, *obj, MPI_ERR_TYPE,
                             "a non-contiguous array section needs a datatype of exactly one array element (lb 0, extent the element's "
                             "size)");
        return;
    }
    int rc = PMPI_Type_create_resized(t, 0, s, &nt);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_commit(&nt);
    if (rc != MPI_SUCCESS) {
        *err = rc;
        return;
    }
    *resolved = CMF_TOINT(nt);
    *stride = s;
}

/* After a blocking call, for each array buffer that may have been copied
 * (CMF_SEC_COPY): a copy (base is not the section's own address) goes
 * back into the section if the call may have written it, and is freed. */
CMF_HIDDEN void cmf_section_done(CFI_cdesc_t *d, void *const *base, const MPI_Fint *mode)
{
    if (*base == d->base_addr || *base == NULL)
        return;
    if (*mode & CMF_SEC_OUT)
        copy_section(d, *base, 0);
    free(*base);
}

/* A contiguous buffer beside a section of the same datatype (the section
 * changed the datatype both use): fine only for a sentinel, which has no
 * data (MPI_IN_PLACE, MPI_BOTTOM). */
CMF_HIDDEN void cmf_section_mixed(void *const *p, const MPI_Fint *obj_kind, const MPI_Fint *obj,
                       const char *call, const char *arg, MPI_Fint *err)
{
    if (*err != MPI_SUCCESS || cmf_buf(*p) != *p)
        return;
    *err = section_error(call, arg, *obj_kind, *obj, MPI_ERR_BUFFER,
                         "a contiguous array shares its datatype with a non-contiguous array section: "
                         "make both sections of the same stride, or both contiguous");
}

/* After the call: the resized datatype is no longer needed (a pending
 * nonblocking operation keeps its own reference, MPI-4.1 5.1.11). */
CMF_HIDDEN void cmf_section_free(MPI_Fint *t)
{
    MPI_Datatype c = CMF_FROMINT(MPI_Datatype, *t);
    PMPI_Type_free(&c);
}
