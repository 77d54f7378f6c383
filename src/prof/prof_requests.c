/*
 * prof_requests.c -- request handle -> what was started, so that the record of
 * a completion (in Wait/Test/...) can carry the request id, peer and size of
 * its initiation.  Open addressing with backward-shift deletion: no tombstones
 * to pile up in programs that issue millions of Isend/Wait pairs.
 */
#include "prof_internal.h"

#include <pthread.h>
#include <stdlib.h>

#define REQ_SLOTS (1u << 14)

typedef struct req_entry {
    uintptr_t key;
    int used, persistent;
    uint32_t id;
    int32_t peer, tag;
    uint32_t comm_id;
    uint16_t flags;
    uint64_t bytes;
    const cm_prof_comm_t *comm;
} req_entry;

static req_entry reqs[REQ_SLOTS];
static uint32_t next_req_id = 1;
static unsigned live;                 /* entries in use: keep the table at most 3/4 full */
/* MPI_THREAD_MULTIPLE: the table is shared by the threads (a request may be
 * started in one and completed in another), so it is used under this lock. */
static pthread_mutex_t req_mu = PTHREAD_MUTEX_INITIALIZER;
#define REQ_LOCK() do { if (cm_prof_mt) pthread_mutex_lock(&req_mu); } while (0)
#define REQ_UNLOCK() do { if (cm_prof_mt) pthread_mutex_unlock(&req_mu); } while (0)

static unsigned slot_of(uintptr_t k)
{
    k ^= k >> 21;
    k *= 0x9E3779B97F4A7C15ull;
    return (unsigned)(k >> 40) & (REQ_SLOTS - 1);
}

static req_entry *find(uintptr_t key)
{
    for (unsigned s = slot_of(key), n = 0; n < REQ_SLOTS; s = (s + 1) & (REQ_SLOTS - 1), n++) {
        if (!reqs[s].used) return NULL;
        if (reqs[s].key == key) return &reqs[s];
    }
    return NULL;
}

static void erase(req_entry *e)
{
    unsigned hole = (unsigned)(e - reqs);
    reqs[hole].used = 0;
    for (unsigned s = (hole + 1) & (REQ_SLOTS - 1); reqs[s].used; s = (s + 1) & (REQ_SLOTS - 1)) {
        unsigned home = slot_of(reqs[s].key);
        /* move s into the hole unless its home lies cyclically in (hole, s] */
        int stays = (hole <= s) ? (home > hole && home <= s) : (home > hole || home <= s);
        if (!stays) {
            reqs[hole] = reqs[s];
            reqs[s].used = 0;
            hole = s;
        }
    }
}

static uint32_t req_add(MPI_Request r, const cpt_event *init, int persistent)
{
    uintptr_t key = CM_PROF_KEY(r);
    req_entry *e = find(key);
    if (!e) {
        unsigned s = slot_of(key), n = 0;
        while (reqs[s].used && n < REQ_SLOTS) { s = (s + 1) & (REQ_SLOTS - 1); n++; }
        if (n == REQ_SLOTS || live >= REQ_SLOTS * 3 / 4) {
            cm_prof_dropped++;                 /* table full: this request stays anonymous */
            return 0;
        }
        e = &reqs[s];
        live++;
    }
    e->key = key;
    e->used = 1;
    e->persistent = persistent;
    e->id = next_req_id++;
    if (next_req_id == 0) next_req_id = 1;
    e->peer = init->peer;
    e->tag = init->tag;
    e->comm_id = init->comm;
    e->flags = init->flags & (CPT_F_SEND | CPT_F_RECV | CPT_F_ROOT | CPT_F_COLLECTIVE | CPT_F_PEER_LOCAL);
    e->bytes = init->bytes;
    e->comm = cm_prof_last_comm && cm_prof_last_comm->id == init->comm ? cm_prof_last_comm : NULL;
    return e->id;
}

uint32_t cm_prof_req_add(MPI_Request r, const cpt_event *init, int persistent)
{
    if (r == MPI_REQUEST_NULL) return 0;
    REQ_LOCK();
    uint32_t id = req_add(r, init, persistent);
    REQ_UNLOCK();
    return id;
}

void cm_prof_req_forget(MPI_Request r)
{
    if (r == MPI_REQUEST_NULL) return;
    REQ_LOCK();
    req_entry *e = find(CM_PROF_KEY(r));
    if (e) { erase(e); live--; }
    REQ_UNLOCK();
}

/* The event of a call on a tracked request says what the request is. */
static void describe(cpt_event *e, const req_entry *q)
{
    e->request = q->id;
    e->comm = q->comm_id;
    e->flags |= q->flags;
    e->peer = q->peer;
    e->tag = q->tag;
    e->bytes = q->bytes;
}

void cm_prof_completed(unsigned call, MPI_Request r, MPI_Status *st, uint64_t t0, uint64_t t1,
                       void *caller)
{
    if (r == MPI_REQUEST_NULL) return;         /* was inactive: nothing completed */
    REQ_LOCK();
    req_entry *q = find(CM_PROF_KEY(r));
    cpt_event *e = cm_prof_begin(call, CPT_F_COMPLETION, t0, t1, caller);
    if (q)
        describe(e, q);
    if (!q || (q->flags & CPT_F_RECV)) {
        /* a receive: the status knows who matched and how much arrived */
        int cancelled = 0;
        PMPI_Test_cancelled(st, &cancelled);
        if (cancelled) {
            e->flags |= CPT_F_CANCELLED;
            e->bytes = 0;
        } else if (st->MPI_SOURCE >= 0) {
            e->flags &= (uint16_t)~CPT_F_PEER_LOCAL;
            cm_prof_set_peer(e, q ? q->comm : NULL, st->MPI_SOURCE, q ? 0 : CPT_F_RECV);
            e->tag = st->MPI_TAG;
            e->bytes = cm_prof_status_bytes(st);
        } else if (st->MPI_SOURCE == MPI_PROC_NULL) {
            e->peer = CPT_PEER_PROC_NULL;
            e->bytes = 0;
        }
    }
    cm_prof_commit(e);
    if (q && !q->persistent) { erase(q); live--; }
    REQ_UNLOCK();
}

void cm_prof_started(unsigned call, MPI_Request r, int rc, int secondary, uint64_t t0, uint64_t t1,
                     void *caller)
{
    unsigned flags = CPT_F_NONBLOCKING | (secondary ? CPT_F_SECONDARY : 0) | (rc != MPI_SUCCESS ? CPT_F_ERROR : 0);
    cpt_event *e = cm_prof_begin(call, flags, t0, t1, caller);
    REQ_LOCK();
    req_entry *q = r == MPI_REQUEST_NULL ? NULL : find(CM_PROF_KEY(r));
    if (q)
        describe(e, q);
    REQ_UNLOCK();
    cm_prof_commit(e);
}

/* per thread: two threads may be in Waitall at once (never freed: a thread's
 * few kilobytes, kept until it exits -- and then leaked, which is cheaper
 * than a destructor for every thread) */
static __thread MPI_Request *scratch_reqs;
static __thread MPI_Status *scratch_statuses;
static __thread int scratch_reqs_n, scratch_statuses_n;

MPI_Request *cm_prof_scratch_reqs(int n)
{
    if (n > scratch_reqs_n) {
        MPI_Request *p = realloc(scratch_reqs, sizeof *p * (size_t)n);
        if (!p) return NULL;
        scratch_reqs = p;
        scratch_reqs_n = n;
    }
    return scratch_reqs;
}

MPI_Status *cm_prof_scratch_statuses(int n)
{
    if (n < 1) n = 1;
    if (n > scratch_statuses_n) {
        MPI_Status *p = realloc(scratch_statuses, sizeof *p * (size_t)n);
        if (!p) return NULL;
        scratch_statuses = p;
        scratch_statuses_n = n;
    }
    return scratch_statuses;
}
