/*
 * parts.c -- building blocks that run over a set of members of a
 * communicator (struct cm_members).  Whole-communicator algorithms call them
 * with {0, 1, size}; the hybrid algorithms (seed 000 §3.3, §3.5) call them on
 * a group of neighbouring ranks or on the strided set of group leaders.
 */
#include "coll/coll.h"

#include <stdlib.h>

/* Children of vr in a binomial tree of n, largest subtree first (seed 000
 * §3.4): a child with more descendants must get the data before a leaf, or a
 * whole branch waits behind it ("priority inversion"). */
static int binomial_children(int vr, int n, int *child, int *weight)
{
    int k = 0, mask = 1;
    while (mask < n && !(vr & mask))
        mask <<= 1;
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (vr + mask >= n)
            continue;
        int w = n - (vr + mask);
        child[k] = vr + mask;
        weight[k] = w < mask ? w : mask;
        k++;
    }
    /* insertion sort, stable: equal weights keep the larger distance first */
    for (int i = 1; i < k; i++) {
        int c = child[i], w = weight[i], j = i - 1;
        while (j >= 0 && weight[j] < w) {
            child[j + 1] = child[j];
            weight[j + 1] = weight[j];
            j--;
        }
        child[j + 1] = c;
        weight[j + 1] = w;
    }
    return k;
}

int cm_part_bcast_binomial(void *buf, int count, MPI_Datatype dt, const struct cm_members *m,
                           int my_idx, int root_idx, int tag, MPI_Comm comm)
{
    int n = m->n, rc = MPI_SUCCESS;
    if (n <= 1)
        return MPI_SUCCESS;
    int vr = (my_idx - root_idx + n) % n;
    if (vr != 0) {
        int low = vr & -vr;
        int parent = (vr - low + root_idx) % n;
        rc = cm_coll_recv(buf, count, dt, cm_member_rank(m, parent), tag, comm, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    int child[32], weight[32];
    int k = binomial_children(vr, n, child, weight);
    for (int i = 0; i < k && rc == MPI_SUCCESS; i++)
        rc = cm_coll_send(buf, count, dt, cm_member_rank(m, (child[i] + root_idx) % n), tag, comm);
    return rc;
}

int cm_part_reduce_binomial(void *acc, void *tmp, void **result, int count, MPI_Datatype dt,
                            MPI_Op op, const struct cm_members *m, int my_idx, int tag, MPI_Comm comm)
{
    void *cur = acc, *spare = tmp;
    int rc = MPI_SUCCESS;
    for (int mask = 1; mask < m->n; mask <<= 1) {
        if (my_idx & mask) {
            rc = cm_coll_send(cur, count, dt, cm_member_rank(m, my_idx - mask), tag, comm);
            break;
        }
        int child = my_idx + mask;
        if (child >= m->n)
            continue;
        /* The child's subtree holds the members just above mine: cur op child. */
        rc = cm_coll_recv(spare, count, dt, cm_member_rank(m, child), tag, comm, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            break;
        PMPI_Reduce_local(cur, spare, count, dt, op);
        void *t = cur; cur = spare; spare = t;
    }
    *result = cur;
    return rc;
}

/* Zero-byte recursive doubling among the pof2 folded participants: the
 * "barrier every two rounds" of seed 000 §3.5, which keeps later rounds'
 * transfers from piling onto earlier ones. */
static int participants_barrier(const struct cm_members *m, int newidx, int pof2, int rem, MPI_Comm comm)
{
    for (int mask = 1; mask < pof2; mask <<= 1) {
        int np = newidx ^ mask;
        int peer = np < rem ? 2 * np + 1 : np + rem;
        int rc = cm_coll_sendrecv(NULL, 0, MPI_BYTE, cm_member_rank(m, peer), CM_TAG_ALLREDUCE_BARRIER,
                               NULL, 0, MPI_BYTE, cm_member_rank(m, peer), CM_TAG_ALLREDUCE_BARRIER,
                               comm, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

int cm_part_allreduce_rdb(void *buf, void *tmp, int count, MPI_Datatype dt, MPI_Op op,
                          const struct cm_members *m, int my_idx, int tag, MPI_Comm comm,
                          int barrier_every)
{
    int n = m->n, pof2 = cm_pof2_floor(n), rem = n - pof2, rc = MPI_SUCCESS;
    int newidx;
    if (n <= 1)
        return MPI_SUCCESS;
    /* Fold the rest onto neighbours: member 2i gives its data to 2i+1 (rank
     * order kept: the lower member is the left operand). */
    if (my_idx < 2 * rem) {
        if (my_idx % 2 == 0) {
            rc = cm_coll_send(buf, count, dt, cm_member_rank(m, my_idx + 1), tag, comm);
            newidx = -1;
        } else {
            rc = cm_coll_recv(tmp, count, dt, cm_member_rank(m, my_idx - 1), tag, comm, MPI_STATUS_IGNORE);
            PMPI_Reduce_local(tmp, buf, count, dt, op);
            newidx = my_idx / 2;
        }
    } else {
        newidx = my_idx - rem;
    }
    if (rc != MPI_SUCCESS)
        return rc;

    if (newidx >= 0) {
        void *cur = buf, *spare = tmp;
        int round = 0;
        for (int mask = 1; mask < pof2; mask <<= 1) {
            int np = newidx ^ mask;
            int peer = cm_member_rank(m, np < rem ? 2 * np + 1 : np + rem);
            rc = cm_coll_sendrecv(cur, count, dt, peer, tag, spare, count, dt, peer, tag, comm,
                               MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS)
                return rc;
            if (newidx < np) {           /* I hold the lower members: cur op spare */
                PMPI_Reduce_local(cur, spare, count, dt, op);
                void *t = cur; cur = spare; spare = t;
            } else {
                PMPI_Reduce_local(spare, cur, count, dt, op);
            }
            if (barrier_every > 0 && ++round % barrier_every == 0 && (mask << 1) < pof2) {
                rc = participants_barrier(m, newidx, pof2, rem, comm);
                if (rc != MPI_SUCCESS)
                    return rc;
            }
        }
        if (cur != buf)
            rc = cm_coll_copy(cur, count, dt, buf, count, dt, comm);
    }

    if (my_idx < 2 * rem) {
        if (my_idx % 2)
            rc = cm_coll_send(buf, count, dt, cm_member_rank(m, my_idx - 1), tag, comm);
        else
            rc = cm_coll_recv(buf, count, dt, cm_member_rank(m, my_idx + 1), tag, comm, MPI_STATUS_IGNORE);
    }
    return rc;
}

/* Blocks [first, last) of units [u0, u1). */
static void unit_blocks(int u0, int u1, int g, int nblocks, int *first, int *nb)
{
    int a = u0 * g, b = u1 * g;
    if (a > nblocks) a = nblocks;
    if (b > nblocks) b = nblocks;
    *first = a;
    *nb = b - a;
}

int cm_part_allgather_rdb(void *rbuf, int bcount, MPI_Datatype dt, int nblocks, int g,
                          const struct cm_members *m, int my_idx, int tag, MPI_Comm comm)
{
    int n = m->n, pof2 = cm_pof2_floor(n), rem = n - pof2, rc = MPI_SUCCESS;
    struct cm_dt d;
    cm_coll_dt(dt, &d);
    MPI_Aint bext = d.extent * bcount;
#define BLK(b) ((char *)rbuf + (MPI_Aint)(b) * bext)
    int f, nb;
    if (n <= 1)
        return MPI_SUCCESS;
    /* The rest (members >= pof2) hand their unit to member idx - pof2 first. */
    if (my_idx >= pof2) {
        unit_blocks(my_idx, my_idx + 1, g, nblocks, &f, &nb);
        rc = cm_coll_send(BLK(f), nb * bcount, dt, cm_member_rank(m, my_idx - pof2), tag, comm);
        if (rc == MPI_SUCCESS)
            rc = cm_coll_recv(rbuf, nblocks * bcount, dt, cm_member_rank(m, my_idx - pof2), tag, comm,
                           MPI_STATUS_IGNORE);
        return rc;
    }
    if (my_idx < rem) {
        unit_blocks(my_idx + pof2, my_idx + pof2 + 1, g, nblocks, &f, &nb);
        rc = cm_coll_recv(BLK(f), nb * bcount, dt, cm_member_rank(m, my_idx + pof2), tag, comm,
                       MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    for (int mask = 1; mask < pof2; mask <<= 1) {
        int peer = my_idx ^ mask;
        int mine = my_idx & ~(mask - 1), theirs = peer & ~(mask - 1);
        int prank = cm_member_rank(m, peer);
        int sf, sn, rf, rn;
        /* low part: participants' own units */
        unit_blocks(mine, mine + mask, g, nblocks, &sf, &sn);
        unit_blocks(theirs, theirs + mask, g, nblocks, &rf, &rn);
        rc = cm_coll_sendrecv(BLK(sf), sn * bcount, dt, prank, tag, BLK(rf), rn * bcount, dt, prank, tag,
                           comm, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return rc;
        /* high part: the units folded onto those participants */
        int ms = mine + pof2, me = mine + mask + pof2, ts = theirs + pof2, te = theirs + mask + pof2;
        if (me > n) me = n;
        if (te > n) te = n;
        sn = rn = 0;
        if (ms < me) unit_blocks(ms, me, g, nblocks, &sf, &sn);
        if (ts < te) unit_blocks(ts, te, g, nblocks, &rf, &rn);
        if (sn > 0 || rn > 0) {
            rc = cm_coll_sendrecv(sn ? BLK(sf) : rbuf, sn * bcount, dt, prank, tag,
                               rn ? BLK(rf) : rbuf, rn * bcount, dt, prank, tag, comm, MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS)
                return rc;
        }
    }
    if (my_idx < rem)
        rc = cm_coll_send(rbuf, nblocks * bcount, dt, cm_member_rank(m, my_idx + pof2), tag, comm);
    return rc;
#undef BLK
}

int cm_part_gather_binomial_blocks(void *rbuf, int bcount, MPI_Datatype dt, int first_block,
                                   const struct cm_members *m, int my_idx, int tag, MPI_Comm comm)
{
    struct cm_dt d;
    cm_coll_dt(dt, &d);
    MPI_Aint bext = d.extent * bcount;
    int n = m->n, rc = MPI_SUCCESS;
    for (int mask = 1; mask < n; mask <<= 1) {
        if (my_idx & mask) {
            int nb = (my_idx + mask < n ? my_idx + mask : n) - my_idx;
            rc = cm_coll_send((char *)rbuf + (MPI_Aint)(first_block + my_idx) * bext, nb * bcount, dt,
                           cm_member_rank(m, my_idx - mask), tag, comm);
            break;
        }
        int c = my_idx + mask;
        if (c >= n)
            continue;
        int nb = (c + mask < n ? c + mask : n) - c;
        rc = cm_coll_recv((char *)rbuf + (MPI_Aint)(first_block + c) * bext, nb * bcount, dt,
                       cm_member_rank(m, c), tag, comm, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            break;
    }
    return rc;
}
