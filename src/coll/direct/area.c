/*
 * direct/area.c -- per-communicator shared areas in the segment's collective
 * region: allocation, attach and detach, sizes, and whether the engine
 * applies.  The area's layout: direct/layout.h; epoch rules: direct.h.
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
#include "coll/direct/direct.h"
#include "p2p/p2p.h"
#include "coll/direct/layout.h"
#include "coll/percomm.h"
#include "core/state.h"
#include "core/error.h"

#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UNIT 4096u
#define RETRY_AFTER 256             /* calls before a failed comm tries again */

struct region {
    _Alignas(64) _Atomic uint32_t lock;
    uint32_t nunits;
    uint32_t first_unit;            /* units before it hold this header and the bitmap */
    uint32_t pad[13];
    _Atomic uint64_t bitmap[];      /* 1 = unit in use */
};

/* 16 KiB: with 4 KiB slots an alltoall of 1 KiB blocks at 8 ranks (8 KiB per
 * rank) fell to single copy, 61 us against 9 through 16 KiB slots, and 4 KiB
 * blocks at 2 ranks took 2.4 us against 0.6; allgather of 16 KiB blocks at 8
 * ranks 98 us against 26.  64 KiB slots helped 8 ranks further but made the
 * 2-rank allgather of 64 KiB slower (11-12 us vs 7.8): bench/coll.c, medians,
 * same session. */
static size_t slot_bytes_default(void)
{
    return (cm_config_size(COREMPI_SHM_SLOT, 256 * 1024) + 63) & ~(size_t)63;
}

size_t cm_direct_chunk(void)
{
    size_t v = cm_config_size(COREMPI_SHM_CHUNK, 64 * 1024);
    return v ? v : 65536;
}

size_t cm_direct_cma_min(void)
{
    return cm_config_size(COREMPI_SHM_CMA_MIN, slot_bytes_default() + 1);
}

int cm_direct_chunked(const struct cm_direct *s, size_t bytes)
{
    return cm_config_flag(COREMPI_SHM_CHUNKED, 1) && bytes > s->slot_bytes;
}

void cm_direct_note(const char *fmt, ...)
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

void cm_direct_detach(struct cm_direct *s)
{
    if (s == cm_direct_recent)
        cm_direct_recent = NULL;
    /* Nonblocking collectives still running here finish first (they
     * use the area; the others finish theirs in their Comm_free too). */
    cm_direct_nbc_drain(s);
    /* MULTIPLE: the progress holder's poll of one of their requests may
     * have found it not done just before the drain popped it, and be about
     * to take s's queue lock (direct/nbc_lock.c): let that pass end. */
    cm_progress_fence();
    struct area_hdr *a = hdr(s);
    if (atomic_fetch_sub_explicit(&a->refs, 1, memory_order_acq_rel) == 1) {
        struct region *g = region();
        if (g)
            give_units(g, a->first, a->units);
    }
    free(s);
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
    cm_direct_area_zero(base, n, slot);
    struct area_hdr *a = (struct area_hdr *)base;
    a->units = units;
    a->first = (uint32_t)first;
    a->choice = cm_direct_sync_choice();
    a->slot = slot;
    atomic_store_explicit(&a->refs, (uint32_t)n, memory_order_release);
    return (long)first * UNIT;
}

CM_THREAD_LOCAL struct cm_direct *cm_direct_recent;

/* The sync-kind guard (docs/spawn.md, "the rule this shows"): members that
 * chose different syncs for one epoch hang (a flag sync leaves on a counted
 * sync's arrival, the counted one then waits for a release nobody gives),
 * and different slot sizes put the members' slots at different offsets.  The
 * leader wrote its choice into the header before it sent the offset, so
 * each member reads it after the broadcast and compares it with its own;
 * one that differs ends the job naming both.  Once per communicator, at
 * setup: no collective call pays for it. */
static void check_choice(const struct area_hdr *a, const struct cm_coll_members *c, size_t slot, const char *coll)
{
    uint32_t mine = cm_direct_sync_choice();
    if (a->choice == mine && a->slot == (uint64_t)slot)
        return;
    char m[96], l[96];
    cm_direct_choice_str(mine, slot, m, sizeof m);
    cm_direct_choice_str(a->choice, a->slot, l, sizeof l);
    cm_fatal(coll,
             "rank %d of the communicator (job rank %d) chose its shared-memory sync with %s, but rank 0 "
             "(job rank %d), which set up the communicator's shared area, chose %s: every member must choose "
             "alike (same COREMPI_SHM_SYNC and COREMPI_SHM_SLOT on every rank, docs/spawn.md)",
             c->rank, c->world_of[c->rank], m, c->world_of[0], l);
}

struct cm_direct *cm_direct_peek_slow(MPI_Comm cc)
{
    struct cm_coll_state *pc = cm_coll_state_of(cc, 0);
    struct cm_direct *s = pc ? pc->direct : NULL;
    if (s)
        cm_direct_recent = s;
    return s;
}

struct cm_direct *cm_direct_get(MPI_Comm cc, const char *coll)
{
    struct cm_coll_state *pc = cm_coll_state_of(cc, 1);
    if (!pc)
        return NULL;
    if (pc->direct) {
        if (cm_direct_nbc_pending(pc->direct))
            cm_direct_nbc_drain(pc->direct);
        return pc->direct;
    }
    /* Every member counts the same calls, so they retry together. */
    if (pc->direct_failed > 0 && pc->direct_failed++ < RETRY_AFTER)
        return NULL;
    struct cm_coll_members m, *c = &m;
    if (cm_coll_members(cc, c))
        return NULL;
    /* Members of another job (core/remote.h) do not share our segment's
     * areas.  Every member sees some other job's process, so all say no
     * alike without a word. */
    for (int i = 0; i < c->size; i++)
        if (c->world_of[i] >= cm_g.slots) {
            pc->direct_failed = 1;
            return NULL;
        }
    size_t slot = slot_bytes_default();
    int64_t msg[2] = { -1, 0 };
    if (c->rank == 0) {
        msg[0] = create_area(c->size, slot);
        msg[1] = cm_g.cma_ok;
    }
    struct cm_members all = {0, 1, c->size, 0, 0};
    if (c->size > 1 && cm_part_bcast_binomial(msg, 2, MPI_INT64_T, &all, c->rank, 0, CM_TAG_AREA, cc) != MPI_SUCCESS)
        msg[0] = -1;                /* cannot happen without the leader knowing too */
    if (msg[0] < 0) {
        pc->direct_failed = 1;
        if (c->rank == 0)
            cm_direct_note("no free shared-memory collective area for a communicator of %d ranks "
                        "(%s): using point-to-point algorithms", c->size, coll);
        return NULL;
    }
    check_choice((struct area_hdr *)((char *)region() + msg[0]), c, slot, coll);
    struct cm_direct *s = calloc(1, sizeof *s);
    if (!s)
        cm_fatal(coll, "out of memory");
    cm_direct_area_view(s, (char *)region() + msg[0], c->size, c->rank, slot);
    s->world_of = c->world_of;
    s->comm_index = c->index;
    s->cc = cc;
    s->cma = (int)msg[1];
    pc->direct = s;
    pc->direct_failed = 0;
    return s;
}

/* The selector (select.c), before a point-to-point algorithm runs: attach
 * the area as a shared-memory algorithm would.  So every member has set it
 * up before its first blocking collective's algorithm sends anything,
 * whichever path its arguments chose: ranks that disagree on bytes or root
 * take different paths, and a member still in the set-up broadcast while
 * another already waits in the algorithm neither ends (docs/collectives.md,
 * "Ranks on different paths").  The selector calls it unless
 * cm_direct_prepared(cc).  (Persistent _init calls use it too:
 * coll/direct/nbc.c.) */
void cm_direct_prepare(MPI_Comm cc, const char *coll)
{
    struct cm_coll_state *pc = cm_coll_state_of(cc, 0);
    if (pc && pc->direct)
        cm_direct_recent = pc->direct;      /* the next call's check is one compare */
    else if (cm_direct_applies(NULL))
        (void)cm_direct_get(cc, coll);
}

/* ---- applies_to ---------------------------------------------------------- */

int cm_direct_applies(const struct cm_coll_query *q)
{
    (void)q;
    return cm_g.seg != NULL && cm_g.hdr != NULL && cm_g.hdr->coll_bytes > 0;
}

/* Reductions combine typed elements in place: contiguous types only (the
 * query is the same on every rank for reductions).  Non-commutative ops are
 * fine: every fold below runs in rank order. */
int cm_direct_applies_reduction(const struct cm_coll_query *q)
{
    return cm_direct_applies(q) && q->contiguous;
}
#endif
