/*
 * direct/reduce.c -- reduce on the shared area.  Up to a slot: everyone copies
 * into its slot, one sync, the root folds the slots in rank order (from
 * CM_DIRECT_SPLIT_FOLD_MIN every rank folds a slice).  Larger: piece by piece
 * through the slots.  With COREMPI_SHM_CHUNKED=0, large
 * vectors take the single-copy slice reduction of direct/allreduce.c, each rank
 * keeping its finished slice in a private buffer that the root reads as the
 * owner's message counter announces chunks.
 */
#include <mpi.h>
#ifdef CM_IN_COREMPI  /* corempi only: the host-MPI harness compiles every src/coll file */
#include "coll/direct/fold.h"
#include "core/state.h"
#include "shm/copy.h"

#include <stdlib.h>
#include <string.h>

/* The reduce FIFO (direct.h): a non-root deposits and returns, so a loop of
 * tiny reductions runs like eager sends, and with more ranks than cores the
 * non-roots need not be scheduled again before the root folds. */
static int reduce_fifo(struct cm_direct *s, const char *sb, char *rb, size_t bytes, MPI_Aint tlb, int count,
                       MPI_Datatype dt, MPI_Op op, int root)
{
    if (bytes > CM_DIRECT_RFIFO_BYTES)   /* the caller's test; tells the compiler `own` is big enough */
        return MPI_ERR_INTERN;
    uint32_t k = s->to_root++;
    int me = s->rank, n = s->n;
    if (me != root) {
        struct cm_direct_rfifo_entry *e = cm_direct_rfifo(s, me, k);
        cm_direct_rfifo_claim(s, k);
        cm_copy(e->data, sb, bytes);
        e->word = cm_direct_word;
        CM_FAULT(fifo_publish);
        atomic_store_explicit(&e->seq, k + 1, memory_order_release);
        cm_direct_wake32(&e->seq, &e->seq_waiters);
        return MPI_SUCCESS;
    }
    for (int r = 0; r < n; r++) {
        if (r != me) {
            struct cm_direct_rfifo_entry *e = cm_direct_rfifo(s, r, k);
            cm_direct_wait32_from(s, &e->seq, &e->seq_waiters, k + 1, r);
            cm_direct_prefetch(cm_direct_rfifo(s, r, k + 1));
            if (cm_direct_words_differ(e->word, cm_direct_word))    /* direct.h: argument agreement */
                cm_direct_mismatch_seen(r, cm_direct_word, e->word);
            if (__builtin_expect(cm_direct_mm.on, 0))
                return MPI_SUCCESS;     /* rb untouched; the front end raises it */
        }
    }
    /* Right fold in rank order: acc = x0 op (x1 op (... x_{n-1})).  In place
     * the root's input is rb itself: keep it aside before rb takes x_{n-1}. */
    unsigned char own[CM_DIRECT_RFIFO_BYTES];
    cm_copy(own, sb, bytes);
    cm_copy(rb, me == n - 1 ? own : cm_direct_rfifo(s, n - 1, k)->data, bytes);
    cm_op_kernel_fn kernel = cm_direct_kernel(op, dt);
    int rc = MPI_SUCCESS;
    for (int r = n - 2; r >= 0 && rc == MPI_SUCCESS; r--) {
        const unsigned char *x = r == me ? own : cm_direct_rfifo(s, r, k)->data;
        if (kernel)
            kernel(x, rb, (size_t)count);
        else
            rc = PMPI_Reduce_local(x - tlb, rb - tlb, count, dt, op);
    }
    cm_direct_rfifo_done(s, k);
    return rc;
}

/* Through the slots: everyone copies in, one sync; the root folds them all,
 * or from CM_DIRECT_SPLIT_FOLD_MIN every rank folds its slice into the shared
 * result and a second sync hands it to the root.  At 2 ranks only the
 * non-root copies in and the root folds straight into its buffer (1 MiB:
 * 30-39 us against 40, 4 MiB 117-141 against 269-274; Open MPI 88-91 /
 * 369-428). */
static int reduce_slots(struct cm_direct *s, const char *sb, char *rb, size_t bytes, int count, MPI_Datatype dt,
                        MPI_Op op, int root)
{
    if (s->n == 2)
        return cm_direct_fold_pieces(s, sb, rb, count, bytes / (size_t)count, dt, op, root);
    if (bytes >= CM_DIRECT_SPLIT_FOLD_MIN) {
        const void *result;
        int rc = cm_direct_fold_split(s, sb, bytes, count, dt, op, &result);
        if (s->rank == root)
            cm_copy(rb, result, bytes);
        return rc;
    }
    int p = cm_direct_parity(s);
    cm_copy(cm_direct_data(s, s->rank, p, bytes), sb, bytes);
    cm_direct_sync(s, NULL, NULL);
    return s->rank == root ? cm_direct_fold_slots(s, p, bytes, rb, count, dt, op, 0) : MPI_SUCCESS;
}

int cm_coll_reduce_shm(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                       MPI_Comm comm)
{
    MPI_Aint tlb, ext;
    size_t bytes = cm_direct_bytes(count, dt, NULL, &tlb, &ext);
    int size, rank;
    PMPI_Comm_size(comm, &size);
    PMPI_Comm_rank(comm, &rank);
    if (size == 1) {
        if (sbuf != rbuf && bytes)
            cm_copy((char *)rbuf + tlb, (const char *)sbuf + tlb, bytes);
        return MPI_SUCCESS;
    }
    struct cm_direct *s = cm_direct_get(comm, "MPI_Reduce");
    if (!s || (bytes > s->slot_bytes && !s->cma))
        return CM_COLL_VIA(reduce, binomial)(sbuf, rbuf, count, dt, op, root, comm);
    const char *sb = (const char *)sbuf + tlb;
    if (bytes <= CM_DIRECT_RFIFO_BYTES && cm_direct_rfifo_enabled())
        return reduce_fifo(s, sb, (char *)rbuf + tlb, bytes, tlb, count, dt, op, root);
    char *rb = (char *)rbuf + tlb;   /* rbuf is only significant (and only touched) at the root */
    if (bytes <= s->slot_bytes && bytes < cm_direct_cma_min())
        return reduce_slots(s, sb, rb, bytes, count, dt, op, root);
    if (cm_direct_chunked(s, bytes))
        return cm_direct_fold_pieces(s, sb, rb, count, bytes / (size_t)count, dt, op, root);
    /* Single copy: my slice goes to the root's buffer if I am the root, else
     * to a private one published at the slice's origin minus its offset. */
    int lo, hi;
    cm_direct_slice(count, size, rank, &lo, &hi);
    char *mine = NULL, *out;
    if (rank == root) {
        out = (char *)rbuf + tlb;
    } else {
        mine = malloc(hi > lo ? (size_t)(hi - lo) * (size_t)ext : 1);
        if (!mine)
            return MPI_ERR_NO_MEM;
        out = mine - (size_t)lo * (size_t)ext;   /* only [lo, hi) is touched */
    }
    int p = cm_direct_parity(s);
    struct cm_direct_flag *f = cm_direct_flag(s, rank, p);
    f->addr[0] = (uint64_t)(uintptr_t)sb;
    f->addr[1] = (uint64_t)(uintptr_t)mine - (uint64_t)lo * (uint64_t)ext;
    if (rank == root)
        f->addr[1] = (uint64_t)(uintptr_t)out;
    f->base = s->progress_mine;
    cm_direct_sync(s, NULL, NULL);
    int rc = cm_direct_reduce_my_slice(s, p, count, dt, op, out);
    if (rank == root)
        for (int i = 1; i < size; i++)
            cm_direct_fetch_slice(s, p, (rank + i) % size, count, (size_t)ext, out);
    cm_direct_sync(s, NULL, NULL);
    free(mine);
    return rc;
}
#endif
