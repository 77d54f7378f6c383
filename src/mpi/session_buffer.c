/*
 * session_buffer.c -- a buffered-send buffer per session (MPI-4.1 §3.6.1):
 * MPI_Session_attach_buffer, _detach_buffer, _flush_buffer, _iflush_buffer.
 *
 * The buffer itself lives in p2p/bsend.c beside the communicators' and the
 * process's, keyed by the session's index.  A Bsend on a communicator uses
 * the communicator's buffer, else the buffer of the session the
 * communicator derives from (cm_comm.session: set when it was made from a
 * session's group or from such a communicator), else the process's.
 * MPI_Session_finalize sends what the session's buffer holds and forgets it.
 * Errors go to the session's handler.
 */
#include "core/handle.h"
#include "core/state.h"
#include "mpi/session.h"
#include "p2p/bsend.h"
#include "fe_p2p.h"

#include <limits.h>
#include <stdint.h>


/* Both bindings of attach and detach: the buffer's owner is the session,
 * whose handler its errors go to.  max: the most the binding's size holds. */
static int attach(MPI_Session session, void *buffer, MPI_Count size, const char *call)
{
    MPI_Errhandler errh;
    int rc = cm_session_check(session, &errh, call);
    struct cm_bsend_owner o = { MPI_COMM_NULL, errh, &session };
    return rc ? rc : cm_bsend_session_attach(cm_session_index(session), &o, buffer, size, call);
}

static int detach(MPI_Session session, void *buffer_addr, MPI_Count *size, MPI_Count max, unsigned call_id,
                  const char *call)
{
    MPI_Errhandler errh;
    int rc = cm_session_check(session, &errh, call);
    struct cm_bsend_owner o = { MPI_COMM_NULL, errh, &session };
    return rc ? rc : cm_bsend_session_detach(cm_session_index(session), &o, buffer_addr, size, max, call_id, call);
}

int cm_Session_attach_buffer(MPI_Session session, void *buffer, int size)
{
    return attach(session, buffer, size, "MPI_Session_attach_buffer");
}

int cm_Session_detach_buffer(MPI_Session session, void *buffer_addr, int *size)
{
    MPI_Count n = 0;
    int rc = detach(session, buffer_addr, size ? &n : NULL, INT_MAX, CM_CALL_Session_detach_buffer,
                    "MPI_Session_detach_buffer");
    if (rc == MPI_SUCCESS)
        *size = (int)n;
    return rc;
}

int cm_Session_attach_buffer_c(MPI_Session session, void *buffer, MPI_Count size)
{
    return attach(session, buffer, size, "MPI_Session_attach_buffer_c");
}

int cm_Session_detach_buffer_c(MPI_Session session, void *buffer_addr, MPI_Count *size)
{
    return detach(session, buffer_addr, size, INT64_MAX, CM_CALL_Session_detach_buffer_c,
                  "MPI_Session_detach_buffer_c");
}

int cm_Session_flush_buffer(MPI_Session session)
{
    MPI_Errhandler errh;
    int rc = cm_session_check(session, &errh, "MPI_Session_flush_buffer");
    if (!rc)
        cm_bsend_session_flush(cm_session_index(session), CM_CALL_Session_flush_buffer);
    return rc;
}

int cm_Session_iflush_buffer(MPI_Session session, MPI_Request *request)
{
    static const char call[] = "MPI_Session_iflush_buffer";
    MPI_Errhandler errh;
    int rc = cm_session_check(session, &errh, call);
    struct cm_bsend_owner o = { MPI_COMM_NULL, errh, &session };
    return rc ? rc : cm_bsend_session_iflush(cm_session_index(session), &o, request, call);
}
