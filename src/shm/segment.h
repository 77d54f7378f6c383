/*
 * segment.h -- layout of the one shared-memory segment of a corempi job.
 *
 * The launcher (mpirun) creates the segment with memfd_create, sizes it with
 * cm_seg_layout(), writes the header with cm_seg_format(), and every rank maps
 * the inherited fd (COREMPI_SHM_FD).  A singleton (no mpirun) makes its own.
 *
 * Layout: [header][rank control blocks][ring control lines][per-pair rings]
 *         [collective areas][dynamic-process area (shm/dyn.h)]
 *
 * nranks counts the universe's slots (mpirun --universe-size): a process's
 * slot is its address here ("world rank" inside the library); the first job
 * holds slots 0..n-1, MPI_Comm_spawn's children the next free ones.
 *
 * Invariants:
 *  - Every field written by one process and read by others sits on a 64-byte
 *    line of its own, and lines written by different processes are two lines
 *    (128 bytes) apart so the adjacent-line prefetcher does not pair them.
 *  - Counters grow forever and are compared with wraparound-safe unsigned
 *    arithmetic; nothing is reset while the job runs.
 *  - ftruncate() zero-fills, so "all zero" is the valid initial state of every
 *    ring and control block.
 */
#ifndef CM_SHM_SEGMENT_H
#define CM_SHM_SEGMENT_H

#include <stdint.h>
#include <stddef.h>
#include <stdatomic.h>

#define CM_CACHELINE 64
#define CM_SEG_MAGIC   0x31697061726f6d63ULL /* "cmoraapi1" (any fixed value) */
#define CM_SEG_VERSION 4u /* 3: dyn area's knocks (another job maps this segment); 4: slot reuse (gen, reuse_epoch) */

/* Environment contract between mpirun and the ranks. */
#define CM_ENV_RANK   "COREMPI_RANK"
#define CM_ENV_SIZE   "COREMPI_SIZE"
#define CM_ENV_SHM_FD "COREMPI_SHM_FD"

/* Bad environment settings the header remembers having warned about. */
#define CM_SEG_ENV_WARNED 32

/* Header flags.  CM_SEG_OVERSUBSCRIBED is written once, by mpirun when it
 * creates the segment, and never changed (not even when a spawn makes the
 * processes outnumber the cores): each process reads it at MPI_Init, and
 * collective code picks an epoch's kind of sync by it, which every member of
 * a communicator must pick alike.  A spawned child that saw it set while its
 * parents did not waited forever for a counted release (docs/spawn.md). */
#define CM_SEG_OVERSUBSCRIBED 0x1u /* more ranks than usable cores: do not spin */

/* The first byte of a fatal error line that names no argument but points at
 * another rank's line (held_ranks below); abort_flag 3 says such a line ended
 * the job. */
#define CM_SEG_HOLD_MARK '\x01'
#define CM_SEG_ABORT_HELD 3u

/* Rank states (cm_rank_ctl.state). */
enum cm_rank_state {
    CM_RANK_STARTING = 0, /* forked, MPI_Init not yet done */
    CM_RANK_RUNNING = 1,  /* between MPI_Init and MPI_Finalize */
    CM_RANK_FINALIZED = 2,
    CM_RANK_ABORTED = 3   /* called MPI_Abort or died on a fatal MPI error */
};

struct cm_seg_header {
    uint64_t magic;
    uint32_t version;
    uint32_t nranks;
    uint64_t total_bytes;
    uint64_t ctl_off;      /* nranks * sizeof(struct cm_rank_ctl) */
    uint64_t ringctl_off;  /* nranks * nranks consumer lines (struct cm_ring_ctl) */
    uint64_t ring_off;     /* nranks * nranks rings of ring_bytes each */
    uint64_t ring_bytes;   /* one ring, control lines included; power of two */
    uint64_t coll_off;     /* collective areas (src/coll), coll_bytes in all */
    uint64_t coll_bytes;
    uint64_t dyn_off;      /* struct cm_dyn_area (shm/dyn.h) */
    int32_t launcher_pid;  /* 0 for a singleton */
    uint32_t flags;        /* CM_SEG_* */
    uint32_t ncores;       /* cores the job may use */
    /* Slots [0, held_ranks) write their stderr through mpirun's forwarder
     * (launch/iofwd.c), which holds a line that starts with CM_SEG_HOLD_MARK
     * until the ranks' other error lines are out (launch/watch.c); 0: it
     * does not (terminals, no mpirun), so no rank marks a line.  Written by
     * mpirun before the ranks start. */
    uint32_t held_ranks;
    /* Written once by the first rank that aborts (compare-and-swap from 0). */
    _Alignas(CM_CACHELINE) _Atomic uint32_t abort_flag;
    int32_t abort_code;
    int32_t abort_rank;
    /* Processes whose sleeps run a global memory barrier (wait.h): while
     * it equals slots_used, wakers drop their own fence. */
    _Alignas(CM_CACHELINE) _Atomic uint32_t fence_free_ranks;
    /* Slots [0, slots_used) are or were used: progress polls only their
     * rings.  Raised by mpirun (spawn) before the new processes start. */
    _Alignas(CM_CACHELINE) _Atomic uint32_t slots_used;
    /* Raised by mpirun each time it gives a finished child's slots to new
     * children (after it raised those slots' gen): progress compares it,
     * on the line it reads anyway, to find the slots to reset (p2p/reuse.c). */
    _Atomic uint32_t reuse_epoch;
    /* Hashes of the bad COREMPI_* settings some rank has warned about
     * (core/env.c, cm_env_warn), 0 = free: one warning per job, not one per rank. */
    _Alignas(CM_CACHELINE) _Atomic uint64_t env_warned[CM_SEG_ENV_WARNED];
};

#define CM_BLOCKED_UNSEEN 0x80000000u

/*
 * One per rank.  Line A is written by the owner only (launcher reads it for
 * diagnostics); line C is the doorbell other ranks ring.
 */
struct cm_rank_ctl {
    /* line A: owner-written status */
    _Alignas(CM_CACHELINE) int32_t pid;   /* set by the child before exec */
    int32_t bound_core;                   /* -1 when not bound */
    _Atomic uint32_t state;               /* enum cm_rank_state */
    uint32_t last_call;                   /* cm_call_id of the last MPI call entered */
    /* The call it is blocked in, 0 when not blocked; with CM_BLOCKED_UNSEEN
     * when the wait may end by something mpirun cannot see (p2p/blocked.h). */
    uint32_t blocked_call;
    int32_t blocked_peer;                 /* world rank or MPI_ANY_SOURCE */
    int32_t blocked_tag;
    uint32_t blocked_ctx;                 /* communicator context id */
    _Atomic uint64_t progress;            /* grows whenever this rank moves a message */
    int32_t exit_code;                    /* MPI_Abort code when state == ABORTED */
    _Atomic uint32_t fence_joined;        /* 1: counted in fence_free_ranks (shm/wait.h) */
    /* Set (never cleared) by a rank that sends this one one-sided active
     * messages although this one did not expect any (osc/am.c): from then
     * on its waits run progress (p2p's cm_progress_quiet).  The one word of
     * line A others write, once. */
    _Atomic uint32_t am_wanted;
    char pad_a2[CM_CACHELINE - 52];
    char gap_b[CM_CACHELINE];             /* keeps A and C on separate line pairs */
    /* line C: doorbell (futex word) rung by ranks that may unblock this one */
    _Alignas(CM_CACHELINE) _Atomic uint32_t doorbell;
    _Atomic uint32_t sleeping;            /* 1 while waiting on the futex */
    char pad_c[CM_CACHELINE - 8];
    /* line D: how many times mpirun gave this slot to a new process
     * (written by mpirun only, before the new process starts).  A ring's
     * positions start at cm_seg_ring_base() of its two ends' generations. */
    _Alignas(CM_CACHELINE) _Atomic uint32_t gen;
    char pad_d[CM_CACHELINE - 4];
};

_Static_assert(sizeof(struct cm_rank_ctl) == 4 * CM_CACHELINE, "control block is 4 lines");

/* One step of a rank's progress counter, read by mpirun's deadlock watch
 * (the owner is its only writer: a plain store, no locked instruction). */
static inline void cm_progress_bump(struct cm_rank_ctl *me)
{
    atomic_store_explicit(&me->progress, atomic_load_explicit(&me->progress, memory_order_relaxed) + 1,
                          memory_order_relaxed);
}

/* Compute offsets and the total size for nranks; fills *h (header fields only). */
size_t cm_seg_layout(uint32_t nranks, struct cm_seg_header *h);
/* Write the header at base (the memory must be zero-filled). */
void cm_seg_format(void *base, const struct cm_seg_header *h);
/* Check a mapped segment's header; returns 0 or -1 with a reason in *why. */
int cm_seg_check(const void *base, size_t mapped_bytes, const char **why);

static inline struct cm_rank_ctl *cm_seg_ctl(void *base, uint32_t rank)
{
    const struct cm_seg_header *h = (const struct cm_seg_header *)base;
    return (struct cm_rank_ctl *)((char *)base + h->ctl_off) + rank;
}

/* Where the positions of the ring between two slots of generations ga and
 * gb start.  A slot given to a new process starts its rings 2^24 slots of
 * sequence numbers away from those of its previous occupant, so that a peer
 * that has not yet reset its state for the slot (p2p/reuse.c) never takes a
 * new message for the next one of the old sequence (a header's seq is its
 * position + 1, 32 bits).  Slots never reused keep base 0. */
static inline uint64_t cm_seg_ring_base(uint32_t ga, uint32_t gb)
{
    return (uint64_t)(ga + gb) << 24;
}

/* The consumer's published read position of one ring: written by dst, read by src. */
struct cm_ring_ctl {
    _Alignas(CM_CACHELINE) _Atomic uint64_t rpos; /* slots consumed so far */
    char pad[2 * CM_CACHELINE - 8];
};

static inline struct cm_ring_ctl *cm_seg_ringctl(void *base, uint32_t src, uint32_t dst)
{
    const struct cm_seg_header *h = (const struct cm_seg_header *)base;
    return (struct cm_ring_ctl *)((char *)base + h->ringctl_off) + ((uint64_t)dst * h->nranks + src);
}

/* The ring carrying messages from src to dst: it lives in dst's part of the segment. */
static inline void *cm_seg_ring(void *base, uint32_t src, uint32_t dst)
{
    const struct cm_seg_header *h = (const struct cm_seg_header *)base;
    return (char *)base + h->ring_off + ((uint64_t)dst * h->nranks + src) * h->ring_bytes;
}

#endif
