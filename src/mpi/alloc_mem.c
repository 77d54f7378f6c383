/*
 * alloc_mem.c -- MPI_Alloc_mem and MPI_Free_mem.
 *
 * From a page on, a block is shared memory (osc/memblk.c: a memfd of its
 * own) so that a later MPI_Win_create on it is reached by every rank's own
 * loads and stores, as MPI_Win_allocate is; smaller blocks are process
 * memory (memblk.c says why).  For point-to-point either is like any other
 * buffer.  Process-memory blocks are aligned to a cache line so that a
 * user's flags in them do not share lines with unrelated data (shared ones
 * to a page).  No info key changes anything; a bad info handle is still
 * refused.
 */
#include "core/error.h"
#include "core/info.h"
#include "core/state.h"
#include "osc/osc.h"
#include "fe_env.h"

#include <stdint.h>
#include <stdlib.h>

int cm_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    static const char call[] = "MPI_Alloc_mem";
    if (size < 0)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_SIZE, call, "size %ld is negative", (long)size);
    CM_ARG_NOT_NULL(MPI_COMM_WORLD, baseptr, call);
    if (!cm_info_valid(info))
        return cm_error(MPI_COMM_WORLD, MPI_ERR_INFO, call, "invalid info %ld", (long)(intptr_t)info);
    void *p = cm_osc_mem_alloc((size_t)size);
    if (p) {
        *(void **)baseptr = p;
        return MPI_SUCCESS;
    }
    /* size 0 still gets a block of its own, so Free_mem has something to free */
    if (posix_memalign(&p, 64, size ? (size_t)size : 1) != 0)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, call, "cannot allocate %ld bytes", (long)size);
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}

int cm_Free_mem(void *base)
{
    if (!cm_osc_mem_free(base))
        free(base);
    return MPI_SUCCESS;
}
