/*
 * direct/scatterv.c -- scatterv on the shared area.  Each receiver owns a
 * fixed share of the broadcast-FIFO entry (a 1/n of its inline line, or of
 * its data area); a block that fits its share rides there (no sync, as in
 * scatter), a larger one is sent point to point.  The choice is made per
 * block from its size.
 *
 * The root also writes every rank's block size into the entry (vsizes,
 * direct.h), and every receiver waits for the entry, whichever way its
 * block comes, and compares that size with its own count before it takes
 * anything (the word holds no bytes in a v form): a receiver whose count
 * differs records the mismatch, and takes a block the root sent point to
 * point off the queue and drops it, so that neither the root's send nor a
 * later call on the communicator is left with it.  Until 2026-11-29 each
 * side chose the way from its own size alone: 1000 ints against 5 gave a
 * silent short block, 5 against 1000 a hang.
 */
#include <mpi.h>
#ifdef CM_IN_COREMPI  /* corempi only: the host-MPI harness compiles every src/coll file */
#include "coll/direct/direct.h"

#include <stddef.h>

#define TAG CM_TAG_SCATTERV

enum way { WAY_NONE, WAY_INLINE, WAY_DATA, WAY_P2P };

/* The sizes take 4 bytes per rank of the entry's 4 KiB (2 KiB at this
 * many); beyond, the linear algorithm (each message's size is compared). */
#define MAX_RANKS 512

static uint32_t *sizes(struct cm_direct_bfifo_entry *e)
{
    return (uint32_t *)((unsigned char *)e + offsetof(struct cm_direct_bfifo_entry, vsizes));
}

/* Where the shares of data start: after the sizes that spill over from vsizes. */
static size_t shares_at(int n)
{
    size_t b = 4 * (size_t)n, room = sizeof ((struct cm_direct_bfifo_entry *)0)->vsizes;
    return b <= room ? 0 : (b - room + 7) & ~(size_t)7;
}

/* How a block of b bytes to rank r travels, and where it sits in the entry. */
static enum way block_way(const struct cm_direct *s, struct cm_direct_bfifo_entry *e, int r, size_t b, unsigned char **at)
{
    size_t off = shares_at(s->n);
    size_t inl = CM_DIRECT_BFIFO_INLINE / (size_t)s->n, data = (CM_DIRECT_BFIFO_BYTES - off) / (size_t)s->n;
    if (!b)
        return WAY_NONE;
    if (b <= inl) {
        *at = e->inl + (size_t)r * inl;
        return WAY_INLINE;
    }
    if (b <= data) {
        *at = e->data + off + (size_t)r * data;
        return WAY_DATA;
    }
    return WAY_P2P;
}

/* A non-root, call k: its block as the root's size for it says it comes. */
static int receive(struct cm_direct *s, uint32_t k, int root, void *rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
    struct cm_direct_bfifo_entry *e = cm_direct_bfifo(s, k);
    size_t want = cm_direct_bytes(rcount, rtype, NULL, NULL, NULL);
    unsigned char *at = NULL;
    int rc = MPI_SUCCESS;
    /* Wait even for an empty block: the ack below promises entry k read,
     * and the size is there. */
    cm_direct_wait32(s, &e->seq, &e->seq_waiters, k + 1);
    uint32_t got = sizes(e)[s->rank];
    enum way w = block_way(s, e, s->rank, got, &at);
    int agree = !cm_direct_words_differ(e->word, cm_direct_word);   /* direct.h: argument agreement */
    if (!agree)
        cm_direct_mismatch_seen(root, cm_direct_word, e->word);
    else if (__builtin_expect(got != cm_direct_size32(want), 0))
        cm_direct_sizes_differ(root, want, got), agree = 0;
    else if (cm_direct_classes_differ(e->sig_class, cm_direct_class_here))
        cm_direct_classes_seen(root, cm_direct_class_here, e->sig_class), agree = 0;
    if (agree && (w == WAY_INLINE || w == WAY_DATA))
        rc = cm_direct_unpack(at, rbuf, rcount, rtype);
    cm_direct_bfifo_done(s, k);
    if (w == WAY_P2P && agree)
        rc = cm_coll_recv(rbuf, rcount, rtype, root, TAG, comm, MPI_STATUS_IGNORE);
    else if (w == WAY_P2P)
        cm_direct_drop_block(root, got, TAG, comm);
    return rc;
}

int cm_coll_scatterv_shm(const void *sbuf, const int *scounts, const int *displs, MPI_Datatype stype, void *rbuf,
                         int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
    int n, me;
    PMPI_Comm_size(comm, &n);
    PMPI_Comm_rank(comm, &me);
    struct cm_direct *s =
        n > 1 && n <= MAX_RANKS && cm_direct_bfifo_enabled() ? cm_direct_get(comm, "MPI_Scatterv") : NULL;
    if (!s)
        return CM_COLL_VIA(scatterv, linear)(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm);
    /* Every rank takes call number k, whichever way its block goes. */
    uint32_t k = s->bcasts++;
    if (me != root)
        return receive(s, k, root, rbuf, rcount, rtype, comm);
    struct cm_direct_bfifo_entry *e = cm_direct_bfifo(s, k);
    unsigned char *at = NULL;
    int rc = MPI_SUCCESS;
    struct cm_dt d;
    cm_coll_dt(stype, &d);
    MPI_Request few[CM_COLL_FEW_REQS], *req = cm_coll_reqs(few, n);
    if (!req)
        return MPI_ERR_NO_MEM;
    int nreq = 0;
    cm_direct_bfifo_claim(s, k);
    uint32_t *size = sizes(e);
    for (int r = 0; r < n; r++) {
        if (r == me)
            continue;
        size_t b = (size_t)scounts[r] * (size_t)d.size;
        size[r] = cm_direct_size32(b);
        enum way w = block_way(s, e, r, b, &at);
        if ((w == WAY_INLINE || w == WAY_DATA) && rc == MPI_SUCCESS)
            rc = cm_direct_pack(at, cm_coll_at(sbuf, displs[r], &d), scounts[r], stype);
    }
    e->word = cm_direct_word;
    e->sig_class = (uint8_t)cm_direct_class_here;
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
