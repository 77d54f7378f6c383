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

static int reduce_binomial_whole(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                                 MPI_Comm comm);

/* With a core per rank, vectors above SEGMENT_FROM bytes go up the tree in
 * segments of SEGMENT_BYTES: each is an eager message, so a child sends
 * segment k + 1 while its parent still folds segment k, and every fold works
 * on data still in cache instead of a whole received vector copied in, then
 * out.  2 ranks (bench/coll.c, alternated runs): 1 MiB 106-111 us and 4 MiB
 * 427-488 with 8 KiB segments, 148-151 and 639-657 with 16 KiB on far cores,
 * against 182 and 1778-1881 whole.  With more ranks than cores every segment
 * costs context switches: 8 ranks on 2 cores were slower segmented. */
#define SEGMENT_FROM (64 * 1024)
#define SEGMENT_BYTES (8 * 1024)

int cm_coll_reduce_binomial(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                            MPI_Op op, int root, MPI_Comm comm)
{
    struct cm_dt d;
    cm_coll_dt(dt, &d);
    size_t bytes = (size_t)count * (size_t)d.size;
    if (bytes <= SEGMENT_FROM || d.extent <= 0 || cm_coll_oversubscribed())
        return reduce_binomial_whole(sbuf, rbuf, count, dt, op, root, comm);
    int rc = MPI_SUCCESS;
    for (int off = 0, n; off < count && rc == MPI_SUCCESS; off += n) {
        n = cm_coll_segment(&d, SEGMENT_BYTES, off, count);
        rc = reduce_binomial_whole(cm_coll_at(sbuf, off, &d), rbuf ? cm_coll_at(rbuf, off, &d) : NULL, n, dt, op,
                                   root, comm);
    }
    return rc;
}

static int reduce_binomial_whole(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                                 MPI_Comm comm)
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
        cm_coll_tmp_free(b1);
        cm_coll_tmp_free(b2);
        return MPI_ERR_NO_MEM;
    }
    rc = cm_coll_copy(sbuf, count, dt, acc, count, dt, comm);
    if (rc == MPI_SUCCESS)
        rc = cm_part_reduce_binomial(acc, tmp, &result, count, dt, op, &all, my_idx, TAG, comm);
    if (rc == MPI_SUCCESS && rank == top) {
        if (top != root)
            rc = cm_coll_send(result, count, dt, root, TAG, comm);
        else if (result != rbuf)
            rc = cm_coll_copy(result, count, dt, rbuf, count, dt, comm);
    }
    if (rc == MPI_SUCCESS && rank == root && top != root)
        rc = cm_coll_recv(rbuf, count, dt, top, TAG, comm, MPI_STATUS_IGNORE);
    cm_coll_tmp_free(b1);
    cm_coll_tmp_free(b2);
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
        cm_coll_tmp_free(b1);
        cm_coll_tmp_free(b2);
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
                rc = cm_coll_send(cm_coll_at(acc, st.lo[s + 1], &d), st.hi[s + 1] - st.lo[s + 1], dt,
                               peer, TAG, comm);
                break;
            }
            int olo = st.lo[s + 1] == st.lo[s] ? st.hi[s + 1] : st.lo[s];
            int ohi = st.lo[s + 1] == st.lo[s] ? st.hi[s] : st.lo[s + 1];
            rc = cm_coll_recv(cm_coll_at(acc, olo, &d), ohi - olo, dt, peer, TAG, comm, MPI_STATUS_IGNORE);
        }
        if (rc == MPI_SUCCESS && st.newrank == 0 && rank != root)
            rc = cm_coll_send(acc, count, dt, root, TAG, comm);
    }
    if (rc == MPI_SUCCESS && rank == root && rank != top)
        rc = cm_coll_recv(rbuf, count, dt, top, TAG, comm, MPI_STATUS_IGNORE);
    cm_coll_tmp_free(b1);
    cm_coll_tmp_free(b2);
    return rc;
}
