/*
 * nbc_build.c -- the schedules of the nonblocking collectives.
 *
 *  barrier    dissemination (ceil(log2 p) rounds)
 *  bcast      binomial tree
 *  reduce     rank-ordered binomial tree (to rank 0 first if the op is not
 *             commutative, then one hop to the root)
 *  gather, scatter, allgather, alltoall: their v forms (nbc_build_v.c)
 * Iallreduce = reduce to 0 + bcast; Ireduce_scatter_block = reduce + scatter.
 * A count of 0 runs the same schedule with empty messages: their tags carry
 * the call's word, so a rank with 0 where the others have data meets them
 * and the receives compare (coll/nbc.c; issue 32 item 2).
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
    if (p == 1)     /* a count of 0 sends empty messages: they carry the word */
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

/* The regular forms: the v builders (nbc_build_v.c) with equal blocks. */
int cm_nbc_build_gather(struct cm_nbc *s, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                        int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
    struct cm_nbc_blocks rb = {.count = rcount};
    return cm_nbc_build_gatherv(s, sbuf, scount, stype, rbuf, &rb, rtype, root, comm);
}

int cm_nbc_build_scatter(struct cm_nbc *s, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                         int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
    struct cm_nbc_blocks sb = {.count = scount};
    return cm_nbc_build_scatterv(s, sbuf, &sb, stype, rbuf, rcount, rtype, root, comm);
}

int cm_nbc_build_allgather(struct cm_nbc *s, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                           int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
    struct cm_nbc_blocks rb = {.count = rcount};
    return cm_nbc_build_allgatherv(s, sbuf, scount, stype, rbuf, &rb, rtype, comm);
}

int cm_nbc_build_alltoall(struct cm_nbc *s, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                          int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
    struct cm_nbc_blocks sb = {.count = scount}, rb = {.count = rcount};
    return cm_nbc_build_alltoallv(s, sbuf, &sb, stype, rbuf, &rb, rtype, comm);
}
