/*
 * part_match.c -- pairing partitioned sends with partitioned receives.
 *
 * MPI matches partitioned operations by (source, tag, comm) in the order of
 * the init calls (MPI-4.1 section 4.2.1), and a pair stays matched for every
 * round.  A user tag is 31 bits wide, too wide to hide in a hidden tag next
 * to anything else, so the matching is done here by content:
 *
 * - MPI_Psend_init sends a hello (tag, partitioning, its sid) on the
 *   collective context under the one tag CM_PART_TAG_HELLO, and posts a
 *   receive for its reply under CM_PART_TAG_REPLY(sid).
 * - The receive side keeps a channel per (comm, source): the Precv_inits not
 *   yet matched, in init order, and the hellos that arrived for none of
 *   them, in arrival order.  While some Precv_init waits, one receive for
 *   the next hello is posted.  A hello goes to the first waiting Precv_init
 *   with its tag; a new Precv_init takes the first kept hello with its tag.
 *   Hellos from one sender arrive in its init order (one tag, non-overtaking)
 *   and receives are taken in init order, so the k-th send with tag T meets
 *   the k-th receive with tag T: MPI's rule.
 * - The matched receive answers with its rid, its partitioning and its
 *   verdict (sizes equal or not); data then uses CM_PART_TAG_DATA(rid, i).
 *
 * A request freed before its control traffic is over stays here as a zombie
 * until it is: a freed unmatched receive still takes (and refuses) the hello
 * meant for it, so the next Precv_init with that tag cannot take it; a
 * freed send still takes its reply, so its sid is not reused while a reply
 * to it may come.  The pump, a hidden generic request on the progress
 * engine's list while any control message is outstanding, moves all this
 * from every MPI call that makes progress, whatever the user waits on.
 * docs/partitioned.md has the argument in full.
 */
#include "p2p/part.h"
#include "p2p/p2p.h"
#include "p2p/coll_entry.h"
#include "p2p/outq.h"
#include "core/request.h"
#include "core/datatype.h"
#include "core/comm.h"
#include "core/error.h"
#include "core/thread.h"
#include "shm/fault.h"

#include <stdlib.h>

struct stash {
    struct cm_part_hello h;
    struct stash *next;
};

/* The receive side's state for one (communicator, source). */
struct chan {
    MPI_Comm comm;
    int peer;
    MPI_Request rq;                    /* the posted hello receive, or MPI_REQUEST_NULL */
    struct cm_part_hello in;           /* where it lands */
    struct cm_part *wait_head, *wait_tail; /* unmatched receives, init order */
    struct stash *stash_head, *stash_tail; /* hellos no waiting receive wanted, arrival order */
    struct chan *next;
};

static struct chan *chans;
static struct cm_part *ctl_list;       /* parts with a control message outstanding */
static struct cm_request *pump;
static int pump_listed;
static unsigned char sid_used[CM_PART_SIDS], rid_used[CM_PART_RIDS];
static int sid_next, rid_next;
/* MPI_THREAD_MULTIPLE: everything above (channels, the control list, the
 * pump, the ids), changed by the owners' calls in any thread and by the
 * progressing one.  Order: before a request's own lock (part.h); the
 * progress path only tries it (pump_poll), since a Pready holding its
 * request's lock may progress.  Recursive: a call that holds it may send,
 * and the send may progress into the pump. */
static pthread_mutex_t part_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

/* ---- ids: next fit, so a freed id comes back as late as possible ------- */

static int take_id(unsigned char *used, int n, int *next)
{
    for (int k = 0; k < n; k++) {
        int id = (*next + k) % n;
        if (!used[id]) {
            used[id] = 1;
            *next = (id + 1) % n;
            return id;
        }
    }
    return -1;
}

static int alloc_id(struct cm_part *p)
{
    p->id = p->send ? take_id(sid_used, CM_PART_SIDS, &sid_next) : take_id(rid_used, CM_PART_RIDS, &rid_next);
    return p->id < 0 ? -1 : 0;
}

static void part_free(struct cm_part *p)
{
    if (p->id >= 0)
        (p->send ? sid_used : rid_used)[p->id] = 0;
    for (int i = 0; p->reqs && i < p->nmsg; i++) {
        struct cm_request *q = p->reqs[i] == MPI_REQUEST_NULL ? NULL : cm_request_get(p->reqs[i]);
        if (q)
            cm_request_release(q);
    }
    cm_dt_release(p->dt);
    if (p->held)
        cm_comm_release(p->held);
    free(p->reqs);
    free(p->ready);
    free(p->missing);
    free(p->pend);
    free(p->stage);
    free(p);
}

static void part_progress(void);

/* ---- the pump ------------------------------------------------------------ */

static int in_progress;   /* cm_part_progress is running: a send it makes may poll the engine */

static int pump_poll_locked(void);

static int pump_poll(void *unused)
{
    (void)unused;
    if (!cm_mt)
        return pump_poll_locked();
    if (pthread_mutex_trylock(&part_lock) != 0)
        return 0;   /* its holder moves the control traffic; the next poll looks again */
    int done = pump_poll_locked();
    pthread_mutex_unlock(&part_lock);
    return done;
}

static int pump_poll_locked(void)
{
    if (in_progress)
        return 0;   /* the outer pass decides, and kicks the pump for what it starts */
    part_progress();
    int busy = ctl_list != NULL;
    for (struct chan *c = chans; c && !busy; c = c->next)
        busy = c->rq != MPI_REQUEST_NULL;
    if (!busy)
        pump_listed = 0;   /* the engine drops it now that poll says done */
    return !busy;
}

static void pump_kick(void)
{
    if (pump_listed)
        return;
    if (!pump) {
        pump = cm_request_generic_new(pump_poll, NULL, NULL);
        pump->internal = 1;
    }
    /* Atomic: the progress holder may still be storing the last round's
     * completion (poll_generics) after pump_poll cleared pump_listed.  Nobody
     * waits on the pump, so which store lands last decides nothing; the
     * engine polls it again either way (check-tsan, mpi.thread_objects.n3). */
    __atomic_store_n(&pump->complete, 0, __ATOMIC_RELAXED);
    cm_progress_add_generic(pump);
    pump_listed = 1;
}

/* Test an internal request; on completion release it and clear the handle. */
static int take_done(MPI_Request *h)
{
    struct cm_request *q = *h == MPI_REQUEST_NULL ? NULL : cm_request_get(*h);
    if (q && !cm_request_done(q))
        return 0;
    if (q)
        cm_request_release(q);
    *h = MPI_REQUEST_NULL;
    return 1;
}

static void ctl_add(struct cm_part *p)
{
    if (p->on_ctl)
        return;
    p->on_ctl = 1;
    p->next = ctl_list;
    ctl_list = p;
    pump_kick();
}

/* ---- receive side: channels ----------------------------------------------- */

static struct chan *chan_get(MPI_Comm comm, int peer)
{
    for (struct chan *c = chans; c; c = c->next)
        if (c->comm == comm && c->peer == peer)
            return c;
    struct chan *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->comm = comm;
    c->peer = peer;
    c->rq = MPI_REQUEST_NULL;
    c->next = chans;
    chans = c;
    return c;
}

static void chan_drop_if_idle(struct chan *c)
{
    if (c->rq != MPI_REQUEST_NULL || c->wait_head || c->stash_head)
        return;
    for (struct chan **pp = &chans; *pp; pp = &(*pp)->next)
        if (*pp == c) {
            *pp = c->next;
            free(c);
            return;
        }
}

/* p (a receive, live or freed) meets the hello h: answer it. */
static void match_recv(struct cm_part *p, const struct cm_part_hello *h)
{
    cm_mt_lock(&p->lock);   /* the owner's Start and Parrived read the match */
    p->matched = 1;
    p->peer_id = h->sid;
    p->peer_parts = h->parts;
    p->peer_psize = h->psize;
    p->why = !p->self ? CM_PART_PEER_FREED : cm_part_total_mismatch(p) ? CM_PART_SIZE : CM_PART_OK;
    if (p->self)
        cm_part_on_match(p);   /* may refuse too (CM_PART_TOO_BIG) */
    cm_mt_unlock(&p->lock);
    p->reply = (struct cm_part_reply){ .rid = p->id, .parts = p->partitions, .psize = p->psize, .why = p->why };
    cm_p2p_isend(&p->reply, (int)sizeof p->reply, MPI_BYTE, p->peer, CM_PART_TAG_REPLY(h->sid), p->cc, &p->ctl_rq, 0);
    ctl_add(p);
}

static void chan_post(struct chan *c)
{
    if (c->rq == MPI_REQUEST_NULL && c->wait_head) {
        cm_p2p_irecv(&c->in, (int)sizeof c->in, MPI_BYTE, c->peer, CM_PART_TAG_HELLO, cm_coll_comm(c->comm), &c->rq, 0);
        pump_kick();
    }
}

/* Hand every hello that has landed to its receive, or keep it. */
static void chan_progress(struct chan *c)
{
    while (c->rq != MPI_REQUEST_NULL && take_done(&c->rq)) {
        struct cm_part **pp = &c->wait_head, *prev = NULL;
        while (*pp && (*pp)->tag != c->in.tag) {
            prev = *pp;
            pp = &(*pp)->next;
        }
        struct cm_part *p = *pp;
        if (p) {
            *pp = p->next;
            if (c->wait_tail == p)
                c->wait_tail = prev;
            p->next = NULL;
            match_recv(p, &c->in);
        } else {
            struct stash *s = malloc(sizeof *s);
            if (!s)
                cm_fatal("MPI", "out of memory keeping a partitioned hello");
            s->h = c->in;
            s->next = NULL;
            if (c->stash_tail)
                c->stash_tail->next = s;
            else
                c->stash_head = s;
            c->stash_tail = s;
        }
        chan_post(c);
    }
    chan_drop_if_idle(c);
}

static void recv_match_init(struct cm_part *p)
{
    struct chan *c = chan_get(p->comm, p->peer);
    if (!c)
        cm_fatal("MPI", "out of memory matching a partitioned receive");
    struct stash **sp = &c->stash_head, *prev = NULL;
    while (*sp && (*sp)->h.tag != p->tag) {
        prev = *sp;
        sp = &(*sp)->next;
    }
    struct stash *s = *sp;
    if (s) {
        *sp = s->next;
        if (c->stash_tail == s)
            c->stash_tail = prev;
        match_recv(p, &s->h);
        free(s);
        chan_drop_if_idle(c);
        return;
    }
    p->next = NULL;
    if (c->wait_tail)
        c->wait_tail->next = p;
    else
        c->wait_head = p;
    c->wait_tail = p;
    chan_post(c);
    pump_kick();
}

/* ---- send side -------------------------------------------------------------- */

static void send_match_init(struct cm_part *p)
{
    p->hello = (struct cm_part_hello){ .tag = p->tag, .parts = p->partitions, .sid = p->id, .psize = p->psize };
    cm_p2p_irecv(&p->reply, (int)sizeof p->reply, MPI_BYTE, p->peer, CM_PART_TAG_REPLY(p->id), p->cc, &p->reply_rq, 0);
    cm_p2p_isend(&p->hello, (int)sizeof p->hello, MPI_BYTE, p->peer, CM_PART_TAG_HELLO, p->cc, &p->ctl_rq, 0);
    ctl_add(p);
}

static void match_init(struct cm_part *p)
{
    p->ctl_rq = p->reply_rq = MPI_REQUEST_NULL;
    if (p->peer == MPI_PROC_NULL) {   /* nothing to match: a send goes nowhere, a receive gets nothing */
        p->matched = 1;
        p->peer_parts = 0;
        cm_part_on_match(p);
    } else if (p->send) {
        send_match_init(p);
    } else {
        recv_match_init(p);
    }
}

/* Control traffic of p; 1 when none is left. */
static int ctl_progress(struct cm_part *p)
{
    take_done(&p->ctl_rq);
    if (p->reply_rq != MPI_REQUEST_NULL && take_done(&p->reply_rq)) {
        cm_mt_lock(&p->lock);   /* a Pready in another thread reads the match */
        p->matched = 1;
        p->peer_id = p->reply.rid;
        p->peer_parts = p->reply.parts;
        p->peer_psize = p->reply.psize;
        p->why = p->reply.why ? (enum cm_part_why)p->reply.why
                 : cm_part_total_mismatch(p) ? CM_PART_SIZE : CM_PART_OK;
        if (p->self)
            cm_part_on_match(p);
        cm_mt_unlock(&p->lock);
    }
    return p->ctl_rq == MPI_REQUEST_NULL && p->reply_rq == MPI_REQUEST_NULL;
}

static void part_progress(void)
{
    if (in_progress)
        return;
    in_progress = 1;
    for (struct chan *c = chans, *next; c; c = next) {
        next = c->next;   /* chan_progress may free c */
        chan_progress(c);
    }
    for (struct cm_part **pp = &ctl_list; *pp;) {
        struct cm_part *p = *pp;
        if (!ctl_progress(p)) {
            pp = &p->next;
            continue;
        }
        *pp = p->next;
        p->on_ctl = 0;
        p->next = NULL;
        if (!p->self)
            part_free(p);
    }
    in_progress = 0;
}

static void part_release(struct cm_part *p)
{
    p->self = NULL;
    /* An unmatched receive stays in its channel and a part with control
     * traffic out stays on the list: each is freed when that is over. */
    int waiting = !p->send && !p->matched;
    if (!waiting && !p->on_ctl)
        part_free(p);
}

/* At finalize: the communicators are gone already (cm_comm_finalize). */
static void forget(struct cm_part *p)
{
    p->held = NULL;
    part_free(p);
}

void cm_part_finalize(void)
{
    while (chans) {
        struct chan *c = chans;
        chans = c->next;
        for (struct cm_part *p = c->wait_head, *next; p; p = next) {
            next = p->next;
            if (!p->self)
                forget(p);
        }
        while (c->stash_head) {
            struct stash *s = c->stash_head;
            c->stash_head = s->next;
            free(s);
        }
        free(c);
    }
    while (ctl_list) {
        struct cm_part *p = ctl_list;
        ctl_list = p->next;
        p->on_ctl = 0;
        if (!p->self)
            forget(p);
    }
    if (pump && (!pump_listed || cm_progress_drop_generic(pump)))
        cm_request_release(pump);
    pump = NULL;
    pump_listed = 0;
}

/* ---- the entry points, under part_lock --------------------------------- */

int cm_part_alloc_id(struct cm_part *p)
{
    cm_mt_lock(&part_lock);
    int rc = alloc_id(p);
    cm_mt_unlock(&part_lock);
    return rc;
}

void cm_part_free(struct cm_part *p)
{
    cm_mt_lock(&part_lock);
    CM_FAULT(mt_part_match);
    part_free(p);
    cm_mt_unlock(&part_lock);
}

void cm_part_match_init(struct cm_part *p)
{
    cm_mt_lock(&part_lock);
    CM_FAULT(mt_part_match);
    match_init(p);
    cm_mt_unlock(&part_lock);
}

void cm_part_progress(void)
{
    cm_mt_lock(&part_lock);
    CM_FAULT(mt_part_match);
    part_progress();
    cm_mt_unlock(&part_lock);
}

void cm_part_release(struct cm_part *p)
{
    cm_mt_lock(&part_lock);
    CM_FAULT(mt_part_match);
    part_release(p);
    cm_mt_unlock(&part_lock);
}
