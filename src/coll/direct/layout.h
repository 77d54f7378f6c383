/*
 * layout.h -- where everything sits in a communicator's area (direct.h
 * describes the parts).  Private to src/coll/direct/: the area's files agree
 * on these offsets, nothing outside the engine needs them.
 *
 * [sync block: area_hdr][flag lines: n ranks x 2 parities][progress lines: n]
 * [2 result buffers][data slots: n ranks x 2 parities][broadcast FIFO]
 * [reduce FIFO: n ranks x entries][broadcast-FIFO ack lines: n]
 * Every shared word sits on its own pair of lines (LINE2 apart from the next
 * writer's) so that the adjacent-line prefetcher does not pull a neighbour's
 * line into a fight.
 */
#ifndef CM_COLL_DIRECT_LAYOUT_H
#define CM_COLL_DIRECT_LAYOUT_H

#include "coll/direct/direct.h"

#include <string.h>

#define LINE2 CM_DIRECT_FLAG_STRIDE      /* a writer's line plus the gap line */

struct area_hdr {                   /* the sync block: five line pairs */
    _Alignas(128) _Atomic uint32_t refs;
    uint32_t units, first;
    uint32_t choice;                /* the leader's cm_direct_sync_choice(), written before the offset is sent */
    uint64_t slot;                  /* the leader's slot size, likewise */
    char pad0[LINE2 - 24];
    _Alignas(128) _Atomic uint32_t arrive;
    char pad1[LINE2 - 4];
    _Alignas(128) _Atomic uint32_t release;   /* futex word */
    uint32_t verdict;               /* counter sync: 0, or 1 + a rank whose word differs from rank 0's */
    char pad2[LINE2 - 8];
    _Alignas(128) _Atomic uint32_t sleepers;
    char pad3[LINE2 - 4];
    _Alignas(128) struct cm_direct_meet meet;    /* used by 2-rank areas only */
    char pad4[LINE2 - sizeof(struct cm_direct_meet)];
};

struct progress_line {
    _Alignas(128) _Atomic uint64_t bytes;     /* futex on its low half */
    _Atomic uint32_t waiters;
    /* The owner's arrival (word << 32 | epoch) at the last sync it left on a
     * mismatch it saw there; 0: none.  Stored before the owner arrives at
     * any later epoch, read by a rank that finds the owner past its own
     * epoch (direct/sync.c, left_on_mismatch).  Cold: only mismatches write
     * it, only waits that saw a later epoch read it. */
    _Atomic uint64_t left;
};

/* ---- layout ---------------------------------------------------------- */

static inline size_t flags_off(void) { return sizeof(struct area_hdr); }
static inline size_t progress_off(int n) { return flags_off() + (size_t)n * 2 * LINE2; }
static inline size_t results_off(int n) { return progress_off(n) + (size_t)n * LINE2; }
static inline size_t slots_off(int n, size_t slot) { return results_off(n) + 2 * slot; }
static inline size_t bfifo_off(int n, size_t slot) { return slots_off(n, slot) + (size_t)n * 2 * slot; }
static inline size_t rfifo_off(int n, size_t slot)
{
    return bfifo_off(n, slot) + CM_DIRECT_BFIFO_ENTRIES * sizeof(struct cm_direct_bfifo_entry);
}
static inline size_t backs_off(int n, size_t slot)
{
    return rfifo_off(n, slot) + (size_t)n * CM_DIRECT_RFIFO_ENTRIES * sizeof(struct cm_direct_rfifo_entry);
}
static inline size_t area_bytes(int n, size_t slot) { return backs_off(n, slot) + (size_t)n * LINE2; }

static inline struct area_hdr *hdr(struct cm_direct *s) { return (struct area_hdr *)s->base; }

/* Rank r's record of the last sync it left on a mismatch (progress_line.left),
 * from the area's start: the meeting line's cold path keeps no struct cm_direct. */
static inline _Atomic uint64_t *left_word(struct area_hdr *a, int n, int r)
{
    return &((struct progress_line *)((char *)a + progress_off(n)))[r].left;
}

/* A new area at base, as its leader prepares it: only the sync block and
 * the counters must start from zero, everything else is written before it
 * is read in each epoch.  The flag lines hold counters too (`arrived`): a
 * recycled area must not show an old communicator's epochs.  (area.c here;
 * wing/area.c under a host MPI.) */
static inline void cm_direct_area_zero(char *base, int n, size_t slot)
{
    memset(base, 0, sizeof(struct area_hdr));
    memset(base + flags_off(), 0, (size_t)n * 2 * LINE2);
    memset(base + progress_off(n), 0, (size_t)n * LINE2);
    for (int i = 0; i < CM_DIRECT_BFIFO_ENTRIES; i++)     /* counters only, not the data */
        memset(base + bfifo_off(n, slot) + i * sizeof(struct cm_direct_bfifo_entry), 0, LINE2);
    memset(base + backs_off(n, slot), 0, (size_t)n * LINE2);
    memset(base + rfifo_off(n, slot), 0, (size_t)n * CM_DIRECT_RFIFO_ENTRIES * sizeof(struct cm_direct_rfifo_entry));
}

/* Member rank of n's view s of the area at base (the rest of s is the caller's). */
static inline void cm_direct_area_view(struct cm_direct *s, char *base, int n, int rank, size_t slot)
{
    s->base = base;
    s->flags = base + flags_off();
    s->slots = base + slots_off(n, slot);
    if (n == CM_DIRECT_MEET_RANKS)
        s->meet = &((struct area_hdr *)base)->meet;
    s->n = n;
    s->rank = rank;
    s->slot_bytes = slot;
    s->result_bytes = slot;
}

#endif
