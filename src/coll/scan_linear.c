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
 * for small vectors only: a large one would cross every link in turn.
 */
#include "coll/coll.h"

#include <stdlib.h>

#define SMALL_SCAN 256

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
            rc = PMPI_Send(sbuf, count, dt, 1, tag, comm);
        return rc;
    }
    void *b1 = NULL, *b2 = NULL;
    /* A loop of tiny scans runs as a pipeline along the chain, one call per
     * message: the temporaries of a few dozen bytes live on the stack, not
     * in two malloc/free pairs per call. */
    struct cm_dt d;
    cm_coll_dt(dt, &d);
    size_t span = count > 0 ? (size_t)d.true_extent + (size_t)(count - 1) * (size_t)d.extent : 0;
    _Alignas(16) unsigned char small[2][SMALL_SCAN];
    int on_stack = span <= SMALL_SCAN && d.true_lb >= 0 && (size_t)d.true_lb <= span;
    void *prefix = on_stack ? (void *)(small[0] - d.true_lb) : cm_coll_tmp(dt, count, &b1);
    /* exclusive: my contribution must outlive rbuf taking the prefix (in place) */
    void *mine = !(exclusive && rank < p - 1) ? NULL
                 : on_stack                    ? (void *)(small[1] - d.true_lb)
                                               : cm_coll_tmp(dt, count, &b2);
    if (!prefix || (exclusive && rank < p - 1 && !mine)) {
        cm_coll_tmp_free(b1);
        cm_coll_tmp_free(b2);
        return MPI_ERR_NO_MEM;
    }
    if (mine)
        rc = cm_coll_copy(sbuf, count, dt, mine, count, dt, comm);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Recv(prefix, count, dt, rank - 1, tag, comm, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS && exclusive) {
        rc = cm_coll_copy(prefix, count, dt, rbuf, count, dt, comm);
        if (rc == MPI_SUCCESS && mine) {
            rc = PMPI_Reduce_local(prefix, mine, count, dt, op);
            if (rc == MPI_SUCCESS)
                rc = PMPI_Send(mine, count, dt, rank + 1, tag, comm);
        }
    } else if (rc == MPI_SUCCESS) {
        if (sbuf != rbuf)
            rc = cm_coll_copy(sbuf, count, dt, rbuf, count, dt, comm);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Reduce_local(prefix, rbuf, count, dt, op);
        if (rc == MPI_SUCCESS && rank < p - 1)
            rc = PMPI_Send(rbuf, count, dt, rank + 1, tag, comm);
    }
    cm_coll_tmp_free(b1);
    cm_coll_tmp_free(b2);
    return rc;
}

int cm_coll_scan_linear(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    return chain(sbuf, rbuf, count, dt, op, comm, 0, CM_TAG_SCAN);
}

int cm_coll_exscan_linear(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    return chain(sbuf, rbuf, count, dt, op, comm, 1, CM_TAG_EXSCAN);
}
