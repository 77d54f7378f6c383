/*
 * direct/gatherv.c -- gatherv on the shared area.  Every block of up to
 * CM_DIRECT_RFIFO_BYTES goes through its sender's reduce-FIFO entry (no sync,
 * as in gather); larger blocks are sent point to point.  The choice is made
 * per block from its size, which its sender (its own count) and the root
 * (the counts) both know, so no rank needs the others' counts.
 *
 * Every non-root publishes its entry of call k, even for an empty or a
 * point-to-point block, and the root waits for all of them: the root's
 * acknowledgement (cm_direct_rfifo_done) speaks for every earlier call of the
 * FIFO, which is true only if every rank has arrived at call k (direct.h).
 * Until 2026-11-25 empty and large blocks skipped their entry; a root that
 * was late for an earlier gather then had its unread entries overwritten by
 * ranks that wrapped around the FIFO (issue 18, tests/coll/rooted_lag.c).
 */
#include <mpi.h>
#ifdef CM_IN_COREMPI  /* corempi only: the host-MPI harness compiles every src/coll file */
#include "coll/direct/direct.h"

#define TAG CM_TAG_GATHERV

/* Up to a whole entry (the root reads a few lines per block): 256 B at 2
 * ranks 0.053 us vs 0.12 point to point, 8 ranks 0.24 vs 0.8-1.4 (Open MPI
 * 0.085 / 1.2-1.5). */
static int fifo_block(size_t bytes) { return bytes > 0 && bytes <= CM_DIRECT_RFIFO_BYTES; }

/* Rank r's block is not the size the root's count for it says (a v form's
 * word holds no bytes, so the entry carries them).  Record the mismatch with
 * both sizes, and leave no step that would never happen: a receive posted
 * for a point-to-point block r will not send is cancelled, and a block r
 * sends point to point that the root did not expect is taken off and
 * dropped (otherwise r waits in its send, or a later call's receive on this
 * context would match it). */
static void block_differs(int r, uint32_t got, size_t want, MPI_Request *posted, MPI_Comm comm)
{
    cm_direct_sizes_differ(r, want, got);
    if (posted && (got == 0 || fifo_block(got)))
        PMPI_Cancel(posted);
    if (got != 0 && !fifo_block(got) && got < CM_DIRECT_SIZE24_MAX && !(want && !fifo_block(want)))
        cm_direct_drop_block(r, got, TAG, comm);
}

int cm_coll_gatherv_shm(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int *rcounts,
                        const int *displs, MPI_Datatype rtype, int root, MPI_Comm comm)
{
    int n, me;
    PMPI_Comm_size(comm, &n);
    PMPI_Comm_rank(comm, &me);
    struct cm_direct *s = n > 1 && cm_direct_rfifo_enabled() ? cm_direct_get(comm, "MPI_Gatherv") : NULL;
    if (!s)
        return CM_COLL_VIA(gatherv, linear)(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm);
    /* Every rank takes call number k, whichever way its block goes: the
     * entries of one call line up across ranks. */
    uint32_t k = s->to_root++;
    if (me != root) {
        size_t b = cm_direct_bytes(scount, stype, NULL, NULL, NULL);
        if (fifo_block(b))
            return cm_direct_gather_fifo_send(s, k, sbuf, scount, stype, b);
        int rc = cm_direct_gather_fifo_send(s, k, sbuf, 0, stype, b);   /* "I am at call k" */
        return b && rc == MPI_SUCCESS ? cm_coll_send(sbuf, scount, stype, root, TAG, comm) : rc;
    }
    struct cm_dt d;
    cm_coll_dt(rtype, &d);
    int rc = MPI_SUCCESS, nreq = 0;
    if (sbuf != MPI_IN_PLACE)
        rc = cm_coll_copy(sbuf, scount, stype, cm_coll_at(rbuf, displs[me], &d), rcounts[me], rtype, comm);
    MPI_Request few[CM_COLL_FEW_REQS], *req = cm_coll_reqs(few, n);
    if (!req)
        return MPI_ERR_NO_MEM;
    /* Large blocks first, so that their copies run while small ones arrive. */
    for (int r = 0; r < n && rc == MPI_SUCCESS; r++) {
        size_t b = (size_t)rcounts[r] * (size_t)d.size;
        if (r != me && b && !fifo_block(b))
            rc = cm_coll_irecv(cm_coll_at(rbuf, displs[r], &d), rcounts[r], rtype, r, TAG, comm, &req[nreq++]);
    }
    for (int r = 0, j = 0; r < n; r++) {
        if (r == me)
            continue;
        size_t want = (size_t)rcounts[r] * (size_t)d.size;
        int posted = want && !fifo_block(want) && j < nreq ? j++ : -1;   /* its receive in req[] */
        struct cm_direct_rfifo_entry *e = cm_direct_rfifo(s, r, k);
        cm_direct_wait32(s, &e->seq, &e->seq_waiters, k + 1);
        if (cm_direct_words_differ(e->word, cm_direct_word)) {   /* direct.h: argument agreement */
            cm_direct_mismatch_seen(r, cm_direct_word, e->word);
            continue;
        }
        if (__builtin_expect(e->bytes != cm_direct_size24(want), 0)) {
            block_differs(r, e->bytes, want, posted >= 0 ? &req[posted] : NULL, comm);
            continue;
        }
        if (cm_direct_classes_differ(e->sig_class, cm_direct_class_here)) {
            cm_direct_classes_seen(r, cm_direct_class_here, e->sig_class);
            continue;       /* a block sent point to point: its receive (same size) completes below */
        }
        if (!fifo_block(want))
            continue;
        int urc = cm_direct_unpack(e->data, cm_coll_at(rbuf, displs[r], &d), rcounts[r], rtype);
        if (rc == MPI_SUCCESS)
            rc = urc;
    }
    cm_direct_rfifo_done(s, k);
    int wrc = nreq ? cm_coll_waitall(nreq, req, MPI_STATUSES_IGNORE) : MPI_SUCCESS;
    cm_coll_reqs_free(req, few);
    return rc != MPI_SUCCESS ? rc : wrc;
}
#endif
