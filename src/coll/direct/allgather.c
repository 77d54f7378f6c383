/*
 * direct/allgather.c -- allgather on the shared area.  Small blocks: each rank
 * copies its block into its slot, one sync, everyone copies all blocks out.
 * Larger blocks: the same in rounds, a slot-sized part at a time.
 * Otherwise (or COREMPI_SHM_CHUNKED=0): each rank publishes where its block
 * is, one sync, everyone reads every block straight from its owner (starting
 * with its right-hand neighbour so that owners are not all read at once), and
 * a final sync.
 * Any datatypes: non-contiguous blocks go through a packed copy.
 */
#include <mpi.h>
#ifdef CM_IN_COREMPI  /* corempi only: the host-MPI harness compiles every src/coll file */
#include "coll/direct/direct.h"
#include "shm/copy.h"

#include <stdlib.h>
#include <string.h>

/* Blocks larger than a slot: rounds in which every rank copies the next
 * slot-sized part of its packed block into its slot, one sync, and takes
 * everyone's part out (the slot is written again two rounds later, after a
 * sync every reader passed having copied out).  Any layouts: ranks' types
 * need only match in signature, so all must take this path alike. */
static int allgather_pieces(struct cm_direct *s, const void *mybuf, int mycount, MPI_Datatype mytype, void *rbuf,
                             int rcount, MPI_Datatype rtype, size_t blk, size_t b, int inplace, MPI_Comm comm)
{
    int n = s->n, me = s->rank, rc = MPI_SUCCESS, nt = cm_direct_out_nt((size_t)(n - 1) * b);
    if (!inplace)
        rc = cm_coll_copy(mybuf, mycount, mytype, (char *)rbuf + (size_t)me * blk, rcount, rtype, comm);
    for (size_t off = 0; off < b; off += s->slot_bytes) {
        size_t len = b - off < s->slot_bytes ? b - off : s->slot_bytes;
        int p = cm_direct_parity(s);
        cm_direct_pack_part(cm_direct_slot(s, me, p), mybuf, mycount, mytype, off, len);
        cm_direct_sync(s, NULL, NULL);
        for (int i = 0; i < n; i++)
            if (i != me)
                cm_direct_unpack_part(cm_direct_slot(s, i, p), (char *)rbuf + (size_t)i * blk, rcount, rtype, off, len, nt);
    }
    return rc;
}

int cm_coll_allgather_shm(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                          MPI_Datatype rtype, MPI_Comm comm)
{
    MPI_Aint rext;
    int rcontig;
    size_t b = cm_direct_bytes(rcount, rtype, &rcontig, NULL, &rext);
    int n, me;
    PMPI_Comm_size(comm, &n);
    PMPI_Comm_rank(comm, &me);
    /* b == 0 (a count of 0, or allgatherv's counts all 0): still one sync,
     * whose words the ranks compare. */
    struct cm_direct *s = n > 1 ? cm_direct_get(comm, "MPI_Allgather") : NULL;
    if (!s || (b > s->slot_bytes && !s->cma))
        return CM_COLL_VIA(allgather, rdb)(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    size_t blk = (size_t)rcount * (size_t)rext;      /* stride of blocks in rbuf */
    int inplace = sbuf == MPI_IN_PLACE;
    const void *mybuf = inplace ? (const char *)rbuf + me * blk : sbuf;
    int mycount = inplace ? rcount : scount;
    MPI_Datatype mytype = inplace ? rtype : stype;
    int p = cm_direct_parity(s), rc = MPI_SUCCESS;
    if (b <= s->slot_bytes && b < cm_direct_cma_min()) {
        rc = cm_direct_pack(cm_direct_data(s, me, p, b), mybuf, mycount, mytype);
        cm_direct_sync(s, NULL, NULL);
        for (int i = 0; i < n; i++)
            if (!(i == me && inplace) && rc == MPI_SUCCESS)
                rc = cm_direct_unpack(cm_direct_data(s, i, p, b), (char *)rbuf + i * blk, rcount, rtype);
        return rc;
    }
    /* The rounds beat the direct reads at 2 ranks with a core each too, as
     * a cross-process read (CMA) moves 17 GB/s here against several times
     * that for a copy through the segment: 1 MiB blocks 57-86 us against
     * 90-94, 4 MiB 398-402 against 480-514 (Open MPI 87-91 / 434-447;
     * split caches, 2026-11-24, later, alternated runs).  With more ranks than
     * cores they also spare the readers a time slice each. */
    if (cm_direct_chunked(s, b))
        return allgather_pieces(s, mybuf, mycount, mytype, rbuf, rcount, rtype, blk, b, inplace, comm);
    struct cm_direct_view v;
    if ((rc = cm_direct_view(&v, mybuf, mycount, mytype, 1)) != MPI_SUCCESS)
        return rc;
    cm_direct_flag(s, me, p)->addr[0] = (uint64_t)(uintptr_t)v.bytes;
    cm_direct_sync(s, NULL, NULL);
    char *tmp = rcontig ? NULL : malloc(b);
    for (int j = 0; j < n; j++) {
        int i = (me + 1 + j) % n;
        if (i == me && inplace)
            continue;
        MPI_Aint tlb;
        cm_direct_bytes(0, rtype, NULL, &tlb, NULL);
        if (cm_direct_read_block(s, i, p, (char *)rbuf + i * blk, rcontig, tlb, tmp, b, rcount, rtype))
            rc = MPI_ERR_NO_MEM;
    }
    cm_direct_sync(s, NULL, NULL);
    free(tmp);
    cm_direct_view_done(&v, 0);
    return rc;
}
#endif
