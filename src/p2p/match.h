/*
 * match.h -- MPI matching: the posted-receive queue and the unexpected queue.
 *
 * Both are FIFOs in arrival/post order, one pair per context id; a message
 * matches the OLDEST posted receive of its context whose source and tag
 * fit, and a new receive matches the OLDEST unexpected message of its
 * context that fits.  Together with the FIFO rings this gives MPI's
 * non-overtaking order.
 */
#ifndef CM_P2P_MATCH_H
#define CM_P2P_MATCH_H

#include <stdint.h>
#include <stddef.h>
#include "core/request.h"

/* No receive is posted and no message waits unmatched: the next arrival can
 * only be for a receive made now (the blocking fast path's condition). */
int cm_match_idle(void);
int cm_match_hold_idle(uint16_t ctx);   /* MULTIPLE: see match.c */
void cm_match_unhold(uint16_t ctx);
/* An arrival: the oldest receive posted on its context that it fits, taken
 * off the posted queue; or NULL, the message then queued as unexpected
 * (under one hold of the context's lock: a receive posted meanwhile finds
 * it).  The caller delivers to the receive returned. */
struct cm_request *cm_match_eager(int src, uint16_t ctx, int tag, uint8_t flags, uint64_t token,
                                  const void *data, size_t len);
struct cm_request *cm_match_rts(int src, uint16_t ctx, int tag, uint64_t token, uint64_t addr, size_t len);
/* Copy an eager payload into a matched receive and complete it. */
void cm_recv_deliver(struct cm_request *r, int src_world, int tag, const void *data, size_t len);
/* Record the match in r's status (source, tag, size, truncation). */
void cm_recv_matched(struct cm_request *r, int src_world, int tag, size_t len);
void cm_recv_complete(struct cm_request *r);
void cm_match_finalize(void);

#endif
