/*
 * api_send.c -- MPI_Send and friends: blocking, nonblocking and persistent
 * sends in the four modes.
 *
 * Blocking sends keep their request on the stack: nothing is allocated for a
 * message that fits the ring, and a rendezvous send's request lives until the
 * receiver's FIN because the call waits for it.
 */
#include "p2p/p2p.h"
#include "p2p/check.h"
#include "core/state.h"
#include "core/comm.h"
#include "core/datatype.h"
#include "core/request.h"
#include "p2p/bsend.h"
#include "core/error.h"
#include "fe_p2p.h"

#include <string.h>


#define likely(x) __builtin_expect(!!(x), 1)

#define args_ok cm_send_args_ok

static void fill(struct cm_request *r, const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                 MPI_Comm comm, enum cm_send_mode mode)
{
    r->buf = (void *)buf;
    r->count = count;
    r->dtype = dt;
    r->peer = dest;
    r->tag = tag;
    r->comm = comm;
    r->mode = mode;
}

/* A standard or ready send that fits the ring right now, written there
 * before any request or large frame exists.  0: take send_blocking (which
 * also reports bad arguments). */
static inline int send_now(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    uint16_t ctx = 0;
    struct cm_comm *c = cm_comm_lookup(comm, &ctx);
    struct cm_datatype *t = cm_dt_lookup(dt);
    return likely(args_ok(c, t, buf, count, dest, tag)) && t->contig &&
           cm_send_try_immediate((const char *)buf + t->true_lb, (size_t)count * t->size, c->peer_world_of[dest], ctx, tag);
}

/* Blocking send in standard, ready or synchronous mode, when send_now could not. */
static int send_blocking(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                         enum cm_send_mode mode, enum cm_call_id call, const char *name)
{
    struct cm_comm *c = cm_comm_lookup(comm, NULL);
    struct cm_datatype *t = cm_dt_lookup(dt);
    if (!likely(args_ok(c, t, buf, count, dest, tag))) {
        int rc = cm_p2p_check(name, buf, count, dt, dest, CM_PEER_DEST, tag, comm);
        if (rc || dest == MPI_PROC_NULL)
            return rc;
    }
    struct cm_request r;
    memset(&r, 0, sizeof r);
    r.kind = CM_REQ_SEND;
    r.internal = 1;
    fill(&r, buf, count, dt, dest, tag, comm, mode);
    cm_send_start(&r);
    cm_request_wait(&r, call);
    return MPI_SUCCESS;
}

int cm_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    if (send_now(buf, count, datatype, dest, tag, comm))
        return MPI_SUCCESS;
    return send_blocking(buf, count, datatype, dest, tag, comm, CM_MODE_STANDARD, CM_CALL_Send, "MPI_Send");
}

int cm_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    if (send_now(buf, count, datatype, dest, tag, comm))
        return MPI_SUCCESS;
    return send_blocking(buf, count, datatype, dest, tag, comm, CM_MODE_READY, CM_CALL_Rsend, "MPI_Rsend");
}

int cm_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return send_blocking(buf, count, datatype, dest, tag, comm, CM_MODE_SYNC, CM_CALL_Ssend, "MPI_Ssend");
}

/* The front end checked the arguments (spec/gen_checks.py). */
int cm_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    if (dest == MPI_PROC_NULL)
        return MPI_SUCCESS;
    struct cm_request r;
    memset(&r, 0, sizeof r);
    fill(&r, buf, count, datatype, dest, tag, comm, CM_MODE_BUFFERED);
    return cm_bsend_start(&r, "MPI_Bsend");
}

static int send_nonblocking(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                            MPI_Request *request, enum cm_send_mode mode, const char *name)
{
    int rc = cm_check_request_ptr(name, request);
    if (rc)
        return rc;
    uint16_t ctx = 0;
    struct cm_comm *c = cm_comm_lookup(comm, &ctx);
    struct cm_datatype *t = cm_dt_lookup(dt);
    if (!likely(args_ok(c, t, buf, count, dest, tag))) {
        rc = cm_p2p_check(name, buf, count, dt, dest, CM_PEER_DEST, tag, comm);
        if (rc)
            return rc;
    }
    struct cm_request *r = cm_request_new(CM_REQ_SEND);
    fill(r, buf, count, dt, dest, tag, comm, mode);
    if (mode == CM_MODE_BUFFERED) {
        r->complete = 1;
        if (dest != MPI_PROC_NULL && (rc = cm_bsend_start(r, name)) != MPI_SUCCESS) {
            cm_request_release(r);
            return rc;
        }
    } else {
        cm_send_start(r);
    }
    *request = cm_request_handle(r);
    return MPI_SUCCESS;
}

int cm_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    return send_nonblocking(buf, count, datatype, dest, tag, comm, request, CM_MODE_STANDARD, "MPI_Isend");
}

int cm_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    return send_nonblocking(buf, count, datatype, dest, tag, comm, request, CM_MODE_SYNC, "MPI_Issend");
}

int cm_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    return send_nonblocking(buf, count, datatype, dest, tag, comm, request, CM_MODE_BUFFERED, "MPI_Ibsend");
}

int cm_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    return send_nonblocking(buf, count, datatype, dest, tag, comm, request, CM_MODE_READY, "MPI_Irsend");
}

/* The front end checked the arguments (spec/gen_checks.py). */
static int send_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                     MPI_Request *request, enum cm_send_mode mode)
{
    struct cm_request *r = cm_request_new(CM_REQ_SEND);
    fill(r, buf, count, dt, dest, tag, comm, mode);
    r->persistent = 1;
    r->complete = 1; /* inactive */
    *request = cm_request_handle(r);
    return MPI_SUCCESS;
}

int cm_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    return send_init(buf, count, datatype, dest, tag, comm, request, CM_MODE_STANDARD);
}

int cm_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    return send_init(buf, count, datatype, dest, tag, comm, request, CM_MODE_SYNC);
}

int cm_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    return send_init(buf, count, datatype, dest, tag, comm, request, CM_MODE_BUFFERED);
}

int cm_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    return send_init(buf, count, datatype, dest, tag, comm, request, CM_MODE_READY);
}
