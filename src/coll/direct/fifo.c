/*
 * direct/fifo.c -- the broadcast and reduce FIFOs (direct.h): entries,
 * claims (a writer waits until the readers of the entry's previous use are
 * done), batched acknowledgements, and the wait/bump of a growing 32-bit
 * word on which FIFO readers and writers sleep.
 */
#include <mpi.h>
#ifdef CM_IN_COREMPI  /* corempi only: the host-MPI harness compiles every src/coll file */
#include "coll/direct/direct.h"
#include "coll/direct/layout.h"
#include "coll/direct/await.h"
#include "core/state.h"
#include "core/error.h"
#include "shm/wait.h"

#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

/* A rank's count of finished broadcast-FIFO calls (direct.h). */
struct bfifo_ack {
    _Alignas(128) _Atomic uint32_t done;
    _Atomic uint32_t waiters;
    char pad[LINE2 - 8];
};

static struct bfifo_ack *bfifo_ack(struct cm_direct *s, int r)
{
    return (struct bfifo_ack *)(s->base + backs_off(s->n, s->slot_bytes)) + r;
}

/* Every other rank's count of finished calls reached need (B1). */
static inline int bfifo_all_done(struct cm_direct *s, uint32_t need)
{
    for (int r = 0; r < s->n; r++)
        if (r != s->rank && (int32_t)(atomic_load_explicit(&bfifo_ack(s, r)->done, memory_order_acquire) - need) < 0)
            return 0;
    return 1;
}

void cm_direct_bfifo_claim(struct cm_direct *s, uint32_t k)
{
    CM_FAULT(bfifo_claim);
    if (k < CM_DIRECT_BFIFO_ENTRIES)
        return;
    uint32_t need = k + 1 - CM_DIRECT_BFIFO_ENTRIES;
    if ((int32_t)(s->bfifo_clear - need) >= 0) {
        /* B1: the cached minimum stays valid because counts only grow. */
        CM_ASSERT(cm_direct_mm.on || bfifo_all_done(s, need), "B1 (docs/protocols.md)");
        return;
    }
    uint32_t low = need + CM_DIRECT_BFIFO_ENTRIES;
    for (int r = 0; r < s->n; r++) {
        if (r == s->rank)
            continue;
        struct bfifo_ack *a = bfifo_ack(s, r);
        cm_direct_wait32(s, &a->done, &a->waiters, need);
        uint32_t v = atomic_load_explicit(&a->done, memory_order_acquire);
        if ((int32_t)(v - low) < 0)
            low = v;
    }
    s->bfifo_clear = low;
    /* B1: every reader of entry k's previous use, call k - 64, is done. */
    CM_ASSERT(cm_direct_mm.on || bfifo_all_done(s, need), "B1 (docs/protocols.md)");
}

/* A root's claim value: below k + 1 to every reader's wraparound-safe test,
 * so readers keep waiting until the publish. */
#define BFIFO_TAKEN(k) ((k) + 1u + 0x80000000u)

int cm_direct_bfifo_take(struct cm_direct *s, uint32_t k, int *peer, uint32_t *theirs)
{
    struct cm_direct_bfifo_entry *e = cm_direct_bfifo(s, k);
    uint32_t old = atomic_exchange_explicit(&e->seq, BFIFO_TAKEN(k), memory_order_acq_rel);
    if (__builtin_expect(old != k + 1 && old != BFIFO_TAKEN(k), 1))
        return 1;
    /* Another rank is root of this call too: its word, once published (it
     * publishes right after filling the entry, waiting for nobody). */
    if (old == k + 1)
        atomic_store_explicit(&e->seq, k + 1, memory_order_release);
    cm_direct_wait32(s, &e->seq, &e->seq_waiters, k + 1);
    *theirs = e->word;
    *peer = cm_direct_word_root(*theirs, e->sig_class, s->n, 0);
    return 0;
}

int cm_direct_bfifo_own(struct cm_direct *s, uint32_t k)
{
    cm_direct_bfifo_claim(s, k);
    int peer;
    uint32_t theirs;
    if (__builtin_expect(cm_direct_bfifo_take(s, k, &peer, &theirs), 1))
        return 1;
    cm_direct_mismatch_seen(peer, cm_direct_word, theirs);
    return 0;
}

void cm_direct_bfifo_done(struct cm_direct *s, uint32_t k)
{
    CM_FAULT(bfifo_ack);
    if ((k + 1) % CM_DIRECT_BFIFO_ACK_EVERY != 0)
        return;
    struct bfifo_ack *a = bfifo_ack(s, s->rank);
    /* B1 rests on it: my count only grows (I am its one writer). */
    CM_ASSERT((int32_t)(k + 1 - atomic_load_explicit(&a->done, memory_order_relaxed)) > 0, "B1 (docs/protocols.md)");
    atomic_store_explicit(&a->done, k + 1, memory_order_release);
    cm_direct_wake32(&a->done, &a->waiters);
}

int cm_direct_bfifo_enabled(void)
{
    return cm_config_flag(COREMPI_SHM_BFIFO, 1);
}

int cm_direct_rfifo_enabled(void)
{
    return cm_config_flag(COREMPI_SHM_RFIFO, 1);
}

struct cm_direct_rfifo_entry *cm_direct_rfifo(struct cm_direct *s, int r, unsigned k)
{
    return (struct cm_direct_rfifo_entry *)(s->base + rfifo_off(s->n, s->slot_bytes)) +
           (size_t)r * CM_DIRECT_RFIFO_ENTRIES + k % CM_DIRECT_RFIFO_ENTRIES;
}

_Static_assert(CM_DIRECT_RFIFO_ACK_EVERY < CM_DIRECT_RFIFO_ENTRIES, "a claim must not wait for a later call");

/* The ack word is written by whichever rank consumed the latest calls,
 * every CM_DIRECT_RFIFO_ACK_EVERY calls, often from the other core: read on
 * every call it cost a line's trip across the cores every eighth call.
 * The last value read says how many calls ahead are free already. */
void cm_direct_rfifo_claim(struct cm_direct *s, uint32_t k)
{
    CM_FAULT(rfifo_claim);
    uint32_t need = k + 1 - CM_DIRECT_RFIFO_ENTRIES;
    if ((int32_t)(s->rfifo_clear - need) >= 0)
        return;
    struct cm_direct_rfifo_entry *a = cm_direct_rfifo(s, s->rank, 0);
    cm_direct_wait32(s, &a->ack, &a->ack_waiters, need);
    s->rfifo_clear = atomic_load_explicit(&a->ack, memory_order_acquire);
    /* F3: call k - 128, the entry's last use, was consumed. */
    CM_ASSERT(cm_direct_mm.on || (int32_t)(s->rfifo_clear - need) >= 0, "F3 (docs/protocols.md)");
}

void cm_direct_rfifo_done(struct cm_direct *s, uint32_t k)
{
    CM_FAULT(rfifo_ack);
    if ((k + 1) % CM_DIRECT_RFIFO_ACK_EVERY != 0)
        return;
    for (int r = 0; r < s->n; r++) {
        /* F2: the acks of earlier calls happen before mine; none is larger. */
        CM_ASSERT((int32_t)(k + 1 - atomic_load_explicit(&cm_direct_rfifo(s, r, 0)->ack, memory_order_relaxed)) > 0,
                  "F2 (docs/protocols.md)");
        atomic_store_explicit(&cm_direct_rfifo(s, r, 0)->ack, k + 1, memory_order_release);
    }
    cm_wake_fence_fifo();   /* as in cm_direct_wake32: its sleepers wait in cm_direct_wait32 */
    CM_FAULT(fifo_wake);
    for (int r = 0; r < s->n; r++) {
        struct cm_direct_rfifo_entry *a = cm_direct_rfifo(s, r, 0);
        if (atomic_load_explicit(&a->ack_waiters, memory_order_relaxed))
            cm_futex_wake(&a->ack, INT_MAX);
    }
}

struct cm_direct_bfifo_entry *cm_direct_bfifo(struct cm_direct *s, unsigned i)
{
    return (struct cm_direct_bfifo_entry *)(s->base + bfifo_off(s->n, s->slot_bytes)) + i % CM_DIRECT_BFIFO_ENTRIES;
}

/* cm_direct_bfifo_claim and cm_direct_rfifo_claim without waiting: 1 when entry k
 * may be written now. */
int cm_direct_bfifo_try_claim(struct cm_direct *s, uint32_t k)
{
    if (k < CM_DIRECT_BFIFO_ENTRIES)
        return 1;
    uint32_t need = k + 1 - CM_DIRECT_BFIFO_ENTRIES;
    if ((int32_t)(s->bfifo_clear - need) >= 0)
        return 1;
    uint32_t low = need + CM_DIRECT_BFIFO_ENTRIES;
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

int cm_direct_rfifo_try_claim(struct cm_direct *s, uint32_t k)
{
    uint32_t need = k + 1 - CM_DIRECT_RFIFO_ENTRIES;
    if ((int32_t)(s->rfifo_clear - need) >= 0)
        return 1;
    uint32_t v = atomic_load_explicit(&cm_direct_rfifo(s, s->rank, 0)->ack, memory_order_acquire);
    if ((int32_t)(v - need) < 0)
        return 0;
    s->rfifo_clear = v;
    return 1;
}

/* ---- a word that grows: wait for it, bump it ------------------------------ */

#define FIFO_YIELDS 16

/* A FIFO reader's wait lasts: its writer `peer` is in a sync after my last
 * one, or in a point-to-point algorithm (direct.h, argument agreement).  Re-checked after seeing it: a
 * writer that published and went on would have let the wait end. */
static __attribute__((noinline, cold)) int writer_elsewhere(struct cm_direct *s, _Atomic uint32_t *word,
                                                            uint32_t target, int peer)
{
    uint32_t theirs;
    if (peer < 0 || !cm_direct_word || s->nbc_head)
        return 0;
    int in_sync = cm_direct_peer_in_sync(s, peer, &theirs);
    if ((!in_sync && !cm_direct_peer_sent(s, peer, &theirs)) ||
        (int32_t)(atomic_load_explicit(word, memory_order_acquire) - target) >= 0)
        return 0;
    cm_direct_mismatch_seen(peer, cm_direct_word, theirs);
    if (in_sync)
        cm_direct_sync_join(s);
    else
        cm_direct_drop_sent(s, peer);
    return 1;
}

void cm_direct_wait32(struct cm_direct *s, _Atomic uint32_t *word, _Atomic uint32_t *waiters, uint32_t target)
{
    cm_direct_wait32_from(s, word, waiters, target, -1);
}

void cm_direct_wait32_from(struct cm_direct *s, _Atomic uint32_t *word, _Atomic uint32_t *waiters, uint32_t target,
                           int peer)
{
    if (__builtin_expect(cm_direct_mm.on, 0))
        return;
    struct cm_waiter w;
    cm_waiter_reset(&w);
    int announced = 0, yields = 0;
    struct cm_direct_nap nap;
    cm_direct_nap_start(&nap);
    for (;;) {
        uint32_t v = atomic_load_explicit(word, memory_order_acquire);
        if ((int32_t)(v - target) >= 0) {
            if (announced)
                cm_direct_announce_blocked(0);
            CM_FAULT(fifo_waited);
            return;
        }
        cm_direct_nap_poll(&nap);
        if ((!cm_g.oversubscribed || cm_direct_backoff_when_oversubscribed()) && cm_wait_backoff(&w))
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
            cm_direct_announce_blocked(announced = 1);
        if (__builtin_expect(writer_elsewhere(s, word, target, peer), 0)) {
            cm_direct_announce_blocked(0);
            return;
        }
        atomic_fetch_add_explicit(waiters, 1, memory_order_seq_cst);
        cm_wait_fifo_sleeper_barrier(); /* the waker may not fence (wait.h) */
        CM_FAULT(fifo_sleep);
        v = atomic_load_explicit(word, memory_order_seq_cst);
        if ((int32_t)(v - target) < 0)
            cm_direct_nap_sleep(&nap, word, v);
        atomic_fetch_sub_explicit(waiters, 1, memory_order_relaxed);
    }
}

void cm_direct_wake32(_Atomic uint32_t *word, _Atomic uint32_t *waiters)
{
    cm_wake_fence_fifo();
    CM_FAULT(fifo_wake);
    if (atomic_load_explicit(waiters, memory_order_relaxed))
        cm_futex_wake(word, INT_MAX);
}
#endif
