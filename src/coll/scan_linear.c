/*
 * scan_linear.c -- inclusive and exclusive prefix reductions along the chain
 * of ranks: rank r receives x0 op ... op x(r-1) from r - 1, combines its own
 * vector on the right (rank order, so non-commutative ops are fine) and
 * passes the prefix on to r + 1.
 *
 * p - 1 steps instead of recursive doubling's log p, but each rank sends one
 * message and never waits for a later rank: rank 0's send is eager and it
 * returns at once, so back-to-back small scans pipeline down the chain like
 * eager point-to-point (2 ranks, 8 B: about a third of recursive doubling's
 * time, which exchanges in both directions every round).  With more ranks
 * than cores a rank needs to run once per scan.  The tuning table uses it
 * for small vectors at 2 ranks and for every size on larger communicators;
 * from 256 KiB the vector travels in 128 KiB segments (below).
 */
#include "coll/coll.h"

#include <stdlib.h>

#define SMALL_SCAN 256
#define SEGMENT_BYTES (128 * 1024)

static int chain(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                 int exclusive, int tag)
{
    int rank, p, rc = MPI_SUCCESS;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &p);
    if (rank == 0) {
        if (!exclusive && sbuf != rbuf)
            rc = cm_coll_copy(sbuf, count, dt, rbuf, count, dt, comm);
        if (rc == MPI_SUCCESS && p > 1)
            rc = cm_coll_send(sbuf, count, dt, 1, tag, comm);
        return rc;
    }
    void *b1 = NULL, *b2 = NULL;
    /* A loop of tiny scans runs as a pipeline along the chain, one call per
     * message: the temporaries of a few dozen bytes live on the stack, not
     * in two malloc/free pairs per call. */
    _Alignas(16) unsigned char small[2][SMALL_SCAN];
    void *prefix = cm_coll_tmp_in(dt, count, small[0], SMALL_SCAN, &b1);
    /* exclusive: my contribution must outlive rbuf taking the prefix (in place) */
    void *mine = exclusive && rank < p - 1 ? cm_coll_tmp_in(dt, count, small[1], SMALL_SCAN, &b2) : NULL;
    if (!prefix || (exclusive && rank < p - 1 && !mine)) {
        cm_coll_tmp_free(b1);
        cm_coll_tmp_free(b2);
        return MPI_ERR_NO_MEM;
    }
    if (mine)
        rc = cm_coll_copy(sbuf, count, dt, mine, count, dt, comm);
    if (rc == MPI_SUCCESS)
        rc = cm_coll_recv(prefix, count, dt, rank - 1, tag, comm, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS && exclusive) {
        rc = cm_coll_copy(prefix, count, dt, rbuf, count, dt, comm);
        if (rc == MPI_SUCCESS && mine) {
            rc = PMPI_Reduce_local(prefix, mine, count, dt, op);
            if (rc == MPI_SUCCESS)
                rc = cm_coll_send(mine, count, dt, rank + 1, tag, comm);
        }
    } else if (rc == MPI_SUCCESS) {
        if (sbuf != rbuf)
            rc = cm_coll_copy(sbuf, count, dt, rbuf, count, dt, comm);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Reduce_local(prefix, rbuf, count, dt, op);
        if (rc == MPI_SUCCESS && rank < p - 1)
            rc = cm_coll_send(rbuf, count, dt, rank + 1, tag, comm);
    }
    cm_coll_tmp_free(b1);
    cm_coll_tmp_free(b2);
    return rc;
}

/* A large vector goes down the chain in segments, so that rank r folds
 * segment k + 1 while rank r + 1 folds segment k: the chain keeps both cores
 * busy instead of one at a time.  8 ranks on 2 cores (bench/coll.c, three
 * alternated runs): 4 MiB 5.9-6.1 ms against 10.5-13.1 whole (Open MPI
 * 8.9-9.8), 1 MiB 0.97-1.2 against 1.2-1.7 (Open MPI 1.04-1.12); 64 KiB
 * segments lost to context switches, 256 KiB matched 128.  2 ranks: 4 MiB
 * 0.50-0.54 ms against 0.56-0.60, 1 MiB unchanged. */
static int segmented(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                     int exclusive, int tag)
{
    struct cm_dt d;
    cm_coll_dt(dt, &d);
    if (d.extent <= 0 || (size_t)count * (size_t)d.size <= 2 * SEGMENT_BYTES)
        return chain(sbuf, rbuf, count, dt, op, comm, exclusive, tag);
    int rc = MPI_SUCCESS;
    for (int off = 0, n; off < count && rc == MPI_SUCCESS; off += n) {
        n = cm_coll_segment(&d, SEGMENT_BYTES, off, count);
        const void *sb = sbuf == rbuf ? cm_coll_at(rbuf, off, &d) : cm_coll_at(sbuf, off, &d);
        rc = chain(sb, cm_coll_at(rbuf, off, &d), n, dt, op, comm, exclusive, tag);
    }
    return rc;
}

int cm_coll_scan_linear(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    return segmented(sbuf, rbuf, count, dt, op, comm, 0, CM_TAG_SCAN);
}

int cm_coll_exscan_linear(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    return segmented(sbuf, rbuf, count, dt, op, comm, 1, CM_TAG_EXSCAN);
}
