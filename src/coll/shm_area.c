/*
 * shm_area.c -- per-communicator shared areas in the segment's collective
 * region, the epoch sync (fetch-add arrival, futex release), message counters
 * and single-copy reads.  Layout and epoch rules: shm.h.
 *
 * Region: [allocator line: lock, unit count][unit bitmap] then units of 4 KiB.
 * An area is a run of units.  Its leader (comm rank 0) takes the run under a
 * spin lock (allocation is rare: once per communicator), zeroes the sync
 * block and the counters, sets refs = n and broadcasts the offset over
 * point-to-point.  Each member drops one ref when its communicator is freed;
 * the last one gives the units back, so no member can still be reading.
 */
#include <mpi.h>
#ifdef CM_IN_COREMPI  /* corempi only: the host-MPI harness compiles every src/coll file */
#include "coll/shm.h"
#include "core/state.h"
#include "core/error.h"
#include "p2p/match.h"
#include "p2p/p2p.h"
#include "shm/wait.h"
#include "shm/copy.h"
#include "shm/cma.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define UNIT 4096u
#define LINE2 CM_SHM_FLAG_STRIDE      /* a writer's line plus the gap line */
#define RETRY_AFTER 256             /* calls before a failed comm tries again */

struct region {
    _Alignas(64) _Atomic uint32_t lock;
    uint32_t nunits;
    uint32_t first_unit;            /* units before it hold this header and the bitmap */
    uint32_t pad[13];
    _Atomic uint64_t bitmap[];      /* 1 = unit in use */
};

struct area_hdr {                   /* the sync block: five line pairs */
    _Alignas(128) _Atomic uint32_t refs;
    uint32_t units, first;
    char pad0[LINE2 - 12];
    _Alignas(128) _Atomic uint32_t arrive;
    char pad1[LINE2 - 4];
    _Alignas(128) _Atomic uint32_t release;   /* futex word */
    uint32_t verdict;               /* counter sync: 0, or 1 + a rank whose word differs from rank 0's */
    char pad2[LINE2 - 8];
    _Alignas(128) _Atomic uint32_t sleepers;
    char pad3[LINE2 - 4];
    _Alignas(128) struct cm_shm_meet meet;    /* used by 2-rank areas only */
    char pad4[LINE2 - sizeof(struct cm_shm_meet)];
};

struct progress_line {
    _Alignas(128) _Atomic uint64_t bytes;     /* futex on its low half */
    _Atomic uint32_t waiters;
};

/* The collective layer's per-communicator data.  glue.c owns the same
 * pointer (struct cm_coll_percomm, which starts with `unsigned nbc_seq`);
 * this struct starts with the same member so both can share c->coll. */
struct percomm {
    unsigned nbc_seq;
    struct cm_shm *shm;
    int failed_calls;               /* > 0: no area, calls since the failure */
};

static size_t env_size(const char *name, size_t def)
{
    return cm_env_size(name, def);
}

/* 16 KiB: with 4 KiB slots an alltoall of 1 KiB blocks at 8 ranks (8 KiB per
 * rank) fell to single copy, 61 us against 9 through 16 KiB slots, and 4 KiB
 * blocks at 2 ranks took 2.4 us against 0.6; allgather of 16 KiB blocks at 8
 * ranks 98 us against 26.  64 KiB slots helped 8 ranks further but made the
 * 2-rank allgather of 64 KiB slower (11-12 us vs 7.8): bench/coll.c, medians,
 * same session. */
static size_t slot_bytes_default(void)
{
    static size_t v;
    if (!v)
        v = (env_size("COREMPI_SHM_SLOT", 256 * 1024) + 63) & ~(size_t)63;
    return v;
}

size_t cm_shm_chunk(void)
{
    static size_t v;
    if (!v)
        v = env_size("COREMPI_SHM_CHUNK", 64 * 1024);
    return v ? v : 65536;
}

size_t cm_shm_cma_min(void)
{
    static size_t v;
    if (!v)
        v = env_size("COREMPI_SHM_CMA_MIN", slot_bytes_default() + 1);
    return v;
}

int cm_shm_chunked(const struct cm_shm *s, size_t bytes)
{
    static size_t v = (size_t)-1;
    if (v == (size_t)-1)
        v = (size_t)cm_env_flag("COREMPI_SHM_CHUNKED", 1);
    return v && bytes > s->slot_bytes;
}

void cm_shm_note(const char *fmt, ...)
{
    if (!(cm_g.verbose & CM_VERBOSE_COLL))
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "corempi: rank %d: ", cm_g.rank);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static long futex(void *addr, int op, uint32_t val, const struct timespec *ts)
{
    return syscall(SYS_futex, (uint32_t *)addr, op, val, ts, NULL, 0);
}

/* ---- layout ---------------------------------------------------------- */

static size_t flags_off(void) { return sizeof(struct area_hdr); }
static size_t progress_off(int n) { return flags_off() + (size_t)n * 2 * LINE2; }
static size_t results_off(int n) { return progress_off(n) + (size_t)n * LINE2; }
static size_t slots_off(int n, size_t slot) { return results_off(n) + 2 * slot; }
static size_t bfifo_off(int n, size_t slot) { return slots_off(n, slot) + (size_t)n * 2 * slot; }
static size_t rfifo_off(int n, size_t slot)
{
    return bfifo_off(n, slot) + CM_SHM_BFIFO_ENTRIES * sizeof(struct cm_shm_bfifo_entry);
}
static size_t backs_off(int n, size_t slot)
{
    return rfifo_off(n, slot) + (size_t)n * CM_SHM_RFIFO_ENTRIES * sizeof(struct cm_shm_rfifo_entry);
}
static size_t area_bytes(int n, size_t slot) { return backs_off(n, slot) + (size_t)n * LINE2; }

/* A rank's count of finished broadcast-FIFO calls (shm.h). */
struct bfifo_ack {
    _Alignas(128) _Atomic uint32_t done;
    _Atomic uint32_t waiters;
    char pad[LINE2 - 8];
};

static struct bfifo_ack *bfifo_ack(struct cm_shm *s, int r)
{
    return (struct bfifo_ack *)(s->base + backs_off(s->n, s->slot_bytes)) + r;
}

void cm_shm_bfifo_claim(struct cm_shm *s, uint32_t k)
{
    CM_FAULT(bfifo_claim);
    if (k < CM_SHM_BFIFO_ENTRIES)
        return;
    uint32_t need = k + 1 - CM_SHM_BFIFO_ENTRIES;
    if ((int32_t)(s->bfifo_clear - need) >= 0)
        return;
    uint32_t low = need + CM_SHM_BFIFO_ENTRIES;
    for (int r = 0; r < s->n; r++) {
        if (r == s->rank)
            continue;
        struct bfifo_ack *a = bfifo_ack(s, r);
        cm_shm_wait32(s, &a->done, &a->waiters, need);
        uint32_t v = atomic_load_explicit(&a->done, memory_order_acquire);
        if ((int32_t)(v - low) < 0)
            low = v;
    }
    s->bfifo_clear = low;
}

void cm_shm_bfifo_done(struct cm_shm *s, uint32_t k)
{
    CM_FAULT(bfifo_ack);
    if ((k + 1) % CM_SHM_BFIFO_ACK_EVERY != 0)
        return;
    struct bfifo_ack *a = bfifo_ack(s, s->rank);
    atomic_store_explicit(&a->done, k + 1, memory_order_release);
    cm_shm_wake32(&a->done, &a->waiters);
}

int cm_shm_bfifo_enabled(void)
{
    static int v = -1;
    if (v < 0)
        v = cm_env_flag("COREMPI_SHM_BFIFO", 1);
    return v;
}

int cm_shm_rfifo_enabled(void)
{
    static int v = -1;
    if (v < 0)
        v = cm_env_flag("COREMPI_SHM_RFIFO", 1);
    return v;
}

struct cm_shm_rfifo_entry *cm_shm_rfifo(struct cm_shm *s, int r, unsigned k)
{
    return (struct cm_shm_rfifo_entry *)(s->base + rfifo_off(s->n, s->slot_bytes)) +
           (size_t)r * CM_SHM_RFIFO_ENTRIES + k % CM_SHM_RFIFO_ENTRIES;
}

_Static_assert(CM_SHM_RFIFO_ACK_EVERY < CM_SHM_RFIFO_ENTRIES, "a claim must not wait for a later call");

/* The ack word is written by whichever rank consumed the latest calls,
 * every CM_SHM_RFIFO_ACK_EVERY calls, often from the other core: read on
 * every call it cost a line's trip across the cores every eighth call.
 * The last value read says how many calls ahead are free already. */
void cm_shm_rfifo_claim(struct cm_shm *s, uint32_t k)
{
    CM_FAULT(rfifo_claim);
    uint32_t need = k + 1 - CM_SHM_RFIFO_ENTRIES;
    if ((int32_t)(s->rfifo_clear - need) >= 0)
        return;
    struct cm_shm_rfifo_entry *a = cm_shm_rfifo(s, s->rank, 0);
    cm_shm_wait32(s, &a->ack, &a->ack_waiters, need);
    s->rfifo_clear = atomic_load_explicit(&a->ack, memory_order_acquire);
}

void cm_shm_rfifo_done(struct cm_shm *s, uint32_t k)
{
    CM_FAULT(rfifo_ack);
    if ((k + 1) % CM_SHM_RFIFO_ACK_EVERY != 0)
        return;
    for (int r = 0; r < s->n; r++)
        atomic_store_explicit(&cm_shm_rfifo(s, r, 0)->ack, k + 1, memory_order_release);
    cm_wake_fence_fifo();   /* as in cm_shm_wake32: its sleepers wait in cm_shm_wait32 */
    CM_FAULT(fifo_wake);
    for (int r = 0; r < s->n; r++) {
        struct cm_shm_rfifo_entry *a = cm_shm_rfifo(s, r, 0);
        if (atomic_load_explicit(&a->ack_waiters, memory_order_relaxed))
            futex(&a->ack, FUTEX_WAKE, INT_MAX, NULL);
    }
}

struct cm_shm_bfifo_entry *cm_shm_bfifo(struct cm_shm *s, unsigned i)
{
    return (struct cm_shm_bfifo_entry *)(s->base + bfifo_off(s->n, s->slot_bytes)) + i % CM_SHM_BFIFO_ENTRIES;
}




void *cm_shm_result(struct cm_shm *s, int p)
{
    return s->base + results_off(s->n) + (size_t)p * s->result_bytes;
}

_Atomic uint64_t *cm_shm_progress(struct cm_shm *s, int r)
{
    return &((struct progress_line *)(s->base + progress_off(s->n)))[r].bytes;
}

static struct progress_line *progress_line(struct cm_shm *s, int r)
{
    return (struct progress_line *)(s->base + progress_off(s->n)) + r;
}

static struct area_hdr *hdr(struct cm_shm *s) { return (struct area_hdr *)s->base; }

/* ---- the region allocator --------------------------------------------- */

static struct region *region(void)
{
    struct cm_seg_header *h = cm_g.hdr;
    if (!cm_g.seg || !h || h->coll_bytes < 4 * UNIT)
        return NULL;
    struct region *g = (struct region *)((char *)cm_g.seg + h->coll_off);
    return g;
}

static void lock(struct region *g)
{
    uint32_t z = 0;
    while (!atomic_compare_exchange_weak_explicit(&g->lock, &z, 1, memory_order_acquire, memory_order_relaxed)) {
        z = 0;
        sched_yield();
    }
}

static void unlock(struct region *g) { atomic_store_explicit(&g->lock, 0, memory_order_release); }

static int unit_used(struct region *g, uint32_t u)
{
    return (atomic_load_explicit(&g->bitmap[u / 64], memory_order_relaxed) >> (u % 64)) & 1;
}

static void unit_set(struct region *g, uint32_t u, int used)
{
    uint64_t bit = (uint64_t)1 << (u % 64);
    if (used)
        atomic_fetch_or_explicit(&g->bitmap[u / 64], bit, memory_order_relaxed);
    else
        atomic_fetch_and_explicit(&g->bitmap[u / 64], ~bit, memory_order_relaxed);
}

/* The region is zero at job start: the first caller (under the lock) fills in
 * the unit count.  Returns the first unit of a free run of `units`, or -1. */
static long take_units(struct region *g, uint32_t units)
{
    lock(g);
    if (!g->nunits) {
        uint32_t total = (uint32_t)(cm_g.hdr->coll_bytes / UNIT);
        size_t head = sizeof(struct region) + ((size_t)total + 63) / 64 * 8;
        g->first_unit = (uint32_t)((head + UNIT - 1) / UNIT);
        g->nunits = total;
    }
    long found = -1;
    for (uint32_t u = g->first_unit, run = 0; u < g->nunits; u++) {
        run = unit_used(g, u) ? 0 : run + 1;
        if (run == units) {
            found = (long)(u + 1 - units);
            break;
        }
    }
    for (long u = found; found >= 0 && u < found + (long)units; u++)
        unit_set(g, (uint32_t)u, 1);
    unlock(g);
    return found;
}

static void give_units(struct region *g, uint32_t first, uint32_t units)
{
    lock(g);
    for (uint32_t u = first; u < first + units; u++)
        unit_set(g, u, 0);
    unlock(g);
}

/* ---- attach / detach -------------------------------------------------- */

static void percomm_free(void *p)
{
    struct percomm *pc = p;
    if (pc && pc->shm == cm_shm_recent)
        cm_shm_recent = NULL;
    if (pc && pc->shm) {
        /* Nonblocking collectives still running here finish first (they
         * use the area; the others finish theirs in their Comm_free too). */
        cm_shm_nbc_drain(pc->shm);
        struct area_hdr *a = hdr(pc->shm);
        if (atomic_fetch_sub_explicit(&a->refs, 1, memory_order_acq_rel) == 1) {
            struct region *g = region();
            if (g)
                give_units(g, a->first, a->units);
        }
        free(pc->shm);
    }
    free(pc);
}

static struct percomm *percomm_of(struct cm_comm *c)
{
    if (c->coll && c->coll_free == percomm_free)
        return c->coll;
    struct percomm *pc = calloc(1, sizeof *pc);
    if (!pc)
        return NULL;
    if (c->coll) {                  /* glue.c's struct: keep its sequence number */
        pc->nbc_seq = *(unsigned *)c->coll;
        if (c->coll_free)
            c->coll_free(c->coll);
    }
    c->coll = pc;
    c->coll_free = percomm_free;
    return pc;
}

/* Leader: take units and prepare the area; returns its offset in the region or -1. */
static long create_area(int n, size_t slot)
{
    struct region *g = region();
    if (!g)
        return -1;
    size_t bytes = area_bytes(n, slot);
    uint32_t units = (uint32_t)((bytes + UNIT - 1) / UNIT);
    long first = take_units(g, units);
    if (first < 0)
        return -1;
    char *base = (char *)g + (size_t)first * UNIT;
    /* Only the sync block and the counters must start from zero: everything
     * else is written before it is read in each epoch.  The flag lines hold
     * counters too (`arrived`): a recycled area must not show an old
     * communicator's epochs. */
    memset(base, 0, sizeof(struct area_hdr));
    memset(base + flags_off(), 0, (size_t)n * 2 * LINE2);
    memset(base + progress_off(n), 0, (size_t)n * LINE2);
    for (int i = 0; i < CM_SHM_BFIFO_ENTRIES; i++)     /* counters only, not the data */
        memset(base + bfifo_off(n, slot) + i * sizeof(struct cm_shm_bfifo_entry), 0, LINE2);
    memset(base + backs_off(n, slot), 0, (size_t)n * LINE2);
    memset(base + rfifo_off(n, slot), 0, (size_t)n * CM_SHM_RFIFO_ENTRIES * sizeof(struct cm_shm_rfifo_entry));
    struct area_hdr *a = (struct area_hdr *)base;
    a->units = units;
    a->first = (uint32_t)first;
    atomic_store_explicit(&a->refs, (uint32_t)n, memory_order_release);
    return (long)first * UNIT;
}

struct cm_shm *cm_shm_recent;

struct cm_shm *cm_shm_peek_slow(MPI_Comm cc)
{
    struct cm_comm *c = cm_comm_lookup(cc, NULL);
    if (!c || !c->coll || c->coll_free != percomm_free)
        return NULL;
    struct cm_shm *s = ((struct percomm *)c->coll)->shm;
    if (s)
        cm_shm_recent = s;
    return s;
}

struct cm_shm *cm_shm_get(MPI_Comm cc, const char *coll)
{
    struct cm_comm *c = cm_comm_lookup(cc, NULL);
    if (!c)
        return NULL;
    struct percomm *pc = percomm_of(c);
    if (!pc)
        return NULL;
    if (pc->shm) {
        if (pc->shm->nbc_head)
            cm_shm_nbc_drain(pc->shm);
        return pc->shm;
    }
    /* Every member counts the same calls, so they retry together. */
    if (pc->failed_calls > 0 && pc->failed_calls++ < RETRY_AFTER)
        return NULL;
    size_t slot = slot_bytes_default();
    int64_t msg[2] = { -1, 0 };
    if (c->rank == 0) {
        msg[0] = create_area(c->size, slot);
        msg[1] = cm_g.cma_ok;
    }
    if (c->size > 1 && cm_coll_bcast_binomial_ordered(msg, 2, MPI_INT64_T, 0, cc) != MPI_SUCCESS)
        msg[0] = -1;                /* cannot happen without the leader knowing too */
    if (msg[0] < 0) {
        pc->failed_calls = 1;
        if (c->rank == 0)
            cm_shm_note("no free shared-memory collective area for a communicator of %d ranks "
                        "(%s): using point-to-point algorithms", c->size, coll);
        return NULL;
    }
    struct cm_shm *s = calloc(1, sizeof *s);
    if (!s)
        cm_fatal(coll, "out of memory");
    s->base = (char *)region() + msg[0];
    s->flags = s->base + flags_off();
    s->slots = s->base + slots_off(c->size, slot);
    if (c->size == CM_SHM_MEET_RANKS)
        s->meet = &((struct area_hdr *)s->base)->meet;
    s->n = c->size;
    s->rank = c->rank;
    s->world_of = c->world_of;
    s->comm_index = cc & ~CM_COMM_COLL_BIT;
    s->slot_bytes = slot;
    s->result_bytes = slot;
    s->cma = (int)msg[1];
    pc->shm = s;
    pc->failed_calls = 0;
    return s;
}

/* ---- the epoch sync ----------------------------------------------------- */

/* A rank about to sleep in a collective tells mpirun's deadlock watcher, as
 * point-to-point waits do (peer: any; the call is the one it is in). */
static void announce_blocked(int blocked)
{
    struct cm_rank_ctl *me = cm_g.self_ctl;
    if (!me)
        return;
    if (blocked) {
        me->blocked_peer = MPI_ANY_SOURCE;
        me->blocked_tag = MPI_ANY_TAG;
        me->blocked_ctx = 0;
        me->blocked_call = me->last_call;
    } else {
        me->blocked_call = 0;
    }
}

static int backoff_when_oversubscribed(void)
{
    static int v = -1;
    if (v < 0)
        v = cm_env_flag("COREMPI_SHM_BACKOFF", 1);
    return v;
}

static int sync_yields(void)
{
    static int v = -1;
    if (v < 0)
        v = (int)cm_env_size("COREMPI_SHM_YIELDS", 0);
    return v;
}

/* A rank waiting in a shared-memory collective still owes progress to its
 * pending nonblocking operations and posted receives (MPI-4.1 §3.7.4,
 * §6.12): a peer may be blocked until one of our schedules sends its next
 * round, or until we drain the ring it fills towards a receive we posted,
 * and the peer may be the one we wait for (tests/mpi/nbc_progress.c:
 * Ibarrier on one communicator, Bcast on another, 5 ranks deadlocked;
 * tests/mpi/ring_progress.c: 4000 sends to posted receives, then a Bcast
 * from the sender, 2 ranks deadlocked).  So every
 * wait below runs the progress engine while anything is pending, and then
 * sleeps only briefly: a message for us rings our doorbell, not this word.
 * Returns the futex timeout to use. */
static const struct timespec long_nap = { 0, 200 * 1000000L };   /* a lost wake-up costs this, not a hang */

static const struct timespec *progress_pending(const struct timespec *normal)
{
    static const struct timespec brief = { 0, 100 * 1000L };
    if (cm_progress_quiet() && cm_match_idle())
        return normal;
    cm_progress(-1);
    return &brief;
}

/* Flag sync: up to this many ranks, each with a core, arrive by storing the
 * epoch in their own flag line and poll the others' lines.  Every rank reads
 * n - 1 lines but no line is written by two ranks: at 2 ranks a sync is one
 * line moving each way at once, where the counter needs an atomic
 * read-modify-write on one line and then the release word to move. */
#define FLAG_SYNC_MAX 8

/* Wake ranks sleeping on my arrival word.  The fence pairs with the
 * sleeper's (fetch-add on sleepers, membarrier, then re-read of my word): one
 * of us sees the other, so no wake-up is lost.  With fence-free wakers
 * (shm/wait.h) the sleeper's membarrier stands in for my fence: this is on
 * the path of every tiny collective with a core per rank. */
static void flag_wake(struct area_hdr *a, _Atomic uint64_t *mine)
{
    cm_wake_fence();
    CM_FAULT(sync_wake);
    if (atomic_load_explicit(&a->sleepers, memory_order_relaxed))
        futex((uint32_t *)mine, FUTEX_WAKE, INT_MAX, NULL);  /* the epoch half, little-endian */
}

/* Where rank r announces its arrival at an epoch of parity p: beside the
 * payload it may carry, in the meeting line or in its flag line. */
static _Atomic uint64_t *arrival_word(struct cm_shm *s, int r, int p)
{
    return s->meet ? &s->meet->arrived[r] : &cm_shm_flag(s, r, p)->arrived;
}

/* Wait until rank r's arrival word w reaches my epoch; me is my own arrival
 * word (epoch in the low half, the call's argument word in the high half).
 * Returns 0 when w shows exactly me (the same epoch and arguments: the usual
 * case, one comparison), else the value seen (another word, or an epoch
 * past mine).  Before sleeping, wake whoever sleeps on my word (*woken):
 * they may be the ones I wait for, waiting for me. */
static uint64_t await_arrival(struct area_hdr *a, _Atomic uint64_t *w, uint64_t me, _Atomic uint64_t *mine,
                              int *woken, int *announced)
{
    uint32_t e = (uint32_t)me;
    struct cm_waiter wt;
    cm_waiter_reset(&wt);
    const struct timespec *nap = &long_nap;
    unsigned polls = 0;
    for (;;) {
        uint64_t v = atomic_load_explicit(w, memory_order_acquire);
        if (v == me)
            return 0;
        if ((int32_t)((uint32_t)v - e) >= 0)
            return v;
        if ((polls++ & 63) == 0)   /* a call, not inline: not on every spin */
            nap = progress_pending(&long_nap);
        if (cm_wait_backoff(&wt))
            continue;
        if (!*woken) {
            flag_wake(a, mine);
            *woken = 1;
        }
        if (!*announced)
            announce_blocked(*announced = 1);
        atomic_fetch_add_explicit(&a->sleepers, 1, memory_order_seq_cst);
        cm_wait_sleeper_barrier();
        CM_FAULT(sync_sleep);
        v = atomic_load_explicit(w, memory_order_seq_cst);
        if ((int32_t)((uint32_t)v - e) < 0)
            futex((uint32_t *)w, FUTEX_WAIT, (uint32_t)v, nap);
        atomic_fetch_sub_explicit(&a->sleepers, 1, memory_order_relaxed);
    }
}

/* After the others arrived: the wake-up owed to sleepers on my word.
 * Checked now, not right after my store: by now the store has left the store
 * buffer, so the fence does not wait for the line to change hands.  A rank
 * that went to sleep waiting for me is woken here at the latest. */
static void flag_sync_end(struct area_hdr *a, _Atomic uint64_t *mine, int woken, int announced)
{
    if (announced)
        announce_blocked(0);
    CM_FAULT(sync_leave);
    if (!woken)
        flag_wake(a, mine);
}

/* A rank seen at my epoch with another word (await_arrival returned seen,
 * not 0) took part in the same sync with other arguments.  A rank seen past
 * my epoch (the meeting line has one word per rank) had already compared
 * its word with mine and found it equal, or it would have stopped there. */
static int other_word(int r, uint64_t seen, uint64_t me)
{
    if ((uint32_t)seen != (uint32_t)me)
        return 0;
    cm_shm_mismatch_seen(r, (uint32_t)(me >> 32), (uint32_t)(seen >> 32));
    return 1;
}

static void flag_sync(struct cm_shm *s, uint32_t e)
{
    struct area_hdr *a = hdr(s);
    int p = (int)(e & 1);
    _Atomic uint64_t *mine = arrival_word(s, s->rank, p);
    uint64_t me = (uint64_t)cm_shm_word << 32 | e;
    atomic_store_explicit(mine, me, memory_order_release);
    int woken = 0, announced = 0;
    for (int i = 1, r = s->rank + 1; i < s->n; i++, r++) {
        if (r == s->n)          /* the others from mine on, without a division */
            r = 0;
        uint64_t seen = await_arrival(a, arrival_word(s, r, p), me, mine, &woken, &announced);
        if (__builtin_expect(seen != 0, 0))
            other_word(r, seen, me);
    }
    flag_sync_end(a, mine, woken, announced);
}

/* Off the shortcuts' path: the other rank's arrival showed another word.
 * (My rank is where mine sits in the meeting line: s need not stay live
 * across the wait.) */
static __attribute__((noinline, cold)) void meet_other_word(struct area_hdr *a, uint64_t seen,
                                                            _Atomic uint64_t *mine, int woken, int announced)
{
    flag_sync_end(a, mine, woken, announced);
    int rank = (int)(mine - a->meet.arrived);
    other_word(rank ^ 1, seen, atomic_load_explicit(mine, memory_order_relaxed));
}

void cm_shm_meet_sync(struct cm_shm *s, uint32_t word)
{
    struct area_hdr *a = hdr(s);
    CM_FAULT(sync_arrive);
    uint32_t e = ++s->epoch;
    _Atomic uint64_t *mine = &s->meet->arrived[s->rank];
    uint64_t me = (uint64_t)word << 32 | e;
    atomic_store_explicit(mine, me, memory_order_release);
    int woken = 0, announced = 0;
    uint64_t seen = await_arrival(a, &s->meet->arrived[s->rank ^ 1], me, mine, &woken, &announced);
    if (__builtin_expect(seen != 0, 0))
        meet_other_word(a, seen, mine, woken, announced);
    else
        flag_sync_end(a, mine, woken, announced);
}

/* COREMPI_SHM_SYNC=flags|counter overrides the choice below (tests force
 * flag syncs on oversubscribed jobs, where they must sleep and be woken). */
static int sync_kind(void)
{
    static int v = -1;
    if (v < 0) {
        const char *e = getenv("COREMPI_SHM_SYNC");
        v = !e || !*e ? 0 : !strcmp(e, "flags") ? 1 : !strcmp(e, "counter") ? 2 : -1;
        if (v < 0) {
            cm_env_warn("COREMPI_SHM_SYNC", e, "is not a kind of sync (flags, counter); using the default choice");
            v = 0;
        }
    }
    return v;
}

static int use_flag_sync(const struct cm_shm *s)
{
    switch (sync_kind()) {
    case 1: return 1;
    case 2: return 0;
    default: return !cm_g.oversubscribed && s->n <= FLAG_SYNC_MAX;
    }
}

int cm_shm_flag_syncs(const struct cm_shm *s) { return use_flag_sync(s); }

/* The counter sync's last arrival: which rank's word differs from rank 0's
 * (every member stored its word in its flag line before arriving). */
static uint32_t words_verdict(struct cm_shm *s, int p)
{
    uint32_t w0 = (uint32_t)(atomic_load_explicit(&cm_shm_flag(s, 0, p)->arrived, memory_order_relaxed) >> 32);
    for (int r = 1; r < s->n; r++)
        if ((uint32_t)(atomic_load_explicit(&cm_shm_flag(s, r, p)->arrived, memory_order_relaxed) >> 32) != w0)
            return (uint32_t)r + 1;
    return 0;
}

/* A member of a counter sync whose verdict named a rank: the rank to blame
 * from where I stand (rank 0 when my word is not rank 0's). */
static void verdict_seen(struct cm_shm *s, int p, uint32_t verdict)
{
    uint32_t w0 = (uint32_t)(atomic_load_explicit(&cm_shm_flag(s, 0, p)->arrived, memory_order_relaxed) >> 32);
    int peer = cm_shm_word != w0 ? 0 : (int)verdict - 1;
    uint32_t theirs =
        (uint32_t)(atomic_load_explicit(&cm_shm_flag(s, peer, p)->arrived, memory_order_relaxed) >> 32);
    cm_shm_mismatch_seen(peer, cm_shm_word, theirs);
}

static void await_release(struct cm_shm *s, uint32_t e, uint32_t seen);

void cm_shm_sync(struct cm_shm *s, void (*last)(void *), void *arg)
{
    if (__builtin_expect(cm_shm_mm.on, 0))
        return;             /* this call's arguments disagree: everyone stops (shm.h) */
    struct area_hdr *a = hdr(s);
    CM_FAULT(sync_arrive);
    uint32_t e = ++s->epoch;
    if (!last && use_flag_sync(s)) {
        flag_sync(s, e);
        return;
    }
    /* Only syncs that count arrivals here advance the counter; every member
     * takes the same kind of sync for the same epoch, so all agree on k. */
    uint32_t k = ++s->counted_syncs;
    int p = (int)(e & 1);
    atomic_store_explicit(&cm_shm_flag(s, s->rank, p)->arrived, (uint64_t)cm_shm_word << 32 | e,
                          memory_order_relaxed);       /* ordered by the fetch-add */
    uint32_t old = atomic_fetch_add_explicit(&a->arrive, 1, memory_order_acq_rel);
    CM_FAULT(sync_count);
    if (old + 1 == k * (uint32_t)s->n) {
        uint32_t verdict = words_verdict(s, p);
        a->verdict = verdict;
        if (verdict)
            verdict_seen(s, p, verdict);
        else if (last)      /* a mismatch: the arguments of `last` do not agree either */
            last(arg);
        atomic_store_explicit(&a->release, e, memory_order_release);
        cm_wake_fence();
        CM_FAULT(sync_wake);
        if (atomic_load_explicit(&a->sleepers, memory_order_relaxed))
            futex(&a->release, FUTEX_WAKE, INT_MAX, NULL);
        return;
    }
    await_release(s, e, old + 1);
}

/* A counted sync's waiter: until the last arrival releases epoch e
 * (`seen`: the arrival count this rank last saw). */
static void await_release(struct cm_shm *s, uint32_t e, uint32_t seen)
{
    struct area_hdr *a = hdr(s);
    int p = (int)(e & 1);
    struct cm_waiter w;
    cm_waiter_reset(&w);
    int yields = 0, announced = 0, budget = sync_yields();
    const struct timespec *nap = &long_nap;
    unsigned polls = 0;
    for (;;) {
        uint32_t v = atomic_load_explicit(&a->release, memory_order_acquire);
        if ((int32_t)(v - e) >= 0) {
            if (announced)
                announce_blocked(0);
            CM_FAULT(sync_leave);
            if (__builtin_expect(a->verdict != 0, 0))
                verdict_seen(s, p, a->verdict);
            return;
        }
        /* Oversubscribed, cm_wait_backoff yields twice before we sleep.
         * Sleeping at once (COREMPI_SHM_BACKOFF=0) saves those trips through
         * the scheduler (7.5 instead of 8-9 switches per 8-rank barrier) but
         * measured 2-4x slower when other jobs share the cores: a woken
         * sleeper waits for their time slices, a yielder does not. */
        if ((polls++ & 63) == 0)   /* a call, not inline: not on every spin */
            nap = progress_pending(&long_nap);
        if ((!cm_g.oversubscribed || backoff_when_oversubscribed()) && cm_wait_backoff(&w))
            continue;
        /* Oversubscribed: keep yielding while other members still arrive
         * (they run in our place, and nobody pays a wake-up); sleep once
         * arrivals stall, so an idle job does not poll. */
        uint32_t now = atomic_load_explicit(&a->arrive, memory_order_relaxed);
        if (now != seen) {
            seen = now;
            yields = 0;
        }
        if (yields++ < budget) {
            sched_yield();
            continue;
        }
        if (!announced)
            announce_blocked(announced = 1);
        atomic_fetch_add_explicit(&a->sleepers, 1, memory_order_seq_cst);
        cm_wait_sleeper_barrier();
        CM_FAULT(sync_sleep);
        v = atomic_load_explicit(&a->release, memory_order_seq_cst);
        if ((int32_t)(v - e) < 0)
            futex(&a->release, FUTEX_WAIT, v, nap);
        atomic_fetch_sub_explicit(&a->sleepers, 1, memory_order_relaxed);
    }
}

/* ---- the same sync in two halves, for nonblocking collectives ------------ */

/* Arrive at the next epoch and return it; nobody waits here.  The same
 * arrival as cm_shm_sync(s, NULL, NULL) makes (flag or counted, decided alike
 * on every member), so blocking and nonblocking calls of one communicator
 * share epochs.  A nonblocking call's argument word is 0 on every member
 * (its arguments are not compared; every member of the epoch runs the same
 * nonblocking call, so no blocking call compares against it either).  The
 * wake-up owed to ranks sleeping on my arrival is paid now, not at the end
 * as flag_sync does: this rank may not come back soon. */
uint32_t cm_shm_sync_arrive(struct cm_shm *s)
{
    struct area_hdr *a = hdr(s);
    uint32_t e = ++s->epoch;
    int p = (int)(e & 1);
    if (use_flag_sync(s)) {
        _Atomic uint64_t *mine = arrival_word(s, s->rank, p);
        atomic_store_explicit(mine, (uint64_t)e, memory_order_release);
        flag_wake(a, mine);
        return e;
    }
    uint32_t k = ++s->counted_syncs;
    atomic_store_explicit(&cm_shm_flag(s, s->rank, p)->arrived, (uint64_t)e, memory_order_relaxed);
    uint32_t old = atomic_fetch_add_explicit(&a->arrive, 1, memory_order_acq_rel);
    if (old + 1 == k * (uint32_t)s->n) {
        a->verdict = 0;     /* every word is 0: nothing to compare */
        atomic_store_explicit(&a->release, e, memory_order_release);
        cm_wake_fence();
        if (atomic_load_explicit(&a->sleepers, memory_order_relaxed))
            futex(&a->release, FUTEX_WAKE, INT_MAX, NULL);
    }
    return e;
}

/* 1 when every member arrived at epoch e (after cm_shm_sync_arrive). */
int cm_shm_sync_test(struct cm_shm *s, uint32_t e)
{
    if (!use_flag_sync(s))
        return (int32_t)(atomic_load_explicit(&hdr(s)->release, memory_order_acquire) - e) >= 0;
    for (int r = 0; r < s->n; r++) {
        if (r == s->rank)
            continue;
        uint64_t v = atomic_load_explicit(arrival_word(s, r, (int)(e & 1)), memory_order_acquire);
        if ((int32_t)((uint32_t)v - e) < 0)
            return 0;
    }
    return 1;
}

/* Wait until every member arrived at epoch e (after cm_shm_sync_arrive). */
void cm_shm_sync_await(struct cm_shm *s, uint32_t e)
{
    struct area_hdr *a = hdr(s);
    if (!use_flag_sync(s)) {
        await_release(s, e, atomic_load_explicit(&a->arrive, memory_order_relaxed));
        return;
    }
    _Atomic uint64_t *mine = arrival_word(s, s->rank, (int)(e & 1));
    int woken = 1, announced = 0;       /* woken: cm_shm_sync_arrive did */
    for (int r = 0; r < s->n; r++)
        if (r != s->rank)
            await_arrival(a, arrival_word(s, r, (int)(e & 1)), (uint64_t)e, mine, &woken, &announced);
    if (announced)
        announce_blocked(0);
}

/* cm_shm_bfifo_claim and cm_shm_rfifo_claim without waiting: 1 when entry k
 * may be written now. */
int cm_shm_bfifo_try_claim(struct cm_shm *s, uint32_t k)
{
    if (k < CM_SHM_BFIFO_ENTRIES)
        return 1;
    uint32_t need = k + 1 - CM_SHM_BFIFO_ENTRIES;
    if ((int32_t)(s->bfifo_clear - need) >= 0)
        return 1;
    uint32_t low = need + CM_SHM_BFIFO_ENTRIES;
    for (int r = 0; r < s->n; r++) {
        if (r == s->rank)
            continue;
        uint32_t v = atomic_load_explicit(&bfifo_ack(s, r)->done, memory_order_acquire);
        if ((int32_t)(v - need) < 0)
            return 0;
        if ((int32_t)(v - low) < 0)
            low = v;
    }
    s->bfifo_clear = low;
    return 1;
}

int cm_shm_rfifo_try_claim(struct cm_shm *s, uint32_t k)
{
    uint32_t need = k + 1 - CM_SHM_RFIFO_ENTRIES;
    if ((int32_t)(s->rfifo_clear - need) >= 0)
        return 1;
    uint32_t v = atomic_load_explicit(&cm_shm_rfifo(s, s->rank, 0)->ack, memory_order_acquire);
    if ((int32_t)(v - need) < 0)
        return 0;
    s->rfifo_clear = v;
    return 1;
}

/* ---- a word that grows: wait for it, bump it ------------------------------ */

#define FIFO_YIELDS 16

void cm_shm_wait32(struct cm_shm *s, _Atomic uint32_t *word, _Atomic uint32_t *waiters, uint32_t target)
{
    (void)s;
    if (__builtin_expect(cm_shm_mm.on, 0))
        return;
    struct cm_waiter w;
    cm_waiter_reset(&w);
    int announced = 0, yields = 0;
    const struct timespec *nap = &long_nap;
    unsigned polls = 0;
    for (;;) {
        uint32_t v = atomic_load_explicit(word, memory_order_acquire);
        if ((int32_t)(v - target) >= 0) {
            if (announced)
                announce_blocked(0);
            CM_FAULT(fifo_waited);
            return;
        }
        if ((polls++ & 63) == 0)   /* a call, not inline: not on every spin */
            nap = progress_pending(&long_nap);
        if ((!cm_g.oversubscribed || backoff_when_oversubscribed()) && cm_wait_backoff(&w))
            continue;
        /* A FIFO reader behind its writer with more ranks than cores: the
         * writer is usually runnable, a few calls ahead, and yielding lets it
         * fill more entries before this rank runs again; sleeping costs it a
         * wake-up system call per entry.  8 ranks on 2 cores, 8-byte scan
         * along the chain: 0.25-0.35 us with 16 yields against 0.33-0.60
         * with the usual 2 (Open MPI 0.41-0.51); gather and reduce 0.63
         * against 0.69. */
        if (cm_g.oversubscribed && yields < FIFO_YIELDS) {
            yields++;
            sched_yield();
            continue;
        }
        if (!announced)
            announce_blocked(announced = 1);
        atomic_fetch_add_explicit(waiters, 1, memory_order_seq_cst);
        cm_wait_fifo_sleeper_barrier(); /* the waker may not fence (wait.h) */
        CM_FAULT(fifo_sleep);
        v = atomic_load_explicit(word, memory_order_seq_cst);
        if ((int32_t)(v - target) < 0)
            futex(word, FUTEX_WAIT, v, nap);
        atomic_fetch_sub_explicit(waiters, 1, memory_order_relaxed);
    }
}

void cm_shm_wake32(_Atomic uint32_t *word, _Atomic uint32_t *waiters)
{
    cm_wake_fence_fifo();
    CM_FAULT(fifo_wake);
    if (atomic_load_explicit(waiters, memory_order_relaxed))
        futex(word, FUTEX_WAKE, INT_MAX, NULL);
}

/* ---- message counters ----------------------------------------------------- */

void cm_shm_publish(struct cm_shm *s, size_t bytes)
{
    if (cm_shm_mm.on)
        return;
    struct progress_line *l = progress_line(s, s->rank);
    s->progress_mine += bytes;
    CM_FAULT(progress_publish);
    atomic_store_explicit(&l->bytes, s->progress_mine, memory_order_seq_cst);
    if (atomic_load_explicit(&l->waiters, memory_order_seq_cst))
        futex(&l->bytes, FUTEX_WAKE, INT_MAX, NULL);
}

void cm_shm_wait_progress(struct cm_shm *s, int r, uint64_t base, size_t upto)
{
    if (cm_shm_mm.on)
        return;
    struct progress_line *l = progress_line(s, r);
    struct cm_waiter w;
    cm_waiter_reset(&w);
    int announced = 0;
    static const struct timespec counter_nap = { 0, 50 * 1000000L };
    const struct timespec *nap = &counter_nap;
    unsigned polls = 0;
    for (;;) {
        uint64_t v = atomic_load_explicit(&l->bytes, memory_order_acquire);
        if (v - base >= upto) {
            if (announced)
                announce_blocked(0);
            CM_FAULT(progress_waited);
            return;
        }
        if ((polls++ & 63) == 0)
            nap = progress_pending(&counter_nap);
        if (cm_wait_backoff(&w))
            continue;
        if (!announced)
            announce_blocked(announced = 1);
        atomic_fetch_add_explicit(&l->waiters, 1, memory_order_seq_cst);
        v = atomic_load_explicit(&l->bytes, memory_order_seq_cst);
        if (v - base < upto)
            futex(&l->bytes, FUTEX_WAIT, (uint32_t)v, nap);    /* low half, little-endian */
        atomic_fetch_sub_explicit(&l->waiters, 1, memory_order_relaxed);
    }
}

/* ---- single copy -------------------------------------------------------- */

void cm_shm_read(struct cm_shm *s, int r, void *dst, uint64_t addr, size_t len)
{
    if (cm_shm_mm.on)
        return;             /* the address may belong to another call's layout */
    if (r == s->rank) {
        if (dst != (void *)(uintptr_t)addr)
            cm_move(dst, (const void *)(uintptr_t)addr, len);
        return;
    }
    pid_t pid = cm_seg_ctl(cm_g.seg, (uint32_t)s->world_of[r])->pid;
    size_t done = cm_cma_read(pid, dst, addr, len);
    if (done < len)
        cm_fatal("MPI collective", "single-copy read of %zu bytes from rank %d failed: %s", len - done,
                 s->world_of[r], strerror(errno));
}

/* ---- typed buffers as bytes -------------------------------------------- */

int cm_shm_view(struct cm_shm_view *v, const void *buf, int count, MPI_Datatype dt, int pack)
{
    struct cm_dt d;
    cm_coll_dt(dt, &d);
    v->buf = buf;
    v->count = count;
    v->dt = dt;
    v->tmp = NULL;
    v->len = (size_t)count * (size_t)d.size;
    if (d.size == d.extent && d.size == d.true_extent) {
        v->bytes = (char *)buf + d.true_lb;
        return MPI_SUCCESS;
    }
    v->tmp = malloc(v->len ? v->len : 1);
    if (!v->tmp)
        return MPI_ERR_NO_MEM;
    v->bytes = v->tmp;
    if (pack && v->len) {
        int pos = 0;
        return PMPI_Pack(buf, count, dt, v->tmp, (int)v->len, &pos, MPI_COMM_SELF);
    }
    return MPI_SUCCESS;
}

void cm_shm_view_done(struct cm_shm_view *v, int unpack)
{
    if (!v->tmp)
        return;
    if (unpack && v->len) {
        int pos = 0;
        PMPI_Unpack(v->tmp, (int)v->len, &pos, (void *)v->buf, v->count, v->dt, MPI_COMM_SELF);
    }
    free(v->tmp);
    v->tmp = NULL;
}

void cm_shm_pack_part(void *dst, const void *buf, int count, MPI_Datatype dt, size_t off, size_t len)
{
    int contig;
    MPI_Aint tlb;
    cm_shm_bytes(count, dt, &contig, &tlb, NULL);
    if (contig)
        cm_copy(dst, (const char *)buf + tlb + off, len);
    else
        cm_dt_pack_range(buf, count, cm_dt_lookup(dt), off, dst, len);
}

void cm_shm_unpack_part(const void *src, void *buf, int count, MPI_Datatype dt, size_t off, size_t len, int nt)
{
    int contig;
    MPI_Aint tlb;
    cm_shm_bytes(count, dt, &contig, &tlb, NULL);
    if (contig && nt)
        cm_copy_nt((char *)buf + tlb + off, src, len);
    else if (contig)
        cm_copy((char *)buf + tlb + off, src, len);
    else
        cm_dt_unpack_range(src, len, buf, count, cm_dt_lookup(dt), off);
}

/* A large all-to-all, allgather or gather writes more into the user's buffers
 * than the caches keep, and ordinary stores first read every destination
 * line from memory and push the slots out of the cache on the way.
 * Non-temporal stores do neither.  8 ranks on 2 cores, alltoall of 256 KiB /
 * 512 KiB / 1 MiB / 4 MiB blocks (1.75-28 MiB out per rank): 6 / 12 / 19 /
 * 18% faster (medians of 4-5 alternated runs); 1 MiB blocks, 3 runs each:
 * allgather 923-1270 us against 1566-2214, alltoall(v,w) 2800-4680 against
 * 3570-4790 (Open MPI 4680-5060).  2 ranks: 2 MiB out per rank no gain (a
 * core's 1 MiB L2 is not shared with other ranks), 4 MiB alltoall(v) 15%.
 * So from 4 MiB out per core's worth of ranks: 4 MiB at 2 ranks on 2 cores,
 * 1 MiB at 8 (COREMPI_COLL_NT_MIN overrides; 0: never). */
int cm_shm_out_nt(size_t out)
{
    static size_t min;
    if (!min) {
        size_t cores = cm_g.hdr && cm_g.hdr->ncores ? cm_g.hdr->ncores : 1;
        size_t ranks = cm_g.size > 0 ? (size_t)cm_g.size : 1;
        size_t def = ranks > cores ? (4u << 20) * cores / ranks : 4u << 20;
        min = env_size("COREMPI_COLL_NT_MIN", def);
        if (!min)
            min = SIZE_MAX;     /* 0: never */
    }
    return out >= min;
}

/* ---- applies_to ---------------------------------------------------------- */

int cm_shm_applies(const struct cm_coll_query *q)
{
    (void)q;
    return cm_g.seg != NULL && cm_g.hdr != NULL && cm_g.hdr->coll_bytes > 0;
}

/* Reductions combine typed elements in place: contiguous types only (the
 * query is the same on every rank for reductions).  Non-commutative ops are
 * fine: every fold below runs in rank order. */
int cm_shm_applies_reduction(const struct cm_coll_query *q)
{
    return cm_shm_applies(q) && q->contiguous;
}


int cm_shm_pack(void *dst, const void *buf, int count, MPI_Datatype dt)
{
    int contig;
    MPI_Aint tlb;
    size_t len = cm_shm_bytes(count, dt, &contig, &tlb, NULL);
    if (!len)
        return MPI_SUCCESS;
    if (contig) {
        cm_copy_small(dst, (const char *)buf + tlb, len);
        return MPI_SUCCESS;
    }
    int pos = 0;
    return PMPI_Pack(buf, count, dt, dst, (int)len, &pos, MPI_COMM_SELF);
}

int cm_shm_unpack(const void *src, void *buf, int count, MPI_Datatype dt)
{
    int contig;
    MPI_Aint tlb;
    size_t len = cm_shm_bytes(count, dt, &contig, &tlb, NULL);
    if (!len)
        return MPI_SUCCESS;
    if (contig) {
        cm_copy_small((char *)buf + tlb, src, len);
        return MPI_SUCCESS;
    }
    int pos = 0;
    return PMPI_Unpack(src, (int)len, &pos, buf, count, dt, MPI_COMM_SELF);
}
#endif
