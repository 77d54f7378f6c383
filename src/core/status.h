/*
 * status.h -- corempi's private fields of MPI_Status, in one place.
 *
 * Every read or write of the byte count and the cancelled flag goes through
 * these, so the MPI-5.0 ABI switch (docs/abi.md section 3) changes this file
 * only.  With the standard header (MPI_ABI_VERSION defined) the status is 8
 * ints: MPI_internal[0..1] hold the byte count as an int64_t and [2] the
 * cancelled flag.  The struct is only int-aligned, so the 64-bit count is
 * moved with memcpy (one unaligned load or store on x86-64), never through
 * an int64_t pointer.
 */
#ifndef CM_CORE_STATUS_H
#define CM_CORE_STATUS_H

#include <string.h>
#include "mpi.h"

#ifdef MPI_ABI_VERSION
static inline long long cm_status_bytes(const MPI_Status *st)
{
    long long n;
    memcpy(&n, &st->MPI_internal[0], sizeof n);
    return n;
}
static inline void cm_status_set_bytes(MPI_Status *st, long long n)
{
    memcpy(&st->MPI_internal[0], &n, sizeof n);
}
static inline int cm_status_cancelled(const MPI_Status *st) { return st->MPI_internal[2]; }
static inline void cm_status_set_cancelled(MPI_Status *st, int flag) { st->MPI_internal[2] = flag; }
#else
static inline long long cm_status_bytes(const MPI_Status *st) { return st->cm_bytes; }
static inline void cm_status_set_bytes(MPI_Status *st, long long n) { st->cm_bytes = n; }
static inline int cm_status_cancelled(const MPI_Status *st) { return st->cm_cancelled; }
static inline void cm_status_set_cancelled(MPI_Status *st, int flag) { st->cm_cancelled = flag; }
#endif

/* Both private fields at once (empty statuses, matched and cancelled receives). */
static inline void cm_status_set_private(MPI_Status *st, long long bytes, int cancelled)
{
    cm_status_set_bytes(st, bytes);
    cm_status_set_cancelled(st, cancelled);
}

#endif
