/*
 * outq.h -- per-destination FIFO of outgoing work that did not fit in the ring.
 *
 * Invariant: while a destination's queue is not empty, nothing is written to
 * its ring except by draining the queue in order; that keeps MPI's
 * non-overtaking rule for sends that had to wait for room.
 */
#ifndef CM_P2P_OUTQ_H
#define CM_P2P_OUTQ_H

#include <stdint.h>
#include "core/request.h"
#include "core/thread.h"

void cm_outq_init(int nranks);
void cm_outq_finalize(void);
extern int cm_outq_nactive;
/* Some destination has queued work (inline: every send and poll asks). */
static inline int cm_outq_active(void) { return CM_RACY_LOAD(cm_outq_nactive) > 0; }
int cm_outq_empty(int dst);
int cm_outq_room(void);            /* some queued destination's ring has room again */
int cm_outq_drain(void);           /* write what fits; returns items finished */

void cm_outq_push_send(int dst, struct cm_request *r);
void cm_outq_push_ctrl(int dst, uint8_t kind, const void *payload, uint32_t len);
void cm_outq_push_stream(int dst, struct cm_request *r);

/* Writers (p2p/send.c): return 1 when the item is fully written. */
int cm_write_first(struct cm_request *r);
int cm_write_ctrl(int dst, uint8_t kind, const void *payload, uint32_t len);
int cm_write_stream(struct cm_request *r);

/* A send request is done: its data left the user's buffer or the peer read it. */
void cm_send_complete(struct cm_request *r);
void cm_progress_add_generic(struct cm_request *r);
/* Take r off the polled list (it is complete); 0 if it cannot be now (a
 * poll of the list is running further up the stack) or was not there. */
int cm_progress_drop_generic(struct cm_request *r);

#endif
