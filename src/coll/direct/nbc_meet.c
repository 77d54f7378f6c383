/*
 * direct/nbc_meet.c -- the 2-rank lane of MPI_Iallreduce, MPI_Ibarrier and
 * MPI_Iallgather of a block of up to 8 bytes
 * (issue 38): what the blocking shortcuts (direct/allreduce.c, barrier.c)
 * do for a call waited on at once, cut at the sync into a start that never
 * waits and a step.  The protocol is the one the engine runs anyway on a
 * 2-rank area with flag syncs (direct/nbc.c; the same words in the same
 * meeting line, docs/protocols.md 6a "The 2-rank lane"); the lane only
 * skips the way there.
 *
 * Start (the front end's first act, before its checks): when the area's
 * queue is empty and the call has the shape of the last one the engine
 * took here (so the checks it skips cannot fail and its argument word is
 * the one the front end made then), copy the vector into the meeting line,
 * arrive, and look once at the other rank's arrival.  There: fold both
 * vectors in rank order and return a request born complete (no record, no
 * queue).  Not yet: queue a record whose step waits on the meeting line;
 * MPI_Wait runs it.  The start waits for nobody either way.
 */
#include <mpi.h>
#ifdef CM_IN_COREMPI  /* corempi only: the host-MPI harness compiles every src/coll file */
#include "coll/direct/fold.h"
#include "coll/direct/nbc.h"
#include "coll/nbc.h"
#include "core/comm.h"
#include "core/datatype.h"
#include "core/error.h"
#include "core/dt_basic.h"
#include "core/request.h"
#include "core/state.h"
#include "shm/copy.h"

/* The area of comm if the lane may run there now: 2 ranks with the meeting
 * line and flag syncs (noted with the shape), nothing queued, one thread.
 * No drain (cm_direct_peek would finish the queue: a nonblocking start
 * must not wait). */
static struct cm_direct *lane_area(MPI_Comm comm)
{
    /* cm_mt first: under MPI_THREAD_MULTIPLE the queue's head and busy word
     * belong to whoever holds the area's lock (nbc_lock.c), and the lane,
     * which never runs there, must not even read them. */
    if (cm_mt || cm_coll_capture.on)
        return NULL;
    struct cm_direct *s = cm_direct_recent;
    if (!s || s->comm_index != cm_comm_index(cm_comm_plain(comm)))
        s = cm_direct_peek_slow(comm);
    return s && !s->nbc_head && !s->nbc_busy ? s : NULL;
}

static int done_request(MPI_Request *request)
{
    struct cm_request *r = cm_request_new(CM_REQ_DONE);
    r->complete = 1;
    *request = cm_request_handle(r);
    return MPI_SUCCESS;
}

/* The step of a queued lane record: wait (block) or look for the other
 * rank's arrival at o->k, then fold (an allreduce: o->fold3 set). */
static int meet_step(struct cm_direct_nbc *o, int block)
{
    struct cm_direct *s = o->s;
    uint64_t word_hi = (uint64_t)o->args.word << 32;
    if (!o->started) {      /* not made by a start (kept for any future caller) */
        o->started = 1;
        if (o->fold3)
            cm_copy_small(s->meet->inl[s->rank][cm_direct_parity(s)], o->sbuf, o->bytes);
        o->k = cm_direct_meet_arrive(s, word_hi);
    }
    int seen;
    if (block)
        seen = cm_direct_meet_await(s, o->k, word_hi) != 0;
    else if (!(seen = cm_direct_meet_test(s, o->k, word_hi)))
        return 0;
    else
        seen = seen == 2;
    if (__builtin_expect(seen, 0) && cm_direct_nbc_words(o, o->k))
        return 1;
    if (o->fold3) {
        int p = (int)(o->k & 1);
        o->fold3(s->meet->inl[0][p], s->meet->inl[1][p], o->rbuf, (size_t)o->count);
    }
    return 1;
}

/* Arrived at k, the other not yet (or with another word): queue a record
 * that finishes the call. */
static int queue_rest(struct cm_direct *s, uint32_t k, const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                      MPI_Op op, cm_op_kernel3_fn fold, size_t bytes, uint64_t word_hi, unsigned cls, MPI_Comm comm,
                      const char *call, MPI_Request *request)
{
    struct cm_direct_nbc *o = cm_direct_nbc_new();
    if (!o)
        return cm_error(comm, MPI_ERR_NO_MEM, call, "out of memory");
    cm_direct_nbc_vector(o, NBC_HOOK, sbuf, rbuf, count, dt, op, 0, bytes);
    o->hook = meet_step;
    o->started = 1;
    o->k = k;
    o->fold3 = fold;
    cm_direct_nbc_next = (struct cm_direct_nbc_args){ (uint32_t)(word_hi >> 32), cls, comm, call };
    int rc = cm_direct_nbc_queue(s, o, request);
    cm_direct_nbc_next.word = 0;
    return rc;
}

int cm_direct_iallreduce_lane(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                              MPI_Request *request)
{
    struct cm_direct *s = lane_area(comm);
    if (!s || count <= 0 || count != s->nb_count || dt != s->nb_dt || op != s->nb_op || !rbuf || !request)
        return CM_COLL_NO_SHORTCUT;
    if (sbuf == MPI_IN_PLACE)
        sbuf = rbuf;
    else if (!sbuf || sbuf == rbuf)
        return CM_COLL_NO_SHORTCUT;     /* the checks say what is wrong */
    size_t bytes = (size_t)count * cm_dt_lookup(dt)->size;
    int p = cm_direct_parity(s);
    cm_copy_small(s->meet->inl[s->rank][p], sbuf, bytes);
    uint32_t k = cm_direct_meet_arrive(s, s->nb_word_hi);
    if (__builtin_expect(cm_direct_meet_test(s, k, s->nb_word_hi) == 1, 1)) {
        s->nb_fold(s->meet->inl[0][p], s->meet->inl[1][p], rbuf, (size_t)count);   /* rank order */
        return done_request(request);
    }
    return queue_rest(s, k, sbuf, rbuf, count, dt, op, s->nb_fold, bytes, s->nb_word_hi, s->nb_class, comm,
                      CM_COLL_CALL("MPI_Iallreduce"), request);
}

int cm_direct_ibarrier_lane(MPI_Comm comm, MPI_Request *request)
{
    struct cm_direct *s = lane_area(comm);
    if (!s || !s->nb_barrier || !request)
        return CM_COLL_NO_SHORTCUT;
    uint32_t k = cm_direct_meet_arrive(s, s->nb_barrier_hi);
    if (__builtin_expect(cm_direct_meet_test(s, k, s->nb_barrier_hi) == 1, 1))
        return done_request(request);
    return queue_rest(s, k, NULL, NULL, 0, MPI_DATATYPE_NULL, MPI_OP_NULL, NULL, 0, s->nb_barrier_hi, 0, comm,
                      CM_COLL_CALL("MPI_Ibarrier"), request);
}

/* The allgather's "fold": both blocks in rank order (count: a block's
 * bytes), my own too, so an in-place block is rewritten with itself. */
static void concat(const void *a, const void *b, void *out, size_t count)
{
    cm_copy_small(out, a, count);
    cm_copy_small((char *)out + count, b, count);
}

/* As the allreduce's lane, with a block of b <= CM_DIRECT_MEET_BYTES bytes
 * instead of the vector and concat instead of the fold.  The engine's
 * Iallgather puts a part that fits in the same half of the meeting line
 * (direct/nbc_pieces.c part_at), so either rank may run either. */
int cm_direct_iallgather_lane(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                              MPI_Datatype rtype, MPI_Comm comm, MPI_Request *request)
{
    struct cm_direct *s = lane_area(comm);
    if (!s || !s->nb_ag_bytes || rcount != s->nb_ag_rcount || rtype != s->nb_ag_rtype || !rbuf || !request)
        return CM_COLL_NO_SHORTCUT;
    size_t b = s->nb_ag_bytes;
    char *mine = (char *)rbuf + (size_t)s->rank * b;
    if (sbuf == MPI_IN_PLACE)
        sbuf = mine;
    else if (!sbuf || scount < 0 || scount != s->nb_ag_scount || stype != s->nb_ag_stype ||
             ((const char *)sbuf < (char *)rbuf + 2 * b && (const char *)sbuf + b > (char *)rbuf))
        return CM_COLL_NO_SHORTCUT;     /* the checks say what is wrong */
    int p = cm_direct_parity(s);
    cm_copy_small(s->meet->inl[s->rank][p], sbuf, b);
    uint32_t k = cm_direct_meet_arrive(s, s->nb_ag_word_hi);
    if (__builtin_expect(cm_direct_meet_test(s, k, s->nb_ag_word_hi) == 1, 1)) {
        concat(s->meet->inl[0][p], s->meet->inl[1][p], rbuf, b);
        return done_request(request);
    }
    return queue_rest(s, k, sbuf, rbuf, (int)b, MPI_BYTE, MPI_OP_NULL, concat, b, s->nb_ag_word_hi, s->nb_ag_class,
                      comm, CM_COLL_CALL("MPI_Iallgather"), request);
}

/* The engine took an Iallgather of blocks of b bytes (o: its record, not
 * yet queued): note its shape for the lane when the lane may run it, as
 * cm_direct_nbc_lane_note says, with both types predefined and contiguous
 * and the block in a half of the meeting line. */
void cm_direct_nbc_lane_note_allgather(struct cm_direct *s, const struct cm_direct_nbc *o, size_t b)
{
    s->nb_ag_bytes = 0;
    if (!s->meet || cm_g.coll_check || cm_mt || cm_coll_capture.on || !cm_direct_flag_syncs(s) || !b ||
        b > CM_DIRECT_MEET_BYTES || !cm_dt_is_basic(o->rtype) ||
        (MPI_Aint)b != (MPI_Aint)o->rcount * cm_dt_lookup(o->rtype)->extent)
        return;
    if (o->inplace)
        s->nb_ag_scount = -1;   /* its send side was not checked: only in-place calls match */
    else if (!cm_dt_is_basic(o->stype) || (MPI_Aint)b != (MPI_Aint)o->scount * cm_dt_lookup(o->stype)->extent)
        return;
    else
        s->nb_ag_scount = o->scount;
    s->nb_ag_stype = o->stype;
    s->nb_ag_rcount = o->rcount;
    s->nb_ag_rtype = o->rtype;
    s->nb_ag_word_hi = (uint64_t)cm_direct_nb_word(cm_direct_nbc_next.word) << 32;
    s->nb_ag_class = cm_direct_nbc_next.sig_class;
    s->nb_ag_bytes = b;
}

/* The engine took a call (o: its record, cm_direct_nbc_next: its word):
 * note its shape where the lane may take the next ones.  Only where the
 * lane runs the protocol the engine would (2 ranks, meeting line, flag
 * syncs) and the checks it skips cannot fail for the same arguments: a
 * contiguous predefined type in the meeting line, a predefined op with a
 * kernel, no full argument check asked for. */
void cm_direct_nbc_lane_note(struct cm_direct *s, const struct cm_direct_nbc *o)
{
    if (!s->meet || cm_g.coll_check || cm_mt || cm_coll_capture.on || !cm_direct_flag_syncs(s))
        return;
    /* The word the engine compares: a nonblocking call's own code (direct.h
     * cm_direct_nb_word), as cm_direct_nbc_queue gives its records. */
    uint64_t word_hi = (uint64_t)cm_direct_nb_word(cm_direct_nbc_next.word) << 32;
    if (o->kind == NBC_BARRIER) {
        s->nb_barrier = 1;
        s->nb_barrier_hi = word_hi;
        return;
    }
    cm_op_kernel3_fn fold = cm_direct_kernel3(o->op, o->dt);
    if (o->kind != NBC_ALLREDUCE || !fold || o->tlb || o->bytes > CM_DIRECT_MEET_BYTES ||
        (MPI_Aint)o->bytes != (MPI_Aint)o->count * cm_dt_lookup(o->dt)->extent)
        return;
    s->nb_count = o->count;
    s->nb_dt = o->dt;
    s->nb_op = o->op;
    s->nb_fold = fold;
    s->nb_word_hi = word_hi;
    s->nb_class = cm_direct_nbc_next.sig_class;
}
#endif
