/*
 * direct/scatterv.c -- scatterv on the shared area.  Each receiver owns a
 * fixed share of the broadcast-FIFO entry (a 1/n of its inline line, or of
 * its data area); a block that fits its share rides there (no sync, as in
 * scatter), a larger one is sent point to point.  The choice is made per
 * block from its size, which the root (the counts) and its receiver (its
 * own count) both know.
 */
#include <mpi.h>
#ifdef CM_IN_COREMPI  /* corempi only: the host-MPI harness compiles every src/coll file */
#include "coll/direct/direct.h"

#include <stdlib.h>

#define TAG CM_TAG_SCATTERV

enum way { WAY_NONE, WAY_INLINE, WAY_DATA, WAY_P2P };

/* How a block of b bytes to rank r travels, and where it sits in the entry. */
static enum way block_way(const struct cm_direct *s, struct cm_direct_bfifo_entry *e, int r, size_t b, unsigned char **at)
{
    size_t inl = CM_DIRECT_BFIFO_INLINE / (size_t)s->n, data = CM_DIRECT_BFIFO_BYTES / (size_t)s->n;
    if (!b)
        return WAY_NONE;
    if (b <= inl) {
        *at = e->inl + (size_t)r * inl;
        return WAY_INLINE;
    }
    if (b <= data) {
        *at = e->data + (size_t)r * data;
        return WAY_DATA;
    }
    return WAY_P2P;
}

int cm_coll_scatterv_shm(const void *sbuf, const int *scounts, const int *displs, MPI_Datatype stype, void *rbuf,
                         int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
    int n, me;
    PMPI_Comm_size(comm, &n);
    PMPI_Comm_rank(comm, &me);
    struct cm_direct *s = n > 1 && cm_direct_bfifo_enabled() ? cm_direct_get(comm, "MPI_Scatterv") : NULL;
    if (!s)
        return cm_coll_scatterv_linear(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm);
    /* Every rank takes call number k, whichever way its block goes. */
    uint32_t k = s->bcasts++;
    struct cm_direct_bfifo_entry *e = cm_direct_bfifo(s, k);
    unsigned char *at = NULL;
    int rc = MPI_SUCCESS;
    if (me != root) {
        enum way w = block_way(s, e, me, cm_direct_bytes(rcount, rtype, NULL, NULL, NULL), &at);
        if (w == WAY_P2P) {
            rc = cm_coll_recv(rbuf, rcount, rtype, root, TAG, comm, MPI_STATUS_IGNORE);
        } else {
            /* Wait even for an empty block: the ack below promises entry k read. */
            cm_direct_wait32(s, &e->seq, &e->seq_waiters, k + 1);
            if (cm_direct_words_differ(e->word, cm_direct_word))    /* direct.h: argument agreement */
                cm_direct_mismatch_seen(root, cm_direct_word, e->word);
            else if (w != WAY_NONE)
                rc = cm_direct_unpack(at, rbuf, rcount, rtype);
        }
        cm_direct_bfifo_done(s, k);
        return rc;
    }
    struct cm_dt d;
    cm_coll_dt(stype, &d);
    MPI_Request few[CM_COLL_FEW_REQS], *req = cm_coll_reqs(few, n);
    if (!req)
        return MPI_ERR_NO_MEM;
    int nreq = 0;
    cm_direct_bfifo_claim(s, k);
    for (int r = 0; r < n && rc == MPI_SUCCESS; r++) {
        if (r == me)
            continue;
        const void *blk = cm_coll_at(sbuf, displs[r], &d);
        enum way w = block_way(s, e, r, (size_t)scounts[r] * (size_t)d.size, &at);
        if (w == WAY_INLINE || w == WAY_DATA)
            rc = cm_direct_pack(at, blk, scounts[r], stype);
    }
    e->word = cm_direct_word;
    CM_FAULT(fifo_publish);
    atomic_store_explicit(&e->seq, k + 1, memory_order_release);
    cm_direct_wake32(&e->seq, &e->seq_waiters);
    for (int r = 0; r < n && rc == MPI_SUCCESS; r++)
        if (r != me && block_way(s, e, r, (size_t)scounts[r] * (size_t)d.size, &at) == WAY_P2P)
            rc = cm_coll_isend(cm_coll_at(sbuf, displs[r], &d), scounts[r], stype, r, TAG, comm, &req[nreq++]);
    if (rc == MPI_SUCCESS && rbuf != MPI_IN_PLACE)
        rc = cm_coll_copy(cm_coll_at(sbuf, displs[me], &d), scounts[me], stype, rbuf, rcount, rtype, comm);
    cm_direct_bfifo_done(s, k);
    int wrc = nreq ? cm_coll_waitall(nreq, req, MPI_STATUSES_IGNORE) : MPI_SUCCESS;
    cm_coll_reqs_free(req, few);
    return rc != MPI_SUCCESS ? rc : wrc;
}
#endif
