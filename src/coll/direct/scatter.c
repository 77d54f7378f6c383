/*
 * direct/scatter.c -- scatter on the shared area: tiny ones through the
 * broadcast FIFO (no sync); small blocks written by the root straight into
 * each receiver's slot (one sync, everyone copies its own out); larger ones
 * the same way a slot-sized part at a time.  With COREMPI_SHM_CHUNKED=0,
 * large ones are read by each receiver straight from the root's buffer, then
 * a sync releases the root.
 */
#include <mpi.h>
#ifdef CM_IN_COREMPI  /* corempi only: the host-MPI harness compiles every src/coll file */
#include "coll/direct/bfifo.h"
#include "coll/direct/direct.h"

#include <stdlib.h>

/* All blocks fit one broadcast-FIFO entry (direct.h): the root packs them in
 * and returns, each reader unpacks its own and acknowledges, as for a
 * broadcast. */
static int scatter_fifo(struct cm_direct *s, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                        int rcount, MPI_Datatype rtype, int root, int inplace, size_t b, size_t blk,
                        MPI_Comm comm)
{
    uint32_t k = s->bcasts++;
    struct cm_direct_bfifo_entry *e = cm_direct_bfifo(s, k);
    /* All blocks in the seq line when they fit: the reader takes one line. */
    unsigned char *data = (size_t)s->n * b <= CM_DIRECT_BFIFO_INLINE ? e->inl : e->data;
    int me = s->rank, n = s->n, rc = MPI_SUCCESS;
    if (me == root) {
        if (!cm_direct_bfifo_own(s, k))
            return MPI_SUCCESS;     /* another root: recorded (direct.h, argument agreement) */
        for (int i = 0; i < n && rc == MPI_SUCCESS; i++)
            if (i != me)
                rc = cm_direct_pack(data + (size_t)i * b, (const char *)sbuf + (size_t)i * blk, scount, stype);
        cm_direct_bfifo_publish(e, k);
        if (!inplace && rc == MPI_SUCCESS)
            rc = cm_coll_copy((const char *)sbuf + (size_t)me * blk, scount, stype, rbuf, rcount, rtype, comm);
    } else {
        int go = cm_direct_bfifo_read(s, e, k, root);
        if (go < 0)
            return MPI_SUCCESS;     /* the root went elsewhere: the front end raises it */
        if (go)
            rc = cm_direct_unpack(data + (size_t)me * b, rbuf, rcount, rtype);
    }
    cm_direct_bfifo_done(s, k);
    return rc;
}

/* Blocks larger than a slot: rounds in which the root copies the next
 * slot-sized part of every block into its receiver's slot, one sync, and
 * each receiver copies its part out while the root fills the other parity.
 * A slot is written again two rounds later, after a sync its reader passed
 * having copied out.  Against every receiver reading its block from the
 * root's buffer (CMA, 17 GB/s here): see the tuning table (select.c). */
static int scatter_pieces(struct cm_direct *s, const void *sbuf, int scount, MPI_Datatype stype, size_t blk, void *rbuf,
                          int rcount, MPI_Datatype rtype, int root, int inplace, size_t b, MPI_Comm comm)
{
    int n = s->n, me = s->rank, rc = MPI_SUCCESS;
    if (me == root && !inplace)
        rc = cm_coll_copy((const char *)sbuf + (size_t)me * blk, scount, stype, rbuf, rcount, rtype, comm);
    for (size_t off = 0; off < b; off += s->slot_bytes) {
        size_t len = b - off < s->slot_bytes ? b - off : s->slot_bytes;
        int p = cm_direct_parity(s);
        for (int i = 0; me == root && i < n; i++)
            if (i != me)
                cm_direct_pack_part(cm_direct_slot(s, i, p), (const char *)sbuf + (size_t)i * blk, scount, stype, off, len);
        cm_direct_sync(s, NULL, NULL);
        if (me != root)
            cm_direct_unpack_part(cm_direct_slot(s, me, p), rbuf, rcount, rtype, off, len, 0);
    }
    return rc;
}

int cm_coll_scatter_shm(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                        MPI_Datatype rtype, int root, MPI_Comm comm)
{
    const struct cm_comm *c = cm_comm_lookup(comm, NULL);
    int n = c->size, me = c->rank;
    int inplace = rbuf == MPI_IN_PLACE;
    size_t b = me == root ? cm_direct_bytes(scount, stype, NULL, NULL, NULL) : cm_direct_bytes(rcount, rtype, NULL, NULL, NULL);
    struct cm_direct *s = n > 1 ? cm_direct_get(comm, "MPI_Scatter") : NULL;
    if (!s || (b > s->slot_bytes && !s->cma))
        return cm_direct_rooted_without(CM_COLL_VIA(scatter, linear), n, inplace, b, sbuf, scount, stype, rbuf,
                                        rcount, rtype, root, comm);
    MPI_Aint sext = 0;
    if (me == root)
        cm_direct_bytes(scount, stype, NULL, NULL, &sext);
    size_t blk = (size_t)scount * (size_t)sext;
    if ((size_t)n * b <= CM_DIRECT_BFIFO_BYTES && cm_direct_bfifo_enabled())
        return scatter_fifo(s, sbuf, scount, stype, rbuf, rcount, rtype, root, inplace, b, blk, comm);
    int p = cm_direct_parity(s), rc = MPI_SUCCESS;
    if (b <= s->slot_bytes && b < cm_direct_cma_min()) {
        for (int i = 0; me == root && i < n && rc == MPI_SUCCESS; i++)
            if (!(i == me && inplace))
                rc = cm_direct_pack(cm_direct_data(s, i, p, b), (const char *)sbuf + i * blk, scount, stype);
        cm_direct_sync(s, NULL, NULL);
        if (!inplace && rc == MPI_SUCCESS)
            rc = cm_direct_unpack(cm_direct_data(s, me, p, b), rbuf, rcount, rtype);
        return rc;
    }
    if (cm_direct_chunked(s, b))
        return scatter_pieces(s, sbuf, scount, stype, blk, rbuf, rcount, rtype, root, inplace, b, comm);
    struct cm_direct_view v = {0};
    if (me == root && (rc = cm_direct_view(&v, sbuf, scount * n, stype, 1)) != MPI_SUCCESS)
        return rc;
    cm_direct_flag(s, me, p)->addr[0] = (uint64_t)(uintptr_t)v.bytes;
    cm_direct_sync(s, NULL, NULL);
    if (!inplace) {
        struct cm_direct_view r;
        if ((rc = cm_direct_view(&r, rbuf, rcount, rtype, 0)) == MPI_SUCCESS) {
            cm_direct_read(s, root, r.bytes, cm_direct_flag(s, root, p)->addr[0] + (uint64_t)me * b, b);
            cm_direct_view_done(&r, 1);
        }
    }
    cm_direct_sync(s, NULL, NULL);
    if (me == root)
        cm_direct_view_done(&v, 0);
    return rc;
}
#endif
