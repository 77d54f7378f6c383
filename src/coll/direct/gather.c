/*
 * direct/gather.c -- gather on the shared area: tiny blocks through the reduce
 * FIFO (no sync), small blocks through the senders' slots (one sync, the
 * root copies out), larger ones the same way a slot-sized part at a time.
 * With COREMPI_SHM_CHUNKED=0, large ones are read by the root straight from
 * each sender's buffer, then a sync releases the senders.
 */
#include <mpi.h>
#ifdef CM_IN_COREMPI  /* corempi only: the host-MPI harness compiles every src/coll file */
#include "coll/direct/direct.h"

#include <stdlib.h>

/* Blocks of up to CM_DIRECT_RFIFO_BYTES through the reduce FIFO (direct.h): a
 * non-root packs its block into its entry and returns; the root unpacks
 * each block as it appears, then acks every entry. */
int cm_direct_gather_fifo_send(struct cm_direct *s, uint32_t k, const void *sbuf, int scount, MPI_Datatype stype,
                               size_t block)
{
    struct cm_direct_rfifo_entry *e = cm_direct_rfifo(s, s->rank, k);
    cm_direct_rfifo_claim(s, k);
    int rc = cm_direct_pack(e->data, sbuf, scount, stype);
    e->word = cm_direct_word;
    e->bytes = cm_direct_size24(block) & CM_DIRECT_SIZE24_MAX;
    e->sig_class = cm_direct_class_here & 0xffu;
    CM_FAULT(fifo_publish);
    atomic_store_explicit(&e->seq, k + 1, memory_order_release);
    cm_direct_wake32(&e->seq, &e->seq_waiters);
    return rc;
}

static int gather_fifo(struct cm_direct *s, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                       int rcount, MPI_Datatype rtype, int root, int inplace, size_t blk)
{
    uint32_t k = s->to_root++;
    int me = s->rank, n = s->n, rc = MPI_SUCCESS;
    if (me != root)
        return cm_direct_gather_fifo_send(s, k, sbuf, scount, stype, 0);   /* the word holds the bytes */
    if (!inplace) {
        unsigned char own[CM_DIRECT_RFIFO_BYTES];
        rc = cm_direct_pack(own, sbuf, scount, stype);
        if (rc == MPI_SUCCESS)
            rc = cm_direct_unpack(own, (char *)rbuf + (size_t)me * blk, rcount, rtype);
    }
    for (int r = 0; r < n; r++) {
        if (r == me)
            continue;
        struct cm_direct_rfifo_entry *e = cm_direct_rfifo(s, r, k);
        cm_direct_wait32_from(s, &e->seq, &e->seq_waiters, k + 1, r);
        cm_direct_prefetch(cm_direct_rfifo(s, r, k + 1));
        if (cm_direct_words_differ(e->word, cm_direct_word))    /* direct.h: argument agreement */
            cm_direct_mismatch_seen(r, cm_direct_word, e->word);
        else if (cm_direct_classes_differ(e->sig_class, cm_direct_class_here))
            cm_direct_classes_seen(r, cm_direct_class_here, e->sig_class);
        if (__builtin_expect(cm_direct_mm.on, 0))
            return MPI_SUCCESS;         /* the front end raises it */
        int urc = cm_direct_unpack(e->data, (char *)rbuf + (size_t)r * blk, rcount, rtype);
        if (rc == MPI_SUCCESS)
            rc = urc;
    }
    cm_direct_rfifo_done(s, k);
    return rc;
}

/* Blocks larger than a slot: rounds in which every sender copies the next
 * slot-sized part of its block into its slot, one sync, and the root copies
 * every part out while the senders fill the other parity (written again two
 * rounds later, after a sync the root passed having copied out). */
static int gather_pieces(struct cm_direct *s, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                         MPI_Datatype rtype, size_t blk, int root, int inplace, size_t b, MPI_Comm comm)
{
    int n = s->n, me = s->rank, rc = MPI_SUCCESS, nt = me == root && cm_direct_out_nt((size_t)(n - 1) * b);
    if (me == root && !inplace)
        rc = cm_coll_copy(sbuf, scount, stype, (char *)rbuf + (size_t)me * blk, rcount, rtype, comm);
    for (size_t off = 0; off < b; off += s->slot_bytes) {
        size_t len = b - off < s->slot_bytes ? b - off : s->slot_bytes;
        int p = cm_direct_parity(s);
        if (me != root)
            cm_direct_pack_part(cm_direct_slot(s, me, p), sbuf, scount, stype, off, len);
        cm_direct_sync(s, NULL, NULL);
        for (int i = 0; me == root && i < n; i++)
            if (i != me)
                cm_direct_unpack_part(cm_direct_slot(s, i, p), (char *)rbuf + (size_t)i * blk, rcount, rtype, off, len, nt);
    }
    return rc;
}

int cm_direct_rooted_without(cm_gather_fn linear, int n, int inplace, size_t b, const void *sbuf, int scount,
                             MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root,
                             MPI_Comm comm)
{
    if (n > 1)
        return linear(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
    return !inplace && b ? cm_coll_copy(sbuf, scount, stype, rbuf, rcount, rtype, comm) : MPI_SUCCESS;
}

int cm_coll_gather_shm(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                       MPI_Datatype rtype, int root, MPI_Comm comm)
{
    int n, me;
    PMPI_Comm_size(comm, &n);
    PMPI_Comm_rank(comm, &me);
    int inplace = sbuf == MPI_IN_PLACE;
    /* Bytes per block from my own arguments: the type signatures match. */
    size_t b = me == root ? cm_direct_bytes(rcount, rtype, NULL, NULL, NULL) : cm_direct_bytes(scount, stype, NULL, NULL, NULL);
    struct cm_direct *s = n > 1 ? cm_direct_get(comm, "MPI_Gather") : NULL;
    if (!s || (b > s->slot_bytes && !s->cma))
        return cm_direct_rooted_without(CM_COLL_VIA(gather, linear), n, inplace, b, sbuf, scount, stype, rbuf, rcount,
                                        rtype, root, comm);
    MPI_Aint rext = 0;
    int rcontig = 1;
    MPI_Aint rtlb = 0;
    if (me == root)
        cm_direct_bytes(rcount, rtype, &rcontig, &rtlb, &rext);
    size_t blk = (size_t)rcount * (size_t)rext;
    if (b <= CM_DIRECT_RFIFO_BYTES && cm_direct_rfifo_enabled())
        return gather_fifo(s, sbuf, scount, stype, rbuf, rcount, rtype, root, inplace, blk);
    int p = cm_direct_parity(s), rc = MPI_SUCCESS;
    if (b <= s->slot_bytes && b < cm_direct_cma_min()) {
        if (!inplace)
            rc = cm_direct_pack(cm_direct_data(s, me, p, b), sbuf, scount, stype);
        cm_direct_sync(s, NULL, NULL);
        for (int i = 0; me == root && i < n && rc == MPI_SUCCESS; i++)
            if (!(i == me && inplace))
                rc = cm_direct_unpack(cm_direct_data(s, i, p, b), (char *)rbuf + i * blk, rcount, rtype);
        return rc;
    }
    if (cm_direct_chunked(s, b))
        return gather_pieces(s, sbuf, scount, stype, rbuf, rcount, rtype, blk, root, inplace, b, comm);
    struct cm_direct_view v = {0};
    if (!inplace && (rc = cm_direct_view(&v, sbuf, scount, stype, 1)) != MPI_SUCCESS)
        return rc;
    cm_direct_flag(s, me, p)->addr[0] = (uint64_t)(uintptr_t)v.bytes;
    cm_direct_sync(s, NULL, NULL);
    if (me == root) {
        char *tmp = rcontig ? NULL : malloc(b);
        for (int i = 0; i < n; i++) {
            if (i == me && inplace)
                continue;
            if (cm_direct_read_block(s, i, p, (char *)rbuf + i * blk, rcontig, rtlb, tmp, b, rcount, rtype))
                rc = MPI_ERR_NO_MEM;
        }
        free(tmp);
    }
    cm_direct_sync(s, NULL, NULL);
    if (!inplace)
        cm_direct_view_done(&v, 0);
    return rc;
}
#endif
