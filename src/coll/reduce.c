/*
 * reduce.c -- reduce algorithms of seed 000 §4 ("Reduce latency").
 *
 *  binomial      binomial tree; rank ordered (a non-commutative op reduces on
 *                the tree rooted at rank 0 and the result hops to the root).
 *  rabenseifner  reduce-scatter by recursive halving, then binomial gather of
 *                the pieces: every round keeps all links and all cores busy,
 *                so it wins for large vectors (> 1-4 KB on the Cell).
 */
#include "coll/coll.h"

#include <stdlib.h>

#define TAG CM_TAG_REDUCE

int cm_coll_reduce_binomial(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                            MPI_Op op, int root, MPI_Comm comm)
{
    int rank, p, rc;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &p);
    int commutative = cm_coll_is_commutative(op);
    int top = commutative ? root : 0;           /* where the tree ends */
    struct cm_members all = {0, 1, p, top, p};
    int my_idx = (rank - top + p) % p;
    void *b1 = NULL, *b2 = NULL, *acc, *result;
    void *tmp = cm_coll_tmp(dt, count, &b1);
    acc = rank == root ? rbuf : cm_coll_tmp(dt, count, &b2);
    if (!tmp || !acc) {
        free(b1);
        free(b2);
        return MPI_ERR_NO_MEM;
    }
    rc = cm_coll_copy(sbuf, count, dt, acc, count, dt, comm);
    if (rc == MPI_SUCCESS)
        rc = cm_part_reduce_binomial(acc, tmp, &result, count, dt, op, &all, my_idx, TAG, comm);
    if (rc == MPI_SUCCESS && rank == top) {
        if (top != root)
            rc = PMPI_Send(result, count, dt, root, TAG, comm);
        else if (result != rbuf)
            rc = cm_coll_copy(result, count, dt, rbuf, count, dt, comm);
    }
    if (rc == MPI_SUCCESS && rank == root && top != root)
        rc = PMPI_Recv(rbuf, count, dt, top, TAG, comm, MPI_STATUS_IGNORE);
    free(b1);
    free(b2);
    return rc;
}

int cm_coll_reduce_rabenseifner(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                                MPI_Op op, int root, MPI_Comm comm)
{
    int rank, p, rc;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &p);
    struct cm_dt d;
    cm_coll_dt(dt, &d);
    int pof2 = cm_pof2_floor(p), rem = p - pof2;
    int top = rem > 0 ? 1 : 0;                  /* rank of participant 0 */
    void *b1 = NULL, *b2 = NULL;
    void *tmp = cm_coll_tmp(dt, count, &b1);
    void *acc = rank == root && rank == top ? rbuf : cm_coll_tmp(dt, count, &b2);
    if (!tmp || !acc) {
        free(b1);
        free(b2);
        return MPI_ERR_NO_MEM;
    }
    struct cm_rsag st;
    rc = cm_coll_copy(sbuf, count, dt, acc, count, dt, comm);
    if (rc == MPI_SUCCESS)
        rc = cm_rsag_reduce_scatter(acc, tmp, count, dt, op, 1, &st, TAG, comm);
    if (rc == MPI_SUCCESS && st.newrank >= 0) {
        /* Gather the pieces to participant 0, undoing the halving steps. */
        for (int s = st.nsteps - 1; s >= 0 && rc == MPI_SUCCESS; s--) {
            int np = st.newrank ^ st.mask[s], peer = cm_rsag_rank(&st, np);
            if (st.newrank & st.mask[s]) {
                rc = PMPI_Send(cm_coll_at(acc, st.lo[s + 1], &d), st.hi[s + 1] - st.lo[s + 1], dt,
                               peer, TAG, comm);
                break;
            }
            int olo = st.lo[s + 1] == st.lo[s] ? st.hi[s + 1] : st.lo[s];
            int ohi = st.lo[s + 1] == st.lo[s] ? st.hi[s] : st.lo[s + 1];
            rc = PMPI_Recv(cm_coll_at(acc, olo, &d), ohi - olo, dt, peer, TAG, comm, MPI_STATUS_IGNORE);
        }
        if (rc == MPI_SUCCESS && st.newrank == 0 && rank != root)
            rc = PMPI_Send(acc, count, dt, root, TAG, comm);
    }
    if (rc == MPI_SUCCESS && rank == root && rank != top)
        rc = PMPI_Recv(rbuf, count, dt, top, TAG, comm, MPI_STATUS_IGNORE);
    free(b1);
    free(b2);
    return rc;
}
