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
#include "coll/p2p.h"
#include "p2p/p2p.h"

#include <limits.h>
#include <stdlib.h>

/* Published for call k: a FIFO entry's seq reached k + 1. */
static int published(_Atomic uint32_t *seq, uint32_t k)
{
    return (int32_t)(atomic_load_explicit(seq, memory_order_acquire) - (k + 1)) >= 0;
}

/* I wait in a sync, having finished s->bcasts broadcast-FIFO calls and
 * s->to_root reduce-FIFO calls.  An entry for the next one published means
 * its writer did that call where I am in a sync: it never comes to mine
 * unless it was past my sync already, which the caller rules out by
 * re-checking its wait. */
int cm_direct_fifo_ahead(struct cm_direct *s, uint32_t word, int *peer, uint32_t *theirs)
{
    if (!word || cm_direct_mm.on || s->nbc_head)
        return 0;
    struct cm_direct_bfifo_entry *b = cm_direct_bfifo(s, s->bcasts);
    if (cm_direct_bfifo_enabled() && published(&b->seq, s->bcasts)) {
        *theirs = b->word;
        *peer = cm_direct_word_root(*theirs, b->sig_class, s->n, 0);
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

/* Rank src of the area of cc (a blocking collective runs: word != 0) shows
 * it took another way than my point-to-point receive from it: a FIFO entry
 * of a call I have not reached (a broadcast it is root of, or its own
 * reduce-FIFO entry), or an arrival at the sync after my last one. */
int cm_direct_p2p_stalled(MPI_Comm cc, int src, int confirm)
{
    uint32_t word = cm_direct_word, theirs = 0;
    struct cm_direct *s = cm_direct_recent;
    if (word && cm_direct_mm.on)
        return 1;       /* this call has gone wrong already: a message still missing may never come */
    if (!word || src < 0)
        return 0;
    if (!s || s->comm_index != cm_comm_index(cm_comm_plain(cc)))
        s = cm_direct_peek_slow(cc);
    if (!s || src >= s->n || cm_direct_nbc_pending(s))
        return 0;       /* nonblocking calls in flight move the counters on their own */
    struct cm_direct_bfifo_entry *b = cm_direct_bfifo(s, s->bcasts);
    struct cm_direct_rfifo_entry *e = cm_direct_rfifo(s, src, s->to_root);
    int in_sync = 0;
    if (cm_direct_bfifo_enabled() && published(&b->seq, s->bcasts) && cm_direct_word_root(b->word, b->sig_class, s->n, 0) == src)
        theirs = b->word;
    else if (cm_direct_rfifo_enabled() && published(&e->seq, s->to_root))
        theirs = e->word;
    else if (!(in_sync = cm_direct_peer_in_sync(s, src, &theirs)))
        return 0;
    if (confirm) {
        cm_direct_mismatch_seen(src, word, theirs);
        if (in_sync)
            cm_direct_sync_join(s);
    }
    return 1;
}

unsigned cm_direct_tag_coll(int tag, unsigned mine)
{
    switch (tag) {
#define T(C) case CM_TAG_##C: return CM_COLL_##C;
    T(BARRIER) T(BCAST) T(REDUCE) T(ALLREDUCE) T(GATHER) T(GATHERV) T(SCATTER) T(SCATTERV) T(ALLGATHER)
    T(ALLGATHERV) T(ALLTOALL) T(ALLTOALLV) T(ALLTOALLW) T(REDUCE_SCATTER) T(REDUCE_SCATTER_BLOCK) T(SCAN) T(EXSCAN)
#undef T
    default: return mine;
    }
}

/* A message's tag without the argument word (p2p/coll_entry.h); the
 * negative and partitioned tags stay as they are. */
static int base_tag(int tag)
{
    return (unsigned)tag < CM_P2P_TAG_LIMIT ? (int)((unsigned)tag & CM_P2P_TAG_BASE_MASK) : tag;
}

/* The first message waiting from peer on the area's context, if it is a
 * blocking collective algorithm's (base tags 1 .. CM_TAG_NBC_BASE - 1,
 * coll.h; the argument word above them is left out of st->MPI_TAG): not a
 * nonblocking schedule's (which may legitimately be early), not the
 * negative tags of the communicator calls (a Comm_idup's later rounds may
 * legitimately wait there unexpected), nor the area's set-up (CM_TAG_AREA,
 * no call's data).  Its size in *count. */
static int coll_message(struct cm_direct *s, int peer, MPI_Status *st, int *count)
{
    int flag = 0;
    if (PMPI_Iprobe(peer, MPI_ANY_TAG, s->cc, &flag, st) != MPI_SUCCESS || !flag)
        return 0;
    st->MPI_TAG = base_tag(st->MPI_TAG);
    if (st->MPI_TAG <= 0 || st->MPI_TAG >= CM_TAG_NBC_BASE || st->MPI_TAG == CM_TAG_AREA)
        return 0;
    PMPI_Get_count(st, MPI_BYTE, count);
    return 1;
}

/* A FIFO reader whose writer has not published: a blocking collective's
 * point-to-point message from it waits here (it runs an algorithm of
 * another path).  Its word as far as the message shows: the collective by
 * the tag, the bytes by the size, my root and op. */
int cm_direct_peer_sent(struct cm_direct *s, int peer, uint32_t *theirs)
{
    int count = 0;
    MPI_Status st;
    if (!coll_message(s, peer, &st, &count))
        return 0;
    uint32_t w = cm_direct_word;
    int root = (int)((w >> 9) & 0xffu) - 1;
    *theirs = cm_direct_word_of(cm_direct_tag_coll(st.MPI_TAG, (w & 31u) - 1), (size_t)count, root, MPI_OP_NULL) |
              (w & (15u << 5));
    return 1;
}

/* After cm_direct_peer_sent was confirmed: take that message off the queue
 * (a rendezvous sender then finishes instead of waiting for this rank
 * forever, and a later communicator reusing the context does not match
 * it). */
void cm_direct_drop_sent(struct cm_direct *s, int peer)
{
    int count = 0;
    MPI_Status st;
    if (!coll_message(s, peer, &st, &count))
        return;
    cm_direct_drop_block(peer, (size_t)count, st.MPI_TAG, s->cc);
}

void cm_direct_drop_block(int src, size_t bytes, int tag, MPI_Comm comm)
{
    if (bytes > INT_MAX)
        return;         /* a count cannot say it: left for the communicator's free to drop */
    void *junk = malloc(bytes ? bytes : 1);
    if (junk)
        cm_coll_recv(junk, (int)bytes, MPI_BYTE, src, tag, comm, MPI_STATUS_IGNORE);
    free(junk);
}
#endif
