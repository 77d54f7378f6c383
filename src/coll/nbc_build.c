/*
 * nbc_build.c -- the schedules of the nonblocking collectives.
 *
 *  barrier    dissemination (ceil(log2 p) rounds)
 *  bcast      binomial tree
 *  reduce     rank-ordered binomial tree (to rank 0 first if the op is not
 *             commutative, then one hop to the root)
 *  gather, scatter, allgather, alltoall: one round of direct messages
 * Iallreduce = reduce to 0 + bcast; Ireduce_scatter_block = reduce + scatter.
 * Builders record errors in the schedule; cm_nbc_start reports them.
 */
#include "coll/nbc.h"

static void rank_size(MPI_Comm comm, int *rank, int *p)
{
    PMPI_Comm_rank(comm, rank);
    PMPI_Comm_size(comm, p);
}

int cm_nbc_build_barrier(struct cm_nbc *s, MPI_Comm comm)
{
    int rank, p;
    rank_size(comm, &rank, &p);
    for (int d = 1; d < p; d <<= 1) {
        cm_nbc_send(s, NULL, 0, MPI_BYTE, (rank + d) % p);
        cm_nbc_recv(s, NULL, 0, MPI_BYTE, (rank - d + p) % p);
        cm_nbc_round(s);
    }
    return MPI_SUCCESS;
}

int cm_nbc_build_bcast(struct cm_nbc *s, void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    int rank, p;
    rank_size(comm, &rank, &p);
    if (p == 1 || count == 0)
        return MPI_SUCCESS;
    int vr = (rank - root + p) % p, mask;
    if (vr != 0) {
        mask = vr & -vr;
        cm_nbc_recv(s, buf, count, dt, (vr - mask + root) % p);
        cm_nbc_round(s);
    } else {
        mask = cm_pof2_ceil(p);
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (vr + mask < p)
            cm_nbc_send(s, buf, count, dt, (vr + mask + root) % p);
    cm_nbc_round(s);
    return MPI_SUCCESS;
}

int cm_nbc_build_reduce(struct cm_nbc *s, const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                        MPI_Op op, int root, MPI_Comm comm)
{
    int rank, p;
    rank_size(comm, &rank, &p);
    if (count == 0)
        return MPI_SUCCESS;
    int top = cm_coll_is_commutative(op) ? root : 0;
    int idx = (rank - top + p) % p;
    void *cur = cm_nbc_scratch(s, dt, count), *spare = cm_nbc_scratch(s, dt, count);
    if (!cur || !spare)
        return MPI_ERR_NO_MEM;
    cm_nbc_copy(s, sbuf, count, dt, cur, count, dt);
    cm_nbc_round(s);
    for (int mask = 1; mask < p; mask <<= 1) {
        if (idx & mask) {
            cm_nbc_send(s, cur, count, dt, (idx - mask + top) % p);
            cm_nbc_round(s);
            break;
        }
        if (idx + mask >= p)
            continue;
        /* the child's subtree holds the ranks just above mine: cur op child */
        cm_nbc_recv(s, spare, count, dt, (idx + mask + top) % p);
        cm_nbc_reduce(s, cur, spare, count, dt, op);
        cm_nbc_round(s);
        void *t = cur; cur = spare; spare = t;
    }
    if (rank == top) {
        if (top != root)
            cm_nbc_send(s, cur, count, dt, root);
        else
            cm_nbc_copy(s, cur, count, dt, rbuf, count, dt);
        cm_nbc_round(s);
    }
    if (rank == root && top != root) {
        cm_nbc_recv(s, rbuf, count, dt, top);
        cm_nbc_round(s);
    }
    return MPI_SUCCESS;
}

int cm_nbc_build_gather(struct cm_nbc *s, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                        int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
    int rank, p;
    rank_size(comm, &rank, &p);
    if (rank != root) {
        cm_nbc_send(s, sbuf, scount, stype, root);
        return cm_nbc_round(s);
    }
    struct cm_dt d;
    cm_coll_dt(rtype, &d);
    for (int i = 0; i < p; i++)
        if (i != root)
            cm_nbc_recv(s, cm_coll_at(rbuf, (MPI_Aint)i * rcount, &d), rcount, rtype, i);
    if (sbuf != MPI_IN_PLACE)
        cm_nbc_copy(s, sbuf, scount, stype, cm_coll_at(rbuf, (MPI_Aint)root * rcount, &d), rcount, rtype);
    return cm_nbc_round(s);
}

int cm_nbc_build_scatter(struct cm_nbc *s, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                         int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
    int rank, p;
    rank_size(comm, &rank, &p);
    if (rank != root) {
        cm_nbc_recv(s, rbuf, rcount, rtype, root);
        return cm_nbc_round(s);
    }
    struct cm_dt d;
    cm_coll_dt(stype, &d);
    for (int i = 0; i < p; i++)
        if (i != root)
            cm_nbc_send(s, cm_coll_at(sbuf, (MPI_Aint)i * scount, &d), scount, stype, i);
    if (rbuf != MPI_IN_PLACE)
        cm_nbc_copy(s, cm_coll_at(sbuf, (MPI_Aint)root * scount, &d), scount, stype, rbuf, rcount, rtype);
    return cm_nbc_round(s);
}

int cm_nbc_build_allgather(struct cm_nbc *s, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                           int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
    int rank, p;
    rank_size(comm, &rank, &p);
    struct cm_dt d;
    cm_coll_dt(rtype, &d);
    void *mine = cm_coll_at(rbuf, (MPI_Aint)rank * rcount, &d);
    if (sbuf == MPI_IN_PLACE) {
        sbuf = mine;
        scount = rcount;
        stype = rtype;
    } else {
        cm_nbc_copy(s, sbuf, scount, stype, mine, rcount, rtype);
    }
    for (int i = 0; i < p; i++) {
        if (i == rank)
            continue;
        cm_nbc_send(s, sbuf, scount, stype, i);
        cm_nbc_recv(s, cm_coll_at(rbuf, (MPI_Aint)i * rcount, &d), rcount, rtype, i);
    }
    return cm_nbc_round(s);
}

int cm_nbc_build_alltoall(struct cm_nbc *s, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                          int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
    int rank, p;
    rank_size(comm, &rank, &p);
    if (sbuf == MPI_IN_PLACE) {
        void *tmp = cm_nbc_scratch(s, rtype, p * rcount);
        if (!tmp)
            return MPI_ERR_NO_MEM;
        cm_nbc_copy(s, rbuf, p * rcount, rtype, tmp, p * rcount, rtype);
        cm_nbc_round(s);
        sbuf = tmp;
        scount = rcount;
        stype = rtype;
    }
    struct cm_dt sd, rd;
    cm_coll_dt(stype, &sd);
    cm_coll_dt(rtype, &rd);
    for (int i = 0; i < p; i++) {
        if (i == rank)
            continue;
        cm_nbc_send(s, cm_coll_at(sbuf, (MPI_Aint)i * scount, &sd), scount, stype, i);
        cm_nbc_recv(s, cm_coll_at(rbuf, (MPI_Aint)i * rcount, &rd), rcount, rtype, i);
    }
    cm_nbc_copy(s, cm_coll_at(sbuf, (MPI_Aint)rank * scount, &sd), scount, stype,
                cm_coll_at(rbuf, (MPI_Aint)rank * rcount, &rd), rcount, rtype);
    return cm_nbc_round(s);
}
