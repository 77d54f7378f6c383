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

#endif
