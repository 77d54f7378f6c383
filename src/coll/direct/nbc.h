/*
 * direct/nbc.h -- inside the nonblocking collectives on the shared area:
 * the operation record, shared by the queue and the simple steps
 * (direct/nbc.c) and the operations that move data in slot-sized rounds
 * (direct/nbc_pieces.c).  The interface for the front ends is in direct.h.
 */
#ifndef CM_COLL_SHM_NBC_H
#define CM_COLL_SHM_NBC_H

#include "coll/direct/direct.h"
#include "core/request.h"
#include "core/thread.h"
#include "shm/wait.h"

enum nbc_kind {
    NBC_BARRIER, NBC_BCAST, NBC_REDUCE, NBC_ALLREDUCE,  /* one sync or one FIFO entry */
    NBC_GATHER, NBC_SCATTER,
    NBC_PIECES,                                         /* rounds through the slots */
    NBC_HOOK                                            /* a plan's own step (hook) */
};

struct cm_direct_nbc;

/* An operation moved through the slots in rounds (direct/nbc_pieces.c): a
 * round is one or two epochs; in each, every rank fills what it has to
 * give into the slots of the epoch's parity p (fill), arrives, and once
 * every member arrived takes out what it needs (drain).  off/len: the bytes
 * of one block the round carries. */
struct nbc_pieces_kind {
    const char *name;
    void (*begin)(struct cm_direct_nbc *o);      /* once, before round 0 (own block); may be NULL */
    int epochs;                               /* per round: 1 or 2 */
    void (*fill[2])(struct cm_direct_nbc *o, int p, size_t off, size_t len);
    void (*drain[2])(struct cm_direct_nbc *o, int p, size_t off, size_t len);   /* may be NULL */
};

struct cm_direct_nbc {
    struct cm_direct_nbc *next;
    struct cm_direct *s;
    enum nbc_kind kind;
    int started;                /* its protocol began (it reached the head) */
    int done;
    uint32_t k;                 /* FIFO call number, or the epoch it arrived at */
    const void *sbuf;           /* data as given (sbuf == rbuf when in place) */
    void *rbuf;
    int count, root;
    MPI_Datatype dt;
    MPI_Op op;
    size_t bytes;
    MPI_Aint tlb;
    /* NBC_PIECES */
    const struct nbc_pieces_kind *pk;
    int scount, rcount, inplace, nt, arrived, epoch;   /* epoch: within the round */
    MPI_Datatype stype, rtype;
    size_t sblk, rblk;          /* stride of the blocks in sbuf, rbuf (extents) */
    size_t piece;               /* bytes of one block per round */
    size_t off;                 /* bytes of each block done */
    /* Argument agreement (direct.h): the call's word, set by its front end
     * (cm_direct_nbc_args), and what its syncs and FIFO reads saw.  A
     * mismatch ends the operation at once (no more steps, no data moved)
     * and its request reports it (nbc.c). */
    struct cm_direct_nbc_args args;
    struct cm_direct_mismatch mm;
    /* NBC_HOOK: the step of a record embedded first in a plan of its own
     * (direct/persist_allreduce.c); returns as step() does. */
    int (*hook)(struct cm_direct_nbc *o, int block);
    cm_op_kernel3_fn fold3;     /* the 2-rank lane's fold (direct/nbc_meet.c) */
};

/* The sync of o's epoch (o->k) on s: waited for (block) or tested; 0
 * while it is not complete. */
static inline int cm_direct_nbc_synced(struct cm_direct *s, const struct cm_direct_nbc *o, int block)
{
    if (!block)
        return cm_direct_sync_test(s, o->k);
    cm_direct_sync_await(s, o->k);
    return 1;
}

/* Note the shape of a call the engine takes (o, with cm_direct_nbc_next)
 * for the 2-rank lane (direct/nbc_meet.c). */
void cm_direct_nbc_lane_note(struct cm_direct *s, const struct cm_direct_nbc *o);
void cm_direct_nbc_lane_note_allgather(struct cm_direct *s, const struct cm_direct_nbc *o, size_t b);
/* A zeroed record of a one-shot call, and its release (direct/nbc.c). */
struct cm_direct_nbc *cm_direct_nbc_new(void);
void cm_direct_nbc_free(struct cm_direct_nbc *o);
/* A kept record's mismatch, raised by the Wait/Test after the start that
 * saw it and then cleared (the next start begins clean); MPI_SUCCESS if none. */
int cm_direct_nbc_report_once(struct cm_direct_nbc *o);
/* After a kept record's step: a mismatch its start saw makes Wait/Test
 * raise it (cm_direct_nbc_report_once) through the full finish of req. */
static inline void cm_direct_nbc_kept_check(const struct cm_direct_nbc *o, struct cm_request *req)
{
    if (__builtin_expect(o->mm.on, 0))
        req->quick_finish = 0;
}
/* A kept record's poll as a request's (never waits), with that check once done. */
int cm_direct_nbc_kept_poll(struct cm_direct_nbc *o, struct cm_request *req);
/* The vector arguments of a call on one buffer pair (broadcast, the
 * reductions, a plan's hook): sbuf == rbuf in place, root -1 where the call
 * has none; bytes: the vector's. */
static inline void cm_direct_nbc_vector(struct cm_direct_nbc *o, enum nbc_kind kind, const void *sbuf, void *rbuf,
                                        int count, MPI_Datatype dt, MPI_Op op, int root, size_t bytes)
{
    o->kind = kind;
    o->sbuf = sbuf;
    o->rbuf = rbuf;
    o->count = count;
    o->dt = dt;
    o->op = op;
    o->root = root;
    o->bytes = bytes;
}
/* Queue o (its protocol not begun) on s, and drive it as a request's poll
 * (never waits) and block (until o is done) do: for plans that keep their
 * record (NBC_HOOK). */
void cm_direct_nbc_enqueue(struct cm_direct *s, struct cm_direct_nbc *o);
int cm_direct_nbc_poll(void *o);
void cm_direct_nbc_block(void *o);
/* Count a pending operation in cm_wait_unrung (shm/wait.h).  Under
 * MPI_THREAD_MULTIPLE the thread that queues one (its communicator's) and
 * the progress holder that pops another may count at once: an atomic add
 * there (a plain increment lost updates, TSan saw it); below MULTIPLE the
 * plain one behind a predictable branch. */
static inline void cm_direct_unrung_add(int d)
{
    if (__builtin_expect(cm_mt, 0))
        __atomic_fetch_add(&cm_wait_unrung, (unsigned)d, __ATOMIC_RELAXED);
    else
        cm_wait_unrung += (unsigned)d;
}

/* The head of s's queue has finished its protocol: mark it done and take it
 * off (the queue's advance, and a plan that completed its head without
 * advancing the queue).  Inline: on every nonblocking collective's path. */
static inline void cm_direct_nbc_pop(struct cm_direct *s)
{
    struct cm_direct_nbc *h = s->nbc_head, *next = h->next;
    cm_direct_unrung_add(-1);
    /* Release: the collectives' thread reads the head unlocked (cm_direct_peek). */
    __atomic_store_n(&s->nbc_head, next, __ATOMIC_RELEASE);
    if (!next)
        s->nbc_tail = NULL;
    /* Last: under MULTIPLE a poll reads done without the area's lock, and
     * once it sees it the request completes and h may be freed. */
    __atomic_store_n(&h->done, 1, __ATOMIC_RELEASE);
}

/* o finished (its results are in place).  Plain loads and stores on x86. */
static inline int cm_direct_nbc_done(const struct cm_direct_nbc *o)
{
    return __atomic_load_n(&o->done, __ATOMIC_ACQUIRE);
}

/* MPI_THREAD_MULTIPLE: the area's queue try-lock (direct/nbc_lock.c).
 * 1: taken (unlock it); 0: this thread holds it already (an advance below
 * the caller); -1: another thread holds it (only when !wait: with wait the
 * caller yields until it gets it). */
int cm_direct_nbc_lock(struct cm_direct *s, int wait);
void cm_direct_nbc_unlock(struct cm_direct *s);

/* A sync of o completed at epoch e: 1 if some rank came with another word
 * (recorded in o->mm: the operation must stop). */
static inline int cm_direct_nbc_words(struct cm_direct_nbc *o, uint32_t e)
{
    int peer;
    uint32_t theirs;
    if (__builtin_expect(!cm_direct_sync_words(o->s, e, o->args.word, &peer, &theirs), 1))
        return 0;
    o->mm = (struct cm_direct_mismatch){ .on = 1, .peer = peer, .mine = o->args.word, .theirs = theirs };
    return 1;
}

/* At a persistent collective's _init (collective on cc): set up cc's area
 * if the engine may take calls and no collective has set it up yet. */
void cm_direct_nbc_prepare(MPI_Comm cc, const char *call);
/* The area of cc if the engine takes a call there; NULL otherwise. */
struct cm_direct *cm_direct_nbc_area(MPI_Comm cc);
/* Append o (calloc'ed, kind and arguments set) to s's queue and make its
 * request. */
int cm_direct_nbc_queue(struct cm_direct *s, struct cm_direct_nbc *o, MPI_Request *request);
/* A reduction's record (kind and arguments set) if cc has an area and the
 * call is a contiguous vector of 1..max bytes; NULL otherwise.  The FIFOs
 * and slots hold the vector's bytes as they are, and folds run on them. */
struct cm_direct_nbc *cm_direct_nbc_reduction(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                                        int root, MPI_Comm cc, size_t max, enum nbc_kind kind, struct cm_direct **s);
/* A rank's own block from its send to its receive buffer, locally (no
 * self-message: this may run inside another call's progress). */
void cm_direct_nbc_copy_block(const void *src, int scount, MPI_Datatype stype, void *dst, int rcount, MPI_Datatype rtype);
/* One step of an NBC_PIECES operation: 1 when complete (block as in step()). */
int cm_direct_nbc_pieces_step(struct cm_direct_nbc *o, int block);
/* The rounds for what the one-entry steps do not take (larger, or a type
 * with holes for the broadcast). */
int cm_direct_nbc_bcast_pieces(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm cc, MPI_Request *request);
int cm_direct_nbc_reduce_pieces(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                             MPI_Comm cc, MPI_Request *request);
int cm_direct_nbc_allreduce_pieces(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm cc,
                                MPI_Request *request);

#endif
