/*
 * check.h -- argument checks shared by the point-to-point calls.  The fast
 * paths test the common case inline and call cm_p2p_check() only when
 * something looks wrong, so that the error names the exact argument.
 */
#ifndef CM_P2P_CHECK_H
#define CM_P2P_CHECK_H

#include "mpi.h"
#include "core/attr.h"

enum cm_peer_role { CM_PEER_DEST, CM_PEER_SOURCE };

/* Full check of a point-to-point call's arguments.  Returns MPI_SUCCESS or the
 * error class (after the communicator's error handler ran). */
int cm_p2p_check(const char *call, const void *buf, int count, MPI_Datatype dt, int peer,
                 enum cm_peer_role role, int tag, MPI_Comm comm);

/* Request-array and request-pointer checks for Wait/Test families. */
int cm_check_request_ptr(const char *call, const MPI_Request *req);

#endif
