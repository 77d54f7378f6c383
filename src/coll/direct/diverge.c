/*
 * direct/diverge.c -- a sync waiter whose wait lasts asks whether some rank
 * went through a FIFO instead (direct.h, "argument agreement"): ranks that
 * disagree on a collective's bytes, root or kind can take different paths
 * (a FIFO entry against a sync), and each would wait for the other forever.
 * Asked only before a waiter sleeps: nothing on the path of a sync that
 * completes while spinning.
 */
#include <mpi.h>
#ifdef CM_IN_COREMPI  /* corempi only: the host-MPI harness compiles every src/coll file */
#include "coll/direct/direct.h"

/* Published for call k: a FIFO entry's seq reached k + 1. */
static int published(_Atomic uint32_t *seq, uint32_t k)
{
    return (int32_t)(atomic_load_explicit(seq, memory_order_acquire) - (k + 1)) >= 0;
}

/* A word's root field (direct.h): root + 1, low 8 bits; the rank to name. */
static int word_root(uint32_t w, int n)
{
    int r = (int)((w >> 9) & 0xffu) - 1;
    return r >= 0 && r < n ? r : 0;
}

/* I wait in a sync, having finished s->bcasts broadcast-FIFO calls and
 * s->to_root reduce-FIFO calls.  An entry for the next one published means
 * its writer did that call where I am in a sync: it never comes to mine
 * unless it was past my sync already, which the caller rules out by
 * re-checking its wait. */
int cm_direct_fifo_ahead(struct cm_direct *s, uint32_t word, int *peer, uint32_t *theirs)
{
    if (!word || cm_direct_mm.on)
        return 0;
    struct cm_direct_bfifo_entry *b = cm_direct_bfifo(s, s->bcasts);
    if (cm_direct_bfifo_enabled() && published(&b->seq, s->bcasts)) {
        *theirs = b->word;
        *peer = word_root(*theirs, s->n);
        return 1;
    }
    for (int r = 0; r < s->n && cm_direct_rfifo_enabled(); r++) {
        struct cm_direct_rfifo_entry *e = cm_direct_rfifo(s, r, s->to_root);
        if (r != s->rank && published(&e->seq, s->to_root)) {
            *theirs = e->word;
            *peer = r;
            return 1;
        }
    }
    return 0;
}
#endif
