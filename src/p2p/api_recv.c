/*
 * api_recv.c -- receives (blocking, nonblocking, persistent), Start/Startall,
 * Sendrecv and Sendrecv_replace.
 */
#include "p2p/p2p.h"
#include "p2p/check.h"
#include "core/state.h"
#include "core/comm.h"
#include "core/datatype.h"
#include "core/request.h"
#include "p2p/bsend.h"
#include "core/error.h"
#include "p2p/coll_entry.h"
#include "core/status.h"
#include "fe_p2p.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>


#define likely(x) __builtin_expect(!!(x), 1)

#define args_ok cm_recv_args_ok

static void fill(struct cm_request *r, void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm)
{
    r->buf = buf;
    r->count = count;
    r->dtype = dt;
    r->peer = src;
    r->tag = tag;
    r->comm = comm;
}

/* Report a truncated receive through the communicator's error handler, with
 * the size the sender sent (msg_len is set on every protocol's match). */
int cm_recv_report(const struct cm_request *r, const char *call)
{
    if (r->status.MPI_ERROR != MPI_ERR_TRUNCATE)
        return r->status.MPI_ERROR;
    return cm_error(cm_comm_plain(r->comm), MPI_ERR_TRUNCATE, call,
                    "message truncated: %zu bytes from rank %d (tag %d) do not fit a receive buffer of %zu bytes",
                    r->msg_len, r->status.MPI_SOURCE, r->status.MPI_TAG, r->bytes);
}

int (*cm_p2p_coll_stalled)(MPI_Comm comm, int source, int confirm);

/* A collective's receive before it sleeps (p2p.h, cm_p2p_coll_stalled):
 * the source went elsewhere if it shows so for a whole second.  A source
 * seen elsewhere may have sent this message and gone on while the message
 * still waits in its outgoing queue for room in my ring, which my polling
 * makes (measured on coll_fuzz: a blocking allgather's source already in
 * the next nonblocking call's sync); a second is far longer than that
 * takes and far shorter than mpirun's deadlock report.  Per thread: under
 * MPI_THREAD_MULTIPLE threads run collectives on different communicators,
 * each with its own stalled source (one word for all made one thread's
 * progress reset another's second, and TSan saw the race). */
static CM_THREAD_LOCAL double stalled_since;

static int coll_recv_stalled(void *arg)
{
    struct cm_request *r = arg;
    if (!cm_p2p_coll_stalled(r->comm, r->peer, 0)) {
        stalled_since = 0;
        return 0;
    }
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double now = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    if (stalled_since == 0 || now - stalled_since < 1.0) {
        if (stalled_since == 0)
            stalled_since = now;
        return 0;
    }
    cm_progress(-1);
    return !cm_request_done(r) && cm_p2p_coll_stalled(r->comm, r->peer, 1);
}

static __attribute__((noinline)) void coll_recv_wait(struct cm_request *r, unsigned call_id)
{
    cm_progress_stall = coll_recv_stalled;
    cm_progress_stall_arg = r;
    stalled_since = 0;
    cm_request_wait(r, call_id);
    cm_progress_stall = NULL;
    if (!cm_request_done(r) && cm_recv_cancel(r)) {
        r->complete = 1;
        r->status.MPI_ERROR = MPI_ERR_OTHER;    /* the collective's front end raises the mismatch */
    }
    cm_request_wait(r, call_id);
}

/* The fast path of a blocking collective's receive got fewer bytes than it
 * posted (the tag, and so the word, was its own). */
static __attribute__((noinline)) void coll_fast_short(const MPI_Status *st, int tag, size_t posted)
{
    struct cm_request r;
    memset(&r, 0, sizeof r);
    r.kind = CM_REQ_RECV;
    r.tag = tag;
    r.bytes = posted;
    r.msg_len = (size_t)cm_status_bytes(st);
    r.status = *st;
    r.status.MPI_ERROR = MPI_SUCCESS;
    cm_p2p_coll_received(&r);
}

/* One body for MPI_Recv and the collectives' entry, inlined into both: an
 * extra call frame on MPI_Recv's path cost the 8-byte ping-pong a few per
 * cent (bench/results/issue20-ab.md). */
static inline __attribute__((always_inline)) int
recv_blocking(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Status *status, unsigned call_id, unsigned flags)
{
    uint16_t ctx = 0;
    struct cm_comm *c = cm_comm_lookup(comm, &ctx);
    struct cm_datatype *t = cm_dt_lookup(datatype);
    if (!likely(args_ok(c, t, buf, count, source, tag))) {
        int rc = cm_p2p_check(cm_call_name(call_id), buf, count, datatype, source, CM_PEER_SOURCE, tag, comm);
        if (rc)
            return rc;
    } else if (t->contig && source != MPI_ANY_SOURCE) {
        /* A blocking collective's receive (flags: a call id) compares the
         * size it got (coll_entry.h, "the argument word"); the fast path
         * takes only its own tag, so the words are equal there.  flags is
         * 0 in MPI_Recv's copy: the test compiles away. */
        MPI_Status own, *st = (flags & CM_P2P_CALL_MASK) ? &own : status;
        size_t bytes = (size_t)count * t->size;
        if (cm_recv_fast((char *)buf + t->true_lb, bytes, c->peer_world_of[source], ctx, tag, c, st)) {
            if ((flags & CM_P2P_CALL_MASK) && (size_t)cm_status_bytes(&own) != bytes)
                coll_fast_short(&own, tag, bytes);
            if (st != status)
                cm_status_out(status, &own);
            return MPI_SUCCESS;
        }
    }
    struct cm_request r;
    memset(&r, 0, sizeof r);
    r.kind = CM_REQ_RECV;
    r.internal = 1;
    fill(&r, buf, count, datatype, source, tag, comm);
    r.bulk = (flags & CM_P2P_BULK) != 0;
    cm_recv_start(&r);
    if ((flags & CM_P2P_CALL_MASK) && cm_p2p_coll_stalled && r.peer != MPI_ANY_SOURCE)
        coll_recv_wait(&r, call_id);
    else
        cm_request_wait(&r, call_id);
    if (flags & CM_P2P_CALL_MASK)
        cm_p2p_coll_check(&r);
    cm_status_out(status, &r.status);
    return r.status.MPI_ERROR ? cm_recv_report(&r, cm_call_name(call_id)) : MPI_SUCCESS;
}

int cm_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    return recv_blocking(buf, count, datatype, source, tag, comm, status, CM_CALL_Recv, 0);
}

int cm_recv_blocking(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                     MPI_Status *status, unsigned call_id, unsigned flags)
{
    return recv_blocking(buf, count, datatype, source, tag, comm, status, call_id, flags);
}

int cm_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request)
{
    int rc = cm_check_request_ptr("MPI_Irecv", request);
    if (rc)
        return rc;
    struct cm_comm *c = cm_comm_lookup(comm, NULL);
    struct cm_datatype *t = cm_dt_lookup(datatype);
    if (!likely(args_ok(c, t, buf, count, source, tag))) {
        rc = cm_p2p_check("MPI_Irecv", buf, count, datatype, source, CM_PEER_SOURCE, tag, comm);
        if (rc)
            return rc;
    }
    struct cm_request *r = cm_request_new(CM_REQ_RECV);
    fill(r, buf, count, datatype, source, tag, comm);
    cm_recv_start(r);
    *request = cm_request_handle(r);
    return MPI_SUCCESS;
}

/* The front end checked the arguments (spec/gen_checks.py), here and below. */
int cm_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request)
{
    struct cm_request *r = cm_request_new(CM_REQ_RECV);
    fill(r, buf, count, datatype, source, tag, comm);
    r->persistent = 1;
    r->complete = 1;
    r->status.MPI_SOURCE = MPI_ANY_SOURCE;
    r->status.MPI_TAG = MPI_ANY_TAG;
    *request = cm_request_handle(r);
    return MPI_SUCCESS;
}

/* An active request given to Start: for Startall (i >= 0), the same request
 * earlier in the array is the likelier mistake, and named as such. */
static int start_active(struct cm_request *r, const MPI_Request reqs[], int i, const char *call)
{
    for (int j = 0; j < i; j++)
        if (reqs[j] == reqs[i])
            return cm_error(r->comm, MPI_ERR_REQUEST, call, "array_of_requests[%d] is the same request as [%d]", i, j);
    return cm_error(r->comm, MPI_ERR_REQUEST, call, "request %ld is already active", (long)(intptr_t)reqs[i < 0 ? 0 : i]);
}

/* Start reqs[i] (i < 0: Start, reqs points at the one handle). */
static inline int start_one(const MPI_Request reqs[], int i, const char *call)
{
    MPI_Request h = reqs[i < 0 ? 0 : i];
    struct cm_request *r = cm_request_get(h);
    if (!r || !r->persistent)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, call, "request %ld is not a persistent request", (long)(intptr_t)h);
    if (r->active)
        return start_active(r, reqs, i, call);
    if (r->start)
        return r->start(r, call);
    r->active = 1;
    r->cancelled = 0;
    if (r->kind == CM_REQ_RECV) {
        cm_recv_start(r);
    } else if (r->mode == CM_MODE_BUFFERED) {
        r->complete = 1;
        if (r->peer != MPI_PROC_NULL)
            return cm_bsend_start(r, call);
    } else {
        cm_send_start(r);
    }
    return MPI_SUCCESS;
}

int cm_Start(MPI_Request *request)
{
    return start_one(request, -1, "MPI_Start");
}

int cm_Startall(int count, MPI_Request array_of_requests[])
{
    if (count < 0)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_COUNT, "MPI_Startall", "negative count %d", count);
    for (int i = 0; i < count; i++) {
        int rc = start_one(array_of_requests, i, "MPI_Startall");
        if (rc)
            return rc;
    }
    return MPI_SUCCESS;
}

int cm_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                MPI_Comm comm, MPI_Status *status)
{
    struct cm_request rr, sr;
    memset(&rr, 0, sizeof rr);
    memset(&sr, 0, sizeof sr);
    rr.kind = CM_REQ_RECV;
    rr.internal = 1;
    fill(&rr, recvbuf, recvcount, recvtype, source, recvtag, comm);
    sr.kind = CM_REQ_SEND;
    sr.internal = 1;
    sr.buf = (void *)sendbuf;
    sr.count = sendcount;
    sr.dtype = sendtype;
    sr.peer = dest;
    sr.tag = sendtag;
    sr.comm = comm;
    /* The send first: a peer's rendezvous message already waiting for this
     * receive is then matched with our send in flight, which makes it an
     * exchange and takes the single copy (rndv.c).  Starting a send never
     * blocks, and the two go in opposite directions: the order matches
     * nothing differently. */
    cm_send_start(&sr);
    cm_recv_start(&rr);
    cm_request_wait(&sr, CM_CALL_Sendrecv);
    cm_request_wait(&rr, CM_CALL_Sendrecv);
    cm_status_out(status, &rr.status);
    return rr.status.MPI_ERROR ? cm_recv_report(&rr, "MPI_Sendrecv") : MPI_SUCCESS;
}

int cm_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                        int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    /* Send from a packed copy so the receive may overwrite buf. */
    struct cm_datatype *t = cm_dt_lookup(datatype);
    size_t bytes = (size_t)count * t->size;
    void *copy = malloc(bytes ? bytes : 1);
    if (!copy)
        return cm_error(comm, MPI_ERR_NO_MEM, "MPI_Sendrecv_replace", "cannot allocate %zu bytes", bytes);
    cm_dt_pack(buf, count, t, copy);
    int rc = PMPI_Sendrecv(copy, (int)bytes, MPI_BYTE, dest, sendtag, buf, count, datatype, source, recvtag, comm, status);
    free(copy);
    return rc;
}
