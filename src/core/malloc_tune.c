/*
 * malloc_tune.c -- keep freed scratch memory mapped.
 *
 * Collective algorithms take temporaries of the message's size and free
 * them when the call ends.  With glibc's defaults a freed block of a few
 * hundred KiB at the top of the heap is given back (trim) or was mmap'ed in
 * the first place, so the next call faults every page in again: a 1 MiB
 * MPI_Reduce at 2 ranks took 640-690 us instead of 110 us, a 1 MiB MPI_Scan
 * 1.1 ms instead of 0.18 ms (bench/coll.c, same session).  Open MPI and
 * MVAPICH tune the allocator for the same reason.
 *
 * So MPI_Init raises the trim threshold to 64 MiB and the mmap threshold to
 * 32 MiB (glibc's largest): blocks up to 32 MiB come from the heap and up to
 * 64 MiB of free heap top stays mapped.  Skipped when the user tunes malloc
 * (MALLOC_TRIM_THRESHOLD_, MALLOC_MMAP_THRESHOLD_ or GLIBC_TUNABLES with
 * malloc settings) or sets COREMPI_MALLOC_TUNE=0.
 */
#include "core/malloc_tune.h"
#include "core/state.h"

#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

int cm_malloc_tune(void)
{
#ifdef __GLIBC__
    if (!cm_env_size("COREMPI_MALLOC_TUNE", 1))
        return 0;
    const char *t = getenv("GLIBC_TUNABLES");
    if (getenv("MALLOC_TRIM_THRESHOLD_") || getenv("MALLOC_MMAP_THRESHOLD_") || (t && strstr(t, "malloc")))
        return 0;
    return mallopt(M_MMAP_THRESHOLD, 32 << 20) && mallopt(M_TRIM_THRESHOLD, 64 << 20);
#else
    return 0;
#endif
}
