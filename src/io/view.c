/*
 * view.c -- file views (MPI-4.1 14.3): set_view, get_view, and the map
 * from the data stream to file offsets that every data access uses.
 *
 * The filetype is never expanded: its layout (core/datatype.h: blocks of
 * one repetition, repeated rep_count times rep_stride apart) is searched
 * directly.  Byte v of the data stream lies in tile v / tsize, which starts
 * at disp + tile * extent; within the tile, repetition q / rep_bytes and
 * the block whose packed range holds the rest (a binary search).  A
 * contiguous filetype (MPI_BYTE, the default) maps to disp + v directly.
 */
#include "io/io.h"
#include "core/error.h"
#include "fe_io.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int is_contig(const struct cm_datatype *t)
{
    return t->contig && t->size == (size_t)t->extent;
}

MPI_Offset cm_io_view_map(const struct cm_file *f, MPI_Offset v, MPI_Offset *avail)
{
    const struct cm_datatype *t = f->ft;
    if (is_contig(t)) {
        *avail = INT64_MAX - v;
        return f->disp + t->true_lb + v;
    }
    MPI_Offset tile = v / f->tsize, q = v % f->tsize;
    MPI_Offset repb = f->tsize / (MPI_Offset)t->rep_count;
    MPI_Offset r = q / repb, w = q % repb;
    size_t lo = 0, hi = t->nblocks;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if ((MPI_Offset)t->blocks[mid].packed <= w)
            lo = mid;
        else
            hi = mid;
    }
    const struct cm_dt_block *b = &t->blocks[lo];
    MPI_Offset in = w - (MPI_Offset)b->packed;
    *avail = (MPI_Offset)b->len - in;
    return f->disp + tile * f->textent + r * t->rep_stride + b->disp + in;
}

/* MPI-4.1 14.3: a filetype's displacements are non-negative and
 * monotonically nondecreasing, so that the data stream runs forward
 * through the file.  NULL when t satisfies it. */
static const char *filetype_fault(const struct cm_datatype *t)
{
    MPI_Aint end = 0;
    for (size_t b = 0; b < t->nblocks; b++) {
        if (t->blocks[b].disp < end)
            return b == 0 ? "the filetype has a negative displacement"
                          : "the filetype's displacements are not monotonically nondecreasing";
        end = t->blocks[b].disp + (MPI_Aint)t->blocks[b].len;
    }
    if (t->rep_count > 1 && t->nblocks && t->rep_stride < end - t->blocks[0].disp)
        return "the filetype's displacements are not monotonically nondecreasing";
    return NULL;
}

void cm_io_view_release(struct cm_file *f)
{
    if (f->etype) {
        cm_dt_release(f->etype);
        cm_dt_release(f->filetype);
    }
    cm_io_type_drop(&f->file_etype);
    cm_io_type_drop(&f->file_filetype);
    f->etype = f->filetype = 0;
    f->ft = NULL;
}

/* The view's types in the file's layout, for a user representation
 * (datarep_conv.c); 0: the native layout. */
struct file_layout {
    struct cm_io_datarep *rep;  /* NULL: a predefined representation */
    MPI_Datatype etype, filetype;
};

static void view_install(struct cm_file *f, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                         const char *datarep, const struct file_layout *lay)
{
    cm_dt_retain(etype);
    cm_dt_retain(filetype);
    cm_io_view_release(f);
    f->disp = disp;
    f->etype = etype;
    f->filetype = filetype;
    f->urep = lay->rep;
    f->file_etype = lay->etype;
    f->file_filetype = lay->filetype;
    f->ft = cm_dt_lookup(lay->filetype ? lay->filetype : filetype);
    f->esize = (MPI_Offset)cm_dt_lookup(lay->etype ? lay->etype : etype)->size;
    f->tsize = (MPI_Offset)f->ft->size;
    f->textent = f->ft->extent;
    snprintf(f->datarep, sizeof f->datarep, "%s", datarep);
    f->ext32 = !strcmp(datarep, "external32");
    f->pos = 0;
}

int cm_io_view_default(struct cm_file *f)
{
    static const struct file_layout native;
    view_install(f, 0, MPI_BYTE, MPI_BYTE, "native", &native);
    return MPI_SUCCESS;
}

/* A user representation's layout of the view (lay->rep is set): the
 * rebuilt filetype must still hold whole etypes. */
static int user_layout(struct cm_file *f, const char *call, MPI_Datatype etype, MPI_Datatype filetype,
                       struct file_layout *lay)
{
    int rc = cm_io_urep_layout(f, call, lay->rep, etype, filetype, &lay->etype, &lay->filetype);
    if (rc)
        return rc;
    size_t es = cm_dt_lookup(lay->etype ? lay->etype : etype)->size;
    size_t ts = cm_dt_lookup(lay->filetype ? lay->filetype : filetype)->size;
    if (ts % es == 0)
        return MPI_SUCCESS;
    cm_io_type_drop(&lay->etype);
    cm_io_type_drop(&lay->filetype);
    return cm_io_error(f, MPI_ERR_TYPE, call, "in data representation \"%s\" the filetype (%zu bytes) is no "
                       "multiple of the etype (%zu bytes)", lay->rep->name, ts, es);
}

/* The checks of set_view on this rank: MPI_SUCCESS or the class raised. */
static int view_check(struct cm_file *f, const char *call, MPI_Offset *disp, MPI_Datatype etype,
                      MPI_Datatype filetype, const char *datarep, struct file_layout *lay)
{
    const struct cm_datatype *e = cm_dt_lookup(etype), *t = cm_dt_lookup(filetype);
    if (!e || !e->committed)
        return cm_io_error(f, MPI_ERR_TYPE, call, "etype %s", !e ? "is invalid" : "is not committed");
    if (!t || !t->committed)
        return cm_io_error(f, MPI_ERR_TYPE, call, "filetype %s", !t ? "is invalid" : "is not committed");
    if (e->size == 0 || t->size == 0)
        return cm_io_error(f, MPI_ERR_TYPE, call, "%s holds no data", e->size == 0 ? "etype" : "filetype");
    if (t->size % e->size)
        return cm_io_error(f, MPI_ERR_TYPE, call, "the filetype (%zu bytes) is no multiple of the etype (%zu bytes)",
                           t->size, e->size);
    if (e->extent < 0 || t->extent <= 0)
        return cm_io_error(f, MPI_ERR_TYPE, call, "the %s has a non-positive extent", e->extent < 0 ? "etype" : "filetype");
    const char *fault = filetype_fault(t);
    if (fault)
        return cm_io_error(f, MPI_ERR_TYPE, call, "%s", fault);
    if (!datarep)
        return cm_io_error(f, MPI_ERR_ARG, call, "datarep is NULL");
    if (strcmp(datarep, "native") && strcmp(datarep, "internal") && strcmp(datarep, "external32") &&
        !(lay->rep = cm_io_datarep_find(datarep)))
        return cm_io_error(f, MPI_ERR_UNSUPPORTED_DATAREP, call, "data representation \"%s\" is neither "
                           "predefined nor registered with MPI_Register_datarep on this rank", datarep);
    if (*disp == MPI_DISPLACEMENT_CURRENT) {
        if (!(f->amode & MPI_MODE_SEQUENTIAL))
            return cm_io_error(f, MPI_ERR_ARG, call, "MPI_DISPLACEMENT_CURRENT needs MPI_MODE_SEQUENTIAL");
        MPI_Offset avail;
        *disp = cm_io_view_map(f, __atomic_load_n(f->shared, __ATOMIC_SEQ_CST) * f->esize, &avail);
    } else if (*disp < 0) {
        return cm_io_error(f, MPI_ERR_ARG, call, "negative displacement %lld", (long long)*disp);
    }
    return lay->rep ? user_layout(f, call, etype, filetype, lay) : MPI_SUCCESS;
}

int cm_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                     const char *datarep, MPI_Info info)
{
    static const char call[] = "MPI_File_set_view";
    CM_IO_FILE(f, fh, call, rc);
    if (f->split_call)
        return cm_io_error(f, MPI_ERR_OTHER, call, "%s is pending (call its _end first)", f->split_call);
    /* Every rank learns of an error anywhere: the view is the group's. */
    struct file_layout lay = { NULL, 0, 0 };
    int cls = view_check(f, call, &disp, etype, filetype, datarep, &lay), any;
    PMPI_Allreduce(&cls, &any, 1, MPI_INT, MPI_MAX, f->comm);
    if (!cls && any)
        cls = cm_io_error(f, any, call, "set_view failed on another rank");
    /* Collective whatever info each rank passed (hints.c agrees); every
     * rank skips it alike when any rank failed above. */
    if (!cls && (rc = cm_io_hints_apply(f, info)))
        cls = cm_io_error(f, rc, call, "invalid info");
    if (cls) {
        cm_io_type_drop(&lay.etype);
        cm_io_type_drop(&lay.filetype);
        return cls;
    }
    view_install(f, disp, etype, filetype, datarep, &lay);
    if (f->rank == 0)
        __atomic_store_n(f->shared, 0, __ATOMIC_SEQ_CST);
    PMPI_Barrier(f->comm);
    return MPI_SUCCESS;
}

/* A derived type is returned as a new handle the caller frees (14.3). */
static int type_out(MPI_Datatype dt, MPI_Datatype *out)
{
    if (cm_dt_lookup(dt)->predefined) {
        *out = dt;
        return MPI_SUCCESS;
    }
    return PMPI_Type_dup(dt, out);
}

int cm_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype, char *datarep)
{
    static const char call[] = "MPI_File_get_view";
    CM_IO_FILE(f, fh, call, rc);
    if (!disp || !etype || !filetype || !datarep)
        return cm_io_error(f, MPI_ERR_ARG, call, "an output argument is NULL");
    *disp = f->disp;
    if ((rc = type_out(f->etype, etype)) || (rc = type_out(f->filetype, filetype)))
        return cm_io_error(f, rc, call, "could not duplicate the view's types");
    strcpy(datarep, f->datarep);
    return MPI_SUCCESS;
}

int cm_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp)
{
    static const char call[] = "MPI_File_get_byte_offset";
    CM_IO_FILE(f, fh, call, rc);
    if (!disp)
        return cm_io_error(f, MPI_ERR_ARG, call, "disp is NULL");
    if (offset < 0)
        return cm_io_error(f, MPI_ERR_ARG, call, "negative offset %lld", (long long)offset);
    MPI_Offset avail;
    *disp = cm_io_view_map(f, offset * f->esize, &avail);
    return MPI_SUCCESS;
}

/* "native" and "internal" store data as memory holds it, and "external32"
 * has the native sizes on this LP64 machine (core/datatype_pack.c): the
 * extent in the file is the extent in memory.  A user representation's
 * comes from its extent callback (datarep_conv.c). */
int cm_File_get_type_extent_c(MPI_File fh, MPI_Datatype datatype, MPI_Count *extent)
{
    static const char call[] = "MPI_File_get_type_extent";
    CM_IO_FILE(f, fh, call, rc);
    const struct cm_datatype *t = cm_dt_lookup(datatype);
    if (!t)
        return cm_io_error(f, MPI_ERR_TYPE, call, "invalid datatype");
    if (!extent)
        return cm_io_error(f, MPI_ERR_ARG, call, "extent is NULL");
    if (f->urep)
        return cm_io_urep_type_extent(f, call, datatype, extent);
    *extent = t->extent;
    return MPI_SUCCESS;
}

int cm_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent)
{
    MPI_Count e = 0;
    int rc = cm_File_get_type_extent_c(fh, datatype, extent ? &e : NULL);
    if (!rc)
        *extent = (MPI_Aint)e;
    return rc;
}
