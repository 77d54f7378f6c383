/*
 * shm_scan.c -- tiny scans and exscans through the reduce FIFO (shm.h).
 *
 * Rank r waits for rank r-1's entry of call k (the prefix x0 op ... op
 * x(r-1)), combines its own vector on the right and leaves the new prefix in
 * its own entry for r+1, then returns: rank 0 does not wait at all, so a
 * loop of scans pipelines down the chain.  The last rank acknowledges, as a
 * root does for reduce and gather: having rank n-2's entry of call k, it
 * knows every entry of every call up to k was read (rank r+1 reads r's entry
 * before writing its own, and no rank writes call k before finishing the
 * calls before it).  Vectors above CM_SHM_RFIFO_BYTES take the chain over
 * point-to-point (scan_linear.c).
 */
#include <mpi.h>
#ifdef COREMPI  /* corempi only: the host-MPI harness compiles every src/coll file */
#include "coll/shm_fold.h"
#include "shm/copy.h"

#include <string.h>

/* acc = x op acc */
static int fold(const void *x, void *acc, int count, MPI_Datatype dt, MPI_Op op, MPI_Aint tlb)
{
    cm_op_kernel_fn kernel = cm_shm_kernel(op, dt);
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
    size_t bytes = cm_shm_bytes(count, dt, NULL, &tlb, NULL);
    int n, me;
    PMPI_Comm_size(comm, &n);
    PMPI_Comm_rank(comm, &me);
    /* The same answer on every rank: same count and type signature. */
    struct cm_shm *s = n > 1 && bytes && bytes <= CM_SHM_RFIFO_BYTES && cm_shm_rfifo_enabled()
                           ? cm_shm_get(comm, exclusive ? "MPI_Exscan" : "MPI_Scan")
                           : NULL;
    if (!s)
        return exclusive ? cm_coll_exscan_linear(sbuf, rbuf, count, dt, op, comm)
                         : cm_coll_scan_linear(sbuf, rbuf, count, dt, op, comm);
    uint32_t k = s->to_root++;
    char *out = (char *)rbuf + tlb;
    unsigned char prefix[CM_SHM_RFIFO_BYTES];   /* becomes x0 op ... op x(me) */
    cm_copy(prefix, (const char *)sbuf + tlb, bytes); /* before rbuf changes: in place */
    int rc = MPI_SUCCESS;
    if (me > 0) {
        struct cm_shm_rfifo_entry *e = cm_shm_rfifo(s, me - 1, k);
        cm_shm_wait32(s, &e->seq, &e->seq_waiters, k + 1);
        cm_shm_prefetch(cm_shm_rfifo(s, me - 1, k + 1));
        if (exclusive)
            cm_copy(out, e->data, bytes);
        rc = fold(e->data, prefix, count, dt, op, tlb);
    }
    if (!exclusive)
        cm_copy(out, prefix, bytes);
    if (me < n - 1) {
        struct cm_shm_rfifo_entry *e = cm_shm_rfifo(s, me, k);
        cm_shm_rfifo_claim(s, k);
        cm_copy(e->data, prefix, bytes);
        atomic_store_explicit(&e->seq, k + 1, memory_order_release);
        cm_shm_wake32(&e->seq, &e->seq_waiters);
    } else {
        cm_shm_rfifo_done(s, k);
    }
    return rc;
}

int cm_coll_scan_shm(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    return scan_fifo(sbuf, rbuf, count, dt, op, comm, 0);
}

int cm_coll_exscan_shm(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    return scan_fifo(sbuf, rbuf, count, dt, op, comm, 1);
}
#endif
