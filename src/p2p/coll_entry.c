/*
 * coll_entry.c -- the collectives' point-to-point entry (coll_entry.h): the
 * public calls' protocol paths without their entry bookkeeping.
 *
 * Invariant: nothing here calls cm_enter() or a PMPI_ function, so the
 * crash report's last call stays the collective's and the profiler (which
 * sees PMPI_ names only) sees the user's calls alone.
 */
#include "p2p/coll_entry.h"
#include "p2p/p2p.h"
#include "p2p/check.h"
#include "core/state.h"
#include "core/comm.h"
#include "core/datatype.h"
#include "core/request.h"

#include <string.h>

#define likely(x) __builtin_expect(!!(x), 1)

/* The call to report: the collective's, or the p2p call's own. */
static inline unsigned call_id(unsigned flags, unsigned own)
{
    return (flags & CM_P2P_CALL_MASK) ? (flags & CM_P2P_CALL_MASK) : own;
}

static inline const char *call_name(unsigned flags, unsigned own)
{
    return cm_call_name(call_id(flags, own));
}

void (*cm_p2p_coll_word_differs)(int source, int their_tag, size_t posted, size_t got);

/* A receive whose posted tag carries a word (coll_entry.h): only a
 * blocking collective's. */
static inline int carries_word(const struct cm_request *r)
{
    return r->kind == CM_REQ_RECV && (unsigned)r->tag > CM_P2P_TAG_BASE_MASK && (unsigned)r->tag < CM_P2P_TAG_LIMIT &&
           ((unsigned)r->tag & CM_P2P_TAG_BASE_MASK) < CM_P2P_TAG_NBC_FIRST;
}

void cm_p2p_coll_received(struct cm_request *r)
{
    if (!carries_word(r) || r->cancelled || !cm_p2p_coll_word_differs || r->status.MPI_SOURCE == MPI_PROC_NULL)
        return;
    if (__builtin_expect(r->status.MPI_TAG == r->tag && r->msg_len == r->bytes, 1))
        return;
    cm_p2p_coll_word_differs(r->status.MPI_SOURCE, r->status.MPI_TAG, r->bytes, r->msg_len);
    if (r->status.MPI_ERROR == MPI_ERR_TRUNCATE)
        r->status.MPI_ERROR = MPI_SUCCESS;
}

/* Before the shared bodies of Wait/Waitall/Testall free them: complete a
 * blocking collective's receives and compare what they got. */
static void received_all(int count, MPI_Request requests[], unsigned call)
{
    for (int i = 0; i < count; i++) {
        struct cm_request *r = cm_request_get(requests[i]);
        if (r && carries_word(r)) {
            cm_request_wait(r, call);
            cm_p2p_coll_check(r);
        }
    }
}

static int all_complete(int count, MPI_Request requests[])
{
    for (int i = 0; i < count; i++) {
        struct cm_request *r = cm_request_get(requests[i]);
        if (r && !cm_request_done(r))   /* MULTIPLE: completed by the progress holder */
            return 0;
    }
    return 1;
}

static void fill(struct cm_request *r, enum cm_req_kind kind, void *buf, int count, MPI_Datatype dt, int peer,
                 int tag, MPI_Comm comm, unsigned flags)
{
    r->kind = kind;
    r->buf = buf;
    r->count = count;
    r->dtype = dt;
    r->peer = peer;
    r->tag = tag;
    r->comm = comm;
    r->mode = CM_MODE_STANDARD;
    r->bulk = (flags & CM_P2P_BULK) != 0;
}

int cm_p2p_send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, unsigned flags)
{
    uint16_t ctx = 0;
    struct cm_comm *c = cm_comm_lookup(comm, &ctx);
    struct cm_datatype *t = cm_dt_lookup(dt);
    if (likely(cm_send_args_ok(c, t, buf, count, dest, tag))) {
        if (t->contig && cm_send_try_immediate((const char *)buf + t->true_lb, (size_t)count * t->size,
                                               c->peer_world_of[dest], ctx, tag))
            return MPI_SUCCESS;
    } else {
        int rc = cm_p2p_check(call_name(flags, CM_CALL_Send), buf, count, dt, dest, CM_PEER_DEST, tag, comm);
        if (rc || dest == MPI_PROC_NULL)
            return rc;
    }
    struct cm_request r;
    memset(&r, 0, sizeof r);
    r.internal = 1;
    fill(&r, CM_REQ_SEND, (void *)buf, count, dt, dest, tag, comm, flags);
    cm_send_start(&r);
    cm_request_wait(&r, call_id(flags, CM_CALL_Send));
    return MPI_SUCCESS;
}

int cm_p2p_recv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm, MPI_Status *status,
                unsigned flags)
{
    return cm_recv_blocking(buf, count, dt, source, tag, comm, status, call_id(flags, CM_CALL_Recv), flags);
}

int cm_p2p_sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                    void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                    MPI_Status *status, unsigned flags)
{
    struct cm_comm *c = cm_comm_lookup(comm, NULL);
    const char *name = call_name(flags, CM_CALL_Sendrecv);
    int rc;
    if (!likely(cm_send_args_ok(c, cm_dt_lookup(sendtype), sendbuf, sendcount, dest, sendtag)) &&
        (rc = cm_p2p_check(name, sendbuf, sendcount, sendtype, dest, CM_PEER_DEST, sendtag, comm)))
        return rc;
    if (!likely(cm_recv_args_ok(c, cm_dt_lookup(recvtype), recvbuf, recvcount, source, recvtag)) &&
        (rc = cm_p2p_check(name, recvbuf, recvcount, recvtype, source, CM_PEER_SOURCE, recvtag, comm)))
        return rc;
    struct cm_request rr, sr;
    memset(&rr, 0, sizeof rr);
    memset(&sr, 0, sizeof sr);
    rr.internal = sr.internal = 1;
    fill(&rr, CM_REQ_RECV, recvbuf, recvcount, recvtype, source, recvtag, comm, flags);
    fill(&sr, CM_REQ_SEND, (void *)sendbuf, sendcount, sendtype, dest, sendtag, comm, flags);
    cm_recv_start(&rr);
    cm_send_start(&sr);
    cm_request_wait(&sr, call_id(flags, CM_CALL_Sendrecv));
    cm_request_wait(&rr, call_id(flags, CM_CALL_Sendrecv));
    if (flags & CM_P2P_CALL_MASK)
        cm_p2p_coll_check(&rr);
    if (status != MPI_STATUS_IGNORE)
        *status = rr.status;
    return rr.status.MPI_ERROR ? cm_recv_report(&rr, name) : MPI_SUCCESS;
}

int cm_p2p_isend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                 MPI_Request *request, unsigned flags)
{
    struct cm_comm *c = cm_comm_lookup(comm, NULL);
    int rc;
    if (!likely(cm_send_args_ok(c, cm_dt_lookup(dt), buf, count, dest, tag)) &&
        (rc = cm_p2p_check(call_name(flags, CM_CALL_Isend), buf, count, dt, dest, CM_PEER_DEST, tag, comm)))
        return rc;
    struct cm_request *r = cm_request_new(CM_REQ_SEND);
    fill(r, CM_REQ_SEND, (void *)buf, count, dt, dest, tag, comm, flags);
    cm_send_start(r);
    *request = cm_request_handle(r);
    return MPI_SUCCESS;
}

int cm_p2p_irecv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm, MPI_Request *request,
                 unsigned flags)
{
    struct cm_comm *c = cm_comm_lookup(comm, NULL);
    int rc;
    if (!likely(cm_recv_args_ok(c, cm_dt_lookup(dt), buf, count, source, tag)) &&
        (rc = cm_p2p_check(call_name(flags, CM_CALL_Irecv), buf, count, dt, source, CM_PEER_SOURCE, tag, comm)))
        return rc;
    struct cm_request *r = cm_request_new(CM_REQ_RECV);
    fill(r, CM_REQ_RECV, buf, count, dt, source, tag, comm, flags);
    cm_recv_start(r);
    *request = cm_request_handle(r);
    return MPI_SUCCESS;
}

int cm_p2p_wait(MPI_Request *request, MPI_Status *status, unsigned flags)
{
    if (flags & CM_P2P_CALL_MASK)
        received_all(1, request, call_id(flags, CM_CALL_Wait));
    return cm_wait_request(request, status, call_id(flags, CM_CALL_Wait), call_name(flags, CM_CALL_Wait));
}

int cm_p2p_waitall(int count, MPI_Request requests[], MPI_Status statuses[], unsigned flags)
{
    if (flags & CM_P2P_CALL_MASK)
        received_all(count, requests, call_id(flags, CM_CALL_Waitall));
    return cm_waitall_requests(count, requests, statuses, call_id(flags, CM_CALL_Waitall),
                               call_name(flags, CM_CALL_Waitall));
}

int cm_p2p_testall_got(int count, MPI_Request requests[], int *flag, struct cm_p2p_got got[], unsigned flags)
{
    if (!all_complete(count, requests)) {
        cm_progress(-1);
        if (!all_complete(count, requests)) {
            *flag = 0;
            return MPI_SUCCESS;
        }
    }
    for (int i = 0; i < count; i++) {
        struct cm_request *r = cm_request_get(requests[i]);
        got[i] = (struct cm_p2p_got){ 0 };
        if (!r || r->kind != CM_REQ_RECV)
            continue;
        got[i] = (struct cm_p2p_got){ 1, r->status.MPI_TAG, r->bytes, r->msg_len };
        if (r->status.MPI_ERROR == MPI_ERR_TRUNCATE)
            r->status.MPI_ERROR = MPI_SUCCESS;
    }
    return cm_testall_requests(count, requests, flag, MPI_STATUSES_IGNORE, call_name(flags, CM_CALL_Testall));
}

int cm_p2p_testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[], unsigned flags)
{
    if (flags & CM_P2P_CALL_MASK) {
        cm_progress(-1);
        if (all_complete(count, requests))
            received_all(count, requests, call_id(flags, CM_CALL_Testall));
    }
    return cm_testall_requests(count, requests, flag, statuses, call_name(flags, CM_CALL_Testall));
}
