/*
 * direct/alltoallv.c -- alltoallv and alltoallw on the shared area.
 *
 * A rank knows only its own counts, so no rank can tell alone how large the
 * largest block of the call is.  Rounds: in each, every rank packs the next
 * step - 8 bytes of each of its outgoing blocks into its slot (block j's
 * part at j * step, step = slot_bytes / n, after an 8-byte header), one
 * sync, and copies its part of every incoming block out of the senders'
 * slots.  In the first round the header holds the whole block's size,
 * which its receiver compares with its own count (HDR below), and every
 * rank also publishes its largest outgoing block in its flag line; after
 * that round's sync all read the same maxima and so run the same number of
 * rounds, whatever their counts say.  Blocks that all fit one step (the
 * usual small call) cost one sync.  At 2 ranks each rank's receive is the
 * other's send, so both know the largest block from their own counts when
 * the counts agree, which they check after the first sync (pair_agrees).
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
/* The signature class of block j (core/datatype.h): 0, which agrees with
 * any, when it is empty (or MPI_PACKED).  The word of a v or w form holds
 * none (two ranks that exchange nothing may use unrelated types), so each
 * block's class travels with it, and its receiver compares (alltoallw: a
 * type per peer). */
static unsigned side_class(const struct side *x, int j)
{
    return side_bytes(x, j) ? cm_dt_lookup(side_type(x, j))->sig_class : 0u;
}

/* Each part of a slot (slot + j * step) starts with a header: in the first
 * round the size of the whole block to rank j (bits 0-55), which j compares
 * with its count for me (a v form's word holds no bytes), and the block's
 * signature class (bits 56-63).  The payload follows. */
#define HDR 8
static uint64_t *part_size(char *slot, size_t step, int j) { return (uint64_t *)(slot + (size_t)j * step); }
static uint64_t header(size_t bytes, unsigned sig_class) { return (uint64_t)bytes | (uint64_t)sig_class << 56; }
#define HDR_BYTES(h) ((h) & ((UINT64_C(1) << 56) - 1))
#define HDR_CLASS(h) ((unsigned)((h) >> 56))

/* Two ranks: the sizes of both blocks as this rank's counts say them
 * (pair[i]: rank i's block to the other), then their signature classes
 * (a byte each, the same order), at the end of its flag line's inline
 * payload, which a tiny pair keeps clear.  Every rank chooses its
 * path and the number of rounds from its own counts alone, which agree
 * only when the pairs do: both ranks compare them after their first sync,
 * and if they differ both stop there, each having synced once. */
#define TINY_MAX (CM_DIRECT_INLINE - 12)
static uint32_t *pair_at(struct cm_direct *s, int r, int p)
{
    return (uint32_t *)((char *)cm_direct_flag(s, r, p) + TINY_MAX);
}
static uint8_t *pair_classes(struct cm_direct *s, int r, int p) { return (uint8_t *)(pair_at(s, r, p) + 2); }
static void pair_publish(struct cm_direct *s, int p, size_t out, size_t in, unsigned out_class, unsigned in_class)
{
    uint32_t *mine = pair_at(s, s->rank, p);
    mine[s->rank] = cm_direct_size32(out);
    mine[s->rank ^ 1] = cm_direct_size32(in);
    uint8_t *c = pair_classes(s, s->rank, p);
    c[s->rank] = (uint8_t)out_class;
    c[s->rank ^ 1] = (uint8_t)in_class;
}
/* After the first sync: 1 when the other rank's pair is mine (else the
 * mismatch is recorded: my receive's sizes if they differ, else my send's). */
static int pair_agrees(struct cm_direct *s, int p)
{
    int me = s->rank, peer = me ^ 1;
    const uint32_t *mine = pair_at(s, me, p), *theirs = pair_at(s, peer, p);
    const uint8_t *cm = pair_classes(s, me, p), *ct = pair_classes(s, peer, p);
    if (__builtin_expect(mine[0] == theirs[0] && mine[1] == theirs[1], 1)) {
        if (__builtin_expect(cm[0] == ct[0] && cm[1] == ct[1], 1))
            return 1;
        /* Both ranks see the same four classes: both stop, or neither. */
        if (cm_direct_classes_differ(cm[peer], ct[peer]))
            cm_direct_classes_seen(peer, cm[peer], ct[peer]);
        else if (cm_direct_classes_differ(cm[me], ct[me]))
            cm_direct_classes_seen(peer, cm[me], ct[me]);
        else
            return 1;       /* MPI_PACKED, which agrees with any */
        return 0;
    }
    if (mine[peer] != theirs[peer])
        cm_direct_sizes_differ(peer, mine[peer], theirs[peer]);
    else
        cm_direct_sizes_differ(peer, mine[me], theirs[me]);
    return 0;
}

/* Two ranks, both blocks of at most TINY_MAX bytes: one sync, the
 * payloads in the meeting or flag lines.  rc: the own block's copy. */
static int tiny_pair(struct cm_direct *s, const struct side *snd, const struct side *rcv, int peer, size_t out,
                     size_t in, size_t most, int rc)
{
    int p = cm_direct_parity(s);
    pair_publish(s, p, out, in, side_class(snd, peer), side_class(rcv, peer));
    if (out)
        cm_direct_pack_part(cm_direct_data(s, s->rank, p, most), side_at(snd, peer), snd->counts[peer],
                         side_type(snd, peer), 0, out);
    cm_direct_sync(s, NULL, NULL);
    if (pair_agrees(s, p) && in)
        cm_direct_unpack_part(cm_direct_data(s, peer, p, most), side_at(rcv, peer), rcv->counts[peer],
                           side_type(rcv, peer), 0, in, 0);
    return rc;
}

static int rounds(struct cm_direct *s, const struct side *snd, const struct side *rcv, int inplace, MPI_Comm comm)
{
    int n = s->n, me = s->rank, rc = MPI_SUCCESS;
    size_t step = s->slot_bytes / (size_t)n & ~(size_t)7, pstep = step - HDR, mine_max = 0, all_max = 0;
    if (!inplace)
        rc = cm_coll_copy(side_at(snd, me), snd->counts[me], side_type(snd, me), side_at(rcv, me), rcv->counts[me],
                          side_type(rcv, me), comm);
    size_t total_in = 0;
    for (int j = 0; j < n; j++) {
        size_t b = j != me ? side_bytes(snd, j) : 0;
        if (b > mine_max)
            mine_max = b;
        total_in += j != me ? side_bytes(rcv, j) : 0;
    }
    int nt = cm_direct_out_nt(total_in);
    if (n == 2) {
        /* What I receive should be what the other sends: both know the
         * largest block without asking (checked after the first sync), and a
         * tiny pair of blocks rides with the sync (8 B: 0.11 us vs 0.14-0.16
         * through the slot). */
        int peer = 1 - me;
        size_t in = side_bytes(rcv, peer);
        all_max = in > mine_max ? in : mine_max;
        if (all_max <= TINY_MAX)
            return tiny_pair(s, snd, rcv, peer, mine_max, in, all_max, rc);
        pair_publish(s, cm_direct_parity(s), mine_max, in, side_class(snd, peer), side_class(rcv, peer));
    }
    /* A block whose size differs from my count for it: its sender, and the
     * size it sends.  Recorded after the last round, since a rank that
     * records a mismatch skips the syncs (cm_direct_sync), and the others,
     * which saw none, still run every round. */
    int bad = -1;
    uint64_t bad_size = 0, bad_class = 0;
    for (size_t off = 0;; off += pstep) {
        int p = cm_direct_parity(s);
        char *slot = cm_direct_slot(s, me, p);
        if (off == 0 && n > 2)
            cm_direct_flag(s, me, p)->addr[0] = mine_max;
        for (int j = 0; j < n; j++) {
            size_t b = side_bytes(snd, j);
            if (off == 0 && j != me)
                *part_size(slot, step, j) = header(b, side_class(snd, j));
            if (j != me && b > off)
                cm_direct_pack_part(slot + (size_t)j * step + HDR, side_at(snd, j), snd->counts[j], side_type(snd, j),
                                 off, b - off < pstep ? b - off : pstep);
        }
        cm_direct_sync(s, NULL, NULL);
        if (off == 0 && n == 2 && !pair_agrees(s, p))
            return rc;      /* the other rank stops here too */
        for (int i = 0; off == 0 && n > 2 && i < n; i++)
            if (cm_direct_flag(s, i, p)->addr[0] > all_max)
                all_max = cm_direct_flag(s, i, p)->addr[0];
        for (int i = 0; off == 0 && i < n && bad < 0; i++) {
            uint64_t got = i != me ? *part_size(cm_direct_slot(s, i, p), step, me) : 0;
            if (__builtin_expect(i != me && got != header(side_bytes(rcv, i), side_class(rcv, i)), 0) &&
                (HDR_BYTES(got) != side_bytes(rcv, i) || cm_direct_classes_differ(HDR_CLASS(got), side_class(rcv, i))))
                bad = i, bad_size = HDR_BYTES(got), bad_class = HDR_CLASS(got);
        }
        for (int i = 0; i < n && bad < 0; i++) {
            size_t b = side_bytes(rcv, i);
            if (i != me && b > off)
                cm_direct_unpack_part((char *)cm_direct_slot(s, i, p) + (size_t)me * step + HDR, side_at(rcv, i),
                                   rcv->counts[i], side_type(rcv, i), off, b - off < pstep ? b - off : pstep, nt);
        }
        if (off + pstep >= all_max)
            break;
    }
    if (bad >= 0 && bad_size != side_bytes(rcv, bad))
        cm_direct_sizes_differ(bad, side_bytes(rcv, bad), bad_size);
    else if (bad >= 0)
        cm_direct_classes_seen(bad, side_class(rcv, bad), (unsigned)bad_class);
    return rc;
}

static struct cm_direct *area(MPI_Comm comm, const char *call)
{
    int n;
    PMPI_Comm_size(comm, &n);
    struct cm_direct *s = n > 1 ? cm_direct_get(comm, call) : NULL;
    /* Only absurdly small slots (COREMPI_SHM_SLOT) leave no room per peer
     * for a part's header and 8 bytes. */
    return s && s->slot_bytes / (size_t)n >= HDR + 8 ? s : NULL;
}

int cm_coll_alltoallv_shm(const void *sbuf, const int *scounts, const int *sdispls, MPI_Datatype stype, void *rbuf,
                          const int *rcounts, const int *rdispls, MPI_Datatype rtype, MPI_Comm comm)
{
    struct cm_direct *s = area(comm, "MPI_Alltoallv");
    if (!s)
        return CM_COLL_VIA(alltoallv, pairwise)(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);
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
        return CM_COLL_VIA(alltoallw, pairwise)(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm);
    int inplace = sbuf == MPI_IN_PLACE;
    struct side rcv = {rbuf, rcounts, rdispls, MPI_DATATYPE_NULL, 0, rtypes}, snd = rcv;
    if (!inplace)
        snd = (struct side){(char *)sbuf, scounts, sdispls, MPI_DATATYPE_NULL, 0, stypes};
    return rounds(s, &snd, &rcv, inplace, comm);
}
#endif
