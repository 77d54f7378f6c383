/*
 * direct/allreduce.c -- allreduce on the shared area.
 *
 * Tiny and small vectors (up to a slot): every rank copies its vector into
 * its slot (inline in its flag line up to 64 B) and arrives; the last arrival
 * folds all of them in rank order into the shared result and releases
 * everyone, who copy the result out.  One sync, and each rank needs to run
 * only once: the oversubscribed path.  With a core per rank and vectors of
 * a few KiB the fold is split instead: rank j folds slice j (core
 * specialization), a second sync, everyone copies out.
 *
 * From CM_DIRECT_SPLIT_FOLD_MIN the fold is split even with more ranks than
 * cores: the second sync costs less than one core folding everything (8
 * ranks on 2 cores, 1 MiB: 848 us against 1225).
 *
 * 2 ranks, beyond 256 B: both fold the whole vector, each reading the
 * other's copy from its slot (cm_direct_fold_pieces): one sync, and no folded half
 * crosses back (8 KiB 0.36 us against 0.57, 64 KiB 2.6 against 4.1).
 *
 * Larger than a slot: the vector goes through the slots piece by piece
 * (cm_direct_chunked), one sync per piece, which beats the single copy below
 * wherever we measured it (8 ranks on 2 cores, 1 MiB in 256 KiB pieces: 848
 * us, single copy 2164, Open MPI 1736-2329; 2 ranks: 128 us, Rabenseifner
 * 173-187, Open MPI 180-185).
 *
 * Single copy (seed 003; COREMPI_SHM_CHUNKED=0): rank j reads slice j of every
 * rank's buffer with process_vm_readv, folds it, and announces finished
 * chunks on its message counter; the others copy those chunks from its
 * receive buffer as they appear.  A final sync keeps every buffer alive until
 * nobody reads it.
 */
#include <mpi.h>
#ifdef CM_IN_COREMPI  /* corempi only: the host-MPI harness compiles every src/coll file */
#include "coll/direct/fold.h"
#include "core/state.h"
#include "shm/copy.h"

#include <string.h>

/* The shortcut (algorithms.def, CM_SHORTCUT allreduce meet): a loop of 8-byte allreduces on 2
 * ranks spent ~550 instructions a call in checks, selection, the area's
 * lookup and the general sync, as long as the meeting line took to change
 * hands.  Once a call of a given shape (count, bytes) has been selected to
 * run here, and the area is a 2-rank one with flag syncs, the same shape
 * takes the one route it would take anyway (vectors in the meeting line, one
 * sync, both ranks fold) without the way there: ~250 instructions, 0.096 us
 * against 0.119 (shared caches, medians of 10 alternated runs; Open MPI
 * 0.164).  The shape is noted per area, so the selection's answer is reused
 * only for the communicator it was given for.  The checks skipped cannot
 * fail for a predefined op on a predefined contiguous type, a live
 * communicator and distinct non-NULL buffers; anything else goes the long
 * way. */
static uint64_t shortcut_bit(size_t bytes, int count)
{
    return (uint64_t)1 << (CM_DIRECT_MEET_BYTES * (bytes - 1) + (size_t)(count - 1));
}

/* Its eligibility: a shape the shared-memory allreduce just ran on cc. */
int cm_coll_allreduce_meet_applies(MPI_Comm cc, const struct cm_coll_query *q)
{
    if (q->bytes == 0 || q->bytes > CM_DIRECT_MEET_BYTES)
        return 0;
    struct cm_direct *s = cm_direct_peek(cc);
    if (!(s && s->meet && q->commutative && q->contiguous && q->count > 0 && (size_t)q->count <= q->bytes &&
          q->bytes <= s->slot_bytes && q->bytes < cm_direct_cma_min() && !cm_g.oversubscribed &&
          cm_direct_flag_syncs(s) && !cm_g.coll_check))
        return 0;
    s->allreduce_shortcut |= shortcut_bit(q->bytes, q->count);
    return 1;
}

int cm_coll_allreduce_meet(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    if (count <= 0 || count > CM_DIRECT_MEET_BYTES || !cm_dt_is_basic(dt) || !cm_op_is_predefined(op) || !rbuf)
        return CM_COLL_NO_SHORTCUT;
    const struct cm_datatype *t = cm_dt_lookup(dt);
    size_t bytes = (size_t)count * t->size;
    struct cm_direct *s;
    if (bytes == 0 || bytes > CM_DIRECT_MEET_BYTES || (MPI_Aint)t->size != t->extent ||
        (MPI_Aint)t->size != t->true_extent || !(s = cm_direct_peek(comm)) ||
        !(s->allreduce_shortcut & shortcut_bit(bytes, count)))
        return CM_COLL_NO_SHORTCUT;
    if (sbuf == MPI_IN_PLACE)
        sbuf = rbuf;
    else if (!sbuf || sbuf == rbuf)
        return CM_COLL_NO_SHORTCUT;
    /* The argument word but for its bytes, made when (op, type) change, in
     * the high half where the meeting line wants it: the check costs a call
     * of one shape an OR of the bytes, the OR of the epoch in the sync and
     * a test of what the sync returns. */
    if (op != s->last_op || dt != s->last_dt) {
        cm_op_kernel3_fn fold = cm_op_predefined_kernel3(op, dt);
        if (!fold)
            return CM_COLL_NO_SHORTCUT;
        s->last_op = op;
        s->last_dt = dt;
        s->last_fold = fold;
        s->last_word_hi = (uint64_t)cm_direct_word_of(CM_COLL_ALLREDUCE, 0, (int)t->sig_class - 1, op) << 32;
    }
    size_t p = (size_t)cm_direct_parity(s);
    cm_copy_small(s->meet->inl[s->rank][p], sbuf, bytes);
    /* The bytes field is exact (bytes <= 8); fold is read after the sync, so
     * that it needs no register across the call. */
    if (__builtin_expect(cm_direct_meet_sync(s, s->last_word_hi | (uint64_t)bytes << (32 + CM_DIRECT_WORD_BYTES_SHIFT)),
                         0) &&
        cm_direct_mm.on)
        return cm_coll_mismatch_raise(comm, "MPI_Allreduce");
    s->last_fold(s->meet->inl[0][p], s->meet->inl[1][p], rbuf, (size_t)count);   /* rank order */
    return MPI_SUCCESS;
}

/* Above this many bytes a non-oversubscribed job splits the slot fold. */
#define SPLIT_MIN 2048
/* Up to this many bytes (and 8 ranks) each rank folds all slots itself. */
#define SELF_FOLD_MAX 256

struct fold_args {
    struct cm_direct *s;
    int p, count, rc;
    size_t bytes;
    MPI_Datatype dt;
    MPI_Op op;
};

static void fold_all(void *arg)
{
    struct fold_args *a = arg;
    a->rc = cm_direct_fold_all(a->s, a->p, a->bytes, cm_direct_result(a->s, a->p), a->count, a->dt, a->op);
}

static int allreduce_slots(struct cm_direct *s, const char *sb, char *rb, size_t bytes, int count, MPI_Datatype dt,
                           MPI_Op op)
{
    if (s->n == 2 && bytes > SELF_FOLD_MAX)
        return cm_direct_fold_pieces(s, sb, rb, count, bytes / (size_t)count, dt, op, -1);
    if (bytes >= CM_DIRECT_SPLIT_FOLD_MIN || (!cm_g.oversubscribed && bytes >= SPLIT_MIN && s->n > 2)) {
        const void *result;
        int rc = cm_direct_fold_split(s, sb, bytes, count, dt, op, &result);
        cm_copy(rb, result, bytes);
        return rc;
    }
    int p = cm_direct_parity(s);
    cm_copy_small(cm_direct_data(s, s->rank, p, bytes), sb, bytes);
    if (!cm_g.oversubscribed && bytes <= SELF_FOLD_MAX && s->n <= 8) {
        /* Every rank running at once: all fold in parallel, nobody waits
         * for a folded result to cross the cache. */
        cm_direct_sync(s, NULL, NULL);
        return cm_direct_fold_all(s, p, bytes, rb, count, dt, op);
    }
    struct fold_args a = { s, p, count, MPI_SUCCESS, bytes, dt, op };
    cm_direct_sync(s, fold_all, &a);
    cm_copy(rb, cm_direct_result(s, p), bytes);
    return a.rc;             /* only the folding rank can see an op error */
}

static int allreduce_single_copy(struct cm_direct *s, const char *sb, char *rb, size_t bytes, int count,
                                 MPI_Datatype dt, MPI_Op op)
{
    int p = cm_direct_parity(s);
    struct cm_direct_flag *f = cm_direct_flag(s, s->rank, p);
    f->addr[0] = (uint64_t)(uintptr_t)sb;
    f->addr[1] = (uint64_t)(uintptr_t)rb;
    f->base = s->progress_mine;
    cm_direct_sync(s, NULL, NULL);
    int rc = cm_direct_reduce_my_slice(s, p, count, dt, op, rb);
    size_t es = bytes / (size_t)count;
    for (int i = 1; i < s->n; i++)
        cm_direct_fetch_slice(s, p, (s->rank + i) % s->n, count, es, rb);
    cm_direct_sync(s, NULL, NULL);
    return rc;
}

int cm_coll_allreduce_shm(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    MPI_Aint tlb;
    size_t bytes = cm_direct_bytes(count, dt, NULL, &tlb, NULL);
    if (cm_comm_lookup(comm, NULL)->size == 1) {
        if (sbuf != rbuf && bytes)
            cm_copy((char *)rbuf + tlb, (const char *)sbuf + tlb, bytes);
        return MPI_SUCCESS;
    }
    struct cm_direct *s = cm_direct_get(comm, "MPI_Allreduce");
    const char *sb = (const char *)sbuf + tlb;
    char *rb = (char *)rbuf + tlb;
    if (s && bytes <= s->slot_bytes && bytes < cm_direct_cma_min())
        return allreduce_slots(s, sb, rb, bytes, count, dt, op);
    if (s && cm_direct_chunked(s, bytes))
        return cm_direct_fold_pieces(s, sb, rb, count, bytes / (size_t)count, dt, op, -1);
    if (s && s->cma)
        return allreduce_single_copy(s, sb, rb, bytes, count, dt, op);
    if (s && bytes <= s->slot_bytes)
        return allreduce_slots(s, sb, rb, bytes, count, dt, op);
    return CM_COLL_VIA(allreduce, rdb)(sbuf, rbuf, count, dt, op, comm);
}
#endif
