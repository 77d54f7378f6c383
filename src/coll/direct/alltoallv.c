/*
 * direct/alltoallv.c -- alltoallv and alltoallw on the shared area.
 *
 * A rank knows only its own counts, so no rank can tell alone how large the
 * largest block of the call is.  Rounds: in each, every rank packs the next
 * slot_bytes / n bytes of each of its outgoing blocks into its slot (block
 * j's part at j * step), one sync, and copies its part of every incoming
 * block out of the senders' slots.  With the first round every rank also
 * publishes its largest outgoing block in its flag line; after that round's
 * sync all read the same maxima and so run the same number of rounds.
 * Blocks that all fit one step (the usual small call) cost one sync.  At 2
 * ranks each rank's receive is the other's send, so both know the largest
 * block from their own counts.
 *
 * MPI_IN_PLACE: send and receive layouts are the same, and round r reads
 * and writes byte range r of each block only after packing it, so later
 * rounds still find their ranges untouched.
 */
#include <mpi.h>
#ifdef CM_IN_COREMPI  /* corempi only: the host-MPI harness compiles every src/coll file */
#include "coll/direct/direct.h"

/* One side (send or receive) of a call: v-style (one type, displacements
 * in elements) or w-style (a type per peer, displacements in bytes). */
struct side {
    char *buf;
    const int *counts;
    const int *displs;
    MPI_Datatype type;          /* v */
    MPI_Aint ext;               /* v: extent of type */
    const MPI_Datatype *types;  /* w (NULL for v) */
};

static char *side_at(const struct side *x, int j)
{
    return x->types ? x->buf + x->displs[j] : x->buf + (MPI_Aint)x->displs[j] * x->ext;
}
static MPI_Datatype side_type(const struct side *x, int j) { return x->types ? x->types[j] : x->type; }
static size_t side_bytes(const struct side *x, int j)
{
    return x->counts[j] ? cm_direct_bytes(x->counts[j], side_type(x, j), NULL, NULL, NULL) : 0;
}

/* Two ranks, both blocks of at most CM_DIRECT_INLINE bytes: one sync, the
 * payloads in the meeting or flag lines.  rc: the own block's copy. */
static int tiny_pair(struct cm_direct *s, const struct side *snd, const struct side *rcv, int peer, size_t out,
                     size_t in, size_t most, int rc)
{
    int p = cm_direct_parity(s);
    if (out)
        cm_direct_pack_part(cm_direct_data(s, s->rank, p, most), side_at(snd, peer), snd->counts[peer],
                         side_type(snd, peer), 0, out);
    cm_direct_sync(s, NULL, NULL);
    if (in)
        cm_direct_unpack_part(cm_direct_data(s, peer, p, most), side_at(rcv, peer), rcv->counts[peer],
                           side_type(rcv, peer), 0, in, 0);
    return rc;
}

static int rounds(struct cm_direct *s, const struct side *snd, const struct side *rcv, int inplace, MPI_Comm comm)
{
    int n = s->n, me = s->rank, rc = MPI_SUCCESS;
    size_t step = s->slot_bytes / (size_t)n, mine_max = 0, all_max = 0;
    if (!inplace)
        rc = cm_coll_copy(side_at(snd, me), snd->counts[me], side_type(snd, me), side_at(rcv, me), rcv->counts[me],
                          side_type(rcv, me), comm);
    size_t out = 0;
    for (int j = 0; j < n; j++) {
        size_t b = j != me ? side_bytes(snd, j) : 0;
        if (b > mine_max)
            mine_max = b;
        out += j != me ? side_bytes(rcv, j) : 0;
    }
    int nt = cm_direct_out_nt(out);
    if (n == 2) {
        /* What I receive is what the other sends: both know the largest
         * block without asking, and a tiny pair of blocks rides with the
         * sync (8 B: 0.11 us vs 0.14-0.16 through the slot). */
        int peer = 1 - me;
        size_t in = side_bytes(rcv, peer);
        all_max = in > mine_max ? in : mine_max;
        if (all_max <= CM_DIRECT_INLINE)
            return tiny_pair(s, snd, rcv, peer, mine_max, in, all_max, rc);
    }
    for (size_t off = 0;; off += step) {
        int p = cm_direct_parity(s);
        char *slot = cm_direct_slot(s, me, p);
        if (off == 0 && n > 2)
            cm_direct_flag(s, me, p)->addr[0] = mine_max;
        for (int j = 0; j < n; j++) {
            size_t b = side_bytes(snd, j);
            if (j != me && b > off)
                cm_direct_pack_part(slot + (size_t)j * step, side_at(snd, j), snd->counts[j], side_type(snd, j), off,
                                 b - off < step ? b - off : step);
        }
        cm_direct_sync(s, NULL, NULL);
        for (int i = 0; off == 0 && n > 2 && i < n; i++)
            if (cm_direct_flag(s, i, p)->addr[0] > all_max)
                all_max = cm_direct_flag(s, i, p)->addr[0];
        for (int i = 0; i < n; i++) {
            size_t b = side_bytes(rcv, i);
            if (i != me && b > off)
                cm_direct_unpack_part((char *)cm_direct_slot(s, i, p) + (size_t)me * step, side_at(rcv, i), rcv->counts[i],
                                   side_type(rcv, i), off, b - off < step ? b - off : step, nt);
        }
        if (off + step >= all_max)
            return rc;
    }
}

static struct cm_direct *area(MPI_Comm comm, const char *call)
{
    int n;
    PMPI_Comm_size(comm, &n);
    struct cm_direct *s = n > 1 ? cm_direct_get(comm, call) : NULL;
    /* Only absurdly small slots (COREMPI_SHM_SLOT) leave no room per peer. */
    return s && s->slot_bytes / (size_t)n >= 8 ? s : NULL;
}

int cm_coll_alltoallv_shm(const void *sbuf, const int *scounts, const int *sdispls, MPI_Datatype stype, void *rbuf,
                          const int *rcounts, const int *rdispls, MPI_Datatype rtype, MPI_Comm comm)
{
    struct cm_direct *s = area(comm, "MPI_Alltoallv");
    if (!s)
        return cm_coll_alltoallv_pairwise(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);
    int inplace = sbuf == MPI_IN_PLACE;
    MPI_Aint rext, sext = 0;
    cm_direct_bytes(1, rtype, NULL, NULL, &rext);
    struct side rcv = {rbuf, rcounts, rdispls, rtype, rext, NULL}, snd = rcv;
    if (!inplace) {
        cm_direct_bytes(1, stype, NULL, NULL, &sext);
        snd = (struct side){(char *)sbuf, scounts, sdispls, stype, sext, NULL};
    }
    return rounds(s, &snd, &rcv, inplace, comm);
}

int cm_coll_alltoallw_shm(const void *sbuf, const int *scounts, const int *sdispls, const MPI_Datatype *stypes,
                          void *rbuf, const int *rcounts, const int *rdispls, const MPI_Datatype *rtypes,
                          MPI_Comm comm)
{
    struct cm_direct *s = area(comm, "MPI_Alltoallw");
    if (!s)
        return cm_coll_alltoallw_pairwise(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm);
    int inplace = sbuf == MPI_IN_PLACE;
    struct side rcv = {rbuf, rcounts, rdispls, MPI_DATATYPE_NULL, 0, rtypes}, snd = rcv;
    if (!inplace)
        snd = (struct side){(char *)sbuf, scounts, sdispls, MPI_DATATYPE_NULL, 0, stypes};
    return rounds(s, &snd, &rcv, inplace, comm);
}
#endif
