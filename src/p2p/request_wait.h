/*
 * request_wait.h -- waiting on requests (p2p/request_wait.c): these drive the
 * progress engine, so they sit in p2p above the request objects of core.
 */
#ifndef CM_P2P_REQUEST_WAIT_H
#define CM_P2P_REQUEST_WAIT_H

#include "mpi.h"
#include "core/request.h"

/* A request completed by polling: poll(state) returns 1 once done.
 * destroy(state) is called after completion when the request is released. */
MPI_Request cm_request_generic(int (*poll)(void *state), void (*destroy)(void *state), void *state);
/* The same with a way to wait that sleeps where the operation waits (a
 * shared-memory word) instead of on the rank's doorbell: block(state) returns
 * once poll(state) would return 1, and may progress everything else. */
MPI_Request cm_request_generic_blocking(int (*poll)(void *state), void (*destroy)(void *state),
                                        void (*block)(void *state), void *state);

/* The same in two steps, for a state that must point back to its request:
 * _new builds it (no handle, not polled yet), _go polls it once, hands it to
 * the engine if not done, and returns its handle. */
struct cm_request *cm_request_generic_new(int (*poll)(void *state), void (*destroy)(void *state), void *state);
MPI_Request cm_request_generic_go(struct cm_request *r);

/* Make progress on r; returns 1 when complete. */
int cm_request_test(struct cm_request *r);

/* Wait until r completes (progresses everything; may sleep). */
void cm_request_wait(struct cm_request *r, unsigned call_id);

#endif
