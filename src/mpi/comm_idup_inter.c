/*
 * comm_idup_inter.c -- MPI_Comm_idup of an intercommunicator, nonblocking:
 * the two-group agreement of intercomm_agree.c cut into steps that the
 * request's poll advances, never waiting, so two groups may start idups of
 * different intercommunicators in different orders (as comm_idup.c allows
 * for intracommunicators).
 *
 * Two rounds, each the same three stages over one buffer of words:
 *   gather: dissemination OR within the local group (the hidden local
 *           communicator's collective context);
 *   swap:   the two groups' rank 0 swap and OR their unions (the
 *           intercommunicator's collective context);
 *   bcast:  binomial broadcast of the result from rank 0 in each group.
 * Round A ORs the context bitmaps of every member of both groups: all
 * compute the same two candidate pairs, the lowest free in the union.
 * Round B ORs refusals: a member that has taken a candidate meanwhile (a
 * blocking creation, an idup that completed) refuses, others claim both at
 * once.  No refusal: the pairs are the new intercommunicator's and its local
 * communicator's everywhere.  Else every member releases its claims and A
 * runs again; a retry is caused by a pair taken meanwhile, which the next
 * bitmaps show, so retries end.
 *
 * Invariant (as comm_idup.c): each member posts its receives from a given
 * partner in the order that partner sends to it, and every stage's partners
 * follow from ranks alone, so one tag per idup (the parent's idup count,
 * advanced by both groups in the same collective order) keeps concurrent
 * idups of one parent apart under point-to-point's non-overtaking rule.
 */
#include "core/comm.h"
#include "core/context.h"
#include "core/error.h"
#include "core/request.h"
#include "core/state.h"
#include "mpi/comm_create.h"
#include "mpi/intercomm.h"
#include "p2p/p2p.h"
#include "p2p/request_wait.h"

#include <stdlib.h>
#include <string.h>

enum stage { GATHER, SWAP, BCAST_RECV, BCAST_SEND, ROUND_END, DONE };

struct ixdup {
    struct cm_idup_head h;
    int round;               /* 0: bitmaps, 1: refusals */
    enum stage stage;
    int dist;                /* gather: distance; bcast: mask */
    int sending, receiving;  /* the step in flight */
    uint16_t cand[2];
    int claimed[2];
    struct cm_request sr, rr;
    uint64_t mine[CM_CTX_WORDS], theirs[CM_CTX_WORDS];
};

static size_t round_bytes(const struct ixdup *d)
{
    return d->round == 0 ? sizeof d->mine : sizeof d->mine[0];
}

/* Start a send to `to` and/or a receive from `from` (-1: none) on comm. */
static void post(struct ixdup *d, MPI_Comm comm, int to, int from)
{
    memset(&d->rr, 0, sizeof d->rr);
    d->rr.kind = CM_REQ_RECV;
    d->rr.internal = 1;
    d->rr.buf = d->theirs;
    d->rr.count = (int)round_bytes(d);
    d->rr.dtype = MPI_BYTE;
    d->rr.comm = comm;
    d->rr.peer = from;
    d->rr.tag = d->h.tag;
    d->sr = d->rr;
    d->sr.kind = CM_REQ_SEND;
    d->sr.buf = d->mine;
    d->sr.peer = to;
    d->receiving = from >= 0;
    d->sending = to >= 0;
    if (d->receiving)
        cm_recv_start(&d->rr);
    if (d->sending)
        cm_send_start(&d->sr);
}

static void or_in(struct ixdup *d)
{
    size_t words = round_bytes(d) / sizeof d->mine[0];
    for (size_t w = 0; w < words; w++)
        d->mine[w] |= d->theirs[w];
}

static void begin_round(struct ixdup *d, int round)
{
    d->round = round;
    d->stage = GATHER;
    d->dist = 1;
    if (round == 0) {
        cm_context_bits(d->mine);
        return;
    }
    /* Round B: claim both candidates here, or refuse. */
    for (int k = 0; k < 2; k++)
        d->claimed[k] = cm_context_claim(d->cand[k]);
    memset(d->mine, 0, sizeof d->mine);
    d->mine[0] = !(d->claimed[0] && d->claimed[1]);
}

static void release_claims(struct ixdup *d)
{
    for (int k = 0; k < 2; k++)
        if (d->claimed[k])
            cm_context_free(d->cand[k]);
    d->claimed[0] = d->claimed[1] = 0;
}

/* A round's result is in mine on every member of both groups. */
static void round_end(struct ixdup *d)
{
    struct cm_comm *p = d->h.parent;
    if (d->round == 0) {
        /* The same two pairs everywhere: the lowest free, then the next. */
        if (cm_context_lowest(d->mine, &d->cand[0]) == MPI_SUCCESS) {
            d->mine[d->cand[0] / 64] |= 3ull << (d->cand[0] % 64);
            if (cm_context_lowest(d->mine, &d->cand[1]) == MPI_SUCCESS) {
                begin_round(d, 1);
                return;
            }
        }
        /* Every member sees the same union, so all fail alike. */
        d->stage = DONE;
        cm_error(p->handle, MPI_ERR_OTHER, d->h.call, "no free context id (too many communicators)");
        return;
    }
    if (d->mine[0]) {
        release_claims(d);
        begin_round(d, 0);
        return;
    }
    d->stage = DONE;
    int rc = cm_inter_new(p->world_of, p->size, p->rank, p->remote_world_of, p->remote_size, d->cand, p->errh,
                          d->h.newcomm);
    if (rc) {
        /* An error has no caller to return to here: the parent's handler
         * reports it (cm_inter_new freed the pairs). */
        *d->h.newcomm = MPI_COMM_NULL;
        cm_error(p->handle, rc, d->h.call, "out of memory");
        return;
    }
    cm_comm_lookup(*d->h.newcomm, NULL)->session = p->session;
    cm_comm_dup_props(p, d->h.info, d->h.newcomm, d->h.call);
}

/* This member's place in its group's binomial tree from rank 0: the
 * lowest set bit of its rank (the group's size rounded up for rank 0). */
static int subtree(int me, int n)
{
    if (me)
        return me & -me;
    int m = 1;
    while (m < n)
        m <<= 1;
    return m;
}

/* One pass: finish the step in flight if it has, start the next. */
static int ixdup_poll(void *state)
{
    struct ixdup *d = state;
    struct cm_comm *p = d->h.parent;
    int n = p->size, me = p->rank;
    MPI_Comm local = cm_coll_comm(p->local->handle);
    while (d->stage != DONE) {
        if (d->sending || d->receiving) {
            if ((d->sending && !d->sr.complete) || (d->receiving && !d->rr.complete))
                return 0;
            d->sending = 0;
            if (d->receiving) {
                d->receiving = 0;
                if (d->stage == BCAST_RECV) {
                    memcpy(d->mine, d->theirs, round_bytes(d));
                    d->stage = BCAST_SEND;
                    d->dist = subtree(me, n) >> 1;
                    continue;
                }
                or_in(d);
            }
            if (d->stage == GATHER)
                d->dist <<= 1;
            else if (d->stage == SWAP) {
                d->stage = BCAST_SEND;
                d->dist = subtree(0, n) >> 1;
                continue;
            } else if (d->stage == BCAST_SEND)
                d->dist >>= 1;
        }
        switch (d->stage) {
        case GATHER:
            if (d->dist < n) {
                post(d, local, (me + d->dist) % n, (me - d->dist % n + n) % n);
                continue;
            }
            d->stage = me == 0 ? SWAP : BCAST_RECV;
            continue;
        case SWAP:
            post(d, cm_coll_comm(p->handle), 0, 0);
            continue;
        case BCAST_RECV:
            post(d, local, -1, me - subtree(me, n));
            continue;
        case BCAST_SEND:
            while (d->dist > 0 && me + d->dist >= n)
                d->dist >>= 1;
            if (d->dist > 0) {
                post(d, local, me + d->dist, -1);
                continue;
            }
            d->stage = ROUND_END;
            continue;
        case ROUND_END:
            round_end(d);
            continue;
        case DONE:
            break;
        }
    }
    return 1;
}

int cm_inter_idup(struct cm_comm *p, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request, const char *call)
{
    int rc;
    struct ixdup *d = cm_idup_new(sizeof *d, p, info, newcomm, call, &rc);
    if (!d)
        return rc;
    begin_round(d, 0);
    *request = cm_request_generic(ixdup_poll, cm_idup_destroy, d);
    ixdup_poll(d);
    return MPI_SUCCESS;
}
