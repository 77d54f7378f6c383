/*
 * sync.c -- active-target fence and passive-target locks: Win_fence,
 * Win_lock/unlock, Win_lock_all/unlock_all, Win_flush*, Win_sync.
 *
 * Fence is the window's counting barrier (wait.c) over the shared control
 * area; MPI_MODE_NOPRECEDE together with MPI_MODE_NOSUCCEED (nothing before,
 * nothing after, stated by every rank) skips it.  Locks are one word per
 * target in the control area: CM_OSC_EXCL, or the number of shared holders,
 * taken with compare-and-swap by the origin alone (the target never takes
 * part, so passive target needs no progress from it).  Waiters sleep on the
 * word (wait.c) when ranks outnumber cores.
 *
 * Flush: every operation is complete at its target when its call returns
 * (osc.h), so flush has nothing to wait for; it is a full memory barrier:
 * the stores of the operations before it are visible to every rank before
 * any load or store after it (a Dekker-style exchange through two windows
 * cannot see both old values).  Flush_local only needs the origin's buffers
 * free, which they are when each call returns: a compiler barrier.
 */
#include "osc/osc.h"
#include "core/error.h"
#include "core/state.h"
#include "fe_osc.h"

#define NOCHECK_BIT 4   /* w->lock[t]: taken with MPI_MODE_NOCHECK, no word held */

int cm_Win_fence(int assert, MPI_Win win)
{
    CM_CALL_LOOKUP(struct cm_win, w, "MPI_Win_fence", cm_win_enter, win);
    if (w->lock_all || w->nlocks || w->start_ranks || w->post_open)
        return cm_win_error(w, MPI_ERR_RMA_SYNC, call, "window %ld has a %s epoch open", (long)(intptr_t)win,
                            w->lock_all || w->nlocks ? "passive-target" : "post/start");
    int mask = MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED;
    if (assert & ~mask)
        return cm_win_error(w, MPI_ERR_ASSERT, call, "assert %#x has bits no fence knows", assert);
    cm_osc_am_drain(w, -1);
    if ((assert & (MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED)) != (MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED))
        cm_osc_barrier(w);
    w->fence_open = !(assert & MPI_MODE_NOSUCCEED);
    w->fence_used = 0;
    return MPI_SUCCESS;
}

struct lock_arg {
    _Atomic uint32_t *word;
    int exclusive;
};

static int try_lock(void *p)
{
    struct lock_arg *a = p;
    uint32_t v = atomic_load_explicit(a->word, memory_order_relaxed);
    if (a->exclusive)
        return v == 0 && atomic_compare_exchange_strong(a->word, &v, CM_OSC_EXCL);
    return !(v & CM_OSC_EXCL) && atomic_compare_exchange_strong(a->word, &v, v + 1);
}

static void lock_word(struct cm_win *w, int rank, int exclusive)
{
    struct lock_arg a = { &w->rctl[rank].lock, exclusive };
    if (!try_lock(&a))
        cm_osc_wait(a.word, &w->rctl[rank].lock_sleepers, try_lock, &a, w->world_of[rank]);
}

static void unlock_word(struct cm_win *w, int rank, int exclusive)
{
    _Atomic uint32_t *word = &w->rctl[rank].lock;
    uint32_t left = exclusive ? (atomic_exchange(word, 0), 0) : atomic_fetch_sub(word, 1) - 1;
    if (left == 0)
        cm_osc_wake(word, &w->rctl[rank].lock_sleepers);
}

int cm_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    CM_CALL_LOOKUP(struct cm_win, w, "MPI_Win_lock", cm_win_enter, win);
    if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE)
        return cm_win_error(w, MPI_ERR_LOCKTYPE, call, "lock_type %d is neither MPI_LOCK_SHARED nor MPI_LOCK_EXCLUSIVE",
                            lock_type);
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (rank < 0 || rank >= w->size)
        return cm_win_error(w, MPI_ERR_RANK, call, "rank %d is not in the window (size %d)", rank, w->size);
    if (assert & ~MPI_MODE_NOCHECK)
        return cm_win_error(w, MPI_ERR_ASSERT, call, "assert %#x: only MPI_MODE_NOCHECK applies", assert);
    if (w->lock[rank] || w->lock_all)
        return cm_win_error(w, MPI_ERR_RMA_SYNC, call, "target %d is already locked by this process (%s)", rank,
                            w->lock_all ? "MPI_Win_lock_all" : "MPI_Win_lock");
    if (w->fence_used || w->start_ranks)
        return cm_win_error(w, MPI_ERR_RMA_SYNC, call, "an active-target epoch (%s) is open on window %ld",
                            w->fence_used ? "fence, with RMA calls since it" : "MPI_Win_start", (long)(intptr_t)win);
    int excl = lock_type == MPI_LOCK_EXCLUSIVE;
    if (!(assert & MPI_MODE_NOCHECK))
        lock_word(w, rank, excl);
    w->lock[rank] = (unsigned char)((excl ? CM_OSC_LOCK_EXCL : CM_OSC_LOCK_SHARED) |
                                    (assert & MPI_MODE_NOCHECK ? NOCHECK_BIT : 0));
    w->nlocks++;
    return MPI_SUCCESS;
}

int cm_Win_unlock(int rank, MPI_Win win)
{
    CM_CALL_LOOKUP(struct cm_win, w, "MPI_Win_unlock", cm_win_enter, win);
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (rank < 0 || rank >= w->size)
        return cm_win_error(w, MPI_ERR_RANK, call, "rank %d is not in the window (size %d)", rank, w->size);
    if (!w->lock[rank])
        return cm_win_error(w, MPI_ERR_RMA_SYNC, call, "target %d is not locked by this process (no MPI_Win_lock)",
                            rank);
    cm_osc_am_drain(w, rank);
    if (!(w->lock[rank] & NOCHECK_BIT))
        unlock_word(w, rank, (w->lock[rank] & 3) == CM_OSC_LOCK_EXCL);
    else
        atomic_thread_fence(memory_order_seq_cst);
    w->lock[rank] = 0;
    w->nlocks--;
    return MPI_SUCCESS;
}

int cm_Win_lock_all(int assert, MPI_Win win)
{
    CM_CALL_LOOKUP(struct cm_win, w, "MPI_Win_lock_all", cm_win_enter, win);
    if (assert & ~MPI_MODE_NOCHECK)
        return cm_win_error(w, MPI_ERR_ASSERT, call, "assert %#x: only MPI_MODE_NOCHECK applies", assert);
    if (w->lock_all || w->nlocks || w->fence_used || w->start_ranks)
        return cm_win_error(w, MPI_ERR_RMA_SYNC, call, "window %ld already has an access epoch open (%s)",
                            (long)(intptr_t)win,
                            w->lock_all ? "MPI_Win_lock_all" : w->nlocks ? "MPI_Win_lock"
                                                             : w->fence_used ? "fence, with RMA calls since it"
                                                                             : "MPI_Win_start");
    if (!(assert & MPI_MODE_NOCHECK))
        for (int r = 0; r < w->size; r++)
            lock_word(w, r, 0);
    w->lock_all = 1 | (assert & MPI_MODE_NOCHECK ? NOCHECK_BIT : 0);
    return MPI_SUCCESS;
}

int cm_Win_unlock_all(MPI_Win win)
{
    CM_CALL_LOOKUP(struct cm_win, w, "MPI_Win_unlock_all", cm_win_enter, win);
    if (!w->lock_all)
        return cm_win_error(w, MPI_ERR_RMA_SYNC, call, "window %ld is not locked by MPI_Win_lock_all",
                            (long)(intptr_t)win);
    cm_osc_am_drain(w, -1);
    if (!(w->lock_all & NOCHECK_BIT))
        for (int r = 0; r < w->size; r++)
            unlock_word(w, r, 0);
    else
        atomic_thread_fence(memory_order_seq_cst);
    w->lock_all = 0;
    return MPI_SUCCESS;
}

/* The flushes: the target must be in a passive-target epoch; then a full
 * memory barrier is all there is to do (top of file). */
static int flush(MPI_Win win, int rank, int all, int local, const char *call)
{
    int rc;
    struct cm_win *w = cm_win_enter(win, call, &rc);
    if (!w)
        return rc;
    if (all ? !w->lock_all && !w->nlocks : rank != MPI_PROC_NULL && (rank < 0 || rank >= w->size))
        return all ? cm_win_error(w, MPI_ERR_RMA_SYNC, call, "no passive-target epoch is open on window %ld",
                                  (long)(intptr_t)win)
                   : cm_win_error(w, MPI_ERR_RANK, call, "rank %d is not in the window (size %d)", rank, w->size);
    if (!all && rank != MPI_PROC_NULL && !w->lock_all && !w->lock[rank])
        return cm_win_error(w, MPI_ERR_RMA_SYNC, call,
                            "target %d is not locked (a flush needs MPI_Win_lock or MPI_Win_lock_all)", rank);
    /* local completion (the origin's buffer may be reused) holds when the
     * operation's call returns: only the compiler must not move accesses */
    if (local) {
        atomic_signal_fence(memory_order_seq_cst);
    } else {
        if (all || rank != MPI_PROC_NULL)
            cm_osc_am_drain(w, all ? -1 : rank);
        atomic_thread_fence(memory_order_seq_cst);
    }
    return MPI_SUCCESS;
}

int cm_Win_flush(int rank, MPI_Win win)
{
    return flush(win, rank, 0, 0, "MPI_Win_flush");
}

int cm_Win_flush_all(MPI_Win win)
{
    return flush(win, 0, 1, 0, "MPI_Win_flush_all");
}

int cm_Win_flush_local(int rank, MPI_Win win)
{
    return flush(win, rank, 0, 1, "MPI_Win_flush_local");
}

int cm_Win_flush_local_all(MPI_Win win)
{
    return flush(win, 0, 1, 1, "MPI_Win_flush_local_all");
}

/* The public and private copies are one (MPI_WIN_UNIFIED): a full memory
 * barrier is the whole synchronisation. */
int cm_Win_sync(MPI_Win win)
{
    CM_CALL_LOOKUP(struct cm_win, w, "MPI_Win_sync", cm_win_enter, win);
    atomic_thread_fence(memory_order_seq_cst);
    return MPI_SUCCESS;
}
