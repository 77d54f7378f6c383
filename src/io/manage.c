/*
 * manage.c -- file manipulation (MPI-4.1 14.2.2-14.2.8, 14.6.1, 14.6.3):
 * size, preallocation, sync, atomicity, access mode, group and hints.
 *
 * The collective calls that change the file (set_size, preallocate) are
 * done once, by rank 0, and every rank returns its result (io.h,
 * cm_io_agree); the group is in step afterwards.
 */
#include "io/io.h"
#include "core/error.h"
#include "core/io_stats.h"
#include "fe_io.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int cm_File_get_size(MPI_File fh, MPI_Offset *size)
{
    static const char call[] = "MPI_File_get_size";
    CM_IO_FILE(f, fh, call, rc);
    if (!size)
        return cm_io_error(f, MPI_ERR_ARG, call, "size is NULL");
    struct stat sb;
    if (fstat(f->fd, &sb))
        return cm_io_error(f, cm_io_errno_class(errno), call, "fstat: %s", strerror(errno));
    *size = sb.st_size;
    return MPI_SUCCESS;
}

/* set_size and preallocate: grow: 1 for preallocate (never shrinks). */
static int resize(MPI_File fh, MPI_Offset size, int grow, const char *call)
{
    CM_IO_FILE(f, fh, call, rc);
    if (size < 0)
        return cm_io_error(f, MPI_ERR_ARG, call, "negative size %lld", (long long)size);
    if (f->amode & MPI_MODE_RDONLY)
        return cm_io_error(f, MPI_ERR_READ_ONLY, call, "the file was opened MPI_MODE_RDONLY");
    if (f->amode & MPI_MODE_SEQUENTIAL)
        return cm_io_error(f, MPI_ERR_UNSUPPORTED_OPERATION, call, "the file was opened MPI_MODE_SEQUENTIAL");
    int rc0 = MPI_SUCCESS;
    if (f->rank == 0) {
        struct stat sb;
        int e = fstat(f->fd, &sb) ? errno : 0;
        if (!e && grow && size > sb.st_size)
            e = posix_fallocate(f->fd, 0, size);
        else if (!e && !grow && size != sb.st_size && ftruncate(f->fd, size))
            e = errno;
        if (e)
            rc0 = cm_io_error(f, cm_io_errno_class(e), call, "size %lld: %s", (long long)size, strerror(e));
    }
    return cm_io_agree(f, call, rc0);
}

int cm_File_set_size(MPI_File fh, MPI_Offset size)
{
    return resize(fh, size, 0, "MPI_File_set_size");
}

int cm_File_preallocate(MPI_File fh, MPI_Offset size)
{
    return resize(fh, size, 1, "MPI_File_preallocate");
}

int cm_File_sync(MPI_File fh)
{
    static const char call[] = "MPI_File_sync";
    CM_IO_FILE(f, fh, call, rc);
    if (f->split_call)
        return cm_io_error(f, MPI_ERR_OTHER, call, "%s is pending", f->split_call);
    uint64_t t0 = cm_io_clock();
    if (!(f->amode & MPI_MODE_RDONLY) && fsync(f->fd))
        return cm_io_error(f, cm_io_errno_class(errno), call, "fsync: %s", strerror(errno));
    cm_io_stats_add(1, 0, t0);
    return MPI_SUCCESS;
}

int cm_File_set_atomicity(MPI_File fh, int flag)
{
    static const char call[] = "MPI_File_set_atomicity";
    CM_IO_FILE(f, fh, call, rc);
    int mine[2] = { !!flag, !flag }, all[2];
    PMPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, f->comm);
    if (all[0] && all[1])
        return cm_io_error(f, MPI_ERR_ARG, call, "the ranks passed different flags");
    f->atomic = !!flag;
    return MPI_SUCCESS;
}

/* The getters: what of the file into *out (name: the argument's name). */
enum what { ATOMICITY, AMODE, GROUP, INFO };

static int get(MPI_File fh, const char *call, const char *name, enum what what, void *out)
{
    CM_IO_FILE(f, fh, call, rc);
    if (!out)
        return cm_io_error(f, MPI_ERR_ARG, call, "%s is NULL", name);
    switch (what) {
    case ATOMICITY: *(int *)out = f->atomic; break;
    case AMODE: *(int *)out = f->amode; break;
    case GROUP: return PMPI_Comm_group(f->comm, out);
    case INFO: return cm_io_hints_report(f, out);
    }
    return MPI_SUCCESS;
}

int cm_File_get_atomicity(MPI_File fh, int *flag)
{
    return get(fh, "MPI_File_get_atomicity", "flag", ATOMICITY, flag);
}

int cm_File_get_amode(MPI_File fh, int *amode)
{
    return get(fh, "MPI_File_get_amode", "amode", AMODE, amode);
}

int cm_File_get_group(MPI_File fh, MPI_Group *group)
{
    return get(fh, "MPI_File_get_group", "group", GROUP, group);
}

/* Hints (hints.c): every key is kept for get_info; the known ones
 * change what the file does from the next access on. */
int cm_File_set_info(MPI_File fh, MPI_Info info)
{
    static const char call[] = "MPI_File_set_info";
    CM_IO_FILE(f, fh, call, rc);
    if ((rc = cm_io_hints_apply(f, info)))
        return cm_io_error(f, rc, call, "invalid info");
    return MPI_SUCCESS;
}

int cm_File_get_info(MPI_File fh, MPI_Info *info_used)
{
    return get(fh, "MPI_File_get_info", "info_used", INFO, info_used);
}
