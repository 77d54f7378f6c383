/*
 * direct/alltoall.c -- all-to-all on the shared area.  Small: each rank copies
 * its whole send buffer into its slot, one sync, everyone picks its block out
 * of every slot.  Larger: the same in rounds, a part of every
 * block at a time.  Otherwise (or COREMPI_SHM_CHUNKED=0): each rank
 * publishes its send buffer, one sync, everyone reads its block from every
 * peer directly, final sync.
 * MPI_IN_PLACE: the receive buffer is copied aside first and sent from there.
 */
#include <mpi.h>
#ifdef CM_IN_COREMPI  /* corempi only: the host-MPI harness compiles every src/coll file */
#include "coll/direct/direct.h"
#include "shm/copy.h"

#include <stdlib.h>

/* Blocks too large for the slots together: rounds in which every rank
 * copies the next len bytes of each of its n packed blocks into its slot,
 * one sync, and takes its part out of every slot.  A slot is written again
 * two rounds later, after a sync that every reader passed having copied
 * out.  Any layouts (ranks' types need only match in signature). */
static int alltoall_pieces(struct cm_direct *s, const char *sbuf, int scount, MPI_Datatype stype, size_t sblk,
                           char *rbuf, int rcount, MPI_Datatype rtype, size_t rblk, size_t b, MPI_Comm comm)
{
    int n = s->n, me = s->rank, nt = cm_direct_out_nt((size_t)(n - 1) * b);
    int rc = cm_coll_copy(sbuf + (size_t)me * sblk, scount, stype, rbuf + (size_t)me * rblk, rcount, rtype, comm);
    size_t step = s->slot_bytes / (size_t)n;
    for (size_t off = 0; off < b; off += step) {
        size_t len = b - off < step ? b - off : step;
        int p = cm_direct_parity(s);
        char *mine = cm_direct_slot(s, me, p);
        for (int j = 0; j < n; j++)
            if (j != me)
                cm_direct_pack_part(mine + (size_t)j * len, sbuf + (size_t)j * sblk, scount, stype, off, len);
        cm_direct_sync(s, NULL, NULL);
        for (int i = 0; i < n; i++)
            if (i != me)
                cm_direct_unpack_part((char *)cm_direct_slot(s, i, p) + (size_t)me * len, rbuf + (size_t)i * rblk, rcount,
                                   rtype, off, len, nt);
    }
    return rc;
}

int cm_coll_alltoall_shm(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                         MPI_Datatype rtype, MPI_Comm comm)
{
    int n, me;
    PMPI_Comm_size(comm, &n);
    PMPI_Comm_rank(comm, &me);
    MPI_Aint rext;
    size_t b = cm_direct_bytes(rcount, rtype, NULL, NULL, &rext);
    struct cm_direct *s = n > 1 ? cm_direct_get(comm, "MPI_Alltoall") : NULL;
    if (!s || ((size_t)n * b > s->slot_bytes && !s->cma))
        return CM_COLL_VIA(alltoall, pairwise)(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    size_t rblk = (size_t)rcount * (size_t)rext;
    void *copy = NULL;
    if (sbuf == MPI_IN_PLACE) {
        copy = malloc((size_t)n * b);
        if (!copy)
            return MPI_ERR_NO_MEM;
        cm_direct_pack(copy, rbuf, rcount * n, rtype);
        sbuf = copy;
        scount = (int)b;
        stype = MPI_BYTE;
    }
    int p = cm_direct_parity(s), rc = MPI_SUCCESS;
    if ((size_t)n * b <= s->slot_bytes && (size_t)n * b < cm_direct_cma_min()) {
        rc = cm_direct_pack(cm_direct_data(s, me, p, (size_t)n * b), sbuf, scount * n, stype);
        cm_direct_sync(s, NULL, NULL);
        for (int i = 0; i < n && rc == MPI_SUCCESS; i++)
            rc = cm_direct_unpack((char *)cm_direct_data(s, i, p, (size_t)n * b) + (size_t)me * b, (char *)rbuf + i * rblk,
                               rcount, rtype);
        free(copy);
        return rc;
    }
    int rcontig;
    MPI_Aint sext, rtlb;
    cm_direct_bytes(scount, stype, NULL, NULL, &sext);
    cm_direct_bytes(rcount, rtype, &rcontig, &rtlb, NULL);
    /* Rounds through the slots beat the direct reads: with more ranks than
     * cores (8 ranks on 2 cores, 64 KiB / 1 MiB blocks: 170 / 8018 us
     * against 253 / 8434, Open MPI 305 / 8658) and, since the slots hold
     * 256 KiB, at 2 ranks with a core each (CMA moves 17 GB/s here): 256 KiB
     * 18-19 against 22-34, 1 MiB 83-90 against 93-96, 4 MiB 402-449 against
     * 524-578 (Open MPI 23-38 / 89-92 / 462-478; split caches, 2026-11-24, later). */
    if (s->slot_bytes >= (size_t)n && cm_direct_chunked(s, (size_t)n * b)) {
        rc = alltoall_pieces(s, sbuf, scount, stype, (size_t)scount * (size_t)sext, rbuf, rcount, rtype, rblk, b,
                             comm);
        free(copy);
        return rc;
    }
    struct cm_direct_view v;
    if ((rc = cm_direct_view(&v, sbuf, scount * n, stype, 1)) != MPI_SUCCESS) {
        free(copy);
        return rc;
    }
    cm_direct_flag(s, me, p)->addr[0] = (uint64_t)(uintptr_t)v.bytes;
    cm_direct_sync(s, NULL, NULL);
    /* A contiguous receive block takes the read directly; otherwise through a
     * bounce block that is then unpacked. */
    char *tmp = rcontig ? NULL : malloc(b);
    for (int j = 0; j < n && (rcontig || tmp); j++) {
        int i = (me + 1 + j) % n;
        uint64_t from = cm_direct_flag(s, i, p)->addr[0] + (uint64_t)me * b;
        if (rcontig) {
            cm_direct_read(s, i, (char *)rbuf + i * rblk + rtlb, from, b);
        } else {
            cm_direct_read(s, i, tmp, from, b);
            cm_direct_unpack(tmp, (char *)rbuf + i * rblk, rcount, rtype);
        }
    }
    if (!rcontig && !tmp)
        rc = MPI_ERR_NO_MEM;
    cm_direct_sync(s, NULL, NULL);
    free(tmp);
    cm_direct_view_done(&v, 0);
    free(copy);
    return rc;
}
#endif
