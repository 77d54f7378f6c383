/*
 * direct/bcast.c -- broadcast on the shared area.
 *
 * Small (up to 2 KiB): the broadcast FIFO below -- no sync at all.  Up to a
 * slot (or with COREMPI_SHM_BFIFO=0): the root copies into its slot, one
 * sync, the others copy out.  Larger: the same, a slot-sized piece of the
 * packed vector at a time.  With COREMPI_SHM_CHUNKED=0, large
 * (seed 003's shared-address broadcast with message
 * counters): ranks form a tree of fan-out COREMPI_SHM_FANOUT (default 4)
 * rooted at the root; each reads its parent's buffer chunk by chunk straight
 * into its own (process_vm_readv) as soon as the parent's counter shows the
 * chunk, and counts it on its own counter for its children -- a rank copies
 * chunk k while its children copy chunk k - 1.  A final sync keeps the
 * buffers alive until every child is done.
 */
#include <mpi.h>
#ifdef CM_IN_COREMPI  /* corempi only: the host-MPI harness compiles every src/coll file */
#include "coll/direct/bfifo.h"
#include "coll/direct/direct.h"
#include "core/state.h"
#include "shm/copy.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static int fanout(void)
{
    size_t f = cm_config_size(COREMPI_SHM_FANOUT, 4);
    return f < 1 ? 1 : f > INT_MAX ? INT_MAX : (int)f;
}


static int bcast_single_copy(struct cm_direct *s, void *buf, int count, MPI_Datatype dt, int root)
{
    int n = s->n, me = s->rank, p = cm_direct_parity(s);
    struct cm_direct_view v;
    int rc = cm_direct_view(&v, buf, count, dt, me == root);
    if (rc != MPI_SUCCESS)
        return rc;           /* every rank has the same type signature, but not the same memory luck */
    struct cm_direct_flag *f = cm_direct_flag(s, me, p);
    f->addr[0] = (uint64_t)(uintptr_t)v.bytes;
    f->base = s->progress_mine;
    cm_direct_sync(s, NULL, NULL);
    if (me != root) {
        int vr = (me - root + n) % n, k = fanout();
        int parent = ((vr - 1) / k + root) % n;
        struct cm_direct_flag *pf = cm_direct_flag(s, parent, p);
        size_t chunk = cm_direct_chunk();
        for (size_t off = 0; off < v.len; off += chunk) {
            size_t len = v.len - off < chunk ? v.len - off : chunk;
            if (parent != root)
                cm_direct_wait_progress(s, parent, pf->base, off + len);
            cm_direct_read(s, parent, v.bytes + off, pf->addr[0] + off, len);
            cm_direct_publish(s, len);
        }
    }
    cm_direct_sync(s, NULL, NULL);
    cm_direct_view_done(&v, me != root);
    return MPI_SUCCESS;
}

/* Larger than a slot: slot-sized pieces of the packed vector, each copied
 * in by the root and out by the others after one sync; a piece's slot is
 * not written again before the sync after next, when everyone has copied it
 * out.  8 ranks on 2 cores, 1 MiB in 256 KiB pieces: see the tuning table
 * (select.c). */
static int bcast_pieces(struct cm_direct *s, void *buf, int count, MPI_Datatype dt, size_t bytes, int root)
{
    for (size_t off = 0; off < bytes; off += s->slot_bytes) {
        size_t len = bytes - off < s->slot_bytes ? bytes - off : s->slot_bytes;
        void *slot = cm_direct_slot(s, root, cm_direct_parity(s));
        if (s->rank == root)
            cm_direct_pack_part(slot, buf, count, dt, off, len);
        cm_direct_sync(s, NULL, NULL);
        if (s->rank != root)
            cm_direct_unpack_part(slot, buf, count, dt, off, len, 0);
    }
    return MPI_SUCCESS;
}

/* Up to CM_DIRECT_BFIFO_BYTES: the root returns as soon as its data is in the
 * FIFO (it waits only if some rank has not finished the call
 * CM_DIRECT_BFIFO_ENTRIES ago); a reader waits for the root only. */
static int bcast_fifo(struct cm_direct *s, void *buf, int count, MPI_Datatype dt, int root)
{
    uint32_t k = s->bcasts++;
    struct cm_direct_bfifo_entry *e = cm_direct_bfifo(s, k);
    void *data = cm_direct_bytes(count, dt, NULL, NULL, NULL) <= CM_DIRECT_BFIFO_INLINE ? (void *)e->inl : (void *)e->data;
    int rc = MPI_SUCCESS;
    if (s->rank == root) {
        if (!cm_direct_bfifo_own(s, k))
            return MPI_SUCCESS;     /* another root: recorded (direct.h, argument agreement) */
        rc = cm_direct_pack(data, buf, count, dt);
        cm_direct_bfifo_publish(e, k);
    } else {
        int go = cm_direct_bfifo_read(s, e, k, root);
        if (go < 0)
            return MPI_SUCCESS;     /* the root went elsewhere: the front end raises it */
        if (go)
            rc = cm_direct_unpack(data, buf, count, dt);
    }
    cm_direct_bfifo_done(s, k);
    return rc;
}

int cm_coll_bcast_shm(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    size_t bytes = cm_direct_bytes(count, dt, NULL, NULL, NULL);
    int size, rank;
    PMPI_Comm_size(comm, &size);
    PMPI_Comm_rank(comm, &rank);
    if (size == 1)
        return MPI_SUCCESS;
    struct cm_direct *s = cm_direct_get(comm, "MPI_Bcast");
    if (s && bytes <= CM_DIRECT_BFIFO_BYTES && cm_direct_bfifo_enabled())
        return bcast_fifo(s, buf, count, dt, root);
    if (s && bytes <= s->slot_bytes && (bytes < cm_direct_cma_min() || !s->cma)) {
        int p = cm_direct_parity(s);
        void *slot = cm_direct_data(s, root, p, bytes);
        int rc = rank == root ? cm_direct_pack(slot, buf, count, dt) : MPI_SUCCESS;
        cm_direct_sync(s, NULL, NULL);
        if (rank != root)
            rc = cm_direct_unpack(slot, buf, count, dt);
        return rc;
    }
    if (s && cm_direct_chunked(s, bytes))
        return bcast_pieces(s, buf, count, dt, bytes, root);
    if (s && s->cma)
        return bcast_single_copy(s, buf, count, dt, root);
    return CM_COLL_VIA(bcast, binomial_ordered)(buf, count, dt, root, comm);
}
#endif
