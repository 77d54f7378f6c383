/*
 * direct/scan.c -- tiny scans and exscans through the reduce FIFO (direct.h).
 *
 * Rank r waits for rank r-1's entry of call k (the prefix x0 op ... op
 * x(r-1)), combines its own vector on the right and leaves the new prefix in
 * its own entry for r+1, then returns: rank 0 does not wait at all, so a
 * loop of scans pipelines down the chain.  The last rank acknowledges, as a
 * root does for reduce and gather: having rank n-2's entry of call k, it
 * knows every entry of every call up to k was read (rank r+1 reads r's entry
 * before writing its own, and no rank writes call k before finishing the
 * calls before it).  Larger vectors go through the slots (scan_slots).
 * Each entry carries its writer's argument word, which the next rank
 * compares (direct.h, "argument agreement"), as the reduce FIFO's root does.
 */
#include <mpi.h>
#ifdef CM_IN_COREMPI  /* corempi only: the host-MPI harness compiles every src/coll file */
#include "coll/direct/fold.h"
#include "shm/copy.h"

#include <string.h>

/* acc = x op acc */
static int fold(const void *x, void *acc, int count, MPI_Datatype dt, MPI_Op op, MPI_Aint tlb)
{
    cm_op_kernel_fn kernel = cm_direct_kernel(op, dt);
    if (kernel) {
        kernel(x, acc, (size_t)count);
        return MPI_SUCCESS;
    }
    return PMPI_Reduce_local((const char *)x - tlb, (char *)acc - tlb, count, dt, op);
}

static int scan_fifo(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                     int exclusive)
{
    MPI_Aint tlb;
    size_t bytes = cm_direct_bytes(count, dt, NULL, &tlb, NULL);
    int n, me;
    PMPI_Comm_size(comm, &n);
    PMPI_Comm_rank(comm, &me);
    /* The same answer on every rank: same count and type signature. */
    struct cm_direct *s = n > 1 && bytes <= CM_DIRECT_RFIFO_PAIR_BYTES && cm_direct_rfifo_enabled()
                           ? cm_direct_get(comm, exclusive ? "MPI_Exscan" : "MPI_Scan")
                           : NULL;
    if (!s)
        return exclusive ? CM_COLL_VIA(exscan, linear)(sbuf, rbuf, count, dt, op, comm)
                         : CM_COLL_VIA(scan, linear)(sbuf, rbuf, count, dt, op, comm);
    uint32_t k = s->to_root++;
    char *out = (char *)rbuf + tlb;
    unsigned char prefix[CM_DIRECT_RFIFO_PAIR_BYTES];   /* becomes x0 op ... op x(me) */
    cm_copy(prefix, (const char *)sbuf + tlb, bytes); /* before rbuf changes: in place */
    int rc = MPI_SUCCESS;
    if (me > 0) {
        struct cm_direct_rfifo_entry *e = cm_direct_rfifo(s, me - 1, k);
        cm_direct_wait32(s, &e->seq, &e->seq_waiters, k + 1);
        cm_direct_prefetch(cm_direct_rfifo(s, me - 1, k + 1));
        if (cm_direct_words_differ(e->word, cm_direct_word))    /* direct.h: argument agreement */
            cm_direct_mismatch_seen(me - 1, cm_direct_word, e->word);
        if (exclusive)
            cm_copy(out, e->data, bytes);
        rc = fold(e->data, prefix, count, dt, op, tlb);
    }
    if (!exclusive)
        cm_copy(out, prefix, bytes);
    if (me < n - 1) {
        struct cm_direct_rfifo_entry *e = cm_direct_rfifo(s, me, k);
        cm_direct_rfifo_claim(s, k);
        cm_copy(e->data, prefix, bytes);
        /* A prefix made of disagreeing arguments goes on (the ranks after
         * me wait for it) marked as such: collective field 31, which the
         * next rank reports as "rank me saw the arguments differ". */
        e->word = cm_direct_mm.on ? cm_direct_word | 31u : cm_direct_word;
        CM_FAULT(fifo_publish);
        atomic_store_explicit(&e->seq, k + 1, memory_order_release);
        cm_direct_wake32(&e->seq, &e->seq_waiters);
    } else {
        cm_direct_rfifo_done(s, k);
    }
    return rc;
}

/* Above the FIFO, up to a slot: everyone copies its vector into its slot of
 * parity p, one sync; rank j then runs the prefix along the ranks for its
 * element slice j into the slots of the other parity q
 * (q_r = q_{r-1} op p_r, a left fold in rank order), a second sync, and
 * rank r copies q_r (scan) or q_{r-1} (exscan) out.  The prefixes go to q,
 * not back into p, because the next call copies into p at once, while a
 * slower rank may still be copying its prefix out; q is written again only
 * after the next call's first sync.  Both cores fold at once, where the
 * chain folds one rank after another. */
static int scan_slots(struct cm_direct *s, const char *sb, char *rb, size_t bytes, int count, MPI_Datatype dt,
                      MPI_Op op, int exclusive, MPI_Aint tlb)
{
    int n = s->n, me = s->rank, p = cm_direct_parity(s);
    cm_copy(cm_direct_slot(s, me, p), sb, bytes);
    cm_direct_sync(s, NULL, NULL);
    int q = cm_direct_parity(s), lo, hi, rc = MPI_SUCCESS;
    cm_direct_slice(count, n, me, &lo, &hi);
    size_t es = bytes / (size_t)count, at = (size_t)lo * es, len = (size_t)(hi - lo) * es;
    for (int r = 0; r < n && len; r++) {
        char *acc = (char *)cm_direct_slot(s, r, q) + at;
        cm_copy(acc, (char *)cm_direct_slot(s, r, p) + at, len);
        if (r > 0 && rc == MPI_SUCCESS)
            rc = fold((char *)cm_direct_slot(s, r - 1, q) + at, acc, hi - lo, dt, op, tlb);
    }
    cm_direct_sync(s, NULL, NULL);
    if (!exclusive)
        cm_copy(rb, cm_direct_slot(s, me, q), bytes);
    else if (me > 0)
        cm_copy(rb, cm_direct_slot(s, me - 1, q), bytes);
    return rc;
}

static int scan_shm(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                    int exclusive)
{
    MPI_Aint tlb;
    size_t bytes = cm_direct_bytes(count, dt, NULL, &tlb, NULL);
    struct cm_direct *s = bytes > CM_DIRECT_RFIFO_PAIR_BYTES && cm_comm_lookup(comm, NULL)->size > 1
                           ? cm_direct_get(comm, exclusive ? "MPI_Exscan" : "MPI_Scan")
                           : NULL;
    if (!s || (bytes > s->slot_bytes && !cm_direct_chunked(s, bytes)))
        return scan_fifo(sbuf, rbuf, count, dt, op, comm, exclusive);
    const char *sb = (const char *)sbuf + tlb;
    char *rb = (char *)rbuf + tlb;
    size_t es = bytes / (size_t)count;
    int rc = MPI_SUCCESS;
    for (int off = 0, n; off < count && rc == MPI_SUCCESS; off += n) {
        n = cm_direct_piece(s, es, off, count);
        rc = scan_slots(s, sb + (size_t)off * es, rb + (size_t)off * es, (size_t)n * es, n, dt, op, exclusive, tlb);
    }
    return rc;
}

int cm_coll_scan_shm(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    return scan_shm(sbuf, rbuf, count, dt, op, comm, 0);
}

int cm_coll_exscan_shm(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    return scan_shm(sbuf, rbuf, count, dt, op, comm, 1);
}
#endif
