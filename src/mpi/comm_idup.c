/*
 * comm_idup.c -- MPI_Comm_idup (and _with_info): a duplicate whose context
 * agreement runs in the background, so that ranks may start idups of
 * different communicators in different orders (MPI-4.1 §7.4.2 allows it; a
 * blocking agreement inside the call deadlocks that, each rank waiting in
 * the communicator the other has not reached yet).
 *
 * The agreement has two dissemination rounds over the parent's collective
 * context, each a step of the request's poll, never a wait:
 *   A. OR the members' bitmaps of contexts in use.  Every member computes
 *      the same union, hence the same candidate: its lowest free pair.
 *   B. OR the members' refusals.  Between A's snapshot and now, this rank
 *      may have taken the candidate for another communicator (a blocking dup
 *      or another idup that completed meanwhile); it refuses then.  Otherwise
 *      it claims the candidate at once, so nothing else here can take it.
 * If nobody refused, the candidate is the new context everywhere.  Else
 * every member releases its claim and A starts again from fresh bitmaps;
 * each retry is caused by a context taken meanwhile, which the next bitmaps
 * show, so retries end.
 *
 * Invariant: a member's messages of one idup go to distinct partners within
 * a round, and rounds follow each other in the same order on every member;
 * with point-to-point's non-overtaking order one tag per idup suffices.
 * Concurrent idups of one parent are told apart by their tag: the parent's
 * idup count, which every member advances in the same (collective) order.
 * An intercommunicator's idup runs the two-group form of this agreement
 * (comm_idup_inter.c).
 *
 * Tested against deliberate breakage (docs/protocols.md section 9, patches
 * scripts/mutations/29-31): a blocking agreement hangs mpi.semantics' crossed
 * idups; no refusal in round B gives two results one context, which its
 * message check catches; one tag for all idups of a parent hangs its
 * three-idup case at 5 ranks only.
 */
#include "core/comm.h"
#include "core/context.h"
#include "core/error.h"
#include "core/request.h"
#include "core/state.h"
#include "mpi/comm_create.h"
#include "p2p/p2p.h"
#include "p2p/request_wait.h"
#include "fe_comm.h"

#include <stdlib.h>
#include <string.h>

/* Internal tags are negative; -11/-12 are the blocking dup's and split's. */
#define TAG_IDUP_BASE (-1000)
#define TAG_IDUP_SPAN 4096

enum idup_phase { IDUP_BITMAPS, IDUP_REFUSALS, IDUP_DONE };

struct idup {
    struct cm_idup_head h;
    enum idup_phase phase;
    int dist;                /* this round's dissemination distance */
    int in_flight;           /* sr/rr started and not yet both complete */
    uint16_t candidate;
    int claimed;             /* this rank claimed the candidate in round B */
    struct cm_request sr, rr;
    uint64_t mine[CM_CTX_WORDS], theirs[CM_CTX_WORDS];
};

static void start_step(struct idup *d)
{
    struct cm_comm *p = d->h.parent;
    size_t bytes = d->phase == IDUP_BITMAPS ? sizeof d->mine : sizeof d->mine[0];
    memset(&d->rr, 0, sizeof d->rr);
    d->rr.kind = CM_REQ_RECV;
    d->rr.internal = 1;
    d->rr.buf = d->theirs;
    d->rr.count = (int)bytes;
    d->rr.dtype = MPI_BYTE;
    d->rr.comm = cm_coll_comm(p->handle);
    d->rr.peer = (p->rank - d->dist % p->size + p->size) % p->size;
    d->rr.tag = d->h.tag;
    d->sr = d->rr;
    d->sr.kind = CM_REQ_SEND;
    d->sr.buf = d->mine;
    d->sr.peer = (p->rank + d->dist) % p->size;
    cm_recv_start(&d->rr);
    cm_send_start(&d->sr);
    d->in_flight = 1;
}

/* Round A's first step: this rank's bitmap. */
static void begin_bitmaps(struct idup *d)
{
    d->phase = IDUP_BITMAPS;
    d->dist = 1;
    cm_context_bits(d->mine);
}

/* Round B's first step: claim the candidate here, or refuse. */
static void begin_refusals(struct idup *d)
{
    d->phase = IDUP_REFUSALS;
    d->dist = 1;
    if (cm_context_lowest(d->mine, &d->candidate) != MPI_SUCCESS) {
        d->candidate = 0;
        d->claimed = 0;
    } else {
        d->claimed = cm_context_claim(d->candidate);
    }
    memset(d->mine, 0, sizeof d->mine);
    d->mine[0] = !d->claimed;  /* one word: the refusal */
}

/* After both rounds: the new communicator, or a retry. */
static void conclude(struct idup *d)
{
    if (d->mine[0] == 0) {
        d->phase = IDUP_DONE;
        /* An attribute callback's failure has no caller to return to here:
         * cm_comm_dup_finish reports it through the parent's handler. */
        cm_comm_dup_finish(d->h.parent, d->candidate, d->h.info, d->h.newcomm, d->h.call);
        return;
    }
    if (d->claimed)
        cm_context_free(d->candidate);
    d->claimed = 0;
    uint64_t union_of_all[CM_CTX_WORDS];
    cm_context_bits(union_of_all);
    if (cm_context_lowest(union_of_all, &d->candidate) != MPI_SUCCESS) {
        /* no pair is free even here: no retry can succeed */
        d->phase = IDUP_DONE;
        *d->h.newcomm = MPI_COMM_NULL;
        cm_error(d->h.parent->handle, MPI_ERR_OTHER, d->h.call, "no free context id (too many communicators)");
        return;
    }
    begin_bitmaps(d);
}

/* One pass: finish the step in flight if it has, start the next.  Never
 * waits (the request's Wait/Test call this from the progress engine). */
static int idup_poll(void *state)
{
    struct idup *d = state;
    while (d->phase != IDUP_DONE) {
        int n = d->h.parent->size;
        if (d->in_flight) {
            if (!d->sr.complete || !d->rr.complete)
                return 0;
            d->in_flight = 0;
            if (d->phase == IDUP_BITMAPS)
                for (int w = 0; w < CM_CTX_WORDS; w++)
                    d->mine[w] |= d->theirs[w];
            else
                d->mine[0] |= d->theirs[0];
            d->dist <<= 1;
        }
        if (d->dist < n) {
            start_step(d);
            continue;
        }
        if (d->phase == IDUP_BITMAPS)
            begin_refusals(d);
        else
            conclude(d);
    }
    return 1;
}

void *cm_idup_new(size_t size, struct cm_comm *p, MPI_Info info, MPI_Comm *newcomm, const char *call, int *rc)
{
    struct cm_idup_head *h = calloc(1, size);
    if (!h) {
        *rc = cm_error(p->handle, MPI_ERR_NO_MEM, call, "out of memory");
        return NULL;
    }
    h->info = MPI_INFO_NULL;
    if (info != MPI_INFO_NULL && (*rc = PMPI_Info_dup(info, &h->info)) != MPI_SUCCESS) {
        free(h);
        return NULL;
    }
    h->parent = p;
    p->refcount++;
    h->newcomm = newcomm;
    h->call = call;
    /* Both kinds draw their tag from one count, advanced by every member
     * (both groups of an intercommunicator) in the same collective order. */
    h->tag = TAG_IDUP_BASE - (int)(p->idup_count++ % TAG_IDUP_SPAN);
    *newcomm = MPI_COMM_NULL; /* until completion (MPI-4.1: not usable before) */
    return h;
}

void cm_idup_destroy(void *state)
{
    struct cm_idup_head *h = state;
    if (h->info != MPI_INFO_NULL)
        PMPI_Info_free(&h->info);
    cm_comm_release(h->parent);
    free(h);
}

static int idup_common(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request, const char *call)
{
    cm_check_initialized(call);
    struct cm_comm *p = cm_comm_user_lookup(comm);
    if (!p)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_COMM, call,
                        comm == MPI_COMM_NULL ? "communicator is MPI_COMM_NULL" : "invalid communicator");
    CM_ARG_NOT_NULL(comm, newcomm, call);
    if (!request)
        return cm_error(comm, MPI_ERR_REQUEST, call, "request is NULL");
    if (cm_comm_is_inter(p))
        return cm_inter_idup(p, info, newcomm, request, call);
    int rc;
    struct idup *d = cm_idup_new(sizeof *d, p, info, newcomm, call, &rc);
    if (!d)
        return rc;
    begin_bitmaps(d);
    *request = cm_request_generic(idup_poll, cm_idup_destroy, d);
    idup_poll(d);
    return MPI_SUCCESS;
}

int cm_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    return idup_common(comm, MPI_INFO_NULL, newcomm, request, "MPI_Comm_idup");
}

int cm_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request)
{
    return idup_common(comm, info, newcomm, request, "MPI_Comm_idup_with_info");
}
