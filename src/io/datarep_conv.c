/*
 * datarep_conv.c -- user data representations at work (MPI-4.1 14.5.3):
 * the view's layout in the file from the extent callback, and data moved
 * through the conversion callbacks.
 *
 * Layout.  A predefined type takes fext bytes in the file, what the extent
 * callback says (asked once per type and representation).  The view's
 * etype and filetype are rebuilt from their constructors
 * (MPI_Type_get_contents) with each predefined type replaced by fext
 * bytes: the constructors that count in elements (contiguous, vector,
 * indexed, subarray, darray) scale with it, those that take bytes
 * (hvector, hindexed, struct, resized) keep their displacements as given,
 * as 14.5.1 says.  When every predefined type has fext equal to its native
 * extent and size the native layout is kept and nothing is rebuilt.  The
 * data stream is then in file bytes: an etype is its file size.
 *
 * Data.  An access moves whole elements of the memory type in pieces of at
 * most CHUNK file bytes: a write calls write_conversion_fn(buf, datatype,
 * items, filebuf, position, extra_state) to fill filebuf, then writes it
 * through the view; a read reads filebuf and calls read_conversion_fn.
 * items counts the predefined data items of the piece and position those
 * converted before it in this call, as the standard defines them.  A read
 * that meets the end of the file converts the whole items it got.  A
 * conversion function that is MPI_CONVERSION_FN_NULL is not called: the
 * native bytes are packed or unpacked as they are, which needs the file
 * size of the memory type to be its native size (else MPI_ERR_CONVERSION).
 * A callback that returns other than MPI_SUCCESS makes the call fail with
 * MPI_ERR_CONVERSION naming it and its code.
 */
#include "io/io.h"
#include "core/error.h"
#include "core/status.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK ((size_t)4 << 20)

/* The file extent of predefined type basic in rep (cached). */
static int file_extent(struct cm_file *f, const char *call, struct cm_io_datarep *rep, MPI_Datatype basic,
                       MPI_Aint *ext)
{
    int i = cm_dt_index(basic);
    MPI_Aint e = i > 0 && i < CM_DT_NUM_PREDEFINED ? __atomic_load_n(&rep->fext[i], __ATOMIC_RELAXED) : -1;
    if (e >= 0) {
        *ext = e;
        return MPI_SUCCESS;
    }
    e = -1;
    int rc = rep->extent(basic, &e, rep->extra);
    const struct cm_datatype *t = cm_dt_lookup(basic);
    const char *name = t && t->name[0] ? t->name : "a predefined type";
    if (rc != MPI_SUCCESS)
        return cm_io_error(f, MPI_ERR_CONVERSION, call, "the extent function of data representation \"%s\" "
                           "returned error %d for %s", rep->name, rc, name);
    if (e <= 0 || e > INT_MAX)
        return cm_io_error(f, MPI_ERR_CONVERSION, call, "the extent function of data representation \"%s\" "
                           "gave %s an extent of %ld bytes", rep->name, name, (long)e);
    if (i > 0 && i < CM_DT_NUM_PREDEFINED)
        __atomic_store_n(&rep->fext[i], e, __ATOMIC_RELAXED);
    *ext = e;
    return MPI_SUCCESS;
}

/* Calls fn on each run (basic type, count) of the signature of one element
 * of t, in order, until it returns nonzero (which is returned). */
static int each_run(const struct cm_datatype *t, int (*fn)(void *arg, MPI_Datatype basic, size_t n), void *arg)
{
    if (t->basic)
        return t->nbasic ? fn(arg, t->basic, t->nbasic) : 0;
    for (size_t r = 0; r < t->sig_rep; r++)
        for (size_t k = 0; k < t->nsig; k++) {
            int rc = fn(arg, t->sig[k].basic, t->sig[k].n);
            if (rc)
                return rc;
        }
    return 0;
}

/* ---- sizes ------------------------------------------------------------ */

struct sizing {
    struct cm_file *f;
    const char *call;
    MPI_Offset fbytes;          /* file bytes of the runs seen */
    int native;                 /* every type seen keeps its native layout */
    int rc;
};

static int size_run(void *arg, MPI_Datatype basic, size_t n)
{
    struct sizing *s = arg;
    MPI_Aint e;
    if ((s->rc = file_extent(s->f, s->call, s->f->urep, basic, &e)))
        return 1;
    const struct cm_datatype *b = cm_dt_lookup(basic);
    s->native &= e == b->extent && (size_t)b->extent == b->size;
    s->fbytes += (MPI_Offset)n * e;
    return 0;
}

/* File bytes of one element of t; *native: t's predefined types all keep
 * their native layout in the file. */
static int file_size(struct cm_file *f, const char *call, const struct cm_datatype *t, MPI_Offset *fsize,
                     int *native)
{
    struct sizing s = { f, call, 0, 1, MPI_SUCCESS };
    each_run(t, size_run, &s);
    *fsize = s.fbytes;
    if (native)
        *native = s.native;
    return s.rc;
}

MPI_Offset cm_io_stream_size(const struct cm_file *f, MPI_Datatype dt)
{
    const struct cm_datatype *t = cm_dt_lookup(dt);
    MPI_Offset fs;
    if (!f->urep || file_size((struct cm_file *)f, "", t, &fs, NULL))
        return (MPI_Offset)t->size;
    return fs;
}

/* ---- layout ----------------------------------------------------------- */

static void free_derived(MPI_Datatype *t)
{
    const struct cm_datatype *d = cm_dt_lookup(*t);
    if (d && !d->predefined)
        PMPI_Type_free(t);
}

void cm_io_type_drop(MPI_Datatype *t)
{
    if (*t)
        free_derived(t);
    *t = 0;
}

/* dt rebuilt with every predefined type replaced by its file extent in
 * bytes (uncommitted). */
static int rebuild(struct cm_file *f, const char *call, MPI_Datatype dt, MPI_Datatype *out)
{
    int ni, na, nd, comb, rc;
    if ((rc = PMPI_Type_get_envelope(dt, &ni, &na, &nd, &comb)))
        return cm_io_error(f, rc, call, "cannot read a view type's constructor");
    if (comb == MPI_COMBINER_NAMED || comb == MPI_COMBINER_F90_REAL || comb == MPI_COMBINER_F90_COMPLEX ||
        comb == MPI_COMBINER_F90_INTEGER || comb == MPI_COMBINER_VALUE_INDEX) {
        MPI_Aint e;
        if ((rc = file_extent(f, call, f->urep, dt, &e)))
            return rc;
        return PMPI_Type_contiguous((int)e, MPI_BYTE, out);
    }
    int *ints = malloc(sizeof *ints * (size_t)(ni + 1));
    MPI_Aint *aints = malloc(sizeof *aints * (size_t)(na + 1));
    MPI_Datatype *types = malloc(sizeof *types * (size_t)(nd + 1)), *nt = calloc((size_t)nd + 1, sizeof *nt);
    if (!ints || !aints || !types || !nt) {
        free(ints), free(aints), free(types), free(nt);
        return cm_io_error(f, MPI_ERR_NO_MEM, call, "out of memory");
    }
    rc = PMPI_Type_get_contents(dt, ni, na, nd, ints, aints, types);
    int have = !rc, built = 0;
    for (; !rc && built < nd; built++)
        rc = rebuild(f, call, types[built], &nt[built]);
    if (!rc) {
        const int *I = ints;
        int n = ni ? I[0] : 0;
        switch (comb) {
        case MPI_COMBINER_DUP: rc = PMPI_Type_dup(nt[0], out); break;
        case MPI_COMBINER_CONTIGUOUS: rc = PMPI_Type_contiguous(n, nt[0], out); break;
        case MPI_COMBINER_VECTOR: rc = PMPI_Type_vector(n, I[1], I[2], nt[0], out); break;
        case MPI_COMBINER_HVECTOR: rc = PMPI_Type_create_hvector(n, I[1], aints[0], nt[0], out); break;
        case MPI_COMBINER_INDEXED: rc = PMPI_Type_indexed(n, I + 1, I + 1 + n, nt[0], out); break;
        case MPI_COMBINER_HINDEXED: rc = PMPI_Type_create_hindexed(n, I + 1, aints, nt[0], out); break;
        case MPI_COMBINER_INDEXED_BLOCK: rc = PMPI_Type_create_indexed_block(n, I[1], I + 2, nt[0], out); break;
        case MPI_COMBINER_HINDEXED_BLOCK:
            rc = PMPI_Type_create_hindexed_block(n, I[1], aints, nt[0], out);
            break;
        case MPI_COMBINER_STRUCT: rc = PMPI_Type_create_struct(n, I + 1, aints, nt, out); break;
        case MPI_COMBINER_SUBARRAY:
            rc = PMPI_Type_create_subarray(n, I + 1, I + 1 + n, I + 1 + 2 * n, I[1 + 3 * n], nt[0], out);
            break;
        case MPI_COMBINER_DARRAY: {
            int d = I[2];
            rc = PMPI_Type_create_darray(I[0], I[1], d, I + 3, I + 3 + d, I + 3 + 2 * d, I + 3 + 3 * d, I[3 + 4 * d],
                                         nt[0], out);
            break;
        }
        case MPI_COMBINER_RESIZED: rc = PMPI_Type_create_resized(nt[0], aints[0], aints[1], out); break;
        default:
            rc = cm_io_error(f, MPI_ERR_TYPE, call, "a view type made by combiner %d cannot be laid out in data "
                             "representation \"%s\"", comb, f->urep->name);
        }
    }
    for (int i = 0; i < nd && have; i++) {
        free_derived(&nt[i]);
        free_derived(&types[i]);
    }
    free(ints), free(aints), free(types), free(nt);
    return rc;
}

static int layout_of(struct cm_file *f, const char *call, MPI_Datatype dt, MPI_Datatype *out)
{
    MPI_Offset fs;
    int native, rc;
    *out = 0;
    if ((rc = file_size(f, call, cm_dt_lookup(dt), &fs, &native)) || native)
        return rc;
    if ((rc = rebuild(f, call, dt, out)) || (rc = PMPI_Type_commit(out))) {
        cm_io_type_drop(out);
        return cm_io_error(f, rc, call, "cannot lay a view type out in data representation \"%s\"", f->urep->name);
    }
    return MPI_SUCCESS;
}

int cm_io_urep_layout(struct cm_file *f, const char *call, struct cm_io_datarep *rep, MPI_Datatype etype,
                      MPI_Datatype filetype, MPI_Datatype *fetype, MPI_Datatype *fftype)
{
    struct cm_io_datarep *was = f->urep;
    f->urep = rep;              /* file_extent reads the representation from f */
    *fftype = 0;
    int rc = layout_of(f, call, etype, fetype);
    if (!rc && (rc = layout_of(f, call, filetype, fftype)))
        cm_io_type_drop(fetype);
    f->urep = was;
    return rc;
}

int cm_io_urep_type_extent(struct cm_file *f, const char *call, MPI_Datatype dt, MPI_Count *extent)
{
    MPI_Datatype lay;
    int rc = layout_of(f, call, dt, &lay);
    if (rc)
        return rc;
    *extent = cm_dt_lookup(lay ? lay : dt)->extent;
    cm_io_type_drop(&lay);
    return MPI_SUCCESS;
}

/* ---- data ------------------------------------------------------------- */

int cm_io_urep_check(struct cm_file *f, const char *call, MPI_Count count, const struct cm_datatype *t)
{
    MPI_Offset fs;
    int rc = file_size(f, call, t, &fs, NULL);
    if (rc)
        return rc;
    if (fs % f->esize)
        return cm_io_error(f, MPI_ERR_TYPE, call, "the datatype (%lld bytes in data representation \"%s\") is no "
                           "multiple of the etype (%lld bytes)", (long long)fs, f->urep->name, (long long)f->esize);
    if (count > INT_MAX && !f->urep->large)
        return cm_io_error(f, MPI_ERR_COUNT, call, "count %lld is beyond INT_MAX, and data representation \"%s\" "
                           "was registered with int counts", (long long)count, f->urep->name);
    if (fs && count > INT64_MAX / fs)
        return cm_io_error(f, MPI_ERR_COUNT, call, "count %lld is too large", (long long)count);
    return MPI_SUCCESS;
}

/* Whole predefined items in the first fbytes file bytes of one element,
 * and their native bytes. */
struct prefix {
    struct cm_io_datarep *rep;
    MPI_Offset left, items, native;
};

static int prefix_run(void *arg, MPI_Datatype basic, size_t n)
{
    struct prefix *p = arg;
    int i = cm_dt_index(basic);
    MPI_Aint e = p->rep->fext[i];       /* asked by the access's check */
    MPI_Offset k = p->left / e < (MPI_Offset)n ? p->left / e : (MPI_Offset)n;
    p->items += k;
    p->native += k * (MPI_Offset)cm_dt_lookup(basic)->size;
    p->left -= k * e;
    return k < (MPI_Offset)n;
}

/* Calls the conversion function of the access's direction on items data
 * items from position; MPI_CONVERSION_FN_NULL moves the native bytes. */
static int convert(struct cm_file *f, const char *call, int write, void *buf, MPI_Count count,
                   MPI_Datatype dt, char *filebuf, MPI_Offset items, MPI_Offset position, size_t native_off,
                   size_t native_len)
{
    struct cm_io_datarep *r = f->urep;
    const struct cm_datatype *t = cm_dt_lookup(dt);
    int rc;
    if (r->large ? !(write ? r->write_c : r->read_c) : !(write ? r->write : r->read)) {
        if (write)
            cm_dt_pack_range(buf, (int)count, t, native_off, filebuf, native_len);
        else
            cm_dt_unpack_range(filebuf, native_len, buf, (int)count, t, native_off);
        return MPI_SUCCESS;
    }
    if (r->large)
        rc = (write ? r->write_c : r->read_c)(buf, dt, (MPI_Count)items, filebuf, position, r->extra);
    else
        rc = (write ? r->write : r->read)(buf, dt, (int)items, filebuf, position, r->extra);
    if (rc != MPI_SUCCESS)
        return cm_io_error(f, MPI_ERR_CONVERSION, call, "the %s conversion function of data representation \"%s\" "
                           "returned error %d (%lld items from position %lld)", write ? "write" : "read", r->name,
                           rc, (long long)items, (long long)position);
    return MPI_SUCCESS;
}

int cm_io_urep_access(struct cm_file *f, const char *call, int write, MPI_Offset epos, void *buf,
                      MPI_Count count, MPI_Datatype dt, MPI_Status *st, MPI_Offset *ndone)
{
    int rc = cm_io_check_access(f, call, write, count, dt);
    if (rc)
        return rc;
    if (epos < 0)
        return cm_io_error(f, MPI_ERR_ARG, call, "negative offset %lld", (long long)epos);
    struct cm_io_datarep *r = f->urep;
    const struct cm_datatype *t = cm_dt_lookup(dt);
    MPI_Offset el, v = epos * f->esize;          /* file bytes of one element; stream start */
    file_size(f, call, t, &el, NULL);
    int null_fn = r->large ? !(write ? r->write_c : r->read_c) : !(write ? r->write : r->read);
    if (null_fn && el != (MPI_Offset)t->size)
        return cm_io_error(f, MPI_ERR_CONVERSION, call, "data representation \"%s\" has no %s conversion function "
                           "(MPI_CONVERSION_FN_NULL: data moves as native bytes), but its extents make the "
                           "datatype %lld bytes in the file against %zu in memory", r->name,
                           write ? "write" : "read", (long long)el, t->size);
    if (null_fn && count > INT_MAX)
        return cm_io_error(f, MPI_ERR_COUNT, call, "count %lld beyond INT_MAX without a conversion function",
                           (long long)count);
    MPI_Offset per = el ? (MPI_Offset)(CHUNK / (size_t)el) : 0;  /* elements per piece */
    if (el && per == 0)
        per = 1;
    MPI_Offset ipe = (MPI_Offset)t->nbasic;      /* items per element */
    if (!r->large && per * ipe > INT_MAX)
        per = INT_MAX / (ipe ? ipe : 1);
    size_t cap = (size_t)(per * el < count * el ? per * el : count * el);
    char *fbuf = cap ? malloc(cap) : NULL;
    if (cap && !fbuf)
        return cm_io_error(f, MPI_ERR_NO_MEM, call, "no memory for a %zu-byte conversion buffer", cap);
    if (f->atomic)
        cm_io_atomic_lock(f, write);
    MPI_Offset elems = 0, fdone = 0, native = 0;
    int err = 0;
    while (!rc && el && elems < count) {
        MPI_Offset k = count - elems < per ? count - elems : per, want = k * el;
        if (write) {
            rc = convert(f, call, 1, buf, count, dt, fbuf, k * ipe, elems * ipe, (size_t)(elems * t->size),
                         (size_t)(k * t->size));
            if (rc)
                break;
        }
        MPI_Offset got = cm_io_view_io(f, write, fbuf, v + fdone, want);
        if (got < 0) {
            err = errno;
            break;
        }
        got -= got % f->esize;                   /* whole etypes only */
        MPI_Offset whole = got / el, items = whole * ipe, nat = whole * (MPI_Offset)t->size;
        if (got < want) {                        /* the end of the file: the whole items of the last element */
            struct prefix p = { r, got - whole * el, 0, 0 };
            each_run(t, prefix_run, &p);
            items += p.items;
            nat += p.native;
        }
        if (!write && items)
            rc = convert(f, call, 0, buf, count, dt, fbuf, items, elems * ipe, (size_t)(elems * t->size),
                         (size_t)nat);
        fdone += got;
        native += nat;
        elems += whole;
        if (got < want)
            break;
    }
    if (f->atomic)
        cm_io_atomic_unlock(f, write);
    free(fbuf);
    if (rc)
        return rc;
    if (err)
        return cm_io_error(f, cm_io_errno_class(err), call, "%s at stream offset %lld: %s", write ? "pwrite" : "pread",
                           (long long)v, strerror(err));
    if (st != MPI_STATUS_IGNORE) {
        st->MPI_SOURCE = MPI_ANY_SOURCE;
        st->MPI_TAG = MPI_ANY_TAG;
        cm_status_set_private(st, native, 0);
    }
    if (ndone)
        *ndone = fdone;
    return MPI_SUCCESS;
}
