/*
 * partitioned.c -- partitioned communication (MPI-4.0): Psend_init,
 * Precv_init, Pready(_range/_list), Parrived, and the rounds between
 * MPI_Start and completion.
 *
 * The two sides may cut the same message into different numbers of
 * partitions (MPI-4.1 section 4.2): only the total type signature must
 * match.  part_match.c pairs the sides and tells each the other's
 * partitioning; from then on every SEND partition travels as a message of
 * its own, which the receive side lays at that partition's byte offset in
 * its own buffer (in its own elements when the offset and length fall on
 * element boundaries, as bytes when its type has no holes, else through a
 * staging copy unpacked as each message lands).  A receive partition has
 * arrived (Parrived) when every send partition overlapping its bytes has.
 * Unequal totals are refused on both sides with MPI_ERR_TRUNCATE at every
 * completion, and no data moves.  docs/partitioned.md has the protocol.
 *
 * A persistent generic request: Start arms a round (the receive posts one
 * receive per send partition once matched, the send waits for Pready); the
 * engine polls it until every message of the round is done.
 */
#include "p2p/part.h"
#include "p2p/p2p.h"
#include "p2p/check.h"
#include "p2p/coll_entry.h"
#include "p2p/outq.h"
#include "p2p/request_wait.h"
#include "core/state.h"
#include "core/comm.h"
#include "core/datatype.h"
#include "core/request.h"
#include "core/status.h"
#include "core/error.h"
#include "core/thread.h"
#include "shm/fault.h"
#include "fe_part.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>


/* ready[] states of a round. */
enum { R_NOT = 0, R_OUT = 1, R_DONE = 2 };

static size_t total_bytes(const struct cm_part *p) { return p->psize * (size_t)p->partitions; }
static size_t peer_total(const struct cm_part *p) { return p->peer_psize * (size_t)p->peer_parts; }

int cm_part_total_mismatch(const struct cm_part *p)
{
    return p->peer != MPI_PROC_NULL && total_bytes(p) != peer_total(p);
}

/* ---- receive side: where a send partition's message lands ----------------- */

/* Own partitions overlapping bytes [lo, hi) of the message: [*first, *last]. */
static int overlap(size_t lo, size_t hi, size_t unit, int n, int *first, int *last)
{
    if (unit == 0 || hi <= lo)
        return 0;
    *first = (int)(lo / unit);
    *last = (int)((hi - 1) / unit);
    if (*last >= n)
        *last = n - 1;
    return *first <= *last;
}

/* Every own partition: how many messages of the round must land in it. */
static void count_missing(struct cm_part *p)
{
    size_t sb = p->peer_psize, rb = p->psize;
    for (int j = 0; j < p->partitions; j++) {
        int a, b;
        p->missing[j] = p->nmsg && overlap(j * rb, (j + 1) * rb, sb, p->nmsg, &a, &b) ? b - a + 1 : 0;
    }
}

static void choose_landing(struct cm_part *p)
{
    size_t sb = p->peer_psize;
    if (sb == 0 || (p->esize && sb % p->esize == 0)) {
        p->land = CM_LAND_ELEMENTS;   /* count sb / esize <= the receive's elements <= INT_MAX */
        return;
    }
    if (sb > INT_MAX) {
        p->why = CM_PART_TOO_BIG;
        return;
    }
    p->land = p->contig ? CM_LAND_BYTES : CM_LAND_STAGED;
    if (p->land == CM_LAND_STAGED && !(p->stage = malloc(total_bytes(p))))
        p->why = CM_PART_TOO_BIG;
}

static void post_round(struct cm_part *p)
{
    size_t sb = p->peer_psize;
    for (int i = 0; i < p->nmsg; i++) {
        size_t off = (size_t)i * sb;
        void *at = p->buf;
        int n = 0;
        MPI_Datatype dt = MPI_BYTE;
        if (sb && p->land == CM_LAND_ELEMENTS) {
            at = p->buf + (MPI_Aint)(off / p->esize) * p->extent;
            n = (int)(sb / p->esize);
            dt = p->dt;
        } else if (sb) {
            at = p->land == CM_LAND_BYTES ? p->buf + p->true_lb + off : p->stage + off;
            n = (int)sb;
        }
        cm_p2p_irecv(at, n, dt, p->peer, CM_PART_TAG_DATA(p->id, i), p->cc, &p->reqs[i], CM_CALL_Start);
        p->pend[p->npend++] = i;
    }
    p->posted = 1;
}

static void landed(struct cm_part *p, int i)
{
    size_t sb = p->peer_psize;
    if (p->land == CM_LAND_STAGED)
        cm_dt_unpack_range(p->stage + (size_t)i * sb, sb, p->buf, p->count * p->partitions, cm_dt_lookup(p->dt),
                           (size_t)i * sb);
    int a, b;
    if (overlap((size_t)i * sb, (size_t)(i + 1) * sb, p->psize, p->partitions, &a, &b))
        for (int j = a; j <= b; j++)
            p->missing[j]--;
    p->ready[i] = R_DONE;
    p->ndone++;
}

/* ---- both sides ------------------------------------------------------------- */

static void send_partition(struct cm_part *p, int i)
{
    cm_p2p_isend(p->buf + (size_t)i * p->stride, p->count, p->dt, p->peer, CM_PART_TAG_DATA(p->peer_id, i), p->cc,
                 &p->reqs[i], CM_CALL_Pready);
    p->pend[p->npend++] = i;
}

/* A Pready'd partition: out now if the receive side answered, else when it does. */
static void make_ready(struct cm_part *p, int i)
{
    p->ready[i] = R_OUT;
    if (!p->matched)
        return;
    if (p->why) {
        p->ready[i] = R_DONE;
        p->ndone++;
    } else {
        send_partition(p, i);
    }
}

static void on_match(struct cm_part *p);

void cm_part_on_match(struct cm_part *p)
{
    cm_mt_lock(&p->lock);
    on_match(p);
    cm_mt_unlock(&p->lock);
}

static void on_match(struct cm_part *p)
{
    struct cm_request *r = p->self;
    if (p->send) {
        for (int i = 0; r->active && i < p->partitions; i++)
            if (p->ready[i] == R_OUT && p->reqs[i] == MPI_REQUEST_NULL) {
                p->ready[i] = R_NOT;
                make_ready(p, i);
            }
        return;
    }
    p->nmsg = p->peer_parts;
    if (!p->why)
        choose_landing(p);
    if (p->why)
        return;
    p->reqs = malloc((size_t)(p->nmsg ? p->nmsg : 1) * sizeof *p->reqs);
    p->ready = calloc((size_t)(p->nmsg ? p->nmsg : 1), 1);
    p->pend = malloc((size_t)(p->nmsg ? p->nmsg : 1) * sizeof *p->pend);
    if (!p->reqs || !p->ready || !p->pend)
        cm_fatal("MPI", "out of memory for a partitioned receive of %d partitions", p->nmsg);
    for (int i = 0; i < p->nmsg; i++)
        p->reqs[i] = MPI_REQUEST_NULL;
    count_missing(p);
    if (r->active && !p->posted)
        post_round(p);
}

static int poll_round(struct cm_part *p);

/* Retire the round's finished messages; 1 when the round is over.  A poll
 * that finds the round's lock taken (a Pready in another thread, or this
 * thread's own Pready that progresses) leaves it for the next one. */
static int part_poll(void *state)
{
    struct cm_part *p = state;
    if (!cm_mt)
        return poll_round(p);
    if (pthread_mutex_trylock(&p->lock) != 0)
        return 0;
    int done = poll_round(p);
    pthread_mutex_unlock(&p->lock);
    return done;
}

static int poll_round(struct cm_part *p)
{
    if (!p->matched)
        return 0;
    if (p->why)
        return p->send ? p->ndone == p->partitions : 1;
    for (int k = 0; k < p->npend;) {   /* only the messages in flight: a poll costs what is left */
        int i = p->pend[k];
        struct cm_request *q = cm_request_get(p->reqs[i]);
        if (!cm_request_done(q)) {
            k++;
            continue;
        }
        p->pend[k] = p->pend[--p->npend];
        cm_request_release(q);
        p->reqs[i] = MPI_REQUEST_NULL;
        if (p->send) {
            p->ready[i] = R_DONE;
            p->ndone++;
        } else {
            landed(p, i);
        }
    }
    return p->ndone == p->nmsg;
}

static void part_destroy(void *state)
{
    cm_part_release(state);
}

static const char *current_call(void)
{
    return cm_g.self_ctl ? cm_call_name(__atomic_load_n(&cm_g.self_ctl->last_call, __ATOMIC_RELAXED)) : "MPI call";
}

/* Why a matched pair moves no data: raised on the request's communicator. */
static int report(const struct cm_part *p, const char *call)
{
    const char *me = p->send ? "send to" : "receive from", *other = p->send ? "MPI_Precv_init" : "MPI_Psend_init";
    if (p->why == CM_PART_SIZE)
        return cm_error(p->comm, MPI_ERR_TRUNCATE, call,
                        "partitioned %s rank %d (tag %d) has %zu bytes (%d partitions of %zu) but the matching %s "
                        "has %zu (%d partitions of %zu): the totals must be equal",
                        me, p->peer, p->tag, total_bytes(p), p->partitions, p->psize, other, peer_total(p),
                        p->peer_parts, p->peer_psize);
    if (p->why == CM_PART_PEER_FREED)
        return cm_error(p->comm, MPI_ERR_REQUEST, call,
                        "partitioned send to rank %d (tag %d): the matching MPI_Precv_init was freed before it matched",
                        p->peer, p->tag);
    return cm_error(p->comm, MPI_ERR_TRUNCATE, call,
                    "partitioned %s rank %d (tag %d): the receive cannot take send partitions of %zu bytes that end "
                    "inside its elements (at most INT_MAX bytes, and memory for a staging copy)",
                    me, p->peer, p->tag, p->send ? p->psize : p->peer_psize);
}

static int part_query(struct cm_request *r)
{
    struct cm_part *p = r->state;
    return p->why ? report(p, current_call()) : MPI_SUCCESS;
}

/* MPI-4.1 section 4.2.1: cancelling an active partitioned request is
 * erroneous.  Active until its completion call, even when all the data has
 * already landed: whether it has is a race the program cannot see. */
static int part_cancel(struct cm_request *r)
{
    if (!r->active)
        return MPI_SUCCESS;
    return cm_error(r->comm, MPI_ERR_REQUEST, "MPI_Cancel", "partitioned request %ld is active: it cannot be cancelled",
                    (long)(intptr_t)cm_req_handle(r->hindex));
}

static int part_start(struct cm_request *r, const char *call)
{
    struct cm_part *p = r->state;
    (void)call;
    /* Under the round's lock: another thread's progress may match p
     * meanwhile (cm_part_on_match posts the round of an active receive). */
    cm_mt_lock(&p->lock);
    r->active = 1;
    r->complete = 0;
    p->ndone = 0;
    p->posted = 0;
    p->npend = 0;
    if (p->ready)
        memset(p->ready, R_NOT, (size_t)(p->send ? p->partitions : p->nmsg));
    if (!p->send && p->matched && !p->why) {
        count_missing(p);
        post_round(p);
    }
    cm_mt_unlock(&p->lock);
    cm_part_progress();   /* may match it now, which posts the round (cm_part_on_match) */
    if (part_poll(p))
        r->complete = 1;
    else
        cm_progress_add_generic(r);
    return MPI_SUCCESS;
}

static int part_init(int send, const void *buf, int partitions, MPI_Count count, MPI_Datatype dt, int peer, int tag,
                     MPI_Comm comm, MPI_Request *request, const char *call)
{
    int rc = cm_check_request_ptr(call, request);
    if (rc)
        return rc;
    if (partitions < 1 || partitions > CM_PART_MAX)
        return cm_error(comm, MPI_ERR_ARG, call, "partitions is %d (1..%d)", partitions, CM_PART_MAX);
    if (count < 0 || count > INT_MAX / partitions)
        return cm_error(comm, MPI_ERR_COUNT, call, "count %lld per partition times %d partitions is not 0..INT_MAX",
                        (long long)count, partitions);
    rc = cm_p2p_check(call, buf, (int)count * partitions, dt, peer, send ? CM_PEER_DEST : CM_PEER_SOURCE, tag, comm);
    if (rc)
        return rc;
    if (tag == MPI_ANY_TAG || peer == MPI_ANY_SOURCE)
        return cm_error(comm, MPI_ERR_ARG, call, "wildcards are not allowed in partitioned communication");
    struct cm_datatype *t = cm_dt_lookup(dt);
    struct cm_part *p = calloc(1, sizeof *p);
    if (!p)
        return cm_error(comm, MPI_ERR_NO_MEM, call, "out of memory");
    p->lock = (pthread_mutex_t)PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
    p->send = send;
    p->buf = (char *)buf;
    p->partitions = partitions;
    p->count = (int)count;
    p->dt = dt;
    cm_dt_retain(dt);   /* the user may free the type while the request lives */
    p->id = -1;
    p->esize = t->size;
    p->extent = t->extent;
    p->true_lb = t->true_lb;
    p->contig = t->contig;
    p->psize = (size_t)count * t->size;
    p->stride = (size_t)count * (size_t)t->extent;
    p->peer = peer;
    p->tag = tag;
    p->comm = comm;
    p->cc = cm_coll_comm(comm);
    p->held = cm_comm_lookup(comm, NULL);
    p->held->refcount++;
    if (send) {
        p->nmsg = partitions;
        p->reqs = malloc((size_t)partitions * sizeof *p->reqs);
        p->ready = calloc((size_t)partitions, 1);
        p->pend = malloc((size_t)partitions * sizeof *p->pend);
    } else {
        p->missing = calloc((size_t)partitions, sizeof *p->missing);
    }
    if ((send ? !p->reqs || !p->ready || !p->pend : !p->missing)) {
        cm_part_free(p);
        return cm_error(comm, MPI_ERR_NO_MEM, call, "out of memory");
    }
    for (int i = 0; send && i < partitions; i++)
        p->reqs[i] = MPI_REQUEST_NULL; /* not calloc's 0: no handle is 0 in the standard ABI */
    if (cm_part_alloc_id(p)) {
        cm_part_free(p);
        return cm_error(comm, MPI_ERR_NO_MEM, call, "%d partitioned %s requests are alive already, the most a process may have",
                        send ? CM_PART_SIDS : CM_PART_RIDS, send ? "send" : "receive");
    }
    struct cm_request *r = cm_request_generic_new(part_poll, part_destroy, p);
    r->persistent = 1;
    r->complete = 1;
    r->start = part_start;
    r->query = part_query;
    r->cancel = part_cancel;
    r->comm = comm;
    if (!send) {   /* a receive's status: source, tag and the whole message's size */
        r->has_status = 1;
        r->status.MPI_SOURCE = peer;
        r->status.MPI_TAG = peer == MPI_PROC_NULL ? MPI_ANY_TAG : tag;
        cm_status_set_private(&r->status, peer == MPI_PROC_NULL ? 0 : (long long)total_bytes(p), 0);
    }
    p->self = r;
    cm_part_match_init(p);
    *request = cm_request_handle(r);
    return MPI_SUCCESS;
}

/* The int binding takes an int count (the standard's and the ABI's
 * signature); the _c binding an MPI_Count.  Both share part_init, whose
 * limit (partitions * count <= INT_MAX elements) names the count. */
int cm_Psend_init(const void *buf, int partitions, int count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    return part_init(1, buf, partitions, count, datatype, dest, tag, comm, request, "MPI_Psend_init");
}

int cm_Precv_init(void *buf, int partitions, int count, MPI_Datatype datatype, int source, int tag,
                  MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    return part_init(0, buf, partitions, count, datatype, source, tag, comm, request, "MPI_Precv_init");
}

int cm_Psend_init_c(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    return part_init(1, buf, partitions, count, datatype, dest, tag, comm, request, "MPI_Psend_init_c");
}

int cm_Precv_init_c(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                    MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    return part_init(0, buf, partitions, count, datatype, source, tag, comm, request, "MPI_Precv_init_c");
}

/* ---- Pready, Parrived ------------------------------------------------------------ */

/* The partitioned request behind h, of the wanted side; *active says whether it is started. */
static struct cm_part *get_part(MPI_Request h, int send, const char *call, int *rc)
{
    struct cm_request *r = h == MPI_REQUEST_NULL ? NULL : cm_request_get(h);
    *rc = MPI_SUCCESS;
    if (!r || r->start != part_start || ((struct cm_part *)r->state)->send != send) {
        *rc = cm_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, call, "request %ld is not a partitioned %s request",
                       (long)(intptr_t)h, send ? "send" : "receive");
        return NULL;
    }
    return r->state;
}

/* A started send request, or an error. */
static struct cm_part *get_send(MPI_Request h, const char *call, int *rc)
{
    struct cm_part *p = get_part(h, 1, call, rc);
    if (p && !p->self->active) {
        *rc = cm_error(p->comm, MPI_ERR_REQUEST, call, "partitioned request %ld is not started", (long)(intptr_t)h);
        return NULL;
    }
    return p;
}

/* Partition i may be made ready: in range, not ready yet this round. */
static int check_ready(struct cm_part *p, int i, const char *call)
{
    if (i < 0 || i >= p->partitions)
        return cm_error(p->comm, MPI_ERR_ARG, call, "partition %d out of range 0..%d", i, p->partitions - 1);
    if (p->ready[i] != R_NOT)
        return cm_error(p->comm, MPI_ERR_ARG, call, "partition %d is already ready in this round", i);
    return MPI_SUCCESS;
}

/* Each call makes all its partitions ready or, on a bad one, none. */
static int ready_all(struct cm_part *p, int n, int low, const int *list, const char *call)
{
    int i, rc = MPI_SUCCESS;
    for (i = 0; i < n && !rc; i++) {
        int k = list ? list[i] : low + i;
        rc = check_ready(p, k, call);
        if (!rc)
            p->ready[k] = R_OUT;   /* a duplicate in the list is then "already ready" */
    }
    for (int j = 0; j < i - (rc != 0); j++)
        p->ready[list ? list[j] : low + j] = R_NOT;
    if (rc)
        return rc;
    for (i = 0; i < n; i++)
        make_ready(p, list ? list[i] : low + i);
    return MPI_SUCCESS;
}

/* Under MPI_THREAD_MULTIPLE several threads make partitions of one
 * request ready at once (MPI-4.1 4.1's purpose): one at a time. */
static int ready_locked(struct cm_part *p, int n, int low, const int *list, const char *call)
{
    cm_mt_lock(&p->lock);
    CM_FAULT(mt_part);
    int rc = ready_all(p, n, low, list, call);
    cm_mt_unlock(&p->lock);
    return rc;
}

int cm_Pready(int partition, MPI_Request request)
{
    int rc;
    struct cm_part *p = get_send(request, "MPI_Pready", &rc);
    return p ? ready_locked(p, 1, partition, NULL, "MPI_Pready") : rc;
}

int cm_Pready_range(int partition_low, int partition_high, MPI_Request request)
{
    int rc;
    struct cm_part *p = get_send(request, "MPI_Pready_range", &rc);
    if (!p)
        return rc;
    if (partition_low > partition_high)
        return cm_error(p->comm, MPI_ERR_ARG, "MPI_Pready_range", "partition_low %d is above partition_high %d",
                        partition_low, partition_high);
    if (partition_low < 0 || partition_high >= p->partitions)
        return cm_error(p->comm, MPI_ERR_ARG, "MPI_Pready_range", "partitions %d..%d out of range 0..%d",
                        partition_low, partition_high, p->partitions - 1);
    return ready_locked(p, partition_high - partition_low + 1, partition_low, NULL, "MPI_Pready_range");
}

int cm_Pready_list(int length, const int array_of_partitions[], MPI_Request request)
{
    int rc;
    struct cm_part *p = get_send(request, "MPI_Pready_list", &rc);
    if (!p)
        return rc;
    if (length < 0)
        return cm_error(p->comm, MPI_ERR_ARG, "MPI_Pready_list", "length is negative (%d)", length);
    if (length > 0 && !array_of_partitions)
        return cm_error(p->comm, MPI_ERR_ARG, "MPI_Pready_list", "array_of_partitions is NULL");
    return ready_locked(p, length, 0, array_of_partitions, "MPI_Pready_list");
}

/* MPI-4.1 section 4.2.2: a null or inactive request has arrived. */
int cm_Parrived(MPI_Request request, int partition, int *flag)
{
    if (!flag)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Parrived", "flag is NULL");
    if (request == MPI_REQUEST_NULL) {
        *flag = 1;
        return MPI_SUCCESS;
    }
    int rc;
    struct cm_part *p = get_part(request, 0, "MPI_Parrived", &rc);
    if (!p)
        return rc;
    if (partition < 0 || partition >= p->partitions)
        return cm_error(p->comm, MPI_ERR_ARG, "MPI_Parrived", "partition %d out of range 0..%d", partition,
                        p->partitions - 1);
    if (!p->self->active) {
        *flag = 1;
        return MPI_SUCCESS;
    }
    /* The engine polls this request (part_poll) after moving messages. */
    cm_progress(p->peer == MPI_PROC_NULL ? -1 : cm_comm_lookup(p->comm, NULL)->peer_world_of[p->peer]);
    cm_mt_lock(&p->lock);   /* the progressing thread matches p and lands its messages */
    enum cm_part_why why = p->why;
    /* A partition of no bytes has arrived once the whole round has. */
    *flag = p->matched && (p->psize ? p->missing[partition] == 0 : p->ndone == p->nmsg);
    cm_mt_unlock(&p->lock);
    if (why)
        return report(p, "MPI_Parrived");
    return MPI_SUCCESS;
}
