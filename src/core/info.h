/*
 * info.h -- MPI_Info objects (core/info.c) as the rest of the library sees them.
 *
 * Handles: MPI_INFO_NULL and MPI_INFO_ENV (built on first use, read-only in
 * spirit but never freed) are the ABI's predefined values; user objects are
 * core/handle.h's created handles.
 */
#ifndef CM_CORE_INFO_H
#define CM_CORE_INFO_H

#include "mpi.h"

/* Free an info handle the library holds (e.g. cm_comm.info at Comm_free).
 * Ignores MPI_INFO_NULL, MPI_INFO_ENV and invalid handles. */
void cm_info_release(MPI_Info info);

/* A new info object with the keys of info (MPI_INFO_NULL: an empty one).
 * Returns MPI_SUCCESS, MPI_ERR_INFO (invalid handle) or MPI_ERR_NO_MEM; raises nothing. */
int cm_info_copy(MPI_Info info, MPI_Info *copy);

/* 1 when info may be passed where the standard takes an optional info:
 * MPI_INFO_NULL, MPI_INFO_ENV or a live object; 0 otherwise.  For the calls
 * that accept info hints they do not read, so a freed or made-up handle is
 * still refused. */
int cm_info_valid(MPI_Info info);

/* Release every info object (MPI_Finalize). */
void cm_info_finalize(void);

#endif
