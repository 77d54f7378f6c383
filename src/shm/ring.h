/*
 * ring.h -- the single-producer/single-consumer message ring of one ordered
 * pair of ranks (src -> dst).
 *
 * The ring is an array of 64-byte slots.  A message occupies consecutive
 * slots and never wraps: when it would, the producer first writes a SKIP
 * message that fills the ring to its end.  The first slot starts with a
 * 16-byte header; up to CM_SLOT_INLINE bytes of payload share that line, so a
 * tiny message and its header travel in one cache line.
 *
 * Invariants (what makes this lock-free and free of atomic RMW):
 *  - The producer writes the payload and the header fields, then stores the
 *    header's seq word last with release order.  seq of a message starting at
 *    absolute slot position p is (uint32_t)(p + 1), never 0.
 *  - The consumer reads seq with acquire order at its read position; the slot
 *    holds a message iff seq equals its expected value.  After consuming, it
 *    zeroes the seq word of every slot the message covered EXCEPT its first,
 *    and of every slot a SKIP covered, then publishes its read position
 *    (release).  Every lap rewrites or zeroes every slot, so a seq word at a
 *    read position is 0, the current value, or the header seq of the lap
 *    before (one ring's worth smaller, never equal): old payload bytes can
 *    never be mistaken for a header.  Not zeroing the header slot matters: the
 *    consumer would otherwise store to the line the producer just wrote, and
 *    under TSO its next message's stores queue behind that line changing hands.
 *  - Only the producer knows its write position, only the consumer its read
 *    position; the producer caches the last published read position and
 *    re-reads the shared one only when its cached view says "full".
 */
#ifndef CM_SHM_RING_H
#define CM_SHM_RING_H

#include <stdint.h>
#include <string.h>
#include <stdatomic.h>
#include "segment.h"
#include "copy.h"
#include "fault.h"
#include "assert.h"

#define CM_SLOT 64u
#define CM_SLOT_HDR 16u
#define CM_SLOT_INLINE (CM_SLOT - CM_SLOT_HDR) /* 48 bytes travel with the header */

/* Message kinds on the wire. */
enum cm_msg_kind {
    CM_MSG_SKIP = 1,  /* filler up to the end of the ring */
    CM_MSG_EAGER,     /* payload is the whole message */
    CM_MSG_RTS,       /* rendezvous: payload is struct cm_rts */
    CM_MSG_FIN,       /* receiver finished a single-copy read: payload is the sender's token */
    CM_MSG_CTS,       /* receiver asks the sender to stream: payload is struct cm_cts */
    CM_MSG_DATA,      /* one streamed fragment: payload is the receiver token then data */
    CM_MSG_ACK,       /* a synchronous eager send matched: payload is the sender's token */
    CM_MSG_WCTS,      /* split copy: the sender writes the second part itself (struct cm_wcts) */
    CM_MSG_WDONE,     /* split copy: the sender's part is written (struct cm_wdone) */
    CM_MSG_AM         /* an active message for an upper layer (p2p.h: cm_p2p_am_handler) */
};

/* Header flags. */
#define CM_MSGF_SYNC 0x1u /* EAGER: the sender waits for an ACK; payload starts with its token */
#define CM_MSGF_STREAM 0x2u /* RTS: the sender's data is not contiguous: ask for a stream (CTS) */

struct cm_msg_hdr {
    _Atomic uint32_t seq;
    uint8_t kind;
    uint8_t flags;
    uint16_t ctx;
    int32_t tag;
    uint32_t len; /* payload bytes following the header */
};
_Static_assert(sizeof(struct cm_msg_hdr) == CM_SLOT_HDR, "header is 16 bytes");

struct cm_ring_view {
    char *slots;                 /* base of the slot array */
    struct cm_ring_ctl *ctl;     /* the consumer's published position */
    uint64_t nslots;             /* power of two */
};

/* Producer-private state of one outgoing ring. */
struct cm_ring_tx {
    struct cm_ring_view v;
    uint64_t wpos;        /* slots written so far */
    uint64_t rpos_cache;  /* last read position seen */
};

/* Consumer-private state of one incoming ring. */
struct cm_ring_rx {
    struct cm_ring_view v;
    uint64_t rpos;
    uint64_t published;   /* last position stored in v.ctl->rpos */
};

static inline uint32_t cm_ring_slots_for(uint32_t len)
{
    return len <= CM_SLOT_INLINE ? 1u : 1u + (len - CM_SLOT_INLINE + CM_SLOT - 1) / CM_SLOT;
}

/* Largest payload one message may carry in a ring of nslots (a quarter of it). */
static inline uint32_t cm_ring_max_payload(uint64_t nslots)
{
    return (uint32_t)(CM_SLOT_INLINE + (nslots / 4 - 1) * CM_SLOT);
}

static inline struct cm_msg_hdr *cm_ring_slot(const struct cm_ring_view *v, uint64_t pos)
{
    return (struct cm_msg_hdr *)(v->slots + (pos & (v->nslots - 1)) * CM_SLOT);
}

/*
 * Reserve room for a message of len payload bytes.  Returns the header to fill
 * (payload follows it contiguously) or NULL when the ring is full.  Writes a
 * SKIP filler first when the message would wrap.
 */
static inline struct cm_msg_hdr *cm_ring_reserve(struct cm_ring_tx *tx, uint32_t len)
{
    uint64_t n = cm_ring_slots_for(len);
    uint64_t idx = tx->wpos & (tx->v.nslots - 1);
    uint64_t pad = (idx + n > tx->v.nslots) ? tx->v.nslots - idx : 0;
    if (tx->wpos + pad + n - tx->rpos_cache > tx->v.nslots) {
        uint64_t seen = atomic_load_explicit(&tx->v.ctl->rpos, memory_order_acquire);
        /* R2: the consumer's position only grows and never passes mine, so
         * the cache only lags the truth. */
        CM_ASSERT(seen >= tx->rpos_cache && seen <= tx->wpos, "R2 (docs/protocols.md)");
        tx->rpos_cache = seen;
        if (tx->wpos + pad + n - tx->rpos_cache > tx->v.nslots)
            return NULL;
    }
    if (pad) {
        struct cm_msg_hdr *s = cm_ring_slot(&tx->v, tx->wpos);
        s->kind = CM_MSG_SKIP;
        s->len = (uint32_t)((pad - 1) * CM_SLOT);
        atomic_store_explicit(&s->seq, (uint32_t)(tx->wpos + 1), memory_order_release);
        tx->wpos += pad;
    }
    return cm_ring_slot(&tx->v, tx->wpos);
}

/* Publish the message reserved last: header fields are set, payload written. */
static inline void cm_ring_publish(struct cm_ring_tx *tx, struct cm_msg_hdr *h)
{
    uint64_t n = cm_ring_slots_for(h->len);
    /* R1/R2: the header is the one reserved at wpos, the message does not
     * wrap, and every slot it covers was released by the consumer. */
    CM_ASSERT(h == cm_ring_slot(&tx->v, tx->wpos) && (tx->wpos & (tx->v.nslots - 1)) + n <= tx->v.nslots,
              "R1 (docs/protocols.md)");
    CM_ASSERT(tx->wpos + n - tx->rpos_cache <= tx->v.nslots, "R2 (docs/protocols.md)");
    CM_FAULT(ring_publish);
    atomic_store_explicit(&h->seq, (uint32_t)(tx->wpos + 1), memory_order_release);
    tx->wpos += n;
}

/* The next message, or NULL.  SKIP fillers are consumed silently. */
static inline struct cm_msg_hdr *cm_ring_peek(struct cm_ring_rx *rx)
{
    for (;;) {
        struct cm_msg_hdr *h = cm_ring_slot(&rx->v, rx->rpos);
        if (atomic_load_explicit(&h->seq, memory_order_acquire) != (uint32_t)(rx->rpos + 1))
            return NULL;
        /* R1: a header seen at its seq is the producer's whole header. */
        CM_ASSERT(h->kind >= CM_MSG_SKIP && h->kind <= CM_MSG_AM, "R1 (docs/protocols.md)");
        if (h->kind != CM_MSG_SKIP) {
            CM_ASSERT((rx->rpos & (rx->v.nslots - 1)) + cm_ring_slots_for(h->len) <= rx->v.nslots,
                      "R1 (docs/protocols.md)");
            return h;
        }
        /* A SKIP covers the slots up to the end of the ring. */
        uint64_t n = rx->v.nslots - (rx->rpos & (rx->v.nslots - 1));
        CM_ASSERT(h->len == (n - 1) * CM_SLOT, "R1 (docs/protocols.md)");
        for (uint64_t i = 0; i < n; i++)
            atomic_store_explicit(&cm_ring_slot(&rx->v, rx->rpos + i)->seq, 0, memory_order_relaxed);
        rx->rpos += n;
        rx->published = rx->rpos;
        atomic_store_explicit(&rx->v.ctl->rpos, rx->rpos, memory_order_release);
    }
}

/* Publish the read position if it moved; returns 1 if it did. */
static inline int cm_ring_rx_publish(struct cm_ring_rx *rx)
{
    if (rx->published == rx->rpos)
        return 0;
    rx->published = rx->rpos;
    CM_FAULT(ring_rx_publish);
    atomic_store_explicit(&rx->v.ctl->rpos, rx->rpos, memory_order_release);
    return 1;
}

/* Release the message returned by cm_ring_peek().  Returns 1 when the read
 * position was published (the caller then checks for a sleeping producer). */
static inline int cm_ring_consume(struct cm_ring_rx *rx, struct cm_msg_hdr *h)
{
    uint64_t n = cm_ring_slots_for(h->len);
    CM_ASSERT(h == cm_ring_slot(&rx->v, rx->rpos), "R1 (docs/protocols.md)");   /* the message peek returned */
    CM_FAULT(ring_consume);
    for (uint64_t i = 1; i < n; i++)
        atomic_store_explicit(&cm_ring_slot(&rx->v, rx->rpos + i)->seq, 0, memory_order_relaxed);
    rx->rpos += n;
    if (rx->rpos - rx->published >= rx->v.nslots / 8)
        return cm_ring_rx_publish(rx);
    return 0;
}

static inline void *cm_msg_payload(struct cm_msg_hdr *h) { return (char *)h + CM_SLOT_HDR; }


#endif
