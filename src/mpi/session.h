/* session.h -- what other files of the mpi layer need of a session (session.c). */
#ifndef CM_MPI_SESSION_H
#define CM_MPI_SESSION_H

#include "mpi.h"

/* MPI_SUCCESS and the session's handler in *errh, or the error an invalid
 * session raises (fatal: an invalid session has no handler of its own). */
int cm_session_check(MPI_Session h, MPI_Errhandler *errh, const char *call);

#endif
