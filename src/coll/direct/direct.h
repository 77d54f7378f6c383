/*
 * direct.h -- shared-memory direct collectives (DESIGN.md §7, seed 003).
 *
 * Every communicator that runs one of these algorithms gets an *area* carved
 * out of the segment's collective region (direct/area.c).  An area holds
 *   - a sync block: one arrival counter (atomic fetch-add), one release word
 *     (futex) and a sleeper count, each on its own line pair;
 *   - per rank and per epoch parity a flag line (64 B, 128 B apart from the
 *     next writer's) whose payload carries tiny data inline or the addresses
 *     and counter bases of the single-copy protocols;
 *   - per rank a progress line: a message counter of bytes made available,
 *     grows forever (seed 003 "message counters");
 *   - per rank and parity a data slot for small payloads, and two shared
 *     result buffers.
 *
 * Epochs: every cm_direct_sync() ends an epoch.  Data written before sync e go
 * to the buffers of parity e & 1 and are read after sync e, before the reader
 * arrives at sync e + 1.  A writer touches parity e & 1 again only for sync
 * e + 2, which cannot start before every reader arrived at e + 1: two
 * buffers per slot suffice and nothing is ever cleared between operations.
 *
 * Oversubscription (issue 4 item 5): a sync is one fetch-add per rank; early
 * arrivals spin briefly (not at all when oversubscribed), then sleep on the
 * release futex; the last arrival runs the operation's remaining work (e.g.
 * the whole reduction of a tiny vector) and wakes everyone with a single
 * FUTEX_WAKE.  So a tiny allreduce needs each rank scheduled about once.
 */
#ifndef CM_COLL_DIRECT_DIRECT_H
#define CM_COLL_DIRECT_DIRECT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "coll/coll.h"
#include "core/comm.h"
#include "core/datatype.h"
#include "core/op.h"
#include "shm/fault.h"

#define CM_DIRECT_INLINE 56          /* tiny payloads take the flag line up to `arrived` */

struct cm_direct_flag {              /* one 64-byte line */
    _Alignas(64) uint64_t addr[2];  /* single-copy: published buffer addresses */
    uint64_t base;                  /* progress counter value at the start */
    uint64_t pad;
    unsigned char inl[24];          /* rest of the inline payload (cm_direct_data) */
    /* Low half: the epoch this rank last arrived at in a flag sync (cm_direct_sync
     * with a core per rank); high half: the call's argument word (cm_direct_word),
     * stored in the same write so a reader that sees the epoch sees the word
     * of that call.  Written last, after the inline payload, so a tiny payload
     * and the news that it is there move in one line.  Never overwritten by
     * payload: CM_DIRECT_INLINE stops before it.  The futex is the low half. */
    _Atomic uint64_t arrived;
};
_Static_assert(sizeof(struct cm_direct_flag) == 64, "a flag is one line");
_Static_assert(CM_DIRECT_INLINE <= __builtin_offsetof(struct cm_direct_flag, arrived), "inline payload stops before arrived");

/* The meeting line of a 2-rank communicator: both ranks' arrival words and
 * payloads of up to CM_DIRECT_MEET_BYTES in one line.  With a line per rank
 * each call moves two lines (each rank's write must first take its line
 * back from the reader's cache, then the reader fetches it); through one
 * line both writes land in the same hand-over.  Two threads doing nothing
 * but this exchange (store mine, poll the other's): 0.030-0.038 us per round
 * through one line against 0.055 through a line per rank and parity with
 * shared caches, 0.198 against 0.27 with split caches.  With more ranks
 * every writer would take the line in turn, so only 2-rank areas use it. */
#define CM_DIRECT_MEET_RANKS 2
#define CM_DIRECT_MEET_BYTES 8
struct cm_direct_meet {
    _Alignas(64) _Atomic uint64_t arrived[CM_DIRECT_MEET_RANKS];   /* as cm_direct_flag.arrived */
    unsigned char inl[CM_DIRECT_MEET_RANKS][2][CM_DIRECT_MEET_BYTES]; /* [rank][parity], 8-aligned */
};
_Static_assert(sizeof(struct cm_direct_meet) == 64, "the meeting line is one line");

struct cm_direct {                   /* this rank's view of its communicator's area */
    char *base;                   /* area start in the segment */
    char *flags;                  /* first flag line (rank 0, parity 0) */
    char *slots;                  /* first data slot (rank 0, parity 0) */
    struct cm_direct_meet *meet;     /* the meeting line; NULL unless n == CM_DIRECT_MEET_RANKS */
    int n, rank;
    const int *world_of;
    size_t slot_bytes;            /* one data slot (per rank, per parity) */
    size_t result_bytes;          /* one result buffer */
    int cma;                      /* single-copy reads allowed (leader's probe) */
    uint32_t epoch;               /* syncs done on this communicator */
    uint32_t counted_syncs;       /* of which counted on the arrival counter */
    uint64_t progress_mine;       /* my counter (I am its only writer) */
    uint32_t bcasts;              /* broadcasts through the FIFO so far */
    uint32_t bfifo_clear;         /* every other rank finished this many FIFO calls (last look) */
    uint32_t to_root;             /* reduces and gathers through the reduce FIFO so far */
    uint32_t rfifo_clear;         /* my reduce-FIFO entries consumed up to this call (last look) */
    /* Bit 8 (bytes - 1) + count - 1: an allreduce of count elements, bytes in
     * all, was selected to run here and may take the shortcut (direct/allreduce.c). */
    uint64_t allreduce_shortcut;
    int barrier_shortcut;         /* a barrier was selected to run here, and may go straight */
    int comm_index;               /* the communicator's table index (core/comm.h) */
    MPI_Comm cc;                  /* the collective communicator (its point-to-point context) */
    MPI_Op last_op;               /* the shortcut's last (op, type) and their kernel */
    MPI_Datatype last_dt;
    cm_op_kernel3_fn last_fold;
    uint64_t last_word_hi;        /* cm_direct_word_of(allreduce, 0 bytes, last_dt's class, last_op) << 32 */
    /* The 2-rank nonblocking lane (direct/nbc_meet.c): the shape of the last
     * Iallreduce the engine took here and its argument word and class as
     * its front end made them; nb_barrier: an Ibarrier did, with that word. */
    int nb_count, nb_barrier;
    MPI_Datatype nb_dt;
    MPI_Op nb_op;
    cm_op_kernel3_fn nb_fold;
    uint64_t nb_word_hi, nb_barrier_hi;
    unsigned nb_class;
    /* The same for the last Iallgather the engine took here (nb_ag_bytes:
     * its block, 0 if none fits the lane). */
    size_t nb_ag_bytes;
    int nb_ag_scount, nb_ag_rcount;
    MPI_Datatype nb_ag_stype, nb_ag_rtype;
    uint64_t nb_ag_word_hi;
    unsigned nb_ag_class;
    /* Nonblocking collectives started here and not yet finished, in start
     * order (direct/nbc.c).  Only the head moves; a blocking collective on the
     * area first finishes them all (cm_direct_get, cm_direct_peek), so every
     * member runs the area's calls in one order, one at a time, as the
     * epoch and FIFO arguments above require. */
    struct cm_direct_nbc *nbc_head, *nbc_tail;
    /* The queue is being advanced (no re-entry from progress); under
     * MPI_THREAD_MULTIPLE the queue's try-lock: the holder's thread number
     * (direct/nbc_lock.c). */
    int nbc_busy;
};

/* Broadcast FIFO (seed 003's Bcast FIFO, without its fetch-and-increment):
 * small broadcasts go through a ring of entries; broadcast k uses entry
 * k mod CM_DIRECT_BFIFO_ENTRIES.  Readers wait only for the root.  Every rank
 * counts the FIFO calls it has finished, as root or reader, and publishes the
 * count on its own ack line every CM_DIRECT_BFIFO_ACK_EVERY calls; the root of
 * call k reuses its entry once every other rank's count reaches
 * k + 1 - CM_DIRECT_BFIFO_ENTRIES (cm_direct_bfifo_claim).  A shared counter that
 * each reader bumped per call cost a locked instruction and a line changing
 * hands per reader per call; the batched counts cost a plain store every
 * fourth call.  No deadlock from the batching: a rank that finished every
 * call before k has published at least k - ACK_EVERY + 1 of them, and the
 * root of call k needs only k + 1 - ENTRIES. */
#define CM_DIRECT_BFIFO_ENTRIES 64
#define CM_DIRECT_BFIFO_ACK_EVERY 4
/* 4 KiB (1 KiB until 2026-11-25): at 8 ranks on 2 cores every broadcast
 * or scatter that skips the sync saves a round of scheduling (bcast 2 KiB
 * 0.30 us vs 1.5-1.7 flat; scatter 512 B blocks 0.33 vs 4.9-5.4 through
 * the slots); 270 KiB per area. */
#define CM_DIRECT_BFIFO_BYTES 4096
#define CM_DIRECT_BFIFO_INLINE 51
_Static_assert(CM_DIRECT_BFIFO_ACK_EVERY <= CM_DIRECT_BFIFO_ENTRIES, "a claim must not wait for a later call");
struct cm_direct_bfifo_entry {
    _Alignas(128) _Atomic uint32_t seq;      /* call number + 1 last published here */
    _Atomic uint32_t seq_waiters;
    /* Payloads up to CM_DIRECT_BFIFO_INLINE bytes ride in the seq line: a reader
     * takes one line, not the seq line and then the data line. */
    unsigned char inl[CM_DIRECT_BFIFO_INLINE];
    uint8_t sig_class;                       /* the root's whole class (cm_direct_class_here) */
    uint32_t word;                           /* the root's cm_direct_word */
    /* Scatterv (direct/scatterv.c): the root's block size for each rank, a
     * uint32_t per rank from here on into data for more than 16 ranks (this
     * line comes with the seq line: the adjacent-line prefetcher); unused by
     * the others. */
    unsigned char vsizes[128 - 64];
    unsigned char data[CM_DIRECT_BFIFO_BYTES];
};
_Static_assert(__builtin_offsetof(struct cm_direct_bfifo_entry, word) + 4 <= 64, "the root's word rides in the seq line");
/* A FIFO reader that has call k asks for the line of call k + 1 now: when
 * the writer runs ahead (a loop of tiny collectives), that line is already
 * written and arrives while this call finishes, instead of costing the next
 * call a full cache-line transfer (8-byte bcast at 2 ranks 0.050 us against
 * 0.064).  A line not yet written comes back shared and is invalidated by the
 * writer as it would have been anyway. */
static inline void cm_direct_prefetch(const void *line) { __builtin_prefetch(line, 0, 3); }

/* Root of FIFO call k: wait until entry k may be overwritten. */
void cm_direct_bfifo_claim(struct cm_direct *s, uint32_t k);
/* The same without waiting: 1 when entry k may be written now. */
int cm_direct_bfifo_try_claim(struct cm_direct *s, uint32_t k);
/* Every rank after FIFO call k (root or reader): count it. */
void cm_direct_bfifo_done(struct cm_direct *s, uint32_t k);
struct cm_direct_bfifo_entry *cm_direct_bfifo(struct cm_direct *s, unsigned i);
/* Tiny scatters use the same entries and count (direct/scatter.c): the root
 * writes every block, each reader takes its own.  COREMPI_SHM_BFIFO=0 turns
 * the FIFO off for both. */
int cm_direct_bfifo_enabled(void);

/* Reduce FIFO, the broadcast FIFO's mirror: reductions of up to
 * CM_DIRECT_RFIFO_BYTES skip the sync.  Reduce number k uses entry k mod
 * CM_DIRECT_RFIFO_ENTRIES of every rank.  A non-root copies its vector into its
 * entry and publishes seq = k + 1, then returns; the root waits for the
 * others' seq, folds in rank order and acknowledges (cm_direct_rfifo_done).  A
 * rank reuses an entry once the acks show the call CM_DIRECT_RFIFO_ENTRIES ago
 * consumed.  Only entry 0's ack word of each rank is used. */
#define CM_DIRECT_RFIFO_ENTRIES 128
/* Up to 56 bytes share the seq line; up to CM_DIRECT_RFIFO_PAIR_BYTES fill the
 * line after it too, the seq line's adjacent-line partner, which the
 * prefetcher fetches with it: 64 to 120 bytes measured 0.065-0.075 us per
 * 2-rank reduce, like 56 bytes, against 0.12 through the slots.  Reduce goes
 * on through the FIFO up to CM_DIRECT_RFIFO_BYTES (three more lines): at 2
 * ranks the slot's sync held the non-root back for 121-504 bytes, 0.10-0.11
 * us against Open MPI's eager 0.08-0.09.  Gather and gatherv also use the
 * whole entry (8 ranks, 256 B blocks: gather 0.22 us vs 5-5.7 through the
 * slots, Open MPI 6.7); scan keeps to the line pair, where it was measured. */
#define CM_DIRECT_RFIFO_PAIR_BYTES 112
#define CM_DIRECT_RFIFO_BYTES 496
struct cm_direct_rfifo_entry {
    _Alignas(128) _Atomic uint32_t seq;      /* written by the owner */
    _Atomic uint32_t seq_waiters;            /* a sleeping root */
    uint32_t word;                           /* the owner's cm_direct_word (argument agreement) */
    /* gather(v): the owner's whole block in bytes (CM_DIRECT_SIZE24_MAX: that or more), which
     * a gatherv root compares with its count for the owner (the v forms' word holds no bytes);
     * the block travels here when it fits, else point to point.  Beside it the owner's whole
     * signature class (cm_direct_class_here), which the root compares with its own. */
    uint32_t bytes : 24;
    uint32_t sig_class : 8;
    unsigned char data[CM_DIRECT_RFIFO_BYTES];  /* from the seq line on */
    _Alignas(128) _Atomic uint32_t ack;      /* written by the root of the reduce */
    _Atomic uint32_t ack_waiters;            /* a sleeping owner */
    char pad1[128 - 8];
};
_Static_assert(sizeof(struct cm_direct_rfifo_entry) == 640, "the data ends where the ack pair starts");
struct cm_direct_rfifo_entry *cm_direct_rfifo(struct cm_direct *s, int r, unsigned k);
/* Tiny gathers use the same entries and count (direct/gather.c): every rank
 * calls the collectives in the same order, so all agree on k.
 * COREMPI_SHM_RFIFO=0 turns the FIFO off for both. */
int cm_direct_rfifo_enabled(void);
/* A non-root before filling its entry for to-root call k: waits until call
 * k - CM_DIRECT_RFIFO_ENTRIES was consumed. */
void cm_direct_rfifo_claim(struct cm_direct *s, uint32_t k);
int cm_direct_rfifo_try_claim(struct cm_direct *s, uint32_t k);
/* The root after consuming call k.  When the root of call k has every
 * other rank's entry for k, every rank has finished all calls before k
 * (program order), so "all calls up to k consumed" is the root's to say,
 * whoever the earlier roots were.
 * INVARIANT: in every to-root call k, every rank other than the one that
 * acknowledges publishes its entry k (an empty one if it has nothing to
 * send), and the acknowledging rank has seen all of them, directly (reduce,
 * gather, gatherv) or along the chain (scan).  A call that lets one rank
 * skip its entry breaks the argument: the acknowledgement then covers calls
 * that rank has not finished, and acks stop growing monotonically
 * (docs/protocols.md, tests/coll/rooted_lag.c).  It says so every CM_DIRECT_RFIFO_ACK_EVERY
 * calls, on one ack word per rank: fewer lines change hands than an ack per
 * entry and call.  Needs CM_DIRECT_RFIFO_ACK_EVERY < CM_DIRECT_RFIFO_ENTRIES. */
#define CM_DIRECT_RFIFO_ACK_EVERY 8
void cm_direct_rfifo_done(struct cm_direct *s, uint32_t k);

/* Wait until *word reaches target (wraparound-safe), spinning only with a
 * core per rank, then sleeping on the word's futex; wake its sleepers. */
void cm_direct_wait32(struct cm_direct *s, _Atomic uint32_t *word, _Atomic uint32_t *waiters, uint32_t target);
/* The same for a FIFO reader waiting for rank peer's entry of this call: if
 * the wait lasts and peer is in a sync instead (another path or another
 * collective, direct.h "argument agreement"), record the mismatch, arrive at
 * that sync with my word so peer sees it too, and return. */
void cm_direct_wait32_from(struct cm_direct *s, _Atomic uint32_t *word, _Atomic uint32_t *waiters, uint32_t target,
                           int peer);
void cm_direct_wake32(_Atomic uint32_t *word, _Atomic uint32_t *waiters);

/* The area of collective communicator cc, attached on first use (collective:
 * every member calls it in the same call).  NULL: no area (region full,
 * singleton without segment); the caller then runs a p2p algorithm. */
struct cm_direct *cm_direct_get(MPI_Comm cc, const char *coll);
/* The area of cc if it has one already; attaches nothing (local).  The
 * shortcuts ask for the same communicator call after call: the last answer
 * is kept (reset when its area is freed; calls are never concurrent, the
 * thread level stops at MPI_THREAD_SERIALIZED). */
struct cm_direct *cm_direct_peek_slow(MPI_Comm cc);
/* When its communicator is freed (coll/glue.c): finish the nonblocking
 * calls still running on the area, drop this member's reference (the last
 * one gives the units back) and free s. */
void cm_direct_detach(struct cm_direct *s);
extern CM_THREAD_LOCAL struct cm_direct *cm_direct_recent;
void cm_direct_nbc_drain(struct cm_direct *s);
/* Nonblocking calls are queued on s, as the thread that calls its
 * collectives asks before starting one.  An acquire: under MULTIPLE the
 * progress holder may have just stepped and popped the last one (a release
 * store), and its writes to the area must come before ours.  On x86 a plain
 * load is one (loads are not reordered with later loads or stores), so only
 * the compiler is kept from moving later accesses above it; an __atomic
 * load cost the 8-byte allreduce 2 instructions (no compare from memory).
 * ThreadSanitizer builds see the __atomic acquire (as CM_RACY_LOAD). */
static inline int cm_direct_nbc_pending(struct cm_direct *s)
{
#ifdef __SANITIZE_THREAD__
    return __atomic_load_n(&s->nbc_head, __ATOMIC_ACQUIRE) != NULL;
#else
    int pending = s->nbc_head != NULL;
    __asm__ volatile("" ::: "memory");
    return pending;
#endif
}
static inline struct cm_direct *cm_direct_peek(MPI_Comm cc)
{
    struct cm_direct *s = cm_direct_recent;
    if (!s || s->comm_index != cm_comm_index(cm_comm_plain(cc)))
        s = cm_direct_peek_slow(cc);
    if (s && cm_direct_nbc_pending(s))
        cm_direct_nbc_drain(s);
    return s;
}

/* cm_direct_get unless cc has its area already (then it drains nothing):
 * every member calls it at the same point of a blocking collective that runs
 * a point-to-point algorithm (select.c), so all attach at the first one. */
void cm_direct_prepare(MPI_Comm cc, const char *coll);
/* 1: cc's area is the one last asked for (cm_direct_prepare then has
 * nothing to do; a caller may skip naming the call). */
static inline int cm_direct_prepared(MPI_Comm cc)
{
    const struct cm_direct *s = cm_direct_recent;
    return s && s->comm_index == cm_comm_index(cm_comm_plain(cc));
}

/* The epoch sync in two halves (nonblocking collectives): arrive, then test
 * or wait for everyone's arrival at the returned epoch. */
uint32_t cm_direct_sync_arrive(struct cm_direct *s, uint32_t word);
int cm_direct_sync_test(struct cm_direct *s, uint32_t e);
void cm_direct_sync_await(struct cm_direct *s, uint32_t e);
/* The same two halves on the meeting line of a 2-rank area with flag syncs
 * (s->meet && cm_direct_flag_syncs(s)), for a caller that checked that once
 * (a persistent plan): the same words as cm_direct_sync_arrive/await write
 * and read there, without deciding the kind of sync at each call. */
/* word_hi: the call's argument word in the high half (word << 32, made once
 * by a plan).  meet_await returns 0 when the other rank arrived with the same
 * word, else what it saw (another word, or a later epoch: cm_direct_sync_words
 * tells). */
uint32_t cm_direct_meet_arrive(struct cm_direct *s, uint64_t word_hi);
uint64_t cm_direct_meet_await(struct cm_direct *s, uint32_t e, uint64_t word_hi);
/* The other rank's arrival, as meet_await sees it, without waiting: 0 not
 * yet at epoch e, 1 arrived with the same word, 2 with another word or later. */
static inline int cm_direct_meet_test(const struct cm_direct *s, uint32_t e, uint64_t word_hi)
{
    uint64_t v = atomic_load_explicit(&s->meet->arrived[s->rank ^ 1], memory_order_acquire);
    if (__builtin_expect(v == (word_hi | e), 1))
        return 1;
    return (int32_t)((uint32_t)v - e) >= 0 ? 2 : 0;
}

/* Parity of the epoch the next sync will close. */
static inline int cm_direct_parity(const struct cm_direct *s) { return (int)((s->epoch + 1) & 1); }

/* Flag lines sit a line pair apart (the gap line keeps the adjacent-line
 * prefetcher from dragging a neighbour's flag along). */
#define CM_DIRECT_FLAG_STRIDE 128u

/* Flag line and data slot of rank r for parity p (inline: every tiny
 * collective asks several times per call). */
static inline struct cm_direct_flag *cm_direct_flag(struct cm_direct *s, int r, int p)
{
    return (struct cm_direct_flag *)(s->flags + ((size_t)r * 2 + (size_t)p) * CM_DIRECT_FLAG_STRIDE);
}
static inline void *cm_direct_slot(struct cm_direct *s, int r, int p)
{
    return s->slots + ((size_t)r * 2 + (size_t)p) * s->slot_bytes;
}
/* Where bytes of rank r's data go for parity p: in the meeting line when it
 * exists and they fit, else inline in the flag line when they fit (one line
 * moves), else the slot. */
static inline void *cm_direct_data(struct cm_direct *s, int r, int p, size_t bytes)
{
    if (bytes <= CM_DIRECT_MEET_BYTES && s->meet)
        return s->meet->inl[r][p];
    return bytes <= CM_DIRECT_INLINE ? (void *)cm_direct_flag(s, r, p) : cm_direct_slot(s, r, p);
}
void *cm_direct_result(struct cm_direct *s, int p);
_Atomic uint64_t *cm_direct_progress(struct cm_direct *s, int r);

/* End an epoch: returns when all members arrived.  The last to arrive runs
 * last(arg) first (NULL: nothing). */
void cm_direct_sync(struct cm_direct *s, void (*last)(void *), void *arg);
/* 1 when cm_direct_sync(s, NULL, NULL) is a flag sync (a core per rank). */
int cm_direct_flag_syncs(const struct cm_direct *s);
/* What this process feeds into the choice of every area's syncs (and of
 * the paths that depend on oversubscription): COREMPI_SHM_SYNC (0 auto,
 * 1 flags, 2 counter) in bits 0-1, cm_g.oversubscribed in bit 2.  Every
 * member of a communicator must have the same, and the same slot size
 * (docs/spawn.md); the area's leader publishes its own in the area header
 * and cm_direct_get makes each member compare, once per communicator.
 * cm_direct_choice_str writes it as words for the error. */
uint32_t cm_direct_sync_choice(void);
void cm_direct_choice_str(uint32_t choice, uint64_t slot, char *out, size_t len);
/* cm_direct_sync(s, NULL, NULL) of a 2-rank area whose syncs are flag syncs
 * (s->meet && cm_direct_flag_syncs(s)), straight through the meeting line, for
 * a call whose argument word is word_hi >> 32 (the shortcuts pass theirs,
 * made once per shape; they do not set cm_direct_word).  When the other
 * rank's word differs, cm_direct_mm.on is set.  Returns 0 in the usual case;
 * only then may the caller skip looking at cm_direct_mm.on (nonzero: the
 * wait was a slow one, or someone slept; the answer is in cm_direct_mm.on).
 * So the check costs the shortcut the test of a register it gets anyway. */
int cm_direct_meet_sync(struct cm_direct *s, uint64_t word_hi);

/* ---- argument agreement (docs/collectives.md, "Mismatched arguments") ----
 * Every sync carries a 32-bit word describing the call: the collective, the
 * op, the root and the bytes every pair of ranks must agree on.  A rank
 * stores it with its arrival (the same 64-bit write, on a line that moves
 * anyway) and compares the others' words when it sees them arrive; the
 * counter sync's last arrival compares all words and leaves its verdict
 * beside the release word.  So every rank that takes part in a sync learns
 * of a mismatch at that same sync, and all of them stop: from then on
 * (cm_direct_mm.on) every sync, wait, publish and single-copy read of the call
 * returns at once, so no rank waits for a step another rank will not take,
 * and the front end raises the error (cm_coll_mismatch_raise).  The
 * broadcast and scatter FIFOs carry the root's word in the entry's seq line
 * (the readers compare it, and the root's whole class beside it:
 * cm_direct_class_here), the reduce FIFO each sender's (the root
 * compares it; in a scan chain the next rank does, and passes a prefix
 * made of disagreeing arguments on with collective field 31).  Ranks that disagree may take different paths (FIFO, sync,
 * point to point): waits that last look for the others there (below,
 * direct/diverge.c; docs/collectives.md, "Ranks on different paths").
 * Word: bits 0-4 collective + 1, 5-8 op (predefined 1-14, 15 any other),
 * in the rooted collectives without an op (cm_direct_typed_op) a 4-bit hash
 * of the datatype's signature class (core/datatype.h: cm_dt_sig_class_of,
 * read from the type, computed once when the type is made), 9-16 root + 1
 * (low 8 bits) in rooted collectives (in reduce, which has an op there,
 * root + 1 + CM_DIRECT_CLASS_MIX x class, mod 256: cm_direct_root_field), and
 * in the collectives without a root whose ranks all use one class
 * (cm_direct_typed) that class, 17-31 bytes
 * (exact below 2^14, else 2^14 | a hash of them).  A call that moves no
 * data carries class 0 (an empty signature matches any).  Outside front ends the word is 0 on every rank. */
extern CM_THREAD_LOCAL uint32_t cm_direct_word;
struct cm_direct_mismatch {
    int on;           /* a mismatch was seen in this call */
    int peer;         /* communicator rank whose word differs from mine */
    uint32_t mine, theirs;
    /* Words equal, whole signature classes not (cm_direct_classes_seen):
     * the two classes; 0 otherwise. */
    unsigned char class_mine, class_theirs;
};
extern CM_THREAD_LOCAL struct cm_direct_mismatch cm_direct_mm;
/* The class the rooted front ends hashed into their word, kept whole (the
 * word has room for 4 bits of it only): for the message, and for the FIFO
 * entries, whose writer stores it beside its data and whose reader compares
 * it with its own (cm_direct_classes_differ), so that classes sharing the
 * hash (MPI_INT and MPI_UINT8_T) differ there.  0 outside the rooted front
 * ends (api_done resets it) and for calls that move no data. */
extern CM_THREAD_LOCAL unsigned cm_direct_class_here;
/* Two whole signature classes of blocks of the same size disagree: both
 * non-zero (0 is MPI_PACKED's, or no data: agrees with any) and unequal. */
static inline int cm_direct_classes_differ(unsigned a, unsigned b)
{
    return __builtin_expect(a != b, 0) && a && b;
}
/* Record that rank peer's data has class theirs where mine has class mine
 * (the words agree): MPI_ERR_TYPE naming both types. */
void cm_direct_classes_seen(int peer, unsigned mine, unsigned theirs);
/* The word's bytes field (bits 17-31). */
#define CM_DIRECT_WORD_BYTES_SHIFT 17
static inline uint32_t cm_direct_bytes_field(size_t bytes)
{
    return bytes < 0x4000 ? (uint32_t)bytes : 0x4000u | (uint32_t)(((uint64_t)bytes * 0x9E3779B97F4A7C15ull) >> 50);
}
static inline uint32_t cm_direct_word_of(unsigned coll, size_t bytes, int root, MPI_Op op)
{
    uint32_t b = cm_direct_bytes_field(bytes);
    unsigned oi = (unsigned)cm_op_index(op); /* dense: predefined ones are 1..14 */
    uint32_t o = op == MPI_OP_NULL ? 0u : oi < 15u ? (uint32_t)oi : 15u;
    return (coll + 1u) | o << 5 | ((uint32_t)(root + 1) & 0xffu) << 9 | b << CM_DIRECT_WORD_BYTES_SHIFT;
}
/* Reduce has a root and an op and all its ranks use one datatype (MPI 4.1
 * section 6.9.1: the same count, datatype, op and root everywhere): its class
 * rides in the root field, mixed in.  Two words whose roots agree differ
 * there iff their classes differ (classes are below 256 and the factor is
 * odd, so it is invertible mod 256: every class is caught, not a 4-bit hash
 * of it, and in the tag's 6 bits every class modulo 64); two whose classes
 * agree differ iff their roots differ mod 256, as before.  Only when both
 * differ can they cancel (37: a class difference of 1-75 never looks like a
 * root difference of less than 3, nor in the tag one of 1-16).  No class
 * agrees with another here (no MPI_PACKED leniency: the standard wants the
 * same datatype). */
#define CM_DIRECT_CLASS_MIX 37u
#define CM_DIRECT_CLASS_UNMIX 173u      /* 37 x 173 = 1 mod 256 */
/* Bcast, gather(v) and scatter(v) carry a 4-bit hash of the class in the op
 * bits (cm_direct_class_hash), which misses class differences that are
 * multiples of 15 (MPI_INT and MPI_UINT8_T); their root field takes the
 * class mixed in too, with a factor of its own: 53 x 15 = 27 mod 64, so such
 * a difference (15 to 60) moves the field by 27, 54, 17 or 44 mod 64 (the
 * tag's 6 bits) and looks like no root difference below 10.  Their
 * MPI_PACKED (class 0) still agrees with any (cm_direct_words_agree undoes
 * the mix). */
#define CM_DIRECT_CLASS_MIX_ROOTED 53u
#define CM_DIRECT_CLASS_UNMIX_ROOTED 29u   /* 53 x 29 = 1 mod 256 */
/* Waits that last (slow path only, before each sleep): has another rank gone
 * another way?  cm_direct_fifo_ahead: a sync waiter asks whether a FIFO
 * entry of a call I have not reached is published (a rank took the FIFO
 * where I took a sync): 1, with its writer and word.  The caller re-checks
 * its own wait before it records the mismatch: a rank legitimately past my
 * sync would have let the wait end.  cm_direct_peer_in_sync: rank peer has arrived at the sync
 * after my last one (its word in *theirs); cm_direct_sync_join: arrive there
 * with my word without waiting, so that peer's comparison sees mine.
 * Only blocking calls ask (word != 0, no nonblocking call queued): the
 * nonblocking ones compare their words after each sync and FIFO read, into
 * their own record (direct/nbc.c, nbc_mismatch). */
int cm_direct_fifo_ahead(struct cm_direct *s, uint32_t word, int *peer, uint32_t *theirs);
int cm_direct_peer_in_sync(struct cm_direct *s, int peer, uint32_t *theirs);
/* A nonblocking call's sync at epoch e has completed (every member arrived,
 * with the word it passed to cm_direct_sync_arrive): 1, with the first rank
 * whose word differs from mine and that word.  Every member asks before it
 * arrives anywhere else, so a member that stops on a mismatch leaves its
 * word in place for the others to see (the meeting line keeps one word per
 * rank: a rank already past e had found the words equal). */
int cm_direct_sync_words(struct cm_direct *s, uint32_t e, uint32_t word, int *peer, uint32_t *theirs);
void cm_direct_sync_join(struct cm_direct *s);
/* The root of broadcast-FIFO call k takes entry k: 0 when another rank has
 * published or taken it as root (the roots differ: recorded). */
int cm_direct_bfifo_own(struct cm_direct *s, uint32_t k);
/* The same once entry k is claimed, for a caller that records the
 * mismatch itself (a nonblocking call): 0 with the other root and its word. */
int cm_direct_bfifo_take(struct cm_direct *s, uint32_t k, int *peer, uint32_t *theirs);
/* The other way round: a rank in a point-to-point algorithm whose source
 * went through the area (p2p.h, cm_p2p_coll_stalled), or whose call has
 * seen a mismatch already (its other messages may never come); and a rank waiting in
 * the area for a peer that sent it a blocking collective's point-to-point
 * message instead (1, with a word made of what the message shows). */
int cm_direct_p2p_stalled(MPI_Comm cc, int src, int confirm);
/* The collective a blocking algorithm's base tag belongs to (coll.h), or mine. */
unsigned cm_direct_tag_coll(int tag, unsigned mine);
int cm_direct_peer_sent(struct cm_direct *s, int peer, uint32_t *theirs);
void cm_direct_drop_sent(struct cm_direct *s, int peer);
/* The collectives whose word carries a signature class where a root would be
 * (no root; every rank's data has one class in a correct program: the
 * reductions, and allgather(v)/alltoall, whose ranks also send to
 * themselves). */
static inline int cm_direct_typed(unsigned coll)
{
    return coll == CM_COLL_ALLREDUCE || coll == CM_COLL_SCAN || coll == CM_COLL_EXSCAN ||
           coll == CM_COLL_REDUCE_SCATTER || coll == CM_COLL_REDUCE_SCATTER_BLOCK || coll == CM_COLL_ALLGATHER ||
           coll == CM_COLL_ALLGATHERV || coll == CM_COLL_ALLTOALL || coll == CM_COLL_ALLTOALLV ||
           coll == CM_COLL_ALLTOALLW;
}
/* The rooted collectives without an op: a 4-bit hash of the class in the op
 * bits (cm_direct_class_hash).  Reduce has both a root and an op and carries
 * its class mixed into the root field (cm_direct_root_field).  Alltoallv/w
 * (typed above) carry class 0 in the call's word (ranks that exchange
 * nothing may use unrelated types); their point-to-point messages carry
 * each block's own (cm_direct_word_class). */
static inline int cm_direct_typed_op(unsigned coll)
{
    return coll == CM_COLL_BCAST || coll == CM_COLL_GATHER || coll == CM_COLL_GATHERV || coll == CM_COLL_SCATTER ||
           coll == CM_COLL_SCATTERV;
}
/* The factor a collective's class is mixed into its root field with, 0
 * when it is not (cm_direct_root_field). */
static inline unsigned cm_direct_class_mix(unsigned coll)
{
    return coll == CM_COLL_REDUCE ? CM_DIRECT_CLASS_MIX : cm_direct_typed_op(coll) ? CM_DIRECT_CLASS_MIX_ROOTED : 0u;
}
static inline int cm_direct_root_field(unsigned coll, int root, unsigned sig_class)
{
    return root + (int)((cm_direct_class_mix(coll) * sig_class) & 0xffu);
}
/* Class 0 (MPI_PACKED, or no data) stays 0, the value that agrees with any;
 * the others map onto 1..15, so that the first fifteen C types (MPI_CHAR to
 * MPI_LONG_DOUBLE, dense indices 1..15) all differ. */
static inline uint32_t cm_direct_class_hash(unsigned c)
{
    return c ? 1u + (c - 1u) % 15u : 0u;
}
/* The word of a call as the front ends make it (api.h): the class where the
 * collective has room for it. */
static inline uint32_t cm_direct_call_word(unsigned coll, size_t bytes, int root, MPI_Op op, unsigned sig_class)
{
    uint32_t w = cm_direct_word_of(coll, bytes,
                                   cm_direct_typed(coll) ? (int)sig_class - 1 : cm_direct_root_field(coll, root, sig_class),
                                   op);
    return cm_direct_typed_op(coll) ? w | cm_direct_class_hash(sig_class) << 5 : w;
}
/* A nonblocking or persistent call on the engine (direct/nbc.c) does not
 * match the blocking call of its collective (MPI 4.1 section 6.12), which
 * runs the same protocols on the same area: its word's collective field
 * holds a code of its own, CM_DIRECT_NB_FIRST + the collective (0-10, the
 * engine's ones) or + 11 for reduce_scatter_block (alltoallv's place: never
 * on the engine).  Codes 18-29; 1-17 are the blocking ones, 31 the poison.
 * Only the engine's records carry it (the schedules' tags never meet a
 * blocking algorithm's: other base tags). */
#define CM_DIRECT_NB_FIRST 18u
#define CM_DIRECT_NB_RSB 11u
static inline uint32_t cm_direct_nb_word(uint32_t w)
{
    unsigned coll = (w & 31u) - 1u;
    unsigned i = coll == CM_COLL_REDUCE_SCATTER_BLOCK ? CM_DIRECT_NB_RSB : coll;
    return w && i < CM_DIRECT_NB_RSB + 1u ? (w & ~31u) | (CM_DIRECT_NB_FIRST + i) : w;
}
/* 1 when word w is a nonblocking call's (cm_direct_nb_word). */
static inline int cm_direct_word_nb(uint32_t w)
{
    return (w & 31u) >= CM_DIRECT_NB_FIRST && (w & 31u) <= CM_DIRECT_NB_FIRST + CM_DIRECT_NB_RSB;
}
/* The collective of word w, blocking or nonblocking alike. */
static inline unsigned cm_direct_word_coll(uint32_t w)
{
    if (!cm_direct_word_nb(w))
        return (w & 31u) - 1u;
    unsigned i = (w & 31u) - CM_DIRECT_NB_FIRST;
    return i == CM_DIRECT_NB_RSB ? (unsigned)CM_COLL_REDUCE_SCATTER_BLOCK : i;
}
/* The rank a word's root field names, with the whole class that was mixed
 * into it (a broadcast-FIFO entry keeps it beside the word): its writer, for
 * the root of such an entry; other if none of the n ranks. */
static inline int cm_direct_word_root(uint32_t w, unsigned sig_class, int n, int other)
{
    int r = (int)(((w >> 9) - 1u - cm_direct_class_mix(cm_direct_word_coll(w)) * sig_class) & 0xffu);
    return r < n ? r : other;
}
/* Word w with the signature class of one message's data in it: a
 * point-to-point message whose two ends name their own types for it (the
 * blocks of alltoallv/w; every message of an intercommunicator collective,
 * whose two groups name other types) carries the class of what it moves,
 * and its receive compares it with the class of what it takes
 * (docs/collectives.md, "Classes per message").  w holds class 0. */
static inline uint32_t cm_direct_word_class(uint32_t w, unsigned sig_class)
{
    unsigned coll = cm_direct_word_coll(w);
    if (cm_direct_typed(coll))
        return (w & ~(0xffu << 9)) | (sig_class & 0xffu) << 9;
    if (cm_direct_typed_op(coll))
        w = (w & ~(15u << 5)) | cm_direct_class_hash(sig_class) << 5;
    return (w & ~(0xffu << 9)) | ((((w >> 9) & 0xffu) + cm_direct_class_mix(coll) * sig_class) & 0xffu) << 9;
}
/* The class of count elements of dt as one message carries it: 0 (agrees
 * with any) when they hold no data. */
static inline unsigned cm_direct_data_class(MPI_Datatype dt, int count)
{
    const struct cm_datatype *t = count > 0 ? cm_dt_lookup(dt) : NULL;
    return t && t->size ? t->sig_class : 0u;
}
/* The bits of a word of collective coll that hold a signature class, 0 if
 * none (reduce's is mixed with the root: it agrees with no other). */
static inline uint32_t cm_direct_class_field(unsigned coll)
{
    return cm_direct_typed(coll) ? 0xffu << 9 : cm_direct_typed_op(coll) ? 15u << 5 : 0u;
}
/* Two words that differ agree all the same when they differ only in the
 * signature class and one of them is MPI_PACKED's (class 0, matches any).
 * Off the fast path: only asked once two words compare unequal. */
int cm_direct_words_agree(uint32_t a, uint32_t b);
/* A FIFO reader's (or the reduce root's) comparison with a writer's word. */
static inline int cm_direct_words_differ(uint32_t a, uint32_t b)
{
    return __builtin_expect(a != b, 0) && !cm_direct_words_agree(a, b);
}
/* A nonblocking (or persistent) call's word, from its front end to the
 * engine's record (direct/nbc.c copies cm_direct_nbc_next when it queues a
 * record; the front end clears it after): the word as a blocking call
 * makes it, the class for the message, the communicator and call to report
 * a mismatch on at completion. */
struct cm_direct_nbc_args {
    uint32_t word;
    unsigned sig_class;
    MPI_Comm comm;
    const char *call;
};
extern CM_THREAD_LOCAL struct cm_direct_nbc_args cm_direct_nbc_next;
/* The error of a mismatch recorded in m (cm_coll_mismatch_raise's for a
 * nonblocking call's record). */
int cm_coll_mismatch_report(MPI_Comm comm, const char *call, const struct cm_direct_mismatch *m, unsigned class_here);
/* Record a mismatch seen against rank peer's word (the first one counts). */
void cm_direct_mismatch_seen(int peer, uint32_t mine, uint32_t theirs);
/* The same for a v or w form whose word holds no bytes: a block from (or
 * to) rank peer is `theirs` bytes there where this rank's counts say
 * `mine`; recorded as this call's word with those sizes in the bytes field,
 * so the report is the size mismatch's (MPI_ERR_TRUNCATE). */
void cm_direct_sizes_differ(int peer, size_t mine, size_t theirs);
/* Take a blocking collective's message of `bytes` bytes (tag) from rank src
 * off the queue and drop it: a block sent point to point that its receiver
 * found the wrong size before posting a receive (its sender would wait in
 * a rendezvous, or a later call would match it). */
void cm_direct_drop_block(int src, size_t bytes, int tag, MPI_Comm comm);
/* A block size for a FIFO entry's 32-bit field: UINT32_MAX means that or more. */
static inline uint32_t cm_direct_size32(size_t bytes)
{
    return bytes < UINT32_MAX ? (uint32_t)bytes : UINT32_MAX;
}
/* The same for the reduce FIFO's 24-bit field (its other 8 bits hold the class). */
#define CM_DIRECT_SIZE24_MAX 0xffffffu
static inline uint32_t cm_direct_size24(size_t bytes)
{
    return bytes < CM_DIRECT_SIZE24_MAX ? (uint32_t)bytes : CM_DIRECT_SIZE24_MAX;
}
/* A blocking collective's point-to-point receive got another word or size
 * (p2p/coll_entry.h, "the argument word"): record it as a mismatch with
 * rank source. */
void cm_coll_word_differs(int source, int their_tag, size_t posted, size_t got);
/* The comparison behind it, for a nonblocking schedule's receive too
 * (coll/nbc.c): *mine (the call's word; its bytes become the posted size's
 * when the sizes differ) against the other rank's as its tag and size show
 * it (*theirs).  1 when they differ. */
int cm_coll_tag_words(uint32_t *mine, int their_tag, size_t posted, size_t got, uint32_t *theirs);
/* Front ends: raise the recorded mismatch on comm and clear it; returns the class. */
int cm_coll_mismatch_raise(MPI_Comm comm, const char *call);

/* Message counters: publish `bytes` more of my data; wait until rank r has
 * published `upto` bytes counted from base. */
void cm_direct_publish(struct cm_direct *s, size_t bytes);
void cm_direct_wait_progress(struct cm_direct *s, int r, uint64_t base, size_t upto);

/* Single-copy read of len bytes at addr in comm rank r's memory. */
void cm_direct_read(struct cm_direct *s, int r, void *dst, uint64_t addr, size_t len);

/* The blocking gather and scatter where the area cannot serve them (none,
 * or blocks above a slot without CMA): one rank copies its own block
 * (unless in place), more ranks take the linear algorithm (gather.c). */
int cm_direct_rooted_without(cm_gather_fn linear, int n, int inplace, size_t b, const void *sbuf, int scount,
                             MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root,
                             MPI_Comm comm);

/* Contiguous byte view of a typed buffer: the buffer itself when the type has
 * no holes, else a packed copy (pack = 1 copies the data in).  cm_direct_view_done
 * unpacks (unpack = 1) and frees. */
struct cm_direct_view {
    char *bytes;
    size_t len;
    void *tmp;
    const void *buf;
    int count;
    MPI_Datatype dt;
};
int cm_direct_view(struct cm_direct_view *v, const void *buf, int count, MPI_Datatype dt, int pack);
void cm_direct_view_done(struct cm_direct_view *v, int unpack);

/* Copy count elements of dt between a user buffer and contiguous bytes. */
int cm_direct_pack(void *dst, const void *buf, int count, MPI_Datatype dt);
int cm_direct_unpack(const void *src, void *buf, int count, MPI_Datatype dt);
/* Bytes [off, off + len) of the packed form of count elements of dt: the
 * pieces of a vector larger than a slot.  Ranks may describe the same data
 * with types of different layouts (only the signatures match), so every
 * rank must take the same piecewise path whatever its own type looks like. */
void cm_direct_pack_part(void *dst, const void *buf, int count, MPI_Datatype dt, size_t off, size_t len);
void cm_direct_unpack_part(const void *src, void *buf, int count, MPI_Datatype dt, size_t off, size_t len, int nt);
/* Whether a call in which this rank copies `out` bytes out of the slots into
 * the user's buffers should copy them with non-temporal stores (nt above). */
int cm_direct_out_nt(size_t out);
/* Bytes of count elements of dt, and whether the type has no holes (any
 * output may be NULL).  Inline, reading the type object: the front ends
 * checked dt, and every shared-memory call asks once or twice. */
static inline size_t cm_direct_bytes(int count, MPI_Datatype dt, int *contiguous, MPI_Aint *true_lb,
                                  MPI_Aint *extent)
{
    const struct cm_datatype *t = cm_dt_lookup(dt);
    if (contiguous)
        *contiguous = (MPI_Aint)t->size == t->extent && (MPI_Aint)t->size == t->true_extent;
    if (true_lb)
        *true_lb = t->true_lb;
    if (extent)
        *extent = t->extent;
    return (size_t)count * t->size;
}
/* Read the b bytes rank i published in parity p's flag (addr[0]) into
 * blkp, a block of count elements of dt: straight in (past its true lower
 * bound tlb) when dt is contiguous, else through tmp (NULL: it could not be
 * allocated, MPI_ERR_NO_MEM). */
static inline int cm_direct_read_block(struct cm_direct *s, int i, int p, char *blkp, int contig, MPI_Aint tlb,
                                       void *tmp, size_t b, int count, MPI_Datatype dt)
{
    if (contig)
        cm_direct_read(s, i, blkp + tlb, cm_direct_flag(s, i, p)->addr[0], b);
    else if (!tmp)
        return MPI_ERR_NO_MEM;
    else {
        cm_direct_read(s, i, tmp, cm_direct_flag(s, i, p)->addr[0], b);
        cm_direct_unpack(tmp, blkp, count, dt);
    }
    return MPI_SUCCESS;
}

/* Chunk of the pipelined single-copy protocols, and the size above which they
 * replace the slots (COREMPI_SHM_CHUNK, COREMPI_SHM_CMA_MIN). */
size_t cm_direct_chunk(void);
size_t cm_direct_cma_min(void);
/* A vector larger than a slot goes through the slots piece by piece
 * (COREMPI_SHM_CHUNKED=0 turns to the single-copy protocols instead). */
int cm_direct_chunked(const struct cm_direct *s, size_t bytes);
/* Elements of the piece that starts at element off of count, es bytes each. */
static inline int cm_direct_piece(const struct cm_direct *s, size_t es, int off, int count)
{
    int per = (int)(s->slot_bytes / es);
    if (per < 1)
        per = 1;
    return count - off < per ? count - off : per;
}
/* From this many bytes every rank folds a slice of the slots even with more
 * ranks than cores: one core folding n vectors costs more than a second sync. */
#define CM_DIRECT_SPLIT_FOLD_MIN (32 * 1024)

/* Verbose note (COREMPI_VERBOSE=coll), once per message kind. */
void cm_direct_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* applies_to helpers. */
int cm_direct_applies(const struct cm_coll_query *q);
int cm_direct_applies_reduction(const struct cm_coll_query *q);

/* The algorithms themselves (registered as "shm") and the shortcuts are
 * declared from algorithms.def in coll.h. */
/* A gather's non-root, call k: its block into its reduce-FIFO entry. */
int cm_direct_gather_fifo_send(struct cm_direct *s, uint32_t k, const void *sbuf, int scount, MPI_Datatype stype,
                               size_t block);

/* Nonblocking collectives on the area (direct/nbc.c): MPI_SUCCESS with
 * *request set, or CM_COLL_NO_SHORTCUT when the engine does not take the
 * call (no area attached yet, too large, a type with holes); the caller then
 * builds a point-to-point schedule.  The answer is the same on every member
 * (arguments and the area's state agree), so all take the same way. */
int cm_direct_nbc_barrier(MPI_Comm cc, MPI_Request *request);
/* The 2-rank lane (direct/nbc_meet.c): the front end's first act, as the
 * blocking shortcuts; CM_COLL_NO_SHORTCUT: take the long way. */
int cm_direct_iallreduce_lane(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                              MPI_Request *request);
int cm_direct_ibarrier_lane(MPI_Comm comm, MPI_Request *request);
int cm_direct_iallgather_lane(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                              MPI_Datatype rtype, MPI_Comm comm, MPI_Request *request);
int cm_direct_nbc_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm cc, MPI_Request *request);
int cm_direct_nbc_reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                      MPI_Comm cc, MPI_Request *request);
/* Under capture (MPI_Allreduce_init): a plan of the allreduce's own, kept
 * through cm_coll_keep; CM_COLL_NO_SHORTCUT when the nonblocking one's is
 * kept instead (direct/persist_allreduce.c). */
int cm_direct_persist_allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm cc,
                                MPI_Request *request);
int cm_direct_nbc_allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm cc,
                         MPI_Request *request);
/* Moved through the slots in rounds (direct/nbc_pieces.c); reductions take
 * contiguous types only. */
int cm_direct_nbc_gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                      int root, MPI_Comm cc, MPI_Request *request);
int cm_direct_nbc_scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                       int root, MPI_Comm cc, MPI_Request *request);
int cm_direct_nbc_allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                         MPI_Comm cc, MPI_Request *request);
int cm_direct_nbc_alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                        MPI_Comm cc, MPI_Request *request);
int cm_direct_nbc_reduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype dt, MPI_Op op,
                                    MPI_Comm cc, MPI_Request *request);

/* Slice [lo, hi) (elements) of a count-element vector owned by rank j of n. */
static inline void cm_direct_slice(int count, int n, int j, int *lo, int *hi)
{
    long q = count / n, r = count % n;
    *lo = (int)(j * q + (j < r ? j : r));
    *hi = (int)(*lo + q + (j < r));
}

#endif
