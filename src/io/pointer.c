/*
 * pointer.c -- the individual file pointer (MPI-4.1 14.4.3): seek and
 * get_position, in etype units of the current view, and the inverse map
 * of the view that MPI_SEEK_END needs (the data-stream position of the
 * end of the file).
 */
#include "io/io.h"
#include "core/error.h"
#include "fe_io.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

/* Data bytes of one filetype tile that lie below byte r of the tile. */
static MPI_Offset tile_bytes_below(const struct cm_datatype *t, MPI_Offset r)
{
    MPI_Offset n = 0;
    for (size_t rep = 0; rep < t->rep_count; rep++)
        for (size_t b = 0; b < t->nblocks; b++) {
            MPI_Offset start = (MPI_Offset)rep * t->rep_stride + t->blocks[b].disp;
            if (start >= r)
                return n;
            MPI_Offset len = (MPI_Offset)t->blocks[b].len;
            n += r - start < len ? r - start : len;
        }
    return n;
}

/* The etype position of the file's end in the view: the data-stream bytes
 * that lie before it, rounded up to whole etypes. */
static MPI_Offset eof_position(const struct cm_file *f, MPI_Offset size)
{
    const struct cm_datatype *t = f->ft;
    MPI_Offset rem = size - f->disp, bytes;
    if (rem <= 0)
        return 0;
    if (t->contig && t->size == (size_t)t->extent) {
        bytes = rem - t->true_lb;
    } else {
        MPI_Offset tiles = rem / f->textent;
        bytes = tiles * f->tsize + tile_bytes_below(t, rem % f->textent);
    }
    return bytes <= 0 ? 0 : (bytes + f->esize - 1) / f->esize;
}

int cm_io_seek_target(struct cm_file *f, const char *call, MPI_Offset offset, int whence, MPI_Offset cur,
                      MPI_Offset *to)
{
    MPI_Offset base;
    struct stat sb;
    switch (whence) {
    case MPI_SEEK_SET: base = 0; break;
    case MPI_SEEK_CUR: base = cur; break;
    case MPI_SEEK_END:
        if (fstat(f->fd, &sb))
            return cm_io_error(f, cm_io_errno_class(errno), call, "fstat: %s", strerror(errno));
        base = eof_position(f, sb.st_size);
        break;
    default:
        return cm_io_error(f, MPI_ERR_ARG, call, "invalid whence %d", whence);
    }
    if (base + offset < 0)
        return cm_io_error(f, MPI_ERR_ARG, call, "the position %lld would be negative", (long long)(base + offset));
    *to = base + offset;
    return MPI_SUCCESS;
}

int cm_File_seek(MPI_File fh, MPI_Offset offset, int whence)
{
    static const char call[] = "MPI_File_seek";
    CM_IO_FILE(f, fh, call, rc);
    if (f->amode & MPI_MODE_SEQUENTIAL)
        return cm_io_error(f, MPI_ERR_UNSUPPORTED_OPERATION, call, "the file was opened MPI_MODE_SEQUENTIAL");
    cm_mt_lock(&f->pos_lock);
    rc = cm_io_seek_target(f, call, offset, whence, f->pos, &f->pos);
    cm_mt_unlock(&f->pos_lock);
    return rc;
}

/* The individual or the shared file pointer (shared.c), in etypes. */
static int position(MPI_File fh, const char *call, int shared, MPI_Offset *offset)
{
    CM_IO_FILE(f, fh, call, rc);
    if (!offset)
        return cm_io_error(f, MPI_ERR_ARG, call, "offset is NULL");
    if (shared) {
        *offset = __atomic_load_n(f->shared, __ATOMIC_SEQ_CST);
    } else {
        cm_mt_lock(&f->pos_lock);
        *offset = f->pos;
        cm_mt_unlock(&f->pos_lock);
    }
    return MPI_SUCCESS;
}

int cm_File_get_position(MPI_File fh, MPI_Offset *offset)
{
    return position(fh, "MPI_File_get_position", 0, offset);
}

int cm_File_get_position_shared(MPI_File fh, MPI_Offset *offset)
{
    return position(fh, "MPI_File_get_position_shared", 1, offset);
}
