/*
 * isendrecv.c -- MPI_Isendrecv and MPI_Isendrecv_replace (MPI-4.0).
 *
 * One generic request over two ordinary ones (an Isend and an Irecv started
 * at once); it completes when both halves have, and reports the receive's
 * status and error (a truncation names the receive half).
 *
 * _replace: the message sent is packed into a private copy first, so the
 * receive may land in the user's buffer before the send has left -- which
 * happens with an eager peer message as well as with a rendezvous send that
 * the peer has not pulled yet.  The copy is freed with the request.
 */
#include "p2p/p2p.h"
#include "p2p/check.h"
#include "p2p/coll_entry.h"
#include "p2p/request_wait.h"
#include "core/state.h"
#include "core/datatype.h"
#include "core/request.h"
#include "core/error.h"
#include "fe_p2p.h"

#include <stdlib.h>


struct cm_pair {
    struct cm_request *self;
    MPI_Request send, recv;   /* MPI_REQUEST_NULL once retired into self */
    void *copy;               /* _replace: packed send data */
};

/* Both halves done: take the receive's result into the outer request. */
static int pair_poll(void *state)
{
    struct cm_pair *p = state;
    struct cm_request *s = cm_request_get(p->send), *r = cm_request_get(p->recv);
    if (!s->complete || !r->complete)
        return 0;
    struct cm_request *self = p->self;
    self->status = r->status;
    self->comm = r->comm;
    self->msg_len = r->msg_len;
    self->bytes = r->bytes;
    self->has_status = 1;
    cm_request_release(s);
    cm_request_release(r);
    p->send = p->recv = MPI_REQUEST_NULL;
    return 1;
}

static void pair_destroy(void *state)
{
    struct cm_pair *p = state;
    struct cm_request *q;
    /* Freed before completion is not possible (the engine releases a freed
     * generic request only once poll said done); kept for safety. */
    if (p->send != MPI_REQUEST_NULL && (q = cm_request_get(p->send)))
        cm_request_release(q);
    if (p->recv != MPI_REQUEST_NULL && (q = cm_request_get(p->recv)))
        cm_request_release(q);
    free(p->copy);
    free(p);
}

/* Start both halves (arguments checked) and wrap them in one request. */
static int start_pair(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                      void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                      MPI_Comm comm, void *copy, MPI_Request *request, unsigned call)
{
    struct cm_pair *p = calloc(1, sizeof *p);
    if (!p) {
        free(copy);
        return cm_error(comm, MPI_ERR_NO_MEM, cm_call_name(call), "out of memory");
    }
    p->copy = copy;
    int rc = cm_p2p_irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, &p->recv, call);
    if (!rc)
        rc = cm_p2p_isend(sendbuf, sendcount, sendtype, dest, sendtag, comm, &p->send, call);
    if (rc) {   /* cannot happen after the checks; do not leak */
        pair_destroy(p);
        return rc;
    }
    struct cm_request *r = cm_request_generic_new(pair_poll, pair_destroy, p);
    r->comm = comm;
    p->self = r;
    *request = cm_request_generic_go(r);
    return MPI_SUCCESS;
}

/* The front end checked the arguments (spec/gen_checks.py). */
int cm_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Request *request)
{
    return start_pair(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag,
                      comm, NULL, request, CM_CALL_Isendrecv);
}

int cm_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                         int recvtag, MPI_Comm comm, MPI_Request *request)
{
    const char *call = "MPI_Isendrecv_replace";
    struct cm_datatype *t = cm_dt_lookup(datatype);
    size_t bytes = (size_t)count * t->size;
    void *copy = NULL;
    if (dest != MPI_PROC_NULL && bytes) {
        if (!(copy = malloc(bytes)))
            return cm_error(comm, MPI_ERR_NO_MEM, call, "no memory for the %zu-byte copy of the message", bytes);
        cm_dt_pack(buf, count, t, copy);
    }
    return start_pair(copy, copy ? (int)bytes : 0, MPI_BYTE, dest, sendtag, buf, count, datatype, source, recvtag,
                      comm, copy, request, CM_CALL_Isendrecv_replace);
}
