/*
 * api_probe.c -- Probe/Iprobe and the matched-probe calls Mprobe/Improbe,
 * Mrecv/Imrecv.  A matched probe takes the message off the unexpected queue,
 * so no other receive can steal it; its MPI_Message handle owns it.
 */
#include "core/status.h"
#include "core/handle.h"
#include "p2p/p2p.h"
#include "p2p/check.h"
#include "core/state.h"
#include "core/comm.h"
#include "core/request.h"
#include "core/error.h"
#include "fe_p2p.h"

#include <stdlib.h>
#include <string.h>



/* MPI_Message handles by table index (core/handle.h): 0 NULL, 1 NO_PROC,
 * then matched messages. */
struct msg_slot {
    struct cm_unexp *u;
    MPI_Comm comm;
};
static struct msg_slot *msgs;
static int nmsgs = 2, msgs_cap;
/* Under MPI_THREAD_MULTIPLE: held for a slot's claim, its release and its
 * read (the array may move when it grows); a leaf lock.  Threads that
 * Mprobe at once took one slot, or read a freed array (TSan). */
static pthread_mutex_t msgs_lock = PTHREAD_MUTEX_INITIALIZER;

static MPI_Message msg_handle_held(struct cm_unexp *u, MPI_Comm comm)
{
    for (int i = 2; i < nmsgs; i++) {
        if (!msgs[i].u) {
            msgs[i] = (struct msg_slot){ u, comm };
            return cm_msg_handle(i);
        }
    }
    if (nmsgs == msgs_cap || !msgs) {
        msgs_cap = msgs_cap ? 2 * msgs_cap : 16;
        msgs = realloc(msgs, (size_t)msgs_cap * sizeof *msgs);
        if (!msgs)
            cm_fatal("MPI_Mprobe", "out of memory");
    }
    msgs[nmsgs] = (struct msg_slot){ u, comm };
    return cm_msg_handle(nmsgs++);
}

static MPI_Message msg_handle(struct cm_unexp *u, MPI_Comm comm)
{
    cm_mt_lock(&msgs_lock);
    MPI_Message h = msg_handle_held(u, comm);
    cm_mt_unlock(&msgs_lock);
    return h;
}

/* The slot of a valid message handle (NULL otherwise); take: free it. */
static struct msg_slot msg_slot(MPI_Message message, int take)
{
    int m = cm_msg_index(message);
    struct msg_slot got = { NULL, MPI_COMM_NULL };
    cm_mt_lock(&msgs_lock);
    if (m >= 2 && m < nmsgs) {
        got = msgs[m];
        if (take)
            msgs[m].u = NULL;
    }
    cm_mt_unlock(&msgs_lock);
    return got;
}

static void proc_null_status(MPI_Status *st)
{
    if (st == MPI_STATUS_IGNORE)
        return;
    st->MPI_SOURCE = MPI_PROC_NULL;
    st->MPI_TAG = MPI_ANY_TAG;
    cm_status_set_private(st, 0, 0);
}

static void found_status(MPI_Status *st, MPI_Comm comm, struct cm_unexp *u)
{
    if (st == MPI_STATUS_IGNORE)
        return;
    cm_status_set(st, cm_comm_lookup(comm, NULL), u->src_world, u->tag, u->len);
}

/* Progress until a matching message is in the unexpected queue. */
struct probe_want {
    uint16_t ctx;
    int src_world, tag, remove;
    struct cm_unexp *found;
};

static int probe_found(void *arg)
{
    struct probe_want *p = arg;
    return (p->found = cm_unexp_find(p->ctx, p->src_world, p->tag, p->remove)) != NULL;
}

static struct cm_unexp *probe_wait(uint16_t ctx, int src_world, int tag, int remove, unsigned call_id)
{
    struct probe_want p = { ctx, src_world, tag, remove, NULL };
    cm_progress_until(probe_found, &p, src_world, call_id, src_world, tag, ctx);
    return p.found;
}

/* The four probes in one: blocking (flag NULL) or not, matching (message
 * not NULL: the message leaves the queue for MPI_Mrecv) or not.  The front
 * end checked the envelope (spec/gen_checks.py). */
static int probe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status,
                 unsigned call_id)
{
    uint16_t ctx = 0;
    struct cm_comm *c = cm_comm_lookup(comm, &ctx);
    if (source == MPI_PROC_NULL) {
        if (flag)
            *flag = 1;
        if (message)
            *message = MPI_MESSAGE_NO_PROC;
        proc_null_status(status);
        return MPI_SUCCESS;
    }
    int src = source == MPI_ANY_SOURCE ? -1 : c->peer_world_of[source];
    struct cm_unexp *u;
    if (flag) {
        struct probe_want p = { ctx, src, tag, message != NULL, NULL };
        if (!(*flag = cm_poll(probe_found, &p, src)))
            return MPI_SUCCESS;
        u = p.found;
    } else {
        u = probe_wait(ctx, src, tag, message != NULL, call_id);
    }
    found_status(status, comm, u);
    if (message)
        *message = msg_handle(u, comm);
    return MPI_SUCCESS;
}

int cm_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    return probe(source, tag, comm, NULL, NULL, status, CM_CALL_Probe);
}

int cm_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    return probe(source, tag, comm, flag, NULL, status, CM_CALL_Iprobe);
}

int cm_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    return probe(source, tag, comm, NULL, message, status, CM_CALL_Mprobe);
}

int cm_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status)
{
    return probe(source, tag, comm, flag, message, status, CM_CALL_Improbe);
}

/* Start receiving a matched message into a request; NULL message handled by caller. */
static int mrecv_start(const char *call, void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                       struct cm_request *r)
{
    struct msg_slot got = msg_slot(*message, 0);
    if (!got.u)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, call, "invalid message handle %ld",
                        (long)(intptr_t)*message);
    MPI_Comm comm = got.comm;
    int rc = cm_p2p_check(call, buf, count, datatype, MPI_ANY_SOURCE, CM_PEER_SOURCE, MPI_ANY_TAG, comm);
    if (rc)
        return rc;
    struct cm_unexp *u = msg_slot(*message, 1).u;   /* the caller's handle: nobody else takes it */
    *message = MPI_MESSAGE_NULL;
    r->buf = buf;
    r->count = count;
    r->dtype = datatype;
    r->comm = comm;
    r->peer = MPI_ANY_SOURCE;
    r->tag = MPI_ANY_TAG;
    cm_comm_lookup(comm, &r->ctx);
    cm_recv_start_matched(r, u);
    return MPI_SUCCESS;
}

int cm_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status)
{
    if (!message)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Mrecv", "message pointer is NULL");
    if (*message == MPI_MESSAGE_NO_PROC) {
        proc_null_status(status);
        *message = MPI_MESSAGE_NULL;
        return MPI_SUCCESS;
    }
    struct cm_request r;
    memset(&r, 0, sizeof r);
    r.kind = CM_REQ_RECV;
    r.internal = 1;
    int rc = mrecv_start("MPI_Mrecv", buf, count, datatype, message, &r);
    if (rc)
        return rc;
    cm_request_wait(&r, CM_CALL_Mrecv);
    cm_status_out(status, &r.status);
    return r.status.MPI_ERROR ? cm_recv_report(&r, "MPI_Mrecv") : MPI_SUCCESS;
}

int cm_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request)
{
    if (!message)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Imrecv", "message pointer is NULL");
    struct cm_request *r = cm_request_new(CM_REQ_RECV);
    if (*message == MPI_MESSAGE_NO_PROC) {
        r->peer = MPI_PROC_NULL;
        cm_recv_start(r);
        *message = MPI_MESSAGE_NULL;
        *request = cm_request_handle(r);
        return MPI_SUCCESS;
    }
    int rc = mrecv_start("MPI_Imrecv", buf, count, datatype, message, r);
    if (rc) {
        cm_request_release(r);
        return rc;
    }
    *request = cm_request_handle(r);
    return MPI_SUCCESS;
}
