/*
 * bsend.c -- buffered-mode sends through the user's attached buffer.
 *
 * Each buffered send copies (packs) its message into an attached buffer and
 * sends from that copy with an internal request; the user's call completes at
 * once.  In-flight copies are kept sorted by offset and space is found first
 * fit; MPI_BSEND_OVERHEAD bytes are charged per message as the standard asks
 * programs to allow for.
 *
 * Buffers (MPI-4.1 §3.6.1): a communicator's own (Comm_attach_buffer) is
 * used first, then the buffer of the session the communicator derives from
 * (Session_attach_buffer, mpi/session_buffer.c; cm_comm.session), then the
 * process's (Buffer_attach).  MPI_BUFFER_AUTOMATIC instead of an address
 * means no limit: each message gets a malloc'd copy, freed when it has left.
 * Invariant: every in-flight copy is on the list of the buffer it came from.
 *
 * MPI_THREAD_MULTIPLE: `lock` guards the slots, every buffer's fields and
 * its in-flight list (a send reserving space while the progressing thread
 * unlinks a copy that has left, or another thread reserves too); the copy
 * into the reserved space and the send itself run outside it.  A leaf:
 * nothing is called while it is held.
 */
#include "p2p/bsend.h"
#include "p2p/request_wait.h"
#include "core/state.h"
#include "core/error.h"
#include "core/comm.h"
#include "core/datatype.h"
#include "p2p/p2p.h"
#include "core/thread.h"
#include "shm/fault.h"
#include "fe_p2p.h"

#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


struct bbuf {
    MPI_Comm comm;              /* MPI_COMM_NULL: the process's or a session's buffer */
    int session;                /* a session's index, 0: not a session's */
    char *base;                 /* NULL: none attached */
    size_t size;
    int automatic;              /* MPI_BUFFER_AUTOMATIC */
    struct cm_request *inflight; /* sorted by address (not for automatic), linked by bsend_next */
};

static struct bbuf process = { MPI_COMM_NULL, 0, NULL, 0, 0, NULL };
/* One slot per communicator or session that ever attached; a slot is keyed
 * by exactly one of comm (session 0) and session (comm MPI_COMM_NULL).
 * Slots are allocated one by one and never freed (only reused), so the
 * pointers in-flight copies (r->state) and iflush requests hold stay valid
 * when the table grows. */
static struct bbuf **comm_bufs;
static int ncomm_bufs;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static struct bbuf *slot_locked(MPI_Comm comm, int session, int create)
{
    for (int i = 0; i < ncomm_bufs; i++)
        if (comm_bufs[i]->comm == comm && comm_bufs[i]->session == session)
            return comm_bufs[i];
    if (!create)
        return NULL;
    for (int i = 0; i < ncomm_bufs; i++) {
        struct bbuf *b = comm_bufs[i];
        if (!b->base && !b->automatic && !b->inflight) {
            b->comm = comm;
            b->session = session;
            return b;
        }
    }
    struct bbuf **t = realloc(comm_bufs, (size_t)(ncomm_bufs + 1) * sizeof *t);
    struct bbuf *b = calloc(1, sizeof *b);
    if (!t || !b)
        cm_fatal("bsend", "out of memory");
    comm_bufs = t;
    b->comm = comm;
    b->session = session;
    return comm_bufs[ncomm_bufs++] = b;
}

static struct bbuf *slot(MPI_Comm comm, int session, int create)
{
    cm_mt_lock(&lock);
    struct bbuf *b = slot_locked(comm, session, create);
    cm_mt_unlock(&lock);
    return b;
}

static struct bbuf *comm_slot(MPI_Comm comm, int create)
{
    return slot(comm, 0, create);
}

static int attached(const struct bbuf *b)
{
    return b && (b->base || b->automatic);
}

/* The buffer a buffered send on comm uses. */
static struct bbuf *buffer_for(MPI_Comm comm)
{
    struct bbuf *b = comm_slot(cm_comm_plain(comm), 0);
    if (attached(b))
        return b;
    struct cm_comm *c = cm_comm_lookup(comm, NULL);
    b = c && c->session ? slot(MPI_COMM_NULL, c->session, 0) : NULL;
    return attached(b) ? b : &process;
}

/* Space for `need` bytes in b, linked in its list; NULL if it does not fit. */
static char *reserve(struct bbuf *b, size_t need, struct cm_request ***at)
{
    if (b->automatic) {
        *at = &b->inflight;
        return malloc(need);
    }
    size_t start = 0;
    struct cm_request **link = &b->inflight;
    for (struct cm_request *r = b->inflight; r; link = &r->bsend_next, r = r->bsend_next) {
        size_t off = (size_t)((char *)r->buf - b->base);
        if (off - start >= need)
            break;
        start = off + r->bsend_bytes;
    }
    if (start + need > b->size)
        return NULL;
    *at = link;
    return b->base + start;
}

int cm_bsend_start(struct cm_request *user, const char *call)
{
    struct cm_datatype *t = cm_dt_lookup(user->dtype);
    size_t bytes = (size_t)user->count * t->size;
    size_t need = bytes + MPI_BSEND_OVERHEAD;
    struct bbuf *b = buffer_for(user->comm);
    if (!attached(b))
        return cm_error(user->comm, MPI_ERR_BUFFER, call,
                        "no buffer attached (use MPI_Buffer_attach or MPI_Comm_attach_buffer before buffered sends)");
    struct cm_request **link;
    struct cm_request *r = cm_request_new(CM_REQ_SEND);
    cm_mt_lock(&lock);
    char *space = reserve(b, need, &link);
    if (!space) {
        size_t used = 0;
        for (struct cm_request *q = b->inflight; q; q = q->bsend_next)
            used += q->bsend_bytes;
        cm_mt_unlock(&lock);
        cm_request_release(r);
        return cm_error(user->comm, b->automatic ? MPI_ERR_NO_MEM : MPI_ERR_BUFFER, call,
                        "attached buffer too small: message needs %zu bytes (with overhead), buffer has %zu, %zu in use",
                        need, b->size, used);
    }
    r->buf = space;
    r->bsend_bytes = need;
    CM_FAULT(mt_bsend);   /* the space is another thread's too until linked */
    r->bsend_next = *link;
    *link = r;
    cm_mt_unlock(&lock);
    r->internal = 1;
    r->mode = CM_MODE_BUFFERED;
    r->state = b;   /* the buffer it came from (not a generic request) */
    r->count = (int)bytes;
    r->dtype = MPI_BYTE;
    r->comm = user->comm;
    r->peer = user->peer;
    r->tag = user->tag;
    if (bytes)
        cm_dt_pack(user->buf, user->count, t, r->buf);
    /* Only a send to MPI_PROC_NULL is finished here: any other may be
     * complete and released by another thread's progress once started. */
    int to_null = r->peer == MPI_PROC_NULL;
    cm_send_start(r);
    if (to_null && r->complete)
        cm_bsend_done(r);
    return MPI_SUCCESS;
}

void cm_bsend_done(struct cm_request *r)
{
    struct bbuf *b = r->state;
    cm_mt_lock(&lock);
    for (struct cm_request **link = &b->inflight; *link; link = &(*link)->bsend_next) {
        if (*link == r) {
            *link = r->bsend_next;
            break;
        }
    }
    int automatic = b->automatic;
    cm_mt_unlock(&lock);
    if (automatic)
        free(r->buf);
    cm_request_release(r);
}

/* Flush one buffer (NULL: every buffer): true when its copies have all left. */
static int all_left(void *arg)
{
    const struct bbuf *b = arg;
    int left = 1;
    cm_mt_lock(&lock);
    if (b)
        left = b->inflight == NULL;
    else {
        for (int i = 0; i < ncomm_bufs && left; i++)
            left = !comm_bufs[i]->inflight;
        left = left && process.inflight == NULL;
    }
    cm_mt_unlock(&lock);
    return left;
}

static void flush(struct bbuf *b, unsigned call_id)
{
    cm_progress_until(all_left, b, -1, call_id, MPI_ANY_SOURCE, MPI_ANY_TAG, 0);
}

void cm_bsend_flush(void)
{
    flush(NULL, CM_CALL_Buffer_detach);
}

/* Errors of the calls on a buffer go to its owner: a communicator's
 * handler (o->obj NULL) or a session's (o->errh, with o->obj the handle). */
static int fail(const struct cm_bsend_owner *o, int cls, const char *call, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(const struct cm_bsend_owner *o, int cls, const char *call, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return o->obj ? cm_error_on(o->errh, o->obj, cls, call, "%s", msg) : cm_error(o->comm, cls, call, "%s", msg);
}

static int attach(struct bbuf *b, const struct cm_bsend_owner *o, void *buf, MPI_Count size, const char *call)
{
    if (attached(b))
        return fail(o, MPI_ERR_BUFFER, call, "a buffer is already attached (detach it first)");
    if (buf == MPI_BUFFER_AUTOMATIC) {
        b->automatic = 1;
        return MPI_SUCCESS;
    }
    if (size < 0)
        return fail(o, MPI_ERR_ARG, call, "negative size %lld", (long long)size);
    if (!buf && size > 0)
        return fail(o, MPI_ERR_BUFFER, call, "buffer is NULL");
    b->base = buf;
    b->size = (size_t)size;
    return MPI_SUCCESS;
}

/* max: the largest size the caller's binding can hand back (INT_MAX for
 * the int ones); a larger buffer stays attached and the call fails. */
static int detach(struct bbuf *b, const struct cm_bsend_owner *o, void *buffer_addr, MPI_Count *size, MPI_Count max,
                  unsigned call_id, const char *call)
{
    if (!buffer_addr || !size)
        return fail(o, MPI_ERR_ARG, call, "%s is NULL", buffer_addr ? "size" : "buffer_addr");
    if (!attached(b)) {
        *(void **)buffer_addr = NULL;
        *size = 0;
        return MPI_SUCCESS;
    }
    if (b->size > (size_t)max)
        return fail(o, MPI_ERR_VALUE_TOO_LARGE, call,
                    "the attached buffer has %zu bytes, more than size (an int) holds: use %s_c", b->size, call);
    flush(b, call_id);
    *(void **)buffer_addr = b->automatic ? MPI_BUFFER_AUTOMATIC : b->base;
    *size = (MPI_Count)b->size;
    b->base = NULL;
    b->size = 0;
    b->automatic = 0;
    return MPI_SUCCESS;
}

int cm_Buffer_attach(void *buf, int size)
{
    struct cm_bsend_owner o = { MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, NULL };
    return attach(&process, &o, buf, size, "MPI_Buffer_attach");
}

int cm_Buffer_detach(void *buffer_addr, int *size)
{
    struct cm_bsend_owner o = { MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, NULL };
    MPI_Count n = 0;
    int rc = detach(&process, &o, buffer_addr, size ? &n : NULL, INT_MAX, CM_CALL_Buffer_detach, "MPI_Buffer_detach");
    if (rc == MPI_SUCCESS)
        *size = (int)n;
    return rc;
}

int cm_Buffer_attach_c(void *buf, MPI_Count size)
{
    struct cm_bsend_owner o = { MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, NULL };
    return attach(&process, &o, buf, size, "MPI_Buffer_attach_c");
}

int cm_Buffer_detach_c(void *buffer_addr, MPI_Count *size)
{
    struct cm_bsend_owner o = { MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, NULL };
    return detach(&process, &o, buffer_addr, size, INT64_MAX, CM_CALL_Buffer_detach_c, "MPI_Buffer_detach_c");
}

int cm_Buffer_flush(void)
{
    flush(&process, CM_CALL_Buffer_flush);
    return MPI_SUCCESS;
}

static int check_comm(MPI_Comm comm, const char *call)
{
    if (comm == MPI_COMM_NULL || !cm_comm_lookup(comm, NULL) || cm_comm_is_coll(comm))
        return cm_error(MPI_COMM_WORLD, MPI_ERR_COMM, call, "invalid communicator");
    return MPI_SUCCESS;
}

int cm_Comm_attach_buffer(MPI_Comm comm, void *buffer, int size)
{
    int rc = check_comm(comm, "MPI_Comm_attach_buffer");
    struct cm_bsend_owner o = { comm, MPI_ERRORS_ARE_FATAL, NULL };
    return rc ? rc : attach(comm_slot(comm, 1), &o, buffer, size, "MPI_Comm_attach_buffer");
}

int cm_Comm_detach_buffer(MPI_Comm comm, void *buffer_addr, int *size)
{
    int rc = check_comm(comm, "MPI_Comm_detach_buffer");
    struct cm_bsend_owner o = { comm, MPI_ERRORS_ARE_FATAL, NULL };
    MPI_Count n = 0;
    if (rc == MPI_SUCCESS &&
        (rc = detach(comm_slot(comm, 0), &o, buffer_addr, size ? &n : NULL, INT_MAX, CM_CALL_Comm_detach_buffer,
                     "MPI_Comm_detach_buffer")) == MPI_SUCCESS)
        *size = (int)n;
    return rc;
}

int cm_Comm_attach_buffer_c(MPI_Comm comm, void *buffer, MPI_Count size)
{
    int rc = check_comm(comm, "MPI_Comm_attach_buffer_c");
    struct cm_bsend_owner o = { comm, MPI_ERRORS_ARE_FATAL, NULL };
    return rc ? rc : attach(comm_slot(comm, 1), &o, buffer, size, "MPI_Comm_attach_buffer_c");
}

int cm_Comm_detach_buffer_c(MPI_Comm comm, void *buffer_addr, MPI_Count *size)
{
    int rc = check_comm(comm, "MPI_Comm_detach_buffer_c");
    struct cm_bsend_owner o = { comm, MPI_ERRORS_ARE_FATAL, NULL };
    return rc ? rc : detach(comm_slot(comm, 0), &o, buffer_addr, size, INT64_MAX, CM_CALL_Comm_detach_buffer_c,
                            "MPI_Comm_detach_buffer_c");
}

int cm_Comm_flush_buffer(MPI_Comm comm)
{
    int rc = check_comm(comm, "MPI_Comm_flush_buffer");
    struct bbuf *b = rc ? NULL : comm_slot(comm, 0);
    if (b)
        flush(b, CM_CALL_Comm_flush_buffer);
    return rc;
}

/* The nonblocking flushes: a generic request done when the list is empty
 * (the slot's pointer stays valid: see slot()). */
static int iflush(struct bbuf *b, const struct cm_bsend_owner *o, MPI_Request *request, const char *call)
{
    if (!request)
        return fail(o, MPI_ERR_REQUEST, call, "request pointer is NULL");
    *request = cm_request_generic(all_left, NULL, b ? (void *)b : (void *)&process);
    return MPI_SUCCESS;
}

int cm_Buffer_iflush(MPI_Request *request)
{
    struct cm_bsend_owner o = { MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, NULL };
    return iflush(&process, &o, request, "MPI_Buffer_iflush");
}

int cm_Comm_iflush_buffer(MPI_Comm comm, MPI_Request *request)
{
    int rc = check_comm(comm, "MPI_Comm_iflush_buffer");
    struct cm_bsend_owner o = { comm, MPI_ERRORS_ARE_FATAL, NULL };
    return rc ? rc : iflush(comm_slot(comm, 1), &o, request, "MPI_Comm_iflush_buffer");
}

/* A session's buffer: the session layer (mpi/session_buffer.c) checks the
 * session and passes its handler. */
int cm_bsend_session_attach(int session, const struct cm_bsend_owner *o, void *buffer, MPI_Count size,
                            const char *call)
{
    return attach(slot(MPI_COMM_NULL, session, 1), o, buffer, size, call);
}

int cm_bsend_session_detach(int session, const struct cm_bsend_owner *o, void *buffer_addr, MPI_Count *size,
                            MPI_Count max, unsigned call_id, const char *call)
{
    return detach(slot(MPI_COMM_NULL, session, 0), o, buffer_addr, size, max, call_id, call);
}

void cm_bsend_session_flush(int session, unsigned call_id)
{
    struct bbuf *b = slot(MPI_COMM_NULL, session, 0);
    if (b)
        flush(b, call_id);
}

int cm_bsend_session_iflush(int session, const struct cm_bsend_owner *o, MPI_Request *request, const char *call)
{
    return iflush(slot(MPI_COMM_NULL, session, 1), o, request, call);
}

void cm_bsend_session_end(int session, unsigned call_id)
{
    struct bbuf *b = slot(MPI_COMM_NULL, session, 0);
    if (!b)
        return;
    flush(b, call_id);
    b->base = NULL;
    b->size = 0;
    b->automatic = 0;
    b->session = 0;   /* free for reuse; an index of a later session must not find it */
}
