/*
 * rsag.c -- Rabenseifner's reduce-scatter by recursive vector halving
 * (seed 000 §3.5, ref. [22]), the first half of reduce_rabenseifner,
 * allreduce_rabenseifner and allreduce_hybrid_b.
 *
 * A non-power-of-two size p is first folded onto pof2 participants: rank 2i
 * (i < rem) hands its vector to 2i+1 and sits out.  The vector is then split
 * by halves of the element range, so any count works (blocks may be empty).
 *
 * With increasing partner distances (1, 2, 4, ...) each step merges two
 * adjacent, aligned groups of participants, so the combination is in rank
 * order and non-commutative ops are fine.  Decreasing distances (the order of
 * the paper) need a commutative op, but leave neighbours with the same range
 * so that the all-gather can start with neighbour-only rounds (hybrid_b).
 */
#include "coll/coll.h"

int cm_rsag_rank(const struct cm_rsag *st, int newrank)
{
    return newrank < st->rem ? 2 * newrank + 1 : newrank + st->rem;
}

int cm_rsag_reduce_scatter(void *rbuf, void *tmp, int count, MPI_Datatype dt, MPI_Op op,
                           int increasing, struct cm_rsag *st, int tag, MPI_Comm comm)
{
    int p, rank, rc = MPI_SUCCESS;
    PMPI_Comm_size(comm, &p);
    PMPI_Comm_rank(comm, &rank);
    struct cm_dt d;
    cm_coll_dt(dt, &d);
    int commutative = cm_coll_is_commutative(op);

    st->pof2 = cm_pof2_floor(p);
    st->rem = p - st->pof2;
    st->nsteps = cm_log2_ceil(st->pof2);
    if (rank < 2 * st->rem) {
        if (rank % 2 == 0) {
            st->newrank = -1;
            return cm_coll_send(rbuf, count, dt, rank + 1, tag, comm);
        }
        rc = cm_coll_recv(tmp, count, dt, rank - 1, tag, comm, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return rc;
        PMPI_Reduce_local(tmp, rbuf, count, dt, op);
        st->newrank = rank / 2;
    } else {
        st->newrank = rank - st->rem;
    }

    int lo = 0, hi = count;
    for (int s = 0; s < st->nsteps; s++) {
        int mask = increasing ? 1 << s : st->pof2 >> (s + 1);
        int np = st->newrank ^ mask, peer = cm_rsag_rank(st, np);
        int mid = lo + (hi - lo) / 2;
        int klo, khi, slo, shi;     /* kept and sent halves */
        if ((st->newrank & mask) == 0) {
            klo = lo; khi = mid; slo = mid; shi = hi;
        } else {
            klo = mid; khi = hi; slo = lo; shi = mid;
        }
        st->lo[s] = lo;
        st->hi[s] = hi;
        st->mask[s] = mask;
        rc = cm_coll_sendrecv(cm_coll_at(rbuf, slo, &d), shi - slo, dt, peer, tag,
                           cm_coll_at(tmp, klo, &d), khi - klo, dt, peer, tag, comm, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return rc;
        void *mine = cm_coll_at(rbuf, klo, &d), *theirs = cm_coll_at(tmp, klo, &d);
        if (st->newrank > np || commutative) {
            PMPI_Reduce_local(theirs, mine, khi - klo, dt, op);
        } else {                    /* mine is the left operand */
            PMPI_Reduce_local(mine, theirs, khi - klo, dt, op);
            rc = cm_coll_copy(theirs, khi - klo, dt, mine, khi - klo, dt, comm);
            if (rc != MPI_SUCCESS)
                return rc;
        }
        lo = klo;
        hi = khi;
    }
    st->lo[st->nsteps] = lo;
    st->hi[st->nsteps] = hi;
    return MPI_SUCCESS;
}
