/*
 * direct/nbc_pieces.c -- nonblocking collectives that move their data through
 * the area's slots in rounds: Igather, Iscatter, Iallgather, Ialltoall,
 * Ireduce_scatter_block, and the Ibcast, Ireduce and Iallreduce too large
 * for the one-entry steps of direct/nbc.c.
 *
 * A round: every rank that has something to send copies the round's part
 * of it into the slots of the coming epoch's parity p (fill), arrives at
 * the epoch, and once every member has arrived takes out what it needs
 * (drain); then the next round.  The parts of round r live in parity p; the
 * slots of parity p are written again in round r + 2 (or by the area's
 * next call two epochs on), which nobody fills before every member arrived
 * at the epoch of round r + 1, and a member arrives there only after its
 * drain of round r.  That is the argument of the blocking pieces paths
 * (direct/allgather.c and others), cut at the one place where they wait, so
 * that a round can stop at "not everyone arrived yet" and go on at the
 * next poll.  Every member runs the same rounds: the round size and count
 * come from the bytes of a block, which the ranks agree on (signatures).
 *
 * Reductions fold in rank order (right fold, as the blocking ones), so
 * non-commutative ops give the same result; they take contiguous types
 * only, as the fold runs on the bytes in the slots.
 */
#include <mpi.h>
#ifdef CM_IN_COREMPI  /* corempi only: the host-MPI harness compiles every src/coll file */
#include "coll/direct/fold.h"
#include "coll/direct/nbc.h"
#include "core/error.h"
#include "shm/copy.h"

#include <stdint.h>
#include <stdlib.h>

/* ---- the round loop -------------------------------------------------------- */

int cm_direct_nbc_pieces_step(struct cm_direct_nbc *o, int block)
{
    struct cm_direct *s = o->s;
    if (!o->started) {
        o->started = 1;
        if (o->pk->begin)
            o->pk->begin(o);
    }
    for (;;) {
        size_t len = o->bytes - o->off < o->piece ? o->bytes - o->off : o->piece;
        if (!o->arrived) {
            o->pk->fill[o->epoch](o, cm_direct_parity(s), o->off, len);
            o->k = cm_direct_sync_arrive(s, o->args.word);
            o->arrived = 1;
        }
        if (!cm_direct_nbc_synced(s, o, block))
            return 0;
        if (cm_direct_nbc_words(o, o->k))
            return 1;       /* every member sees it at this sync and stops */
        if (o->pk->drain[o->epoch])
            o->pk->drain[o->epoch](o, (int)(o->k & 1), o->off, len);
        o->arrived = 0;
        if (++o->epoch < o->pk->epochs)
            continue;
        o->epoch = 0;
        o->off += len;
        if (o->off >= o->bytes)
            return 1;
    }
}

/* ---- the kinds ----------------------------------------------------------------- */

/* What this rank sends in an allgather (in place: its block of rbuf). */
static const void *own_buf(const struct cm_direct_nbc *o, int *count, MPI_Datatype *dt)
{
    if (o->inplace) {
        *count = o->rcount;
        *dt = o->rtype;
        return (const char *)o->rbuf + (size_t)o->s->rank * o->rblk;
    }
    *count = o->scount;
    *dt = o->stype;
    return o->sbuf;
}

void cm_direct_nbc_copy_block(const void *src, int scount, MPI_Datatype stype, void *dst, int rcount, MPI_Datatype rtype)
{
    int sc, rc;
    MPI_Aint slb, rlb;
    size_t b = cm_direct_bytes(scount, stype, &sc, &slb, NULL);
    cm_direct_bytes(rcount, rtype, &rc, &rlb, NULL);
    if (!b)
        return;
    if (sc && rc) {
        cm_copy((char *)dst + rlb, (const char *)src + slb, b);
        return;
    }
    void *tmp = malloc(b);
    if (!tmp)
        cm_fatal("MPI_I<collective>", "out of memory for a %zu-byte block", b);
    cm_direct_pack(tmp, src, scount, stype);
    cm_direct_unpack(tmp, dst, rcount, rtype);
    free(tmp);
}

/* Where rank r's part of len bytes of parity p sits for allgather and
 * gather: in the meeting line when it fits there (where the 2-rank lane of
 * direct/nbc_meet.c puts it too: a rank may take the lane while the other
 * takes these rounds), else in r's slot.  Fill and drain get the same len. */
static void *part_at(struct cm_direct *s, int r, int p, size_t len)
{
    return len <= CM_DIRECT_MEET_BYTES && s->meet ? s->meet->inl[r][p] : cm_direct_slot(s, r, p);
}

/* Allgather: each rank fills its own slot, everyone takes the others'. */
static void allgather_begin(struct cm_direct_nbc *o)
{
    if (!o->inplace)
        cm_direct_nbc_copy_block(o->sbuf, o->scount, o->stype, (char *)o->rbuf + (size_t)o->s->rank * o->rblk, o->rcount,
                 o->rtype);
}
static void allgather_fill(struct cm_direct_nbc *o, int p, size_t off, size_t len)
{
    int count;
    MPI_Datatype dt;
    const void *buf = own_buf(o, &count, &dt);
    cm_direct_pack_part(part_at(o->s, o->s->rank, p, len), buf, count, dt, off, len);
}
static void allgather_drain(struct cm_direct_nbc *o, int p, size_t off, size_t len)
{
    for (int i = 0; i < o->s->n; i++)
        if (i != o->s->rank)
            cm_direct_unpack_part(part_at(o->s, i, p, len), (char *)o->rbuf + (size_t)i * o->rblk, o->rcount, o->rtype,
                               off, len, o->nt);
}
static const struct nbc_pieces_kind allgather_kind = {"allgather", allgather_begin, 1, {allgather_fill}, {allgather_drain}};

/* Gather: the non-roots fill their slots, the root takes them out. */
static void gather_begin(struct cm_direct_nbc *o)
{
    if (o->s->rank == o->root && !o->inplace)
        cm_direct_nbc_copy_block(o->sbuf, o->scount, o->stype, (char *)o->rbuf + (size_t)o->root * o->rblk, o->rcount, o->rtype);
}
static void gather_fill(struct cm_direct_nbc *o, int p, size_t off, size_t len)
{
    if (o->s->rank != o->root)
        cm_direct_pack_part(part_at(o->s, o->s->rank, p, len), o->sbuf, o->scount, o->stype, off, len);
}
static void gather_drain(struct cm_direct_nbc *o, int p, size_t off, size_t len)
{
    if (o->s->rank == o->root)
        allgather_drain(o, p, off, len);
}
static const struct nbc_pieces_kind gather_kind = {"gather", gather_begin, 1, {gather_fill}, {gather_drain}};

/* Scatter: the root fills each receiver's slot, each receiver takes its own. */
static void scatter_begin(struct cm_direct_nbc *o)
{
    if (o->s->rank == o->root && !o->inplace)
        cm_direct_nbc_copy_block((const char *)o->sbuf + (size_t)o->root * o->sblk, o->scount, o->stype, o->rbuf, o->rcount,
                 o->rtype);
}
static void scatter_fill(struct cm_direct_nbc *o, int p, size_t off, size_t len)
{
    if (o->s->rank != o->root)
        return;
    for (int i = 0; i < o->s->n; i++)
        if (i != o->root)
            cm_direct_pack_part(cm_direct_slot(o->s, i, p), (const char *)o->sbuf + (size_t)i * o->sblk, o->scount,
                             o->stype, off, len);
}
static void scatter_drain(struct cm_direct_nbc *o, int p, size_t off, size_t len)
{
    if (o->s->rank != o->root)
        cm_direct_unpack_part(cm_direct_slot(o->s, o->s->rank, p), o->rbuf, o->rcount, o->rtype, off, len, 0);
}
static const struct nbc_pieces_kind scatter_kind = {"scatter", scatter_begin, 1, {scatter_fill}, {scatter_drain}};

/* Broadcast: the root fills its slot, the others take it. */
static void bcast_fill(struct cm_direct_nbc *o, int p, size_t off, size_t len)
{
    if (o->s->rank == o->root)
        cm_direct_pack_part(cm_direct_slot(o->s, o->root, p), o->rbuf, o->count, o->dt, off, len);
}
static void bcast_drain(struct cm_direct_nbc *o, int p, size_t off, size_t len)
{
    if (o->s->rank != o->root)
        cm_direct_unpack_part(cm_direct_slot(o->s, o->root, p), o->rbuf, o->count, o->dt, off, len, o->nt);
}
static const struct nbc_pieces_kind bcast_kind = {"bcast", NULL, 1, {bcast_fill}, {bcast_drain}};

/* Alltoall: a slot holds one part per destination, o->piece bytes apart;
 * rank i's part for me is at me * piece in i's slot.  In place, the round's
 * parts of rbuf are read by the fill before the drain overwrites them, and
 * later rounds touch later bytes only. */
static void alltoall_begin(struct cm_direct_nbc *o)
{
    int me = o->s->rank;
    if (!o->inplace)
        cm_direct_nbc_copy_block((const char *)o->sbuf + (size_t)me * o->sblk, o->scount, o->stype,
                 (char *)o->rbuf + (size_t)me * o->rblk, o->rcount, o->rtype);
}
static void alltoall_fill(struct cm_direct_nbc *o, int p, size_t off, size_t len)
{
    int me = o->s->rank;
    char *slot = cm_direct_slot(o->s, me, p);
    const void *src = o->inplace ? o->rbuf : o->sbuf;
    int count = o->inplace ? o->rcount : o->scount;
    MPI_Datatype dt = o->inplace ? o->rtype : o->stype;
    size_t blk = o->inplace ? o->rblk : o->sblk;
    for (int i = 0; i < o->s->n; i++)
        if (i != me)
            cm_direct_pack_part(slot + (size_t)i * o->piece, (const char *)src + (size_t)i * blk, count, dt, off, len);
}
static void alltoall_drain(struct cm_direct_nbc *o, int p, size_t off, size_t len)
{
    int me = o->s->rank;
    for (int i = 0; i < o->s->n; i++)
        if (i != me)
            cm_direct_unpack_part(cm_direct_slot(o->s, i, p) + (size_t)me * o->piece, (char *)o->rbuf + (size_t)i * o->rblk,
                               o->rcount, o->rtype, off, len, 0);
}
static const struct nbc_pieces_kind alltoall_kind = {"alltoall", alltoall_begin, 1, {alltoall_fill}, {alltoall_drain}};

/* Right fold in rank order of n parts (x_r at part(o, r, p, off)) into out:
 * out = x_0 op (x_1 op (... op x_{n-1})), len bytes of a contiguous type. */
typedef const char *(*part_fn)(struct cm_direct_nbc *o, int r, int p, size_t off);
/* The bytes of one element (1 for a count of 0: its one round moves nothing). */
static size_t elem_size(const struct cm_direct_nbc *o) { return o->count ? o->bytes / (size_t)o->count : 1; }
static void fold_parts(struct cm_direct_nbc *o, part_fn part, int p, char *out, size_t off, size_t len)
{
    int n = o->s->n, count = (int)(len / elem_size(o));
    cm_op_kernel_fn kernel = cm_direct_kernel(o->op, o->dt);
    const char *last = part(o, n - 1, p, off);
    if (last != out)
        cm_copy(out, last, len);
    for (int r = n - 2; r >= 0; r--) {
        const char *x = part(o, r, p, off);
        if (kernel)
            kernel(x, out, (size_t)count);
        else
            PMPI_Reduce_local(x - o->tlb, out - o->tlb, count, o->dt, o->op);
    }
}

/* Reduce and allreduce: every rank copies its part into its slot, and the
 * root, or everyone, folds.  A reduce's root reads its own part where it
 * is instead, unless that is the output (in place) and the fold would
 * overwrite it before its turn (the root is not the last rank). */
static int root_reads_own(const struct cm_direct_nbc *o)
{
    return o->s->rank == o->root && (o->sbuf != o->rbuf || o->root == o->s->n - 1);
}
static void vector_fill(struct cm_direct_nbc *o, int p, size_t off, size_t len)
{
    cm_copy(cm_direct_slot(o->s, o->s->rank, p), (const char *)o->sbuf + o->tlb + off, len);
}
static void reduce_fill(struct cm_direct_nbc *o, int p, size_t off, size_t len)
{
    if (!root_reads_own(o))
        vector_fill(o, p, off, len);
}
static const char *reduce_part(struct cm_direct_nbc *o, int r, int p, size_t off)
{
    if (r == o->s->rank && root_reads_own(o))
        return (const char *)o->sbuf + o->tlb + off;
    return cm_direct_slot(o->s, r, p);
}
static void reduce_drain(struct cm_direct_nbc *o, int p, size_t off, size_t len)
{
    if (o->root < 0 || o->s->rank == o->root)
        fold_parts(o, reduce_part, p, (char *)o->rbuf + o->tlb + off, off, len);
}
static const struct nbc_pieces_kind reduce_kind = {"reduce", NULL, 1, {reduce_fill}, {reduce_drain}};

/* Large reduce and allreduce, the fold split as in direct/allreduce.c: two
 * epochs per round.  First every rank copies its part into its slot; once
 * all are in, rank j folds slice j of the round (its share of the elements)
 * from every slot into its slot of the second epoch, at the slice's place;
 * once all are folded, everyone (or the root) copies every slice out.  The
 * folded slices are the second epoch's data: written after the first
 * epoch completed, before arriving at the second, read before arriving at
 * the next (the rule every epoch's data keeps, top of file). */

static void split_fold(struct cm_direct_nbc *o, int p, size_t off, size_t len)
{
    (void)off;
    struct cm_direct *s = o->s;
    size_t es = elem_size(o);
    int lo, hi, n = s->n;
    cm_direct_slice((int)(len / es), n, s->rank, &lo, &hi);
    if (hi == lo)
        return;
    size_t at = (size_t)lo * es, bytes = (size_t)(hi - lo) * es;
    char *acc = cm_direct_slot(s, s->rank, p) + at;
    cm_op_kernel_fn kernel = cm_direct_kernel(o->op, o->dt);
    cm_copy(acc, cm_direct_slot(s, n - 1, !p) + at, bytes);
    for (int r = n - 2; r >= 0; r--) {
        const char *x = cm_direct_slot(s, r, !p) + at;
        if (kernel)
            kernel(x, acc, (size_t)(hi - lo));
        else
            PMPI_Reduce_local(x - o->tlb, acc - o->tlb, hi - lo, o->dt, o->op);
    }
}

static void split_gather(struct cm_direct_nbc *o, int p, size_t off, size_t len)
{
    struct cm_direct *s = o->s;
    if (o->root >= 0 && s->rank != o->root)
        return;
    size_t es = elem_size(o);
    char *out = (char *)o->rbuf + o->tlb + off;
    for (int j = 0; j < s->n; j++) {
        int lo, hi;
        cm_direct_slice((int)(len / es), s->n, j, &lo, &hi);
        cm_copy(out + (size_t)lo * es, cm_direct_slot(s, j, p) + (size_t)lo * es, (size_t)(hi - lo) * es);
    }
}
static const struct nbc_pieces_kind split_kind = {"split fold", NULL, 2, {vector_fill, split_fold},
                                                  {NULL, split_gather}};

/* Reduce_scatter_block: as alltoall, a slot holds one part per destination
 * (rank j's block of my vector at j * piece); each rank folds the parts
 * addressed to it, its own included, into its block. */
static void rsb_fill(struct cm_direct_nbc *o, int p, size_t off, size_t len)
{
    char *slot = cm_direct_slot(o->s, o->s->rank, p);
    for (int j = 0; j < o->s->n; j++)
        cm_copy(slot + (size_t)j * o->piece, (const char *)o->sbuf + o->tlb + (size_t)j * o->bytes + off, len);
}
static const char *rsb_part(struct cm_direct_nbc *o, int r, int p, size_t off)
{
    (void)off;
    return cm_direct_slot(o->s, r, p) + (size_t)o->s->rank * o->piece;
}
static void rsb_drain(struct cm_direct_nbc *o, int p, size_t off, size_t len)
{
    fold_parts(o, rsb_part, p, (char *)o->rbuf + o->tlb + off, off, len);
}
static const struct nbc_pieces_kind rsb_kind = {"reduce_scatter_block", NULL, 1, {rsb_fill}, {rsb_drain}};

/* ---- the entry points ------------------------------------------------------- */

/* An operation of `bytes` per block, parts of at most `per` bytes per
 * round, rounded down to whole elements of `es` bytes (reductions fold
 * whole elements; the pack/unpack parts take any byte range). */
static int start(const struct nbc_pieces_kind *pk, struct cm_direct *s, struct cm_direct_nbc *o, size_t bytes, size_t per,
                 size_t es, MPI_Request *request)
{
    per = per / es * es;
    if (!per) {
        cm_direct_nbc_free(o);
        return CM_COLL_NO_SHORTCUT;
    }
    o->kind = NBC_PIECES;
    o->pk = pk;
    o->bytes = bytes;
    o->piece = per;
    return cm_direct_nbc_queue(s, o, request);
}

/* 0 bytes too: one round of syncs, whose words the others compare (issue 32). */
static struct cm_direct_nbc *new_op(MPI_Comm cc, struct cm_direct **s)
{
    *s = cm_direct_nbc_area(cc);
    return *s ? cm_direct_nbc_new() : NULL;
}

static size_t extent_of(int count, MPI_Datatype dt)
{
    MPI_Aint lb, ext;
    PMPI_Type_get_extent(dt, &lb, &ext);
    return (size_t)count * (size_t)ext;
}

/* The block arguments of gather, scatter, allgather, alltoall.  The
 * strides only where the buffers are significant (a non-root's receive
 * type of a gather may be anything). */
static void blocks(struct cm_direct_nbc *o, const void *sbuf, int scount, MPI_Datatype stype, int sig_send, void *rbuf,
                   int rcount, MPI_Datatype rtype, int sig_recv, int root)
{
    o->sbuf = sbuf;
    o->scount = scount;
    o->stype = stype;
    o->rbuf = rbuf;
    o->rcount = rcount;
    o->rtype = rtype;
    o->root = root;
    o->sblk = sig_send && sbuf != MPI_IN_PLACE ? extent_of(scount, stype) : 0;
    o->rblk = sig_recv && rbuf != MPI_IN_PLACE ? extent_of(rcount, rtype) : 0;
}

/* Allgather and alltoall: every rank sends and receives blocks of b
 * bytes; alltoall parts sit one per destination in a slot, at multiples of
 * 64 bytes so that each destination's part has lines of its own. */
static int symmetric(const struct nbc_pieces_kind *pk, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                     int rcount, MPI_Datatype rtype, MPI_Comm cc, MPI_Request *request)
{
    struct cm_direct *s;
    size_t b = cm_direct_bytes(rcount, rtype, NULL, NULL, NULL);
    struct cm_direct_nbc *o = new_op(cc, &s);
    if (!o)
        return CM_COLL_NO_SHORTCUT;
    blocks(o, sbuf, scount, stype, 1, rbuf, rcount, rtype, 1, -1);
    o->inplace = sbuf == MPI_IN_PLACE;
    if (pk == &allgather_kind) {
        o->nt = cm_direct_out_nt((size_t)(s->n - 1) * b);
        cm_direct_nbc_lane_note_allgather(s, o, b);
        return start(pk, s, o, b, s->slot_bytes, 1, request);
    }
    return start(pk, s, o, b, s->slot_bytes / (size_t)s->n / 64 * 64, 1, request);
}

int cm_direct_nbc_allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                         MPI_Comm cc, MPI_Request *request)
{
    return symmetric(&allgather_kind, sbuf, scount, stype, rbuf, rcount, rtype, cc, request);
}

int cm_direct_nbc_alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                        MPI_Comm cc, MPI_Request *request)
{
    return symmetric(&alltoall_kind, sbuf, scount, stype, rbuf, rcount, rtype, cc, request);
}

/* Gather and scatter: the block size from the side whose arguments count
 * on this rank (the root's receive or send side, everyone else's other
 * side); in place is the root's own block staying where it is. */
static int rooted(const struct nbc_pieces_kind *pk, int root_sends, const void *sbuf, int scount, MPI_Datatype stype,
                  void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm cc, MPI_Request *request)
{
    struct cm_direct *s;
    int me;
    PMPI_Comm_rank(cc, &me);
    int sends = me == root ? root_sends : !root_sends;
    size_t b = sends ? cm_direct_bytes(scount, stype, NULL, NULL, NULL) : cm_direct_bytes(rcount, rtype, NULL, NULL, NULL);
    struct cm_direct_nbc *o = new_op(cc, &s);
    if (!o)
        return CM_COLL_NO_SHORTCUT;
    blocks(o, sbuf, scount, stype, me == root && root_sends, rbuf, rcount, rtype, me == root && !root_sends, root);
    o->inplace = (root_sends ? rbuf : sbuf) == MPI_IN_PLACE;
    o->nt = me == root && !root_sends && cm_direct_out_nt((size_t)(s->n - 1) * b);
    /* Small ones through a FIFO entry, as the blocking calls: a gather's
     * non-roots and a scatter's root need not wait for anyone. */
    if (root_sends ? (size_t)s->n * b <= CM_DIRECT_BFIFO_BYTES && cm_direct_bfifo_enabled()
                   : b <= CM_DIRECT_RFIFO_BYTES && cm_direct_rfifo_enabled()) {
        o->kind = root_sends ? NBC_SCATTER : NBC_GATHER;
        o->bytes = b;
        return cm_direct_nbc_queue(s, o, request);
    }
    return start(pk, s, o, b, s->slot_bytes, 1, request);
}

int cm_direct_nbc_gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                      int root, MPI_Comm cc, MPI_Request *request)
{
    return rooted(&gather_kind, 0, sbuf, scount, stype, rbuf, rcount, rtype, root, cc, request);
}

int cm_direct_nbc_scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                       int root, MPI_Comm cc, MPI_Request *request)
{
    return rooted(&scatter_kind, 1, sbuf, scount, stype, rbuf, rcount, rtype, root, cc, request);
}

int cm_direct_nbc_bcast_pieces(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm cc, MPI_Request *request)
{
    struct cm_direct *s;
    size_t b = cm_direct_bytes(count, dt, NULL, NULL, NULL);
    struct cm_direct_nbc *o = new_op(cc, &s);
    if (!o)
        return CM_COLL_NO_SHORTCUT;
    cm_direct_nbc_vector(o, NBC_PIECES, NULL, buf, count, dt, MPI_OP_NULL, root, b);
    o->nt = s->rank != root && cm_direct_out_nt(b);
    return start(&bcast_kind, s, o, b, s->slot_bytes, 1, request);
}

int cm_direct_nbc_reduce_pieces(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                             MPI_Comm cc, MPI_Request *request)
{
    struct cm_direct *s;
    struct cm_direct_nbc *o = cm_direct_nbc_reduction(sbuf, rbuf, count, dt, op, root, cc, SIZE_MAX, NBC_PIECES, &s);
    if (!o)
        return CM_COLL_NO_SHORTCUT;
    /* Split from where the blocking allreduce splits: below, one more
     * epoch per round costs more than everyone folding everything.  A
     * 2-rank reduce's root folds one part into its own: nothing to split. */
    const struct nbc_pieces_kind *pk =
        o->bytes >= CM_DIRECT_SPLIT_FOLD_MIN && (root < 0 || s->n > 2) ? &split_kind : &reduce_kind;
    return start(pk, s, o, o->bytes, s->slot_bytes, elem_size(o), request);
}

int cm_direct_nbc_allreduce_pieces(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm cc,
                                MPI_Request *request)
{
    return cm_direct_nbc_reduce_pieces(sbuf, rbuf, count, dt, op, -1, cc, request);
}

/* sbuf: the n blocks of rcount elements (in place: rbuf, as the front ends
 * pass it); o->bytes is one block. */
int cm_direct_nbc_reduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype dt, MPI_Op op,
                                    MPI_Comm cc, MPI_Request *request)
{
    struct cm_direct *s;
    struct cm_direct_nbc *o = cm_direct_nbc_reduction(sbuf, rbuf, rcount, dt, op, -1, cc, SIZE_MAX, NBC_PIECES, &s);
    return o ? start(&rsb_kind, s, o, o->bytes, s->slot_bytes / (size_t)s->n / 64 * 64, elem_size(o), request)
             : CM_COLL_NO_SHORTCUT;
}
#endif
