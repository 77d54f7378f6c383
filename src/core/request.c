/*
 * request.c -- request allocation, handles, completion and status.
 * Requests are objects here; waiting on them needs the progress engine and
 * lives above, in p2p/request_wait.c.
 *
 * Handles index a table of pointers; request memory is recycled through a
 * free list, so a steady stream of Isend/Wait allocates nothing.
 *
 * MPI_THREAD_MULTIPLE (core/thread.h): the free list, the free handles and
 * the table's growth are under `lock`; cm_request_get takes none.  The
 * table grows by replacing its array (cm_table_grow), stored before the
 * length that makes the new indices valid, so a lookup that sees an index
 * below the length also sees an array that holds it.
 */
#include "core/status.h"
#include "core/request.h"
#include "core/handle.h"
#include "core/state.h"
#include "core/error.h"
#include "core/datatype.h"
#include "core/dt_basic.h"
#include "core/thread.h"
#include "shm/fault.h"

#include <stdlib.h>
#include <string.h>

static struct cm_request **table;   /* handle -> request */
static int table_len = 1, table_cap;
static int *free_handles;
static int nfree_handles, free_handles_cap;
static struct cm_request *free_list;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* MPI_THREAD_MULTIPLE: requests the program freed while in flight, kept
 * until they are complete (cm_request_orphan); linked by `next`, under
 * orphans_lock. */
static struct cm_request *orphans;
static pthread_mutex_t orphans_lock = PTHREAD_MUTEX_INITIALIZER;

struct cm_request *cm_request_new(enum cm_req_kind kind)
{
    cm_mt_lock(&lock);
    struct cm_request *r = free_list;
    CM_FAULT(mt_request_pop);   /* another thread must not pop the same request */
    if (r)
        free_list = r->next;
    cm_mt_unlock(&lock);
    if (!r && !(r = malloc(sizeof *r)))
        cm_fatal("request", "out of memory");
    memset(r, 0, sizeof *r);
    r->kind = kind;
    return r;
}

MPI_Request cm_request_handle(struct cm_request *r)
{
    int h;
    cm_mt_lock(&lock);
    if (nfree_handles) {
        h = free_handles[--nfree_handles];
        table[h] = r;
    } else {
        if (table_len >= table_cap) {
            int cap = table_cap ? 2 * table_cap : 256;
            struct cm_request **t = cm_table_grow(table, (size_t)table_cap * sizeof *t, (size_t)cap * sizeof *t);
            if (!t)
                cm_fatal("request", "out of memory");
            __atomic_store_n(&table, t, __ATOMIC_RELEASE);
            table_cap = cap;
        }
        h = table_len;
        table[h] = r;
        __atomic_store_n(&table_len, h + 1, __ATOMIC_RELEASE);
    }
    cm_mt_unlock(&lock);
    r->hindex = h;
    /* A derived type freed by the user while this request is pending must
     * stay alive: the receive still unpacks with it. */
    if ((r->kind == CM_REQ_SEND || r->kind == CM_REQ_RECV) && !r->dt_held && !cm_dt_is_basic(r->dtype) && r->dtype != MPI_DATATYPE_NULL) {
        cm_dt_retain(r->dtype);
        r->dt_held = 1;
    }
    return cm_req_handle(r->hindex);
}

struct cm_request *cm_request_get(MPI_Request h)
{
    int i = cm_req_index(h);
    if (i <= 0 || i >= CM_RACY_LOAD(table_len))
        return NULL;
    return CM_RACY_LOAD(CM_RACY_LOAD(table)[i]);
}

void cm_request_release_handle(struct cm_request *r)
{
    if (r->hindex) {
        cm_mt_lock(&lock);
        __atomic_store_n(&table[r->hindex], NULL, __ATOMIC_RELAXED);
        if (nfree_handles == free_handles_cap) {
            free_handles_cap = free_handles_cap ? 2 * free_handles_cap : 256;
            free_handles = realloc(free_handles, (size_t)free_handles_cap * sizeof *free_handles);
            if (!free_handles)
                cm_fatal("request", "out of memory");
        }
        free_handles[nfree_handles++] = r->hindex;
        cm_mt_unlock(&lock);
        r->hindex = 0;
    }
}

void cm_request_release(struct cm_request *r)
{
    cm_request_release_handle(r);
    if (r->kind == CM_REQ_GENERIC && r->destroy)
        r->destroy(r->state);
    if (r->dt_held)
        cm_dt_release(r->dtype);
    cm_mt_lock(&lock);
    r->next = free_list;
    free_list = r;
    cm_mt_unlock(&lock);
}

/* Below MULTIPLE the completing code releases a request marked `freed`
 * (it reads the mark before publishing the completion, since a waiter may
 * then release the request).  With another thread completing it, that
 * read can come before Request_free's mark while the completion comes
 * after Request_free's look at `complete`: neither side would release it.
 * So under MULTIPLE Request_free never marks it: the request goes on the
 * orphans, and each MPI_Request_free releases the orphans
 * found complete -- nobody else holds a complete orphan. */
void cm_request_orphan(struct cm_request *r)
{
    cm_request_release_handle(r);
    if (!cm_mt) {
        r->freed = 1;
        return;
    }
    cm_mt_lock(&orphans_lock);
    r->next = orphans;
    CM_FAULT(mt_orphans);
    orphans = r;
    cm_mt_unlock(&orphans_lock);
}

void cm_request_reap(void)
{
    struct cm_request *done = NULL;
    cm_mt_lock(&orphans_lock);
    for (struct cm_request **p = &orphans; *p;) {
        struct cm_request *r = *p;
        if (cm_request_done(r)) {
            *p = r->next;
            r->next = done;
            done = r;
        } else {
            p = &r->next;
        }
    }
    cm_mt_unlock(&orphans_lock);
    while (done) {
        struct cm_request *r = done;
        done = r->next;
        cm_request_release(r);
    }
}

void cm_request_status(const struct cm_request *r, MPI_Status *status)
{
    if (status == MPI_STATUS_IGNORE || !status)
        return;
    if (r->kind == CM_REQ_RECV || r->cancelled || r->has_status) {
        int err = status->MPI_ERROR;
        *status = r->status;
        /* MPI_ERROR is set only by the calls that report errors in statuses. */
        status->MPI_ERROR = err;
    } else {
        status->MPI_SOURCE = MPI_ANY_SOURCE;
        status->MPI_TAG = MPI_ANY_TAG;
        cm_status_set_private(status, 0, 0);
    }
}

void cm_request_retire(struct cm_request *r, MPI_Request *handle)
{
    if (r->persistent) {
        r->active = 0;
        return;
    }
    *handle = MPI_REQUEST_NULL;
    cm_request_release(r);
}
