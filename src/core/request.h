/*
 * request.h -- request objects and their handles.
 *
 * A request lives in memory owned by the library until the operation it
 * describes is complete AND the user has let go of the handle (Wait/Test
 * completion or Request_free).  A rendezvous send is referred to by the peer
 * through its address (the "token"), so its memory must not be reused before
 * the peer's FIN/CTS traffic is over: `complete` is the only signal of that.
 */
#ifndef CM_CORE_REQUEST_H
#define CM_CORE_REQUEST_H

#include <stdint.h>
#include <stddef.h>
#include "mpi.h"
#include "core/thread.h"

enum cm_req_kind {
    CM_REQ_SEND = 1,
    CM_REQ_RECV,
    CM_REQ_GENERIC,     /* driven by a poll callback (nonblocking collectives, ...) */
    CM_REQ_DONE         /* born complete (PROC_NULL, Comm_idup, ...) */
};

enum cm_send_mode { CM_MODE_STANDARD = 0, CM_MODE_SYNC, CM_MODE_BUFFERED, CM_MODE_READY };

struct cm_datatype;
struct cm_comm;

struct cm_request {
    enum cm_req_kind kind;
    volatile int complete;
    int hindex;                 /* table index of its MPI_Request (core/handle.h), 0 when not handed out */
    unsigned persistent : 1;    /* Send_init/Recv_init: survives completion */
    unsigned active : 1;        /* persistent: started and not yet completed */
    unsigned cancelled : 1;
    unsigned internal : 1;      /* library-owned (Bsend copy, blocking call's stack) */
    unsigned dt_held : 1;       /* holds a reference on a derived dtype (Type_free while pending) */
    unsigned bulk : 1;          /* receive of bulk collective data (p2p/coll_entry.h CM_P2P_BULK) */
    unsigned has_status : 1;    /* generic: `status` holds a result to report (Isendrecv, generalized) */
    unsigned quick_finish : 1;  /* persistent collective: once complete, Wait only marks it inactive
                                 * and gives an empty status (no query, no status, no cancel) */
    /* Bytes of their own, not bits of the word above: under
     * MPI_THREAD_MULTIPLE the owner's thread writes the first two while the
     * request is in flight and whichever thread progresses writes the last
     * two meanwhile (a bit field is written whole).  The bits above are
     * written only while no other thread can see the request. */
    unsigned char freed;        /* Request_free called: release on completion */
    unsigned char in_array;     /* named by the array of a Wait/Test{all,any,some} in progress
                                 * (p2p/api_wait.c): a second mark is a repeated request */
    unsigned char on_posted;    /* on the posted-receive queue (under the match lock) */
    unsigned char owed;         /* counted in cm_p2p_owed (p2p/p2p.h) until it completes */
    unsigned char rndv_out;     /* a send counted in cm_rndv_out (p2p/p2p.h) until it completes */

    /* Arguments as given (persistent requests restart from them). */
    void *buf;
    int count;
    MPI_Datatype dtype;
    MPI_Comm comm;              /* handle (may carry the collective bit) */
    int peer;                   /* comm rank, MPI_ANY_SOURCE or MPI_PROC_NULL */
    int tag;
    enum cm_send_mode mode;

    /* Resolved at start. */
    int peer_world;             /* world rank of the peer (-1 for ANY_SOURCE) */
    uint16_t ctx;
    size_t bytes;               /* packed size of the message (send) or buffer (recv) */
    const void *data;           /* contiguous send data (buf + true_lb), NULL when the type has holes */

    /* Send progress. */
    int send_stage;             /* see p2p/send.c */
    size_t streamed;            /* fallback: bytes streamed so far */
    uint64_t peer_token;        /* receiver's token (fallback stream) */

    /* Receive progress. */
    size_t received;            /* fallback: bytes received so far */
    size_t expected;            /* bytes of the matched message that fit the buffer */
    size_t stream_len;          /* fallback: bytes the sender streams (>= expected) */
    size_t msg_len;             /* bytes the matched message carries, whatever the protocol
                                 * (a truncation reports it: expected is only what fits) */
    void *target;               /* contiguous receive target, NULL: unpack in place */

    MPI_Status status;          /* result (source as comm rank) */

    /* Posted queue links; generic poll. */
    struct cm_request *prev, *next;
    int (*poll)(void *state);
    void (*destroy)(void *state);
    void (*block)(void *state);  /* generic: optional, returns once poll(state) would say done */
    void *state;
    struct cm_request *bsend_next; /* Bsend: list of buffered sends in flight */
    size_t bsend_bytes;

    /* Generic requests whose operation is defined above the engine
     * (p2p/isendrecv.c, grequest.c, partitioned.c); NULL when unused.
     * query: at completion, fill `status` and return an error class (Wait/Test).
     * cancel: MPI_Cancel.  start: MPI_Start of a persistent generic request. */
    int (*query)(struct cm_request *r);
    int (*cancel)(struct cm_request *r);
    int (*start)(struct cm_request *r, const char *call);
};

/* Is r complete?  Under MPI_THREAD_MULTIPLE another thread may complete it
 * (a release store): this is the matching acquire (a plain load on x86). */
static inline int cm_request_done(const struct cm_request *r)
{
    return __atomic_load_n(&r->complete, __ATOMIC_ACQUIRE);
}

/* The ring to poll while waiting for r: a receive's source (-1 for
 * MPI_ANY_SOURCE until it matches).  Under MPI_THREAD_MULTIPLE the thread
 * that matches r may set it meanwhile (cm_recv_matched); either value is a
 * good hint, so the load is racy by design (plain outside TSan builds). */
static inline int cm_request_hint(const struct cm_request *r)
{
    return r->kind == CM_REQ_RECV ? CM_RACY_LOAD(r->peer_world) : -1;
}

/* Allocate a zeroed request (not yet with a handle). */
struct cm_request *cm_request_new(enum cm_req_kind kind);
/* Give it an MPI_Request handle. */
MPI_Request cm_request_handle(struct cm_request *r);
/* Look up a handle; NULL if invalid. */
struct cm_request *cm_request_get(MPI_Request h);
/* Drop only the handle (the request stays in flight, owned by the engine). */
void cm_request_release_handle(struct cm_request *r);
/* Drop handle and memory. */
void cm_request_release(struct cm_request *r);
/* MPI_Request_free of a request still in flight (not generalized, not
 * persistent): its handle goes now, its memory once it completes. */
void cm_request_orphan(struct cm_request *r);
/* Release the orphans that have completed (MPI_THREAD_MULTIPLE). */
void cm_request_reap(void);

/* Fill a user status from a completed request (honours MPI_STATUS_IGNORE). */
void cm_request_status(const struct cm_request *r, MPI_Status *status);

/* After completion: release or reset a request whose handle the user passes to
 * Wait/Test; sets *handle to MPI_REQUEST_NULL for non-persistent ones. */
void cm_request_retire(struct cm_request *r, MPI_Request *handle);

#endif
