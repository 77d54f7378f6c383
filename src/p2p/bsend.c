/*
 * bsend.c -- buffered-mode sends through the user's attached buffer.
 *
 * Each buffered send copies (packs) its message into the attached buffer and
 * sends from that copy with an internal request; the user's call completes at
 * once.  In-flight copies are kept sorted by offset and space is found first
 * fit; MPI_BSEND_OVERHEAD bytes are charged per message as the standard asks
 * programs to allow for.
 */
#include "p2p/bsend.h"
#include "core/state.h"
#include "core/error.h"
#include "core/comm.h"
#include "core/datatype.h"
#include "p2p/p2p.h"

#include <stddef.h>
#include <string.h>

#pragma weak MPI_Buffer_attach = PMPI_Buffer_attach
#pragma weak MPI_Buffer_detach = PMPI_Buffer_detach

static char *buffer;
static size_t buffer_size;
static struct cm_request *inflight; /* sorted by address, linked by bsend_next */

int cm_bsend_start(struct cm_request *user, const char *call)
{
    struct cm_datatype *t = cm_dt_lookup(user->dtype);
    size_t bytes = (size_t)user->count * t->size;
    size_t need = bytes + MPI_BSEND_OVERHEAD;
    if (!buffer)
        return cm_error(user->comm, MPI_ERR_BUFFER, call, "no buffer attached (use MPI_Buffer_attach before buffered sends)");
    /* First fit between in-flight copies. */
    size_t start = 0;
    struct cm_request **link = &inflight;
    for (struct cm_request *r = inflight; r; link = &r->bsend_next, r = r->bsend_next) {
        size_t off = (size_t)((char *)r->buf - buffer);
        if (off - start >= need)
            break;
        start = off + r->bsend_bytes;
    }
    if (start + need > buffer_size) {
        size_t used = 0;
        for (struct cm_request *r = inflight; r; r = r->bsend_next)
            used += r->bsend_bytes;
        return cm_error(user->comm, MPI_ERR_BUFFER, call,
                        "attached buffer too small: message needs %zu bytes (with overhead), buffer has %zu, %zu in use",
                        need, buffer_size, used);
    }
    struct cm_request *r = cm_request_new(CM_REQ_SEND);
    r->internal = 1;
    r->mode = CM_MODE_BUFFERED;
    r->buf = buffer + start;
    r->bsend_bytes = need;
    r->count = (int)bytes;
    r->dtype = MPI_BYTE;
    r->comm = user->comm;
    r->peer = user->peer;
    r->tag = user->tag;
    if (bytes)
        cm_dt_pack(user->buf, user->count, t, r->buf);
    r->bsend_next = *link;
    *link = r;
    cm_send_start(r);
    if (r->complete && r->peer == MPI_PROC_NULL)
        cm_bsend_done(r);
    return MPI_SUCCESS;
}

void cm_bsend_done(struct cm_request *r)
{
    for (struct cm_request **link = &inflight; *link; link = &(*link)->bsend_next) {
        if (*link == r) {
            *link = r->bsend_next;
            break;
        }
    }
    cm_request_release(r);
}

static int all_left(void *unused)
{
    (void)unused;
    return inflight == NULL;
}

void cm_bsend_flush(void)
{
    cm_progress_until(all_left, NULL, -1, CM_CALL_Buffer_detach, MPI_ANY_SOURCE, MPI_ANY_TAG, 0);
}

int PMPI_Buffer_attach(void *buf, int size)
{
    CM_ENTER(Buffer_attach);
    if (buffer)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_BUFFER, "MPI_Buffer_attach", "a buffer is already attached (detach it first)");
    if (size < 0)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Buffer_attach", "negative size %d", size);
    if (!buf && size > 0)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_BUFFER, "MPI_Buffer_attach", "buffer is NULL");
    buffer = buf;
    buffer_size = (size_t)size;
    return MPI_SUCCESS;
}

int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    CM_ENTER(Buffer_detach);
    if (!buffer) {
        *(void **)buffer_addr = NULL;
        *size = 0;
        return MPI_SUCCESS;
    }
    cm_bsend_flush();
    *(void **)buffer_addr = buffer;
    *size = (int)buffer_size;
    buffer = NULL;
    buffer_size = 0;
    return MPI_SUCCESS;
}
