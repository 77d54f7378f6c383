/*
 * osc.h -- one-sided communication: the window object, the shared control
 * area every rank of a window maps, and what the files of src/osc/ offer
 * each other.  docs/osc.md argues the protocols.
 *
 * A window's memory is either
 *   - shared (Win_allocate, Win_allocate_shared): one memfd mapping that
 *     every rank maps; rank r's part is at peer[r].local.  Put/Get/Accumulate
 *     are the origin's own loads and stores there;
 *   - the user's (Win_create, Win_create_dynamic): reached with
 *     process_vm_readv/writev at addresses of rank r's address space
 *     (shm/cma.h), or by plain loads and stores for the rank itself.
 * Either way the window has a control area in a memfd mapping (the same
 * one as the data for shared windows): the fence counter, and per rank the
 * passive-target lock word, the accumulate lock and the PSCW counters.
 *
 * Invariants:
 *  - Counters in the control area only grow (wrap-safe compares); nothing
 *    is reset while the window lives; zero is every word's initial state
 *    (ftruncate zero-fills the memfd).
 *  - Words written by different ranks sit on different 64-byte lines.
 *  - An operation is complete (locally and at the target) when its call
 *    returns: every copy is made by the origin itself, or by the kernel on
 *    its behalf, before the call returns.  So flush and complete only order
 *    memory (docs/osc.md, "Completion").  The one exception: without single
 *    copy (am.c) a Put or Accumulate on user memory completes at the target
 *    when the flush, unlock, fence, complete or free after it returns
 *    (cm_osc_am_drain).
 */
#ifndef CM_OSC_OSC_H
#define CM_OSC_OSC_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "mpi.h"

struct cm_datatype;

#define CM_OSC_EXCL 0x80000000u  /* lock word: held exclusively */
/* Attached regions per rank of a dynamic window.  Their table follows the
 * control area (dynamic windows only): 16 bytes a region, 64 KiB a rank of
 * address space, but a memfd's pages exist only once written, so a rank
 * that attaches k regions costs about 16k bytes of memory. */
#define CM_OSC_DYN_MAX 4096

/* Per-rank lines of the shared control area. */
struct cm_osc_rank_ctl {
    /* Passive-target lock of this rank's memory: CM_OSC_EXCL, or the
     * number of shared holders. */
    _Alignas(64) _Atomic uint32_t lock;
    _Atomic uint32_t lock_sleepers;
    char pad_a[64 - 8];
    char gap_a[64];
    /* Accumulate lock (for what CPU atomics cannot do): 0 free, 1 held. */
    _Alignas(64) _Atomic uint32_t acc;
    _Atomic uint32_t acc_sleepers;
    char pad_b[64 - 8];
    char gap_b[64];
    /* PSCW, this rank as a target: Win_complete calls of its origins. */
    _Alignas(64) _Atomic uint32_t completed;
    _Atomic uint32_t completed_sleepers;
    char pad_c[64 - 8];
    /* PSCW, this rank as an origin: grows after every post addressed to
     * it (the futex word it sleeps on in Win_start). */
    _Alignas(64) _Atomic uint32_t bell;
    _Atomic uint32_t bell_sleepers;
    char pad_d[64 - 8];
    /* Dynamic windows: how many regions this rank attached (its part of
     * the region table, struct cm_win's dyn), written by the owner only,
     * under a sequence count (odd while it writes). */
    _Alignas(64) _Atomic uint32_t dyn_seq;
    uint32_t dyn_count;
};

/* An attached region of a dynamic window. */
struct cm_osc_region {
    uint64_t base, size;
};

/* The head of the control area. */
struct cm_osc_ctl {
    _Alignas(64) _Atomic uint32_t fence_arrived;   /* grows by one per rank per barrier */
    _Atomic uint32_t fence_sleepers;
    char pad[64 - 8];
    char gap[64];
    /* then: struct cm_osc_rank_ctl rank[n]; uint32_t posted[n][n] */
};

/* What an origin knows about each rank of the window (from creation). */
struct cm_osc_peer {
    char *local;          /* its memory in this process (shared windows, and self), else NULL */
    uint64_t addr;        /* its base in its own address space (CMA) */
    MPI_Aint size;
    int disp_unit;
    pid_t pid;
    uint64_t win;         /* its struct cm_win, in its process (am.c checks it) */
    int shared;           /* every rank reaches its memory by loads and stores (local) */
    char *map;            /* Win_create on Alloc_mem memory: our mapping of it, to unmap */
    size_t map_len;
};

enum cm_osc_epoch_lock { CM_OSC_UNLOCKED = 0, CM_OSC_LOCK_SHARED = 1, CM_OSC_LOCK_EXCL = 2 };

struct cm_win {
    MPI_Win handle;
    int flavor;              /* MPI_WIN_FLAVOR_* */
    int rank, size;
    MPI_Group group;         /* the comm's group (Win_get_group hands out copies) */
    int *world_of;           /* window rank -> world rank */
    struct cm_osc_peer *peer;
    void *base;              /* my base as the user sees it (attribute MPI_WIN_BASE) */
    MPI_Aint my_size;
    int my_disp_unit;
    /* Shared mapping: control area, then data (shared windows). */
    char *map;
    size_t map_bytes;
    struct cm_osc_ctl *ctl;
    struct cm_osc_rank_ctl *rctl;   /* [size] */
    _Atomic uint32_t *posted;       /* [size * size]: row o = posts to origin o, column t = from target t */
    struct cm_osc_region *dyn;      /* dynamic: [size][CM_OSC_DYN_MAX] in the mapping, else NULL */
    /* Epochs of this process. */
    uint32_t fence_epochs;   /* barriers done (each adds size to fence_arrived) */
    int fence_open;          /* the last fence had no NOSUCCEED: RMA calls may start its epoch */
    int fence_used;          /* ... and one did (epoch.c): the fence epoch is open until the next fence */
    int lock_all;            /* Win_lock_all held */
    int nlocks;              /* targets locked by Win_lock */
    unsigned char *lock;     /* [size]: enum cm_osc_epoch_lock per target */
    int *start_ranks;        /* Win_start's group (window ranks), NULL when none */
    int nstart;
    uint32_t *started;       /* [size]: posts from each target consumed by Win_start */
    uint32_t wait_expected;  /* completes the posts so far ask for (Win_wait) */
    int post_open;           /* Win_post without its Win_wait/Win_test yet */
    /* Without single copy (am.c): windows on user memory. */
    int am;                  /* operations on other ranks go as active messages */
    int am_listen;           /* counted in cm_p2p_am_listeners */
    uint64_t *am_sent;       /* [size]: Put/Accumulate messages sent to each target, NULL: none */
    uint64_t *am_acked;      /* [size]: ... and acknowledged */
    /* Objects. */
    MPI_Errhandler errh;
    MPI_Info info;
    char name[MPI_MAX_OBJECT_NAME];
    void *attrs;
    int noncontig;           /* alloc_shared_noncontig */
};

/* --- win.c: the handle table ----------------------------------------------- */
/* The window of a handle, or NULL. */
struct cm_win *cm_win_lookup(MPI_Win h);
/* Register w; MPI_WIN_NULL when the table cannot grow. */
MPI_Win cm_win_register(struct cm_win *w);
void cm_win_unregister(struct cm_win *w);
/* Check a window argument: the window, or NULL after raising MPI_ERR_WIN on
 * WORLD's handler (*rc gets the class). */
struct cm_win *cm_win_check(MPI_Win h, const char *call, int *rc);
/* cm_check_initialized, then cm_win_check. */
struct cm_win *cm_win_enter(MPI_Win h, const char *call, int *rc);
/* Raise errclass on w's error handler. */
int cm_win_error(struct cm_win *w, int errclass, const char *call, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* --- wait.c ------------------------------------------------------------------ */
/* Wait until cond(arg): poll, then (or at once when ranks outnumber cores)
 * sleep on the futex `word` announcing the sleep in `sleepers`.  Whoever
 * changes what cond reads changes `word` with a seq_cst RMW and then calls
 * cm_osc_wake(word, sleepers).  Point-to-point progress continues meanwhile.
 * cond may acquire what it tests (a lock's compare-and-swap): it is never
 * called again after it once returned non-zero.  peer (a world rank or
 * MPI_ANY_SOURCE) is whom mpirun's deadlock report names as awaited. */
void cm_osc_wait(_Atomic uint32_t *word, _Atomic uint32_t *sleepers, int (*cond)(void *), void *arg, int peer);
static inline void cm_osc_wake(_Atomic uint32_t *word, _Atomic uint32_t *sleepers);
/* The window's barrier (fence and free): over the control area's counter. */
void cm_osc_barrier(struct cm_win *w);

/* --- memblk.c: MPI_Alloc_mem's shared blocks ------------------------------------ */
#define CM_OSC_MEM_SHARED_MIN 4096   /* smaller Alloc_mem blocks are malloc memory */
/* A shared block of size bytes (page aligned), or NULL: take malloc memory. */
void *cm_osc_mem_alloc(size_t size);
/* Free base if it is a shared block: 1, else 0. */
int cm_osc_mem_free(void *base);
/* Is [p, p + len) inside a shared block?  1 with its descriptor and the
 * offset of p in it, else 0. */
int cm_osc_mem_find(const void *p, size_t len, int *fd, size_t *off);
/* Win_create targets whose memory this process maps directly (tests). */
extern uint64_t cm_osc_direct_targets;

/* --- map.c: the shared mapping ----------------------------------------------- */
/* Rank 0 of the window creates a memfd of `bytes`, the others map it through
 * /proc/<pid>/fd; collective over comm.  The mapping, or NULL with *why set
 * (every rank learns of a failure). */
char *cm_osc_map_shared(MPI_Comm comm, size_t bytes, const char **why);

/* --- copy.c: bulk copies ------------------------------------------------------ */
/* memcpy for Put/Get data into or out of mapped window memory, in pieces
 * chosen by size (copy.c's table); no overlap. */
void cm_osc_copy(void *dst, const void *src, size_t n);

/* --- xfer.c: moving data to and from a target --------------------------------- */
/* Where the target data is: local pointer (shared memory or self) or an
 * address of process pid. */
struct cm_osc_tgt {
    char *local;     /* non-NULL: here */
    uint64_t addr;   /* else: CMA at addr in pid */
    pid_t pid;
};
/* Target location of (rank, disp) in w, after the range check of count
 * elements of t; 0 or an error class with the message raised by the caller
 * (the text in why). */
int cm_osc_target(struct cm_win *w, int rank, MPI_Aint disp, int count, const struct cm_datatype *t,
                  struct cm_osc_tgt *out, char *why, size_t whylen);
/* Call fn on each contiguous run of count elements of t: byte offset from
 * the buffer's start, length. Stops when fn returns non-zero (returned). */
int cm_osc_for_each_block(int count, const struct cm_datatype *t,
                          int (*fn)(MPI_Aint off, size_t len, void *arg), void *arg);
/* Packed bytes <-> target (count elements of t at tgt).  0, or -1 when the
 * kernel refused a single copy. */
int cm_osc_write(const struct cm_osc_tgt *tgt, int count, const struct cm_datatype *t, const void *packed);
int cm_osc_read(const struct cm_osc_tgt *tgt, int count, const struct cm_datatype *t, void *packed);

/* --- acc.c: applying accumulates --------------------------------------------- */
/* One accumulate's element: op and basic type. */
struct cm_osc_elem {
    MPI_Op op;
    MPI_Datatype basic;
    MPI_Aint extent;     /* the basic type's extent: its C type's size */
    size_t align;        /* the alignment its op kernel needs: a power of two */
};
void cm_osc_elem_init(struct cm_osc_elem *e, MPI_Op op, MPI_Datatype basic);
/* n packed elements (es bytes apart) of origin data o into t, old values to
 * `old` first when non-NULL; o is NULL under MPI_NO_OP.  The caller holds
 * the target's accumulate lock or an exclusive epoch (acc.c). */
void cm_osc_apply_locked(char *t, const char *o, char *old, size_t n, size_t es, const struct cm_osc_elem *e);

/* --- am.c: without single copy -------------------------------------------------- */
/* A window on user memory takes active messages from now on (creation,
 * before the barrier that ends it); close before it is destroyed. */
void cm_osc_am_open(struct cm_win *w);
void cm_osc_am_close(struct cm_win *w);
/* Some window expects active messages: waits nap shorter, as they do not
 * wake a sleeper. */
int cm_osc_am_live(void);
/* Operations sent as active messages so far (tests check the path taken). */
extern uint64_t cm_osc_am_ops;
/* Wait until every Put/Accumulate message sent to rank (-1: every rank)
 * was applied by the target. */
void cm_osc_am_drain(struct cm_win *w, int rank);
/* The operations as active messages; packed data as for cm_osc_write/read.
 * 0 or MPI_ERR_NO_MEM.  Fetching ones return complete; Put/Accumulate
 * complete at the target by cm_osc_am_drain. */
int cm_osc_am_put(struct cm_win *w, int rank, const struct cm_osc_tgt *tgt, int count, const struct cm_datatype *t,
                  const void *packed);
int cm_osc_am_get(struct cm_win *w, int rank, const struct cm_osc_tgt *tgt, int count, const struct cm_datatype *t,
                  void *packed);
int cm_osc_am_acc(struct cm_win *w, int rank, const struct cm_osc_tgt *tgt, int count, const struct cm_datatype *t,
                  const struct cm_osc_elem *e, const void *o, void *result);
int cm_osc_am_cas(struct cm_win *w, int rank, const struct cm_osc_tgt *tgt, const struct cm_datatype *t,
                  const void *origin, const void *compare, void *result);

/* --- epoch.c ------------------------------------------------------------------- */
/* May this process access target `rank` now?  0 (marking the fence epoch
 * used when the access falls to it) or MPI_ERR_RMA_SYNC. */
int cm_osc_epoch_check(struct cm_win *w, int rank);
/* Common checks of an RMA call: win, target rank, epoch.  NULL after
 * raising (rc set). */
struct cm_win *cm_osc_begin(MPI_Win win, int rank, const char *call, int *rc);

/* A request born complete (the R* operations complete in their call). */
int cm_osc_done_request(MPI_Request *request);

/* --- obj.c ----------------------------------------------------------------------- */
/* Win_free: run the attributes' delete callbacks; 0 or the first failing one's code. */
int cm_osc_free_attrs(struct cm_win *w);

static inline void cm_osc_wake(_Atomic uint32_t *word, _Atomic uint32_t *sleepers)
{
    extern void cm_osc_wake_slow(_Atomic uint32_t *word);
    if (atomic_load(sleepers))
        cm_osc_wake_slow(word);
}

#endif
