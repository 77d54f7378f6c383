/*
 * direct/persist_allreduce.c -- the plan of a persistent MPI_Allreduce on
 * the shared area (MPI_Allreduce_init; the protocols are argued in
 * docs/persistent.md).
 *
 * A persistent allreduce has its buffers, count, type and op fixed at
 * _init, so whatever a call would work out from them is worked out once:
 * the fold kernel (a three-operand one for 2 ranks), the vector's bytes,
 * whether the vector travels through the slots or is read in place, the
 * slices, the scratch buffers.  MPI_Start then only re-arms the record and
 * queues it on the area like a nonblocking collective (direct/nbc.c, same
 * order rules), and its steps never wait: Start returns without the peer,
 * MPI_Wait runs the blocking twins of the same steps.
 *
 * Two protocols, chosen at _init from the same arguments on every member:
 *   slots  (small vectors, as the nonblocking allreduce): copy the vector
 *          into this rank's data of the coming epoch's parity, arrive; once
 *          all arrived fold every rank's data in rank order with the kernel
 *          chosen at _init.
 *   single copy (larger vectors, CMA allowed, a predefined op on a basic
 *          type): publish the send and receive buffers' addresses in the
 *          flag line of the coming epoch's parity and arrive (epoch e1);
 *          once all arrived, reduce my slice reading every other rank's slice
 *          straight from its send buffer (process_vm_readv), arrive (e2);
 *          once all arrived, read every other slice from its owner's
 *          receive buffer, arrive (e3); complete once all arrived at e3, when
 *          nobody reads my buffers any more.  Each byte crosses once per
 *          reader, no slot round in between.
 */
#include <mpi.h>
#ifdef CM_IN_COREMPI  /* corempi only: the host-MPI harness compiles every src/coll file */
#include "coll/direct/fold.h"
#include "coll/direct/nbc.h"
#include "coll/nbc.h"
#include "core/datatype.h"
#include "core/op.h"
#include "core/request.h"
#include "p2p/outq.h"
#include "shm/copy.h"

#include <stdlib.h>
#include <string.h>

struct pallreduce {
    struct cm_direct_nbc run;    /* first: the queue hands the step this record */
    struct cm_direct *s;
    const char *sb;              /* after the type's lower bound */
    char *rb;
    size_t bytes, es;
    int count, inplace;
    MPI_Datatype dt;
    MPI_Op op;
    cm_op_kernel_fn kernel;      /* NULL: a user op (slots only) */
    cm_op_kernel3_fn kernel3;    /* 2 ranks, slots: fold both into rb at once */
    int single;                  /* the single-copy protocol */
    int meet;                    /* slots in the meeting line, flag syncs: its own halves */
    int stage;                   /* single copy: 0 .. 3 */
    int lo, hi;                  /* my slice (elements) */
    size_t chunk;                /* bytes of tmp and own */
    char *tmp, *own;
    uint64_t word_hi;            /* run.args.word << 32: the meeting line's high half */
    struct cm_request *req;      /* the persistent request (coll/persist.c) */
};

/* The first step's arrival (both protocols), made by Start when the record
 * is the area's head at once, else by the first step. */
static void arrive_first(struct pallreduce *a)
{
    struct cm_direct *s = a->s;
    int p = cm_direct_parity(s);
    a->run.started = 1;
    if (a->single) {
        struct cm_direct_flag *f = cm_direct_flag(s, s->rank, p);
        f->addr[0] = (uint64_t)(uintptr_t)a->sb;
        f->addr[1] = (uint64_t)(uintptr_t)a->rb;
        a->stage = 0;
    } else if (a->meet) {
        cm_copy_small(s->meet->inl[s->rank][p], a->sb, a->bytes);
        a->run.k = cm_direct_meet_arrive(s, a->word_hi);
        return;
    } else {
        cm_copy_small(cm_direct_data(s, s->rank, p, a->bytes), a->sb, a->bytes);
    }
    a->run.k = cm_direct_sync_arrive(s, a->run.args.word);
}

/* After a start's step (nbc.h). */
static void pa_check(struct pallreduce *a)
{
    cm_direct_nbc_kept_check(&a->run, a->req);
}

/* 2 ranks, after both arrived at the epoch of parity p: both vectors
 * straight into the result, in rank order.  My own is read from my send
 * buffer where it is not also the result (as the blocking call does,
 * cm_direct_fold_pair): it sits in my cache alone, while my slot copy is
 * being read by the other rank (64 KiB: the fold read both slots before
 * 2026-11-26).  In the meeting line both are on the line just read. */
static void fold_pair(struct pallreduce *a, int p)
{
    struct cm_direct *s = a->s;
    const void *x[2] = { cm_direct_data(s, 0, p, a->bytes), cm_direct_data(s, 1, p, a->bytes) };
    if (!a->inplace && !a->meet)
        x[s->rank] = a->sb;
    a->kernel3(x[0], x[1], a->rb, (size_t)a->count);
}

/* The meeting lane's fold, once both arrived at the epoch of parity p: both
 * payloads from the line, in rank order, straight into the result. */
static void fold_meet(struct pallreduce *a, int p)
{
    struct cm_direct *s = a->s;
    a->kernel3(s->meet->inl[0][p], s->meet->inl[1][p], a->rb, (size_t)a->count);
}

/* The slots protocol: one sync. */
static int slots_step(struct pallreduce *a, int block)
{
    struct cm_direct_nbc *o = &a->run;
    struct cm_direct *s = a->s;
    if (!o->started)
        arrive_first(a);
    if (!cm_direct_nbc_synced(s, o, block))
        return 0;
    if (cm_direct_nbc_words(o, o->k))
        return 1;
    int p = (int)(o->k & 1);
    if (a->kernel3) {
        fold_pair(a, p);
        return 1;
    }
    if (!a->kernel) {
        cm_direct_fold_slots(s, p, a->bytes, a->rb, a->count, a->dt, a->op, 0);
        return 1;
    }
    cm_copy_small(a->rb, cm_direct_data(s, s->n - 1, p, a->bytes), a->bytes);
    for (int r = s->n - 2; r >= 0; r--)
        a->kernel(cm_direct_data(s, r, p, a->bytes), a->rb, (size_t)a->count);
    return 1;
}

/* Slice [lo, hi) of the result: every rank's slice folded in rank order,
 * chunk by chunk (the others' read into tmp, mine from sb, or from a copy
 * when in place: the result overwrites it). */
static void reduce_my_slice(struct pallreduce *a, int p)
{
    struct cm_direct *s = a->s;
    size_t per = a->chunk / a->es;
    for (size_t e = (size_t)a->lo; e < (size_t)a->hi; e += per) {
        size_t n = (size_t)a->hi - e < per ? (size_t)a->hi - e : per, off = e * a->es, len = n * a->es;
        char *acc = a->rb + off;
        const char *mine = a->sb + off;
        if (a->inplace) {
            memcpy(a->own, mine, len);
            mine = a->own;
        }
        for (int r = s->n - 1; r >= 0; r--) {
            const char *x = mine;
            if (r != s->rank) {
                char *dst = r == s->n - 1 ? acc : a->tmp;
                cm_direct_read(s, r, dst, cm_direct_flag(s, r, p)->addr[0] + off, len);
                x = dst;
            }
            if (r == s->n - 1) {
                if (x != acc)
                    memcpy(acc, x, len);
            } else {
                a->kernel(x, acc, n);
            }
        }
    }
}

/* The others' slices from their owners' receive buffers into mine. */
static void fetch_slices(struct pallreduce *a, int p)
{
    struct cm_direct *s = a->s;
    for (int i = 1; i < s->n; i++) {
        int r = (s->rank + i) % s->n, lo, hi;
        cm_direct_slice(a->count, s->n, r, &lo, &hi);
        if (hi > lo)
            cm_direct_read(s, r, a->rb + (size_t)lo * a->es, cm_direct_flag(s, r, p)->addr[1] + (size_t)lo * a->es,
                           (size_t)(hi - lo) * a->es);
    }
}

/* The single-copy protocol: three syncs, a step between each. */
static int single_step(struct pallreduce *a, int block)
{
    struct cm_direct_nbc *o = &a->run;
    struct cm_direct *s = a->s;
    if (!o->started)
        arrive_first(a);
    for (;;) {
        if (!cm_direct_nbc_synced(s, o, block))
            return 0;
        if (a->stage == 0 && cm_direct_nbc_words(o, o->k))
            return 1;       /* every member sees it at e1 and stops before reading */
        /* The addresses are in the flag lines of e1's parity: nobody
         * writes them again before every member arrived at e3. */
        switch (a->stage++) {
        case 0:
            reduce_my_slice(a, (int)(o->k & 1));
            break;
        case 1:
            fetch_slices(a, (int)((o->k - 1) & 1));
            break;
        default:
            return 1;
        }
        o->k = cm_direct_sync_arrive(s, o->args.word);
    }
}

static int pallreduce_step(struct cm_direct_nbc *o, int block)
{
    struct pallreduce *a = (struct pallreduce *)o;
    return a->single ? single_step(a, block) : slots_step(a, block);
}

/* Start: queue the record; at the head, arrive now (rule 1: nothing here
 * waits), so the peers can go on before this rank's next MPI call.  The
 * plan asks persist.c not to poll right after (no_first_poll): the others
 * have rarely arrived yet, and the request's poll or Wait looks soon. */
static int pa_begin(void *plan)
{
    struct pallreduce *a = plan;
    struct cm_direct *s = a->s;
    a->run.next = NULL;
    a->run.started = 0;
    a->run.done = 0;
    /* MULTIPLE: the progress holder may be advancing the queue; hold it
     * from the look at the head to the enqueue (direct/nbc_lock.c). */
    int held = __builtin_expect(cm_mt, 0) ? cm_direct_nbc_lock(s, 1) : 0;
    /* Arrive first, queue after: the arrival is what the others wait for. */
    if (!s->nbc_head && (cm_mt ? held > 0 : !s->nbc_busy))
        arrive_first(a);
    cm_direct_nbc_enqueue(s, &a->run);
    if (held > 0)
        cm_direct_nbc_unlock(s);
    return MPI_SUCCESS;
}

/* MPI_Start of the meeting lane, the whole of it (the request's start hook:
 * persist.c's cm_coll_plan_start around pa_begin took ~130 instructions
 * here, against ~50 for the blocking shortcut's way to its arrival, and the
 * persistent 8-byte allreduce ran 1.12x MPI_Allreduce).  When the area's
 * queue is empty and not being advanced: copy the payload into the line,
 * arrive; second to arrive, the other's payload is on the line just
 * written, so fold now and complete the start without queueing (nothing
 * waited: one load, of a line that misses only if the other rank wrote it,
 * i.e. arrived).  First to arrive: queue the record as pa_begin would and
 * list the request for progress; Wait meets the other in pa_block.
 * Anything else (an operation ahead on the area) goes the generic way. */
static int pa_start(struct cm_request *r, const char *call)
{
    struct pallreduce *a = ((struct cm_coll_plan *)r->state)->plan;
    struct cm_direct *s = a->s;
    if (__builtin_expect(cm_mt, 0) || s->nbc_head || s->nbc_busy)   /* MULTIPLE: the way that locks the queue */
        return cm_coll_plan_start(r, call);
    a->run.next = NULL;
    r->active = 1;
    r->cancelled = 0;
    arrive_first(a);
    uint32_t k = a->run.k;
    int seen = cm_direct_meet_test(s, k, a->word_hi);
    if (seen) {
        if (__builtin_expect(seen == 2, 0) && cm_direct_nbc_words(&a->run, k))
            r->quick_finish = 0;    /* Wait/Test raise it (coll/persist.c) */
        else
            fold_meet(a, (int)(k & 1));
        a->run.done = 1;
        r->complete = 1;
        return MPI_SUCCESS;
    }
    a->run.done = 0;
    cm_direct_nbc_enqueue(s, &a->run);
    r->complete = 0;
    cm_progress_add_generic(r);
    return MPI_SUCCESS;
}

static int pa_poll(void *plan)
{
    struct pallreduce *a = plan;
    if (cm_direct_nbc_done(&a->run))
        return 1;   /* after the meeting lane's Wait */
    return cm_direct_nbc_kept_poll(&a->run, a->req);
}
/* Wait.  The meeting lane, when this plan is the area's head and arrived
 * (Start found the queue empty: the usual case), waits on the meeting line
 * and folds here, without the queue's generic step: what the blocking
 * shortcut does after its arrival (direct/allreduce.c).  Anything else
 * (queued behind another operation, a mismatch being raised) goes the
 * generic way, which may also advance the operations ahead of it. */
static void pa_block(void *plan)
{
    struct pallreduce *a = plan;
    struct cm_direct *s = a->s;
    if (a->meet && !cm_mt && s->nbc_head == &a->run && a->run.started && !s->nbc_busy && !cm_direct_mm.on) {
        /* Busy, as advance() marks it: the wait may run the progress
         * engine, whose poll of this request (still listed under
         * MPI_Waitall) would otherwise step and pop it under us. */
        s->nbc_busy = 1;
        if (!cm_direct_meet_await(s, a->run.k, a->word_hi) || !cm_direct_nbc_words(&a->run, a->run.k))
            fold_meet(a, (int)(a->run.k & 1));
        else
            pa_check(a);
        cm_direct_nbc_pop(s);
        s->nbc_busy = 0;
        return;
    }
    cm_direct_nbc_block(&a->run);
    pa_check(a);
}

static int pa_report(void *plan)
{
    return cm_direct_nbc_report_once(&((struct pallreduce *)plan)->run);
}

static void pa_free(void *plan)
{
    struct pallreduce *a = plan;
    cm_dt_release(a->dt);
    cm_op_release(a->op);
    free(a->tmp);
    free(a);
}

int cm_direct_persist_allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm cc,
                                MPI_Request *request)
{
    int contiguous;
    MPI_Aint tlb;
    size_t bytes = cm_direct_bytes(count, dt, &contiguous, &tlb, NULL);
    struct cm_direct *s = bytes && contiguous ? cm_direct_nbc_area(cc) : NULL;
    if (!s)
        return CM_COLL_NO_SHORTCUT;
    cm_op_kernel_fn kernel = cm_direct_kernel(op, dt);
    /* As the blocking allreduce: 2 ranks fold the whole vector each from
     * the two slots (one sync); more ranks fold in one place up to the
     * split size.  Beyond, single copy where the engine would read in
     * place (above a slot only with COREMPI_SHM_CHUNKED=0: the slot
     * pieces beat it there, direct/allreduce.c). */
    int slots = bytes <= s->slot_bytes && (bytes < CM_DIRECT_SPLIT_FOLD_MIN || s->n == 2);
    int single = !slots && s->cma && kernel && (bytes <= s->slot_bytes || !cm_direct_chunked(s, bytes));
    if (!slots && !single)
        return CM_COLL_NO_SHORTCUT;   /* the nonblocking plan (slot rounds) */
    struct pallreduce *a = calloc(1, sizeof *a);
    if (!a)
        return CM_COLL_NO_SHORTCUT;
    a->s = s;
    a->sb = (const char *)sbuf + tlb;
    a->rb = (char *)rbuf + tlb;
    a->inplace = sbuf == rbuf;
    a->bytes = bytes;
    a->count = count;
    a->es = bytes / (size_t)count;
    a->dt = dt;
    a->op = op;
    a->kernel = kernel;
    a->kernel3 = slots && s->n == 2 ? cm_direct_kernel3(op, dt) : NULL;
    a->single = single;
    /* Same inputs on every member (the area's size, the job-wide kind of
     * sync, the op, type and bytes), and the same words as the generic
     * halves: members may differ in lane and still meet. */
    a->meet = a->kernel3 && s->meet && bytes <= CM_DIRECT_MEET_BYTES && cm_direct_flag_syncs(s);
    if (single) {
        cm_direct_slice(count, s->n, s->rank, &a->lo, &a->hi);
        size_t per = cm_direct_chunk() / a->es;
        a->chunk = (per ? per : 1) * a->es;
        a->tmp = malloc(2 * a->chunk);
        if (!a->tmp) {
            free(a);
            return CM_COLL_NO_SHORTCUT;
        }
        a->own = a->tmp + a->chunk;
    }
    a->run.args = cm_direct_nbc_next;
    a->run.args.word = cm_direct_nb_word(a->run.args.word);   /* never a blocking call's (direct.h) */
    a->word_hi = (uint64_t)a->run.args.word << 32;
    a->run.kind = NBC_HOOK;
    a->run.hook = pallreduce_step;
    a->run.s = s;
    cm_dt_retain(dt);
    cm_op_retain(op);
    int rc = cm_coll_keep(a, pa_begin, pa_poll, pa_block, pa_free, request);
    cm_coll_capture.no_first_poll = 1;
    cm_coll_capture.req = &a->req;
    cm_coll_capture.report = pa_report;
    if (a->meet)
        cm_coll_capture.start = pa_start;
    return rc;
}
#endif
