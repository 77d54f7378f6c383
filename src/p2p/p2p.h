/*
 * p2p.h -- point-to-point engine: matching, eager and rendezvous protocols.
 *
 * Everything here runs in the calling thread: progress happens only inside
 * MPI calls.  Under MPI_THREAD_MULTIPLE the locks of p2p/mt.h apply.  Ordering guarantee: messages from
 * one sender to one receiver travel through one FIFO ring and are matched in
 * ring order, and sends that could not enter the ring wait in a per-destination
 * FIFO (`pending`) that is drained before any newer send to that destination.
 */
#ifndef CM_P2P_H
#define CM_P2P_H

#include <stdint.h>
#include <stddef.h>
#include "mpi.h"
#include "core/request.h"
#include "p2p/request_wait.h"
#include "shm/wait.h"
#include "core/state.h"

struct cm_comm;

/* A message that arrived before its receive was posted.  It sits on two
 * lists in arrival order: all messages (for MPI_ANY_SOURCE) and its sender's
 * (match.c). */
struct cm_unexp {
    struct cm_unexp *next, *prev;          /* all messages */
    struct cm_unexp *src_next, *src_prev;  /* this sender's */
    int src_world;
    uint16_t ctx;
    uint8_t kind;          /* CM_MSG_EAGER or CM_MSG_RTS */
    uint8_t flags;         /* CM_MSGF_SYNC */
    int32_t tag;
    size_t len;            /* message bytes */
    uint64_t token;        /* sender's token (sync eager and rendezvous) */
    uint64_t addr;         /* rendezvous: sender's buffer address */
    void *data;            /* eager: copy of the payload */
};

int cm_p2p_init(void);
/* Remote id w (core/remote.h) sends through the ring at tx_slots and
 * receives from rx_slots (a bridge's, shm/bridge.h), each ring_bytes long
 * with its consumer line; called before w is registered. */
struct cm_ring_ctl;
void cm_p2p_attach_remote(int w, void *tx_slots, struct cm_ring_ctl *tx_ctl, void *rx_slots,
                          struct cm_ring_ctl *rx_ctl, uint64_t ring_bytes);
void cm_p2p_finalize(void);

/* Move whatever can move.  hint: a world rank to poll first, or -1.
 * Returns the number of messages handled. */
int cm_progress(int hint);
/* MPI_THREAD_MULTIPLE: returns once a progress pass that another thread
 * began before the call is over (what it polled, it polled before: the
 * state a poll looks at may then be freed).  Nothing below MULTIPLE. */
void cm_progress_fence(void);

/* Slots mpirun gave to new processes (p2p/reuse.c): init records every
 * slot's generation and starts the rings at their bases; refresh resets the
 * rings of the slots whose generation moved since (cheap when none did). */
int cm_p2p_reuse_init(void);
void cm_p2p_reuse_refresh(void);
void cm_p2p_reuse_finalize(void);
extern uint32_t cm_reuse_seen;
static inline void cm_p2p_reuse_check(void)
{
    if (__builtin_expect(atomic_load_explicit(&cm_g.hdr->reuse_epoch, memory_order_relaxed) != cm_reuse_seen, 0))
        cm_p2p_reuse_refresh();
}

/* No queued sends and no nonblocking collectives need progress, and no
 * one-sided active messages may come (a listening window, or a peer that
 * asked: cm_rank_ctl's am_wanted): a blocking receive may watch one ring
 * alone for a while, a collective's waiter sleep on its word alone. */
int cm_progress_quiet(void);
int cm_progress_quiet_mt(void);
int cm_progress_hold(void);
void cm_progress_unhold(void);
/* Rendezvous transfers in which a peer waits for this rank's progress: a
 * send from its RTS until it completes (the receiver's CTS or WCTS needs the
 * sender to stream or write its part) and a streamed receive from its CTS
 * until its last fragment (the sender blocks on room in our ring).  Only
 * this rank changes it, inside its own calls, and always before the message
 * that lets the peer start waiting (RTS, CTS) is published: a wait that
 * reads 0 owes no peer anything (docs/polling.md, "Waits in collectives").
 * Read by the collectives' waits every 64 polls (coll/direct/await.c). */
extern unsigned cm_p2p_owed;
static inline void cm_p2p_owe(struct cm_request *r)
{
    r->owed = 1;
    if (__builtin_expect(cm_mt, 0))
        __atomic_fetch_add(&cm_p2p_owed, 1, __ATOMIC_RELAXED);
    else
        cm_p2p_owed++;
}
/* At completion (before the request may be released). */
static inline void cm_p2p_settle(struct cm_request *r)
{
    if (r->owed) {
        r->owed = 0;
        if (__builtin_expect(cm_mt, 0))
            __atomic_fetch_sub(&cm_p2p_owed, 1, __ATOMIC_RELAXED);
        else
            cm_p2p_owed--;
    }
}

/* Per destination world rank: this rank's rendezvous sends whose RTS is
 * out and that have not completed.  A rendezvous receive from a peer with
 * one of ours in flight towards it is an exchange (MPI_Sendrecv, a halo's
 * Isend + Irecv): both cores are busy copying, so streaming, which costs
 * each side a copy, is slower than the single copy (rndv.c).  Changed only
 * by this rank inside its own calls; NULL before cm_p2p_init. */
extern unsigned *cm_rndv_out;
static inline void cm_rndv_out_mark(struct cm_request *r)
{
    r->rndv_out = 1;
    if (__builtin_expect(cm_mt, 0))
        __atomic_fetch_add(&cm_rndv_out[r->peer_world], 1, __ATOMIC_RELAXED);
    else
        cm_rndv_out[r->peer_world]++;
}
/* At completion (before the request may be released). */
static inline void cm_rndv_out_settle(struct cm_request *r)
{
    if (r->rndv_out) {
        r->rndv_out = 0;
        if (__builtin_expect(cm_mt, 0))
            __atomic_fetch_sub(&cm_rndv_out[r->peer_world], 1, __ATOMIC_RELAXED);
        else
            cm_rndv_out[r->peer_world]--;
    }
}
static inline int cm_rndv_out_to(int world)
{
    return cm_rndv_out && __atomic_load_n(&cm_rndv_out[world], __ATOMIC_RELAXED) != 0;
}

/* Release a message the caller took from src's ring itself (fast receive). */
struct cm_msg_hdr;
void cm_progress_consumed(int src, struct cm_msg_hdr *h);

/* Blocking receive fast path (recv_fast.c): returns 1 when a message from
 * src_world was received into the contiguous buffer, 0 when the caller must
 * take the general path (nothing was consumed then). */
int cm_recv_fast(void *buf, size_t bytes, int src_world, uint16_t ctx, int tag, struct cm_comm *c,
                 MPI_Status *status);

/* Is there anything for this rank to do right now (used before sleeping)? */
int cm_progress_pending(void *unused);

/* Progress until done(arg) holds: poll, spin, yield, then sleep on the
 * doorbell; while asleep the rank is reported as blocked in call_id (0: not
 * reported) on (peer, tag, ctx) to mpirun's deadlock watch. */
void cm_progress_until(int (*done)(void *), void *arg, int hint, unsigned call_id, int peer, int tag,
                       uint16_t ctx);
/* One poll of a non-blocking call (Iprobe, Test*, Request_get_status):
 * progress, then found(arg).  When nothing was found the empty poll is
 * counted and, in a tight loop of them, the core given away (a yield or a
 * short nap: wait.h, "Polling"), then found(arg) looked at once more.
 * Returns what found(arg) returned last. */
int cm_poll_empty(int (*found)(void *), void *arg);
static inline int cm_poll(int (*found)(void *), void *arg, int hint)
{
    cm_progress(hint);
    if (found(arg)) {
        cm_poll_reset();
        return 1;
    }
    if (++cm_poller.empty < cm_poll_quiet)
        return 0;
    return cm_poll_empty(found, arg);
}

/* Wait until *flag becomes non-zero, progressing and eventually sleeping. */
void cm_progress_wait(volatile int *flag, int hint, unsigned call_id, int peer, int tag, uint16_t ctx);
/* Set by a waiter for the one cm_progress_until it calls next (which takes
 * it and clears it, so nested waits do not see it): asked before every
 * sleep; 1 ends the wait with the condition unmet. */
extern CM_THREAD_LOCAL int (*cm_progress_stall)(void *arg);
extern CM_THREAD_LOCAL void *cm_progress_stall_arg;
/* A collective's blocking receive about to sleep asks the collective layer
 * (coll/direct/diverge.c, set when a shared-memory area is made) whether its
 * source went another way, e.g. through a shared-memory FIFO while this
 * rank runs a point-to-point algorithm.  confirm 0: only look; 1: record the
 * mismatch (after the receive was found still unmatched).  The receive is
 * then cancelled and fails; the collective's front end reports it. */
extern int (*cm_p2p_coll_stalled)(MPI_Comm comm, int source, int confirm);

/* Start a send/receive described by a filled-in request (buf, count, dtype,
 * comm, peer, tag, mode).  Arguments must have been checked.  */
void cm_send_start(struct cm_request *r);
void cm_recv_start(struct cm_request *r);

/* Blocking eager fast path: write the message straight into the ring when
 * possible.  Returns 1 if sent, 0 if the caller must use a request. */
int cm_send_try_immediate(const void *data, size_t bytes, int dst_world, uint16_t ctx, int tag);

/* Probe the unexpected queue (after progress).  Returns the message or NULL;
 * with `remove` it is unlinked (Mprobe). */
struct cm_unexp *cm_unexp_find(uint16_t ctx, int src_world, int tag, int remove);
/* Free the eager messages of blocking collectives (tags that carry an
 * argument word, coll_entry.h) still unexpected on ctx: called when the
 * context is given up.  In a correct program there are none (every such
 * message is received within its call); after a mismatch there may be.
 * The nonblocking schedules' (their words from CM_P2P_TAG_NBC_FIRST on)
 * only when with_nbc: a schedule may still be pending when its
 * communicator is freed, and completes normally. */
void cm_unexp_drop_worded(uint16_t ctx, int with_nbc);
/* The first such message queued unexpected on ctx (any protocol), its base
 * tag other than skip_base (with_nbc: the schedules' words too): 1 with its
 * sender's world rank and its tag. */
int cm_unexp_find_worded(uint16_t ctx, int skip_base, int with_nbc, int *src_world, int *tag);
/* Receive a message already taken off the unexpected queue (Mrecv). */
void cm_recv_start_matched(struct cm_request *r, struct cm_unexp *u);

/* Cancel a posted receive; returns 1 if cancelled (it had not matched). */
int cm_recv_cancel(struct cm_request *r);

/* Internal: send a small control message (FIN/CTS/ACK) to a world rank. */
void cm_send_ctrl(int dst_world, uint8_t kind, const void *payload, uint32_t len);
/* Active messages: an upper layer's own protocol through the rings (the
 * one-sided fallback without single copy, osc/am.c).  The handler runs inside
 * progress, in ring order per sender, and must neither wait nor call
 * progress (the message is consumed after it returns); it may send with
 * cm_p2p_send_am, which never blocks (what does not fit the ring waits in
 * the destination's FIFO).  A payload holds at most cm_p2p_am_max() bytes. */
extern void (*cm_p2p_am_handler)(int src_world, const void *payload, uint32_t len);
void cm_p2p_send_am(int dst_world, const void *payload, uint32_t len);
uint32_t cm_p2p_am_max(void);
/* Non-zero while an upper layer expects active messages that nobody waits
 * for in this process (a passive target): progress is then never "quiet",
 * so the collectives' waits keep running it (coll/direct/await.c).  One
 * more for the whole run under MPI_THREAD_MULTIPLE (cm_p2p_init). */
extern int cm_p2p_am_listeners;
/* Messages to dst_world still wait for room in its ring. */
int cm_p2p_am_queued(int dst_world);
/* Internal: queue the streaming of a rendezvous send after a CTS. */
void cm_send_stream(struct cm_request *r, uint64_t receiver_token);

/* Report a receive's error (a truncation, through the communicator's
 * handler, naming call and the sizes); returns the error class. */
int cm_recv_report(const struct cm_request *r, const char *call);

/* Fill status fields from a matched message. */
void cm_status_set(MPI_Status *st, struct cm_comm *c, int src_world, int tag, size_t bytes);

/* A blocking receive's status out to the user's: every field but MPI_ERROR,
 * which single-status calls leave alone (MPI-4.1 3.2.5: only the array calls
 * write it, and only when they return MPI_ERR_IN_STATUS). */
/* The array calls' MPI_ERROR rule (p2p/api_wait.c): statuses[n] was just
 * filled for a request whose error is e; from the first error on (*err
 * becomes MPI_ERR_IN_STATUS) every status carries its code, the earlier ones
 * MPI_SUCCESS; before it none is written. */
void cm_status_error(MPI_Status statuses[], int n, int e, int *err);

static inline void cm_status_out(MPI_Status *st, const MPI_Status *from)
{
    if (st != MPI_STATUS_IGNORE) {
        int err = st->MPI_ERROR;
        *st = *from;
        st->MPI_ERROR = err;
    }
}

/* Traffic counters (tests, COREMPI_VERBOSE, MPI_T; p2p/counters.c): once a
 * table world rank -> 0 same level, 1 across the top level of the hierarchy
 * is installed (cm_p2p_set_dst_level; the collective layer knows the
 * levels), every message counts once, per level and per destination.  The
 * table must outlive the counting (NULL stops it).  Invariant: while
 * cm_p2p_dst_level is not NULL, cm_p2p_peer holds cm_g.size entries, so the
 * path pays nothing more than the one test it always had while counting
 * is off. */
struct cm_p2p_peer_count { uint64_t msgs, bytes; };
void cm_p2p_set_dst_level(const uint8_t *table);
extern const uint8_t *cm_p2p_dst_level;
extern struct cm_p2p_peer_count *cm_p2p_peer;
extern uint64_t cm_p2p_level_msgs[2], cm_p2p_level_bytes[2];
static inline void cm_p2p_count(int dst_world, size_t bytes)
{
    if (cm_p2p_dst_level) {
        int l = cm_p2p_dst_level[dst_world];
        cm_p2p_level_msgs[l]++;
        cm_p2p_level_bytes[l] += bytes;
        cm_p2p_peer[dst_world].msgs++;
        cm_p2p_peer[dst_world].bytes += bytes;
    }
}
/* Start counting with every destination at level 0 unless a table is
 * installed already (MPI_T: the collective layer's table is tried first).
 * 0, or -1 before MPI_Init (the world size is not known) or out of memory. */
int cm_p2p_count_flat(void);
/* The unexpected queue: messages in it now and the most it ever held. */
void cm_p2p_unexpected_stats(uint64_t *now, uint64_t *most);

/* Rendezvous payloads. */
struct cm_rts {
    uint64_t token;   /* sender's request address */
    uint64_t addr;    /* sender's data address */
    uint64_t len;     /* total bytes */
};
struct cm_cts {
    uint64_t sender_token;
    uint64_t receiver_token;
};
/* Split copy of a large message: the receiver reads the first part while
 * the sender writes the rest into the receiver's buffer, so both cores copy. */
struct cm_wcts {
    uint64_t sender_token;
    uint64_t receiver_token;
    uint64_t dst_addr;   /* receiver's address of the sender's part */
    uint64_t offset;     /* where the sender's part starts in its data */
    uint64_t len;
};
struct cm_wdone {
    uint64_t receiver_token;
    uint64_t ok;         /* 0: the write was refused; the receiver reads that part itself */
};
/* Sender side: write our part of a split copy. */
void cm_rndv_write_part(const struct cm_wcts *w, int dst_world);
/* Receiver side: the sender's part arrived (or must be read after all). */
void cm_rndv_part_done(const struct cm_wdone *d, int src_world);

/* Receiver side: a matched RTS; reads the data or asks for a stream. */
void cm_rndv_receive(struct cm_request *r, int src_world, int tag, uint64_t token, uint64_t addr, size_t len);
/* Receiver side: one DATA fragment. */
void cm_rndv_data(const void *payload, uint32_t len);

/* Request_free of a generalized request not seen complete (grequest.c):
 * 1 when kept for Grequest_complete, 0 when it completed meanwhile (the
 * caller frees it as a complete one). */
int cm_grequest_orphan(struct cm_request *r);
/* The query hook of generalized requests: query_fn fills r->status, returns its error. */
int cm_grequest_query(struct cm_request *r);
/* free_fn run now (once), its error raised for call; MPI_SUCCESS for other requests. */
int cm_grequest_free(struct cm_request *r, const char *call);
/* Raise a callback's error code err for call through r's communicator's handler. */
int cm_grequest_raise(struct cm_request *r, int err, const char *call, const char *callback);

#endif
