/*
 * allreduce.c -- all-reduce algorithms of seed 000 §3.5 and §4.
 *
 *  rdb             recursive doubling: log2 p rounds, all ranks busy (best small).
 *  rdb_barrier     rdb with a barrier every two rounds among the participants,
 *                  so that transfers of later rounds do not pile onto earlier ones.
 *  reduce_bcast    binomial reduce to 0, then binomial broadcast.
 *  rabenseifner    reduce-scatter (recursive halving) + all-gather (recursive
 *                  doubling): each rank moves ~2n bytes instead of n log p (large).
 *  ring            ring reduce-scatter + ring all-gather; bandwidth-optimal,
 *                  p-1 rounds each; commutative ops only (blocks are combined
 *                  in ring order, not rank order).
 *  hybrid_a        binomial reduce inside groups of neighbouring ranks, rdb
 *                  among the group leaders, binomial broadcast in the groups:
 *                  few messages cross the level, little concurrency lost.
 *  hybrid_b        reduce-scatter (halving, largest distance first), then the
 *                  hybrid all-gather: binomial gather inside groups, rdb among
 *                  leaders, broadcast in groups.  Commutative ops only.
 * Group size of the hybrids: cm_coll_level_size().
 */
#include "coll/coll.h"

#include <stdlib.h>

#define TAG CM_TAG_ALLREDUCE

/* Input into rbuf, scratch buffer of count elements. */
static int setup(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Comm comm, void **tmp,
                 void **block, int *rank, int *p)
{
    PMPI_Comm_rank(comm, rank);
    PMPI_Comm_size(comm, p);
    *tmp = cm_coll_tmp(dt, count, block);
    if (!*tmp)
        return MPI_ERR_NO_MEM;
    return cm_coll_copy(sbuf, count, dt, rbuf, count, dt, comm);
}

static int rdb_every(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                     MPI_Comm comm, int barrier_every)
{
    int rank, p;
    void *tmp, *block = NULL;
    int rc = setup(sbuf, rbuf, count, dt, comm, &tmp, &block, &rank, &p);
    struct cm_members all = {0, 1, p, 0, 0};
    if (rc == MPI_SUCCESS)
        rc = cm_part_allreduce_rdb(rbuf, tmp, count, dt, op, &all, rank, TAG, comm, barrier_every);
    cm_coll_tmp_free(block);
    return rc;
}

int cm_coll_allreduce_rdb(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    return rdb_every(sbuf, rbuf, count, dt, op, comm, 0);
}

int cm_coll_allreduce_rdb_barrier(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                                  MPI_Comm comm)
{
    return rdb_every(sbuf, rbuf, count, dt, op, comm, 2);
}

int cm_coll_allreduce_reduce_bcast(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                                   MPI_Comm comm)
{
    int rank, p;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &p);
    int rc = cm_coll_reduce_binomial(sbuf, rbuf, count, dt, op, 0, comm);
    struct cm_members all = {0, 1, p, 0, 0};
    if (rc == MPI_SUCCESS)
        rc = cm_part_bcast_binomial(rbuf, count, dt, &all, rank, 0, TAG, comm);
    return rc;
}

/* The half of [lo[s], hi[s]) that is not [lo[s+1], hi[s+1]). */
static void other_half(const struct cm_rsag *st, int s, int *olo, int *ohi)
{
    int first = st->lo[s + 1] == st->lo[s];
    *olo = first ? st->hi[s + 1] : st->lo[s];
    *ohi = first ? st->hi[s] : st->lo[s + 1];
}

/* Fold step undone: participants 2i+1 give the result to 2i. */
static int unfold(void *rbuf, int count, MPI_Datatype dt, const struct cm_rsag *st, int rank, MPI_Comm comm)
{
    if (rank >= 2 * st->rem)
        return MPI_SUCCESS;
    if (rank % 2)
        return cm_coll_send(rbuf, count, dt, rank - 1, TAG, comm);
    return cm_coll_recv(rbuf, count, dt, rank + 1, TAG, comm, MPI_STATUS_IGNORE);
}

int cm_coll_allreduce_rabenseifner(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                                   MPI_Comm comm)
{
    int rank, p;
    void *tmp, *block = NULL;
    struct cm_rsag st;
    struct cm_dt d;
    cm_coll_dt(dt, &d);
    int rc = setup(sbuf, rbuf, count, dt, comm, &tmp, &block, &rank, &p);
    if (rc == MPI_SUCCESS)
        rc = cm_rsag_reduce_scatter(rbuf, tmp, count, dt, op, 1, &st, TAG, comm);
    if (rc == MPI_SUCCESS && st.newrank >= 0) {
        for (int s = st.nsteps - 1; s >= 0 && rc == MPI_SUCCESS; s--) {
            int peer = cm_rsag_rank(&st, st.newrank ^ st.mask[s]), olo, ohi;
            other_half(&st, s, &olo, &ohi);
            rc = cm_coll_sendrecv(cm_coll_at(rbuf, st.lo[s + 1], &d), st.hi[s + 1] - st.lo[s + 1], dt, peer,
                               TAG, cm_coll_at(rbuf, olo, &d), ohi - olo, dt, peer, TAG, comm,
                               MPI_STATUS_IGNORE);
        }
    }
    if (rc == MPI_SUCCESS)
        rc = unfold(rbuf, count, dt, &st, rank, comm);
    cm_coll_tmp_free(block);
    return rc;
}

int cm_coll_allreduce_ring(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    int rank, p;
    void *tmp, *block = NULL;
    struct cm_dt d;
    cm_coll_dt(dt, &d);
    int rc = setup(sbuf, rbuf, count, dt, comm, &tmp, &block, &rank, &p);
    int right = (rank + 1) % p, left = (rank - 1 + p) % p;
#define OFF(b) ((int)((long long)(((b) % p + p) % p) * count / p))
#define LEN(b) ((int)((long long)((((b) % p + p) % p) + 1) * count / p) - OFF(b))
    for (int s = 0; s < p - 1 && rc == MPI_SUCCESS; s++) {
        int sb = rank - s, rb = rank - s - 1;
        rc = cm_coll_sendrecv(cm_coll_at(rbuf, OFF(sb), &d), LEN(sb), dt, right, TAG,
                           cm_coll_at(tmp, OFF(rb), &d), LEN(rb), dt, left, TAG, comm, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS)
            PMPI_Reduce_local(cm_coll_at(tmp, OFF(rb), &d), cm_coll_at(rbuf, OFF(rb), &d), LEN(rb), dt, op);
    }
    for (int s = 0; s < p - 1 && rc == MPI_SUCCESS; s++) {
        int sb = rank + 1 - s, rb = rank - s;
        rc = cm_coll_sendrecv(cm_coll_at(rbuf, OFF(sb), &d), LEN(sb), dt, right, TAG,
                           cm_coll_at(rbuf, OFF(rb), &d), LEN(rb), dt, left, TAG, comm, MPI_STATUS_IGNORE);
    }
#undef OFF
#undef LEN
    cm_coll_tmp_free(block);
    return rc;
}

int cm_coll_allreduce_hybrid_a(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                               MPI_Comm comm)
{
    int rank, p;
    void *tmp, *block = NULL, *result;
    int rc = setup(sbuf, rbuf, count, dt, comm, &tmp, &block, &rank, &p);
    int g = cm_coll_level_size(comm, p);
    int leader = rank - rank % g, gs = p - leader < g ? p - leader : g;
    struct cm_members group = {leader, 1, gs, 0, 0};
    struct cm_members leaders = {0, g, (p + g - 1) / g, 0, 0};
    if (rc == MPI_SUCCESS)
        rc = cm_part_reduce_binomial(rbuf, tmp, &result, count, dt, op, &group, rank - leader, TAG, comm);
    if (rc == MPI_SUCCESS && rank == leader) {
        if (result != rbuf)
            rc = cm_coll_copy(result, count, dt, rbuf, count, dt, comm);
        if (rc == MPI_SUCCESS)
            rc = cm_part_allreduce_rdb(rbuf, tmp, count, dt, op, &leaders, rank / g, TAG, comm, 0);
    }
    if (rc == MPI_SUCCESS)
        rc = cm_part_bcast_binomial(rbuf, count, dt, &group, rank - leader, 0, TAG, comm);
    cm_coll_tmp_free(block);
    return rc;
}

int cm_coll_allreduce_hybrid_b(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                               MPI_Comm comm)
{
    int rank, p;
    void *tmp, *block = NULL;
    struct cm_rsag st;
    struct cm_dt d;
    cm_coll_dt(dt, &d);
    int rc = setup(sbuf, rbuf, count, dt, comm, &tmp, &block, &rank, &p);
    if (rc == MPI_SUCCESS)
        rc = cm_rsag_reduce_scatter(rbuf, tmp, count, dt, op, 0, &st, TAG, comm);
    if (rc == MPI_SUCCESS && st.newrank >= 0) {
        int g = cm_coll_level_size(comm, p);
        if (g > st.pof2)
            g = st.pof2;
        int active = 1;
        /* Undo the halving, shortest distance first: below g as a gather to
         * the group leader, from g on as recursive doubling among leaders. */
        for (int s = st.nsteps - 1; s >= 0 && rc == MPI_SUCCESS && active; s--) {
            int mask = st.mask[s], peer = cm_rsag_rank(&st, st.newrank ^ mask), olo, ohi;
            other_half(&st, s, &olo, &ohi);
            void *mine = cm_coll_at(rbuf, st.lo[s + 1], &d);
            int nmine = st.hi[s + 1] - st.lo[s + 1];
            if (mask >= g) {
                rc = cm_coll_sendrecv(mine, nmine, dt, peer, TAG, cm_coll_at(rbuf, olo, &d), ohi - olo, dt,
                                   peer, TAG, comm, MPI_STATUS_IGNORE);
            } else if (st.newrank & mask) {
                rc = cm_coll_send(mine, nmine, dt, peer, TAG, comm);
                active = 0;
            } else {
                rc = cm_coll_recv(cm_coll_at(rbuf, olo, &d), ohi - olo, dt, peer, TAG, comm, MPI_STATUS_IGNORE);
            }
        }
        /* binomial broadcast of the whole vector inside the group */
        int o = st.newrank % g, lead = st.newrank - o;
        for (int mask = g / 2; mask > 0 && rc == MPI_SUCCESS; mask >>= 1) {
            if (o % (2 * mask) == 0)
                rc = cm_coll_send(rbuf, count, dt, cm_rsag_rank(&st, lead + o + mask), TAG, comm);
            else if (o % (2 * mask) == mask)
                rc = cm_coll_recv(rbuf, count, dt, cm_rsag_rank(&st, lead + o - mask), TAG, comm,
                               MPI_STATUS_IGNORE);
        }
    }
    if (rc == MPI_SUCCESS)
        rc = unfold(rbuf, count, dt, &st, rank, comm);
    cm_coll_tmp_free(block);
    return rc;
}
