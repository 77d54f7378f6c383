/*
 * send.c -- the sending side: eager messages, rendezvous requests (RTS),
 * streamed fragments after a CTS, and small control messages.
 *
 * Stages of a send request (send_stage):
 *   0  not yet in the ring (queued or about to be written)
 *   1  eager synchronous: waiting for the receiver's ACK
 *   2  rendezvous: waiting for FIN (single copy) or CTS (stream)
 *   3  streaming after a CTS
 */
#include "p2p/p2p.h"
#include "p2p/outq.h"
#include "core/state.h"
#include "core/remote.h"
#include "core/comm.h"
#include "core/datatype.h"
#include "core/error.h"
#include "p2p/bsend.h"
#include "shm/ring.h"
#include "shm/wait.h"
#include "shm/copy.h"
#include "p2p/mt.h"

#include <stdlib.h>
#include <string.h>

extern struct cm_ring_tx *cm_tx;


static inline void publish_and_wake(int dst, struct cm_msg_hdr *h)
{
    cm_ring_publish(&cm_tx[dst], h);
    cm_peer_wake(dst);
}

/* The eager message written into dst's ring now; 0 when it has no room. */
static inline __attribute__((always_inline)) int write_eager_now(const void *data, size_t bytes, int dst,
                                                                 uint16_t ctx, int tag)
{
    struct cm_msg_hdr *h = cm_ring_reserve(&cm_tx[dst], (uint32_t)bytes);
    if (!h)
        return 0;
    CM_FAULT(mt_reserve_publish);   /* another producer must not reserve the same slots */
    h->kind = CM_MSG_EAGER;
    h->flags = 0;
    h->ctx = ctx;
    h->tag = tag;
    h->len = (uint32_t)bytes;
    cm_copy_small(cm_msg_payload(h), data, bytes);
    publish_and_wake(dst, h);
    cm_p2p_count(dst, bytes);
    return 1;
}

/* MPI_THREAD_MULTIPLE: the same under the ring's producer lock. */
static __attribute__((noinline)) int try_immediate_mt(const void *data, size_t bytes, int dst, uint16_t ctx,
                                                       int tag)
{
    if (bytes > cm_g.eager_max)
        return 0;
    pthread_mutex_lock(&cm_tx_locks[dst]);
    int sent = cm_outq_empty(dst) && write_eager_now(data, bytes, dst, ctx, tag);
    pthread_mutex_unlock(&cm_tx_locks[dst]);
    return sent;
}

int cm_send_try_immediate(const void *data, size_t bytes, int dst, uint16_t ctx, int tag)
{
    if (__builtin_expect(cm_mt, 0))
        return try_immediate_mt(data, bytes, dst, ctx, tag);
    if (bytes > cm_g.eager_max || (cm_outq_active() && !cm_outq_empty(dst)))
        return 0;
    /* R3: nothing for dst waits in the out-queue (no queue at all when it is
     * not active), so this message cannot overtake one. */
    CM_ASSERT(cm_outq_empty(dst), "R3 (docs/protocols.md)");
    return write_eager_now(data, bytes, dst, ctx, tag);
}

int cm_write_first(struct cm_request *r)
{
    int dst = r->peer_world;
    int sync = r->mode == CM_MODE_SYNC;
    if (r->bytes <= cm_g.eager_max) {
        uint32_t len = (uint32_t)r->bytes + (sync ? 8u : 0u);
        struct cm_msg_hdr *h = cm_ring_reserve(&cm_tx[dst], len);
        if (!h)
            return 0;
        char *p = cm_msg_payload(h);
        h->kind = CM_MSG_EAGER;
        h->flags = sync ? CM_MSGF_SYNC : 0;
        h->ctx = r->ctx;
        h->tag = r->tag;
        h->len = len;
        if (sync) {
            uint64_t token = (uintptr_t)r;
            memcpy(p, &token, 8);
            p += 8;
        }
        if (r->bytes) {
            if (r->data)
                cm_copy(p, r->data, r->bytes);
            else /* non-contiguous: packed straight into the ring */
                cm_dt_pack(r->buf, r->count, cm_dt_lookup(r->dtype), p);
        }
        r->send_stage = 1;
        publish_and_wake(dst, h);
        cm_p2p_count(dst, r->bytes);
        if (!sync)
            cm_send_complete(r);
        return 1;
    }
    struct cm_msg_hdr *h = cm_ring_reserve(&cm_tx[dst], sizeof(struct cm_rts));
    if (!h)
        return 0;
    struct cm_rts rts = { (uintptr_t)r, (uintptr_t)r->data, r->bytes };
    h->kind = CM_MSG_RTS;
    h->flags = r->data ? 0 : CM_MSGF_STREAM;
    h->ctx = r->ctx;
    h->tag = r->tag;
    h->len = sizeof rts;
    memcpy(cm_msg_payload(h), &rts, sizeof rts);
    r->send_stage = 2;
    cm_p2p_owe(r);      /* before the receiver can see the RTS and ask */
    cm_rndv_out_mark(r);
    publish_and_wake(dst, h);
    cm_p2p_count(dst, r->bytes);
    return 1;
}

int cm_write_ctrl(int dst, uint8_t kind, const void *payload, uint32_t len)
{
    struct cm_msg_hdr *h = cm_ring_reserve(&cm_tx[dst], len);
    if (!h)
        return 0;
    h->kind = kind;
    h->flags = 0;
    h->ctx = 0;
    h->tag = 0;
    h->len = len;
    cm_copy(cm_msg_payload(h), payload, len);
    publish_and_wake(dst, h);
    return 1;
}

int cm_write_stream(struct cm_request *r)
{
    int dst = r->peer_world;
    while (r->streamed < r->bytes) {
        size_t chunk = r->bytes - r->streamed;
        if (chunk > cm_g.frag_max)
            chunk = cm_g.frag_max;
        struct cm_msg_hdr *h = cm_ring_reserve(&cm_tx[dst], (uint32_t)(chunk + 8));
        if (!h)
            return 0;
        char *p = cm_msg_payload(h);
        h->kind = CM_MSG_DATA;
        h->flags = 0;
        h->ctx = 0;
        h->tag = 0;
        h->len = (uint32_t)(chunk + 8);
        memcpy(p, &r->peer_token, 8);
        if (r->data)
            cm_copy(p + 8, (const char *)r->data + r->streamed, chunk);
        else /* non-contiguous: each fragment is packed from the user's buffer */
            cm_dt_pack_range(r->buf, r->count, cm_dt_lookup(r->dtype), r->streamed, p + 8, chunk);
        r->streamed += chunk;
        publish_and_wake(dst, h);
    }
    cm_send_complete(r);
    return 1;
}

void cm_send_ctrl(int dst, uint8_t kind, const void *payload, uint32_t len)
{
    cm_tx_lock(dst);
    if (!cm_outq_empty(dst) || !cm_write_ctrl(dst, kind, payload, len))
        cm_outq_push_ctrl(dst, kind, payload, len);
    cm_tx_unlock(dst);
}

void cm_send_stream(struct cm_request *r, uint64_t receiver_token)
{
    int dst = r->peer_world;
    r->peer_token = receiver_token;
    r->send_stage = 3;
    cm_tx_lock(dst);
    if (!cm_outq_empty(dst) || !cm_write_stream(r))
        cm_outq_push_stream(dst, r);
    cm_tx_unlock(dst);
}

void cm_send_complete(struct cm_request *r)
{
    cm_p2p_settle(r);
    cm_rndv_out_settle(r);
    /* Read before the completion: from then on a waiting thread may
     * release r (MPI_THREAD_MULTIPLE). */
    int buffered = r->mode == CM_MODE_BUFFERED && r->internal, freed = r->freed;
    __atomic_store_n(&r->complete, 1, __ATOMIC_RELEASE);
    if (buffered)
        cm_bsend_done(r);
    else if (freed)
        cm_request_release(r);
}

void cm_send_start(struct cm_request *r)
{
    r->complete = 0;
    r->send_stage = 0;
    r->streamed = 0;
    r->status.MPI_ERROR = MPI_SUCCESS;
    if (r->peer == MPI_PROC_NULL) {
        r->complete = 1;
        return;
    }
    struct cm_comm *c = cm_comm_lookup(r->comm, &r->ctx);
    struct cm_datatype *t = cm_dt_lookup(r->dtype);
    r->peer_world = c->peer_world_of[r->peer];
    r->bytes = (size_t)r->count * t->size;
    /* A non-contiguous message is never staged whole: an eager one is packed
     * into the ring, a large one streamed and packed piece by piece. */
    r->data = (t->contig || r->bytes == 0) ? (const char *)r->buf + t->true_lb : NULL;
    int dst = r->peer_world;
    cm_tx_lock(dst);
    if (!cm_outq_empty(dst) || !cm_write_first(r))
        cm_outq_push_send(dst, r);
    cm_tx_unlock(dst);
}
