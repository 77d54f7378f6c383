/*
 * bsend.h -- buffered mode: MPI_Buffer_attach/detach and the space Bsend uses.
 */
#ifndef CM_P2P_BSEND_H
#define CM_P2P_BSEND_H

#include "core/request.h"

/* Copy the message into the attached buffer and start it; returns an MPI error class. */
int cm_bsend_start(struct cm_request *user, const char *call);
/* A buffered send's internal copy has left: give its space back. */
void cm_bsend_done(struct cm_request *r);
/* Wait until every buffered send has left (Buffer_detach, Finalize). */
void cm_bsend_flush(void);

/* Who gets a buffer call's errors: obj NULL: comm's handler; else handler
 * errh called with obj (a pointer to the handle, e.g. MPI_Session *). */
struct cm_bsend_owner {
    MPI_Comm comm;
    MPI_Errhandler errh;
    void *obj;
};

/* The buffer of session index `session` (MPI-4.1 Session_attach_buffer
 * and friends; the caller checked the session).  Bsend on a communicator
 * derived from the session uses it when the communicator has none. */
int cm_bsend_session_attach(int session, const struct cm_bsend_owner *o, void *buffer, MPI_Count size,
                            const char *call);
/* max: INT_MAX for the int binding (a larger buffer stays attached and the
 * call fails with MPI_ERR_VALUE_TOO_LARGE), INT64_MAX for the _c one. */
int cm_bsend_session_detach(int session, const struct cm_bsend_owner *o, void *buffer_addr, MPI_Count *size,
                            MPI_Count max, unsigned call_id, const char *call);
void cm_bsend_session_flush(int session, unsigned call_id);
int cm_bsend_session_iflush(int session, const struct cm_bsend_owner *o, MPI_Request *request, const char *call);
/* Session_finalize: flush the session's buffer and forget it. */
void cm_bsend_session_end(int session, unsigned call_id);

#endif
