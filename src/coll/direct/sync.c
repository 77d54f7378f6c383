/*
 * direct/sync.c -- the epoch syncs of an area (rules: direct.h, "Epochs"):
 * the flag sync (each rank stores its epoch in its own flag line, polls the
 * others'), the meeting line of 2-rank areas, the counted sync (fetch-add
 * arrival, the last arrival releases everyone with one futex wake) and the
 * same syncs in two halves for nonblocking collectives.  Every member takes
 * the same kind of sync for the same epoch, so blocking and nonblocking
 * calls of one communicator share epochs.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int sync_yields(void)
{
    size_t v = cm_config_size(COREMPI_SHM_YIELDS, 0);
    return v > INT_MAX ? INT_MAX : (int)v;
}

/* Flag sync: up to this many ranks, each with a core, arrive by storing the
 * epoch in their own flag line and poll the others' lines.  Every rank reads
 * n - 1 lines but no line is written by two ranks: at 2 ranks a sync is one
 * line moving each way at once, where the counter needs an atomic
 * read-modify-write on one line and then the release word to move. */
#define FLAG_SYNC_MAX 8

/* flag_wake's call, kept whole out of line (noipa: its arguments stay where
 * flag_wake has them). */
static __attribute__((noipa, cold)) uint32_t wake_sleepers(struct area_hdr *a, _Atomic uint64_t *mine,
                                                              uint32_t sleepers)
{
    (void)a;
    cm_futex_wake((uint32_t *)mine, INT_MAX);  /* the epoch half, little-endian */
    return sleepers;
}

/* Wake ranks sleeping on my arrival word.  The fence pairs with the
 * sleeper's (fetch-add on sleepers, membarrier, then re-read of my word): one
 * of us sees the other, so no wake-up is lost.  With fence-free wakers
 * (shm/wait.h) the sleeper's membarrier stands in for my fence: this is on
 * the path of every tiny collective with a core per rank.  Returns the sleeper
 * count it saw (0 in the usual case: the meeting sync passes it on as its
 * "nothing to look at", direct.h). */
static uint32_t flag_wake(struct area_hdr *a, _Atomic uint64_t *mine)
{
    cm_wake_fence();
    CM_FAULT(sync_wake);
    uint32_t sleepers = atomic_load_explicit(&a->sleepers, memory_order_relaxed);
    if (__builtin_expect(sleepers != 0, 0))
        return wake_sleepers(a, mine, sleepers);
    __asm__("" : "+r"(sleepers));   /* return the 0 in hand, not a constant (no instruction) */
    return sleepers;
}

/* Bits of the `slow` word await_arrival's callers keep: this rank announced
 * itself blocked (cm_direct_announce_blocked), and await_arrival returned
 * another value than 0 (another word, or a later epoch).  One test of it
 * after the wait covers both, so the meeting sync pays nothing for the
 * second. */
#define SLOW_ANNOUNCED 1
#define SLOW_SEEN 2

/* Where rank r announces its arrival at an epoch of parity p: beside the
 * payload it may carry, in the meeting line or in its flag line. */
static _Atomic uint64_t *arrival_word(struct cm_direct *s, int r, int p)
{
    return s->meet ? &s->meet->arrived[r] : &cm_direct_flag(s, r, p)->arrived;
}

/* Wait until rank r's arrival word w reaches my epoch; me is my own arrival
 * word (epoch in the low half, the call's argument word in the high half).
 * Returns 0 when w shows exactly me (the same epoch and arguments: the usual
 * case, one comparison), else the value seen (another word, or an epoch
 * past mine), with SLOW_SEEN set in *slow.  Before sleeping, wake whoever
 * sleeps on my word (*woken): they may be the ones I wait for, waiting for
 * me; announce this rank blocked (SLOW_ANNOUNCED in *slow). */
static uint64_t await_arrival(struct cm_direct *s, _Atomic uint64_t *w, uint64_t me, _Atomic uint64_t *mine,
                              int *woken, int *slow)
{
    struct area_hdr *a = hdr(s);
    uint32_t e = (uint32_t)me;
    struct cm_waiter wt;
    cm_waiter_reset(&wt);
    struct cm_direct_nap nap;
    cm_direct_nap_start(&nap);
    for (;;) {
        uint64_t v = atomic_load_explicit(w, memory_order_acquire);
        if (v == me)
            return 0;
        if ((int32_t)((uint32_t)v - e) >= 0) {
            *slow |= SLOW_SEEN;
            return v;
        }
        cm_direct_nap_poll(&nap);
        if (cm_wait_backoff(&wt))
            continue;
        if (!*woken) {
            flag_wake(a, mine);
            *woken = 1;
        }
        if (!(*slow & SLOW_ANNOUNCED)) {
            *slow |= SLOW_ANNOUNCED;
            cm_direct_announce_blocked(1);
        }
        /* Before each sleep: has the rank I wait for gone through a FIFO
         * instead (direct.h, argument agreement)?  Re-checked after: a rank
         * past this sync would have let the wait end. */
        int peer;
        uint32_t theirs;
        if (__builtin_expect(cm_direct_fifo_ahead(s, (uint32_t)(me >> 32), &peer, &theirs), 0)) {
            v = atomic_load_explicit(w, memory_order_acquire);
            *slow |= SLOW_SEEN;
            if ((int32_t)((uint32_t)v - e) >= 0)
                return v == me ? 0 : v;
            cm_direct_mismatch_seen(peer, (uint32_t)(me >> 32), theirs);
            return ~me;     /* no epoch of mine: other_word records nothing more */
        }
        atomic_fetch_add_explicit(&a->sleepers, 1, memory_order_seq_cst);
        cm_wait_sleeper_barrier();
        CM_FAULT(sync_sleep);
        v = atomic_load_explicit(w, memory_order_seq_cst);
        if ((int32_t)((uint32_t)v - e) < 0)
            cm_direct_nap_sleep(&nap, (uint32_t *)w, (uint32_t)v);   /* the epoch half, little-endian */
        atomic_fetch_sub_explicit(&a->sleepers, 1, memory_order_relaxed);
    }
}

/* After the others arrived: the wake-up owed to sleepers on my word.
 * Checked now, not right after my store: by now the store has left the store
 * buffer, so the fence does not wait for the line to change hands.  A rank
 * that went to sleep waiting for me is woken here at the latest. */
static void flag_sync_end(struct area_hdr *a, _Atomic uint64_t *mine, int woken, int slow)
{
    if (slow & SLOW_ANNOUNCED)
        cm_direct_announce_blocked(0);
    CM_FAULT(sync_leave);
    if (!woken)
        flag_wake(a, mine);
}

/* I leave the sync at my arrival `me` (word << 32 | epoch) on a mismatch I
 * saw there: say so where a rank that finds me past that epoch looks.  My
 * next arrival's release store orders this relaxed one before it. */
static void left_on_mismatch(struct area_hdr *a, int n, int rank, uint64_t me)
{
    atomic_store_explicit(left_word(a, n, rank), me, memory_order_relaxed);
}

/* A rank r seen at my epoch with another word (await_arrival returned seen,
 * not 0) took part in the same sync with other arguments.  A rank seen past
 * my epoch e left it either having found every word equal to its own, mine
 * included (nothing to record), or on a mismatch it saw there, and then
 * arrived elsewhere (the meeting line has one word per rank: its word at e
 * is gone).  In that case its record (left_on_mismatch) shows epoch e and
 * its word, and I stop as it did: it is at most one sync ahead, so the
 * record is still that of e (docs/protocols.md, "Argument agreement").
 * ~me: r went through a FIFO instead (await_arrival recorded it). */
static int other_word(struct area_hdr *a, int n, int rank, int r, uint64_t seen, uint64_t me)
{
    if ((uint32_t)seen != (uint32_t)me) {
        if (seen == ~me)
            return 0;
        seen = atomic_load_explicit(left_word(a, n, r), memory_order_relaxed);  /* after the acquire that saw r past */
        if ((uint32_t)seen != (uint32_t)me || !seen)
            return 0;
    }
    if (cm_direct_words_agree((uint32_t)(me >> 32), (uint32_t)(seen >> 32)))
        return 0;
    cm_direct_mismatch_seen(r, (uint32_t)(me >> 32), (uint32_t)(seen >> 32));
    left_on_mismatch(a, n, rank, me);
    return 1;
}

/* Every rank's arrival word of parity p shows epoch e or later (E1). */
static inline int all_arrived(struct cm_direct *s, int p, uint32_t e)
{
    for (int r = 0; r < s->n; r++)
        if ((int32_t)((uint32_t)atomic_load_explicit(arrival_word(s, r, p), memory_order_acquire) - e) < 0)
            return 0;
    return 1;
}

static void flag_sync(struct cm_direct *s, uint32_t e)
{
    struct area_hdr *a = hdr(s);
    int p = (int)(e & 1);
    _Atomic uint64_t *mine = arrival_word(s, s->rank, p);
    uint64_t me = (uint64_t)cm_direct_word << 32 | e;
    atomic_store_explicit(mine, me, memory_order_release);
    int woken = 0, slow = 0;
    for (int i = 1, r = s->rank + 1; i < s->n; i++, r++) {
        if (r == s->n)          /* the others from mine on, without a division */
            r = 0;
        uint64_t seen = await_arrival(s, arrival_word(s, r, p), me, mine, &woken, &slow);
        if (__builtin_expect(seen != 0, 0)) {
            other_word(a, s->n, s->rank, r, seen, me);
            if (cm_direct_mm.on)
                break;      /* a rank that sees my word stops too; one that went elsewhere may never come */
        }
    }
    /* E1: I leave epoch e only once every rank arrived at it. */
    CM_ASSERT(cm_direct_mm.on || all_arrived(s, p, e), "E1 (docs/protocols.md)");
    flag_sync_end(a, mine, woken, slow);
}

/* Off the shortcuts' path: this rank announced itself blocked, or the
 * other rank's arrival showed another word (seen != 0).  (My rank is where
 * mine sits in the meeting line: s need not stay live across the wait.) */
static __attribute__((noinline, cold)) int meet_slow_end(struct area_hdr *a, uint64_t seen, _Atomic uint64_t *mine,
                                                         int woken, int slow)
{
    flag_sync_end(a, mine, woken, slow);
    int rank = (int)(mine - a->meet.arrived);
    if (seen)
        other_word(a, CM_DIRECT_MEET_RANKS, rank, rank ^ 1, seen, atomic_load_explicit(mine, memory_order_relaxed));
    return 1;
}

int cm_direct_meet_sync(struct cm_direct *s, uint64_t word_hi)
{
    struct area_hdr *a = hdr(s);
    CM_FAULT(sync_arrive);
    uint32_t e = ++s->epoch;
    _Atomic uint64_t *mine = &s->meet->arrived[s->rank];
    _Atomic uint64_t *other = &s->meet->arrived[s->rank ^ 1];
    uint64_t me = word_hi | e;
    atomic_store_explicit(mine, me, memory_order_release);
    int woken = 0, slow = 0;
    uint64_t seen = await_arrival(s, other, me, mine, &woken, &slow);
    if (__builtin_expect(slow, 0))  /* SLOW_SEEN is set whenever seen != 0 */
        return meet_slow_end(a, seen, mine, woken, slow);
    if (!woken)
        return (int)flag_wake(a, mine);
    return 0;
}

/* COREMPI_SHM_SYNC=flags|counter overrides the choice below (tests force
 * flag syncs on oversubscribed jobs, where they must sleep and be woken). */
static int sync_kind(void)
{
    const char *e = cm_config_text(COREMPI_SHM_SYNC);
    if (__builtin_expect(!e, 1))
        return 0;
    int v = !strcmp(e, "flags") ? 1 : !strcmp(e, "counter") ? 2 : -1;
    if (v < 0)
        cm_env_warn("COREMPI_SHM_SYNC", e, "is not a kind of sync (flags, counter); using the default choice");
    return v < 0 ? 0 : v;
}

/* Every member must answer alike for the same epoch: a flag sync sees a
 * counted sync's arrival (both store the word and epoch in the flag line) and
 * leaves, while the counted one waits for a release nobody gives.  So the
 * inputs are job-wide and fixed: the segment's oversubscribed flag (never
 * changed after launch, shm/segment.h), the environment, the area's size. */
static int use_flag_sync(const struct cm_direct *s)
{
    switch (sync_kind()) {
    case 1: return 1;
    case 2: return 0;
    default: return !cm_g.oversubscribed && s->n <= FLAG_SYNC_MAX;
    }
}

int cm_direct_flag_syncs(const struct cm_direct *s) { return use_flag_sync(s); }

uint32_t cm_direct_sync_choice(void)
{
    return (uint32_t)sync_kind() | (cm_g.oversubscribed ? 4u : 0u);
}

void cm_direct_choice_str(uint32_t choice, uint64_t slot, char *out, size_t len)
{
    static const char *const kind[] = { "auto", "flags", "counter", "?" };
    snprintf(out, len, "COREMPI_SHM_SYNC=%s, %s, slot %llu bytes", kind[choice & 3],
             choice & 4 ? "oversubscribed" : "a core per rank", (unsigned long long)slot);
}

/* The counter sync's last arrival: which rank's word differs from rank 0's
 * (every member stored its word in its flag line before arriving). */
static uint32_t words_verdict(struct cm_direct *s, int p)
{
    uint32_t w0 = (uint32_t)(atomic_load_explicit(&cm_direct_flag(s, 0, p)->arrived, memory_order_relaxed) >> 32);
    for (int r = 1; r < s->n; r++)
        if (!cm_direct_words_agree(
                (uint32_t)(atomic_load_explicit(&cm_direct_flag(s, r, p)->arrived, memory_order_relaxed) >> 32), w0))
            return (uint32_t)r + 1;
    return 0;
}

/* A member of a counter sync whose verdict named a rank: the rank to blame
 * from where I stand (rank 0 when my word is not rank 0's). */
static void verdict_seen(struct cm_direct *s, int p, uint32_t verdict)
{
    uint32_t w0 = (uint32_t)(atomic_load_explicit(&cm_direct_flag(s, 0, p)->arrived, memory_order_relaxed) >> 32);
    int peer = !cm_direct_words_agree(cm_direct_word, w0) ? 0 : (int)verdict - 1;
    uint32_t theirs =
        (uint32_t)(atomic_load_explicit(&cm_direct_flag(s, peer, p)->arrived, memory_order_relaxed) >> 32);
    cm_direct_mismatch_seen(peer, cm_direct_word, theirs);
}

static void await_release(struct cm_direct *s, uint32_t e, uint32_t seen, int blocking);

/* A counted sync's waiter before each sleep: a rank arrived at epoch e with
 * another word (it joined from elsewhere, cm_direct_sync_join, and will not
 * fetch-add), or a FIFO holds a call I have not reached.  1: recorded, stop
 * waiting unless the release came meanwhile. */
static __attribute__((noinline, cold)) int counted_diverged(struct cm_direct *s, uint32_t e)
{
    int p = (int)(e & 1);
    /* The word I arrived with: 0 for a nonblocking call's sync, which a
     * blocking call may be draining under its own cm_direct_word. */
    uint32_t mine = (uint32_t)(atomic_load_explicit(&cm_direct_flag(s, s->rank, p)->arrived, memory_order_relaxed) >> 32);
    /* A nonblocking call's sync (one is queued): its members compare the
     * words themselves once it completes (cm_direct_sync_words), into the
     * call's own record, not this blocking-call record. */
    for (int r = 0; r < s->n && !cm_direct_mm.on && !s->nbc_head; r++) {
        uint64_t v = atomic_load_explicit(&cm_direct_flag(s, r, p)->arrived, memory_order_acquire);
        if (r != s->rank && (uint32_t)v == e && !cm_direct_words_agree((uint32_t)(v >> 32), mine))
            cm_direct_mismatch_seen(r, mine, (uint32_t)(v >> 32));
    }
    int peer;
    uint32_t theirs;
    if (cm_direct_mm.on)
        return 1;
    if (!cm_direct_fifo_ahead(s, mine, &peer, &theirs) ||
        (int32_t)(atomic_load_explicit(&hdr(s)->release, memory_order_acquire) - e) >= 0)
        return 0;
    cm_direct_mismatch_seen(peer, mine, theirs);
    return 1;
}

void cm_direct_sync(struct cm_direct *s, void (*last)(void *), void *arg)
{
    if (__builtin_expect(cm_direct_mm.on, 0))
        return;             /* this call's arguments disagree: everyone stops (direct.h) */
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
    atomic_store_explicit(&cm_direct_flag(s, s->rank, p)->arrived, (uint64_t)cm_direct_word << 32 | e,
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
            cm_futex_wake(&a->release, INT_MAX);
        return;
    }
    await_release(s, e, old + 1, 1);
}

/* A counted sync's waiter: until the last arrival releases epoch e
 * (`seen`: the arrival count this rank last saw).  Only a blocking call
 * (blocking) takes the verdict: a nonblocking one compares the words itself
 * into its own record (cm_direct_sync_words), and the thread's record
 * (cm_direct_mm) belongs to whatever blocking call runs its wait. */
static void await_release(struct cm_direct *s, uint32_t e, uint32_t seen, int blocking)
{
    struct area_hdr *a = hdr(s);
    int p = (int)(e & 1);
    struct cm_waiter w;
    cm_waiter_reset(&w);
    int yields = 0, announced = 0, budget = sync_yields();
    struct cm_direct_nap nap;
    cm_direct_nap_start(&nap);
    for (;;) {
        uint32_t v = atomic_load_explicit(&a->release, memory_order_acquire);
        if ((int32_t)(v - e) >= 0) {
            if (announced)
                cm_direct_announce_blocked(0);
            CM_FAULT(sync_leave);
            if (__builtin_expect(a->verdict != 0, 0) && blocking)
                verdict_seen(s, p, a->verdict);
            return;
        }
        /* Oversubscribed, cm_wait_backoff yields twice before we sleep.
         * Sleeping at once (COREMPI_SHM_BACKOFF=0) saves those trips through
         * the scheduler (7.5 instead of 8-9 switches per 8-rank barrier) but
         * measured 2-4x slower when other jobs share the cores: a woken
         * sleeper waits for their time slices, a yielder does not. */
        cm_direct_nap_poll(&nap);
        if ((!cm_g.oversubscribed || cm_direct_backoff_when_oversubscribed()) && cm_wait_backoff(&w))
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
            cm_direct_announce_blocked(announced = 1);
        if (__builtin_expect(counted_diverged(s, e), 0)) {
            cm_direct_announce_blocked(0);
            return;
        }
        atomic_fetch_add_explicit(&a->sleepers, 1, memory_order_seq_cst);
        cm_wait_sleeper_barrier();
        CM_FAULT(sync_sleep);
        v = atomic_load_explicit(&a->release, memory_order_seq_cst);
        if ((int32_t)(v - e) < 0)
            cm_direct_nap_sleep(&nap, &a->release, v);
        atomic_fetch_sub_explicit(&a->sleepers, 1, memory_order_relaxed);
    }
}

/* ---- the same sync in two halves, for nonblocking collectives ------------ */

/* Arrive at the next epoch and return it; nobody waits here.  The same
 * arrival as cm_direct_sync(s, NULL, NULL) makes (flag or counted, decided alike
 * on every member), so blocking and nonblocking calls of one communicator
 * share epochs.  A nonblocking call's argument word is 0 on every member
 * (its arguments are not compared; every member of the epoch runs the same
 * nonblocking call, so no blocking call compares against it either).  The
 * wake-up owed to ranks sleeping on my arrival is paid now, not at the end
 * as flag_sync does: this rank may not come back soon. */
uint32_t cm_direct_sync_arrive(struct cm_direct *s, uint32_t word)
{
    struct area_hdr *a = hdr(s);
    uint32_t e = ++s->epoch;
    int p = (int)(e & 1);
    if (use_flag_sync(s)) {
        _Atomic uint64_t *mine = arrival_word(s, s->rank, p);
        atomic_store_explicit(mine, (uint64_t)word << 32 | e, memory_order_release);
        flag_wake(a, mine);
        return e;
    }
    uint32_t k = ++s->counted_syncs;
    atomic_store_explicit(&cm_direct_flag(s, s->rank, p)->arrived, (uint64_t)word << 32 | e, memory_order_relaxed);
    uint32_t old = atomic_fetch_add_explicit(&a->arrive, 1, memory_order_acq_rel);
    if (old + 1 == k * (uint32_t)s->n) {
        /* The nonblocking members compare words themselves
         * (cm_direct_sync_words); a blocking member of the same epoch (its
         * arguments differ: at least the nonblocking bit of the word,
         * direct.h cm_direct_nb_word) reads only the verdict. */
        a->verdict = words_verdict(s, p);
        atomic_store_explicit(&a->release, e, memory_order_release);
        cm_wake_fence();
        if (atomic_load_explicit(&a->sleepers, memory_order_relaxed))
            cm_futex_wake(&a->release, INT_MAX);
    }
    return e;
}

/* 1 when every member arrived at epoch e (after cm_direct_sync_arrive). */
int cm_direct_sync_test(struct cm_direct *s, uint32_t e)
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

/* The meeting-line halves (direct.h).  Equal to the flag-sync branches of
 * cm_direct_sync_arrive and cm_direct_sync_await with arrival_word's meeting
 * line, so a member running these and one running those meet at the same
 * epoch: the word is (0 << 32 | e) in meet->arrived[rank] either way. */
uint32_t cm_direct_meet_arrive(struct cm_direct *s, uint64_t word_hi)
{
    uint32_t e = ++s->epoch;
    _Atomic uint64_t *mine = &s->meet->arrived[s->rank];
    atomic_store_explicit(mine, word_hi | e, memory_order_release);
    flag_wake(hdr(s), mine);
    return e;
}

uint64_t cm_direct_meet_await(struct cm_direct *s, uint32_t e, uint64_t word_hi)
{
    int woken = 1, slow = 0;       /* woken: cm_direct_meet_arrive did */
    uint64_t seen = await_arrival(s, &s->meet->arrived[s->rank ^ 1], word_hi | e, &s->meet->arrived[s->rank],
                                  &woken, &slow);
    if (slow & SLOW_ANNOUNCED)
        cm_direct_announce_blocked(0);
    return seen;
}

/* Where rank r stores its arrival at epoch e for a sync of any kind (the
 * kind is the same on every member for an epoch): the flag sync's word, or
 * the counted sync's flag line. */
static _Atomic uint64_t *any_arrival_word(struct cm_direct *s, int r, uint32_t e)
{
    return use_flag_sync(s) ? arrival_word(s, r, (int)(e & 1)) : &cm_direct_flag(s, r, (int)(e & 1))->arrived;
}

int cm_direct_sync_words(struct cm_direct *s, uint32_t e, uint32_t word, int *peer, uint32_t *theirs)
{
    for (int r = 0; r < s->n; r++) {
        uint64_t v = atomic_load_explicit(any_arrival_word(s, r, e), memory_order_acquire);
        if (__builtin_expect((int32_t)((uint32_t)v - e) > 0, 0))     /* past e: as in other_word */
            v = atomic_load_explicit(left_word(hdr(s), s->n, r), memory_order_relaxed);
        if (r != s->rank && v && (uint32_t)v == e && cm_direct_words_differ((uint32_t)(v >> 32), word)) {
            *peer = r;
            *theirs = (uint32_t)(v >> 32);
            left_on_mismatch(hdr(s), s->n, s->rank, (uint64_t)word << 32 | e);
            return 1;
        }
    }
    return 0;
}

int cm_direct_peer_in_sync(struct cm_direct *s, int peer, uint32_t *theirs)
{
    uint32_t e = s->epoch + 1;
    uint64_t v = atomic_load_explicit(any_arrival_word(s, peer, e), memory_order_acquire);
    if ((int32_t)((uint32_t)v - e) < 0)
        return 0;
    *theirs = (uint32_t)(v >> 32);
    return 1;
}

void cm_direct_sync_join(struct cm_direct *s)
{
    uint32_t e = ++s->epoch;
    _Atomic uint64_t *mine = any_arrival_word(s, s->rank, e);
    atomic_store_explicit(mine, (uint64_t)cm_direct_word << 32 | e, memory_order_release);
    flag_wake(hdr(s), mine);    /* a counted sync's waiters find it at their next nap (counted_diverged) */
}

/* Wait until every member arrived at epoch e (after cm_direct_sync_arrive). */
void cm_direct_sync_await(struct cm_direct *s, uint32_t e)
{
    struct area_hdr *a = hdr(s);
    if (!use_flag_sync(s)) {
        await_release(s, e, atomic_load_explicit(&a->arrive, memory_order_relaxed), 0);
        return;
    }
    _Atomic uint64_t *mine = arrival_word(s, s->rank, (int)(e & 1));
    int woken = 1, slow = 0;       /* woken: cm_direct_sync_arrive did */
    for (int r = 0; r < s->n; r++)
        if (r != s->rank)
            await_arrival(s, arrival_word(s, r, (int)(e & 1)), (uint64_t)e, mine, &woken, &slow);
    if (slow & SLOW_ANNOUNCED)
        cm_direct_announce_blocked(0);
}
#endif
