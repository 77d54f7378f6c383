/*
 * nbc_build_v.c -- schedules of the nonblocking collectives with per-rank
 * counts (v, w), the prefix reductions and Ireduce_scatter.
 *
 *  gatherv, scatterv, allgatherv, alltoallv, alltoallw: one round of direct
 *      messages (a zero count still sends an empty message, so every
 *      receive the peer posts is matched);
 *  scan, exscan: a chain through the ranks in order (p-1 hops): correct for
 *      non-commutative ops, slow at many ranks -- correctness first;
 *  reduce_scatter: rank-ordered reduce to rank 0, then scatterv.
 * None of them uses the shared area (README, "Nonblocking collectives").
 * Invariant: the counts and displacements are read while building, so the
 * schedule keeps no pointer into the caller's arrays.
 */
#include "coll/nbc.h"

#include <string.h>

static void rank_size(MPI_Comm comm, int *rank, int *p)
{
    PMPI_Comm_rank(comm, rank);
    PMPI_Comm_size(comm, p);
}

/* Gatherv (gather = 1) and scatterv: the root moves one of its blocks b
 * (a gather's receive side, a scatter's send side) with each other rank
 * and copies its own unless in place; the others move their one buffer. */
static int rooted_v(struct cm_nbc *s, int gather, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                    int rcount, MPI_Datatype rtype, const struct cm_nbc_blocks *b, int root, MPI_Comm comm)
{
    int rank, p;
    rank_size(comm, &rank, &p);
    if (rank != root) {
        if (gather)
            cm_nbc_send(s, sbuf, scount, stype, root);
        else
            cm_nbc_recv(s, rbuf, rcount, rtype, root);
        return cm_nbc_round(s);
    }
    MPI_Datatype bt = gather ? rtype : stype;
    void *all = gather ? rbuf : (void *)sbuf;
    struct cm_dt d;
    cm_coll_dt(bt, &d);
    for (int i = 0; i < p; i++) {
        if (i == root)
            continue;
        void *blk = cm_coll_at(all, cm_nbc_bdispl(b, i), &d);
        if (gather)
            cm_nbc_recv(s, blk, cm_nbc_bcount(b, i), bt, i);
        else
            cm_nbc_send(s, blk, cm_nbc_bcount(b, i), bt, i);
    }
    void *own = cm_coll_at(all, cm_nbc_bdispl(b, root), &d);
    if (gather && sbuf != MPI_IN_PLACE)
        cm_nbc_copy(s, sbuf, scount, stype, own, cm_nbc_bcount(b, root), rtype);
    else if (!gather && rbuf != MPI_IN_PLACE)
        cm_nbc_copy(s, own, cm_nbc_bcount(b, root), stype, rbuf, rcount, rtype);
    return cm_nbc_round(s);
}

int cm_nbc_build_gatherv(struct cm_nbc *s, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                         const struct cm_nbc_blocks *rb, MPI_Datatype rtype, int root, MPI_Comm comm)
{
    return rooted_v(s, 1, sbuf, scount, stype, rbuf, 0, rtype, rb, root, comm);
}

int cm_nbc_build_scatterv(struct cm_nbc *s, const void *sbuf, const struct cm_nbc_blocks *sb, MPI_Datatype stype,
                          void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
    return rooted_v(s, 0, sbuf, 0, stype, rbuf, rcount, rtype, sb, root, comm);
}

int cm_nbc_build_allgatherv(struct cm_nbc *s, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                            const struct cm_nbc_blocks *rb, MPI_Datatype rtype, MPI_Comm comm)
{
    int rank, p;
    rank_size(comm, &rank, &p);
    struct cm_dt d;
    cm_coll_dt(rtype, &d);
    void *mine = cm_coll_at(rbuf, cm_nbc_bdispl(rb, rank), &d);
    if (sbuf == MPI_IN_PLACE) {
        sbuf = mine;
        scount = cm_nbc_bcount(rb, rank);
        stype = rtype;
    } else {
        cm_nbc_copy(s, sbuf, scount, stype, mine, cm_nbc_bcount(rb, rank), rtype);
    }
    for (int i = 0; i < p; i++) {
        if (i == rank)
            continue;
        cm_nbc_send(s, sbuf, scount, stype, i);
        cm_nbc_recv(s, cm_coll_at(rbuf, cm_nbc_bdispl(rb, i), &d), cm_nbc_bcount(rb, i), rtype, i);
    }
    return cm_nbc_round(s);
}

/* In place: the receive buffer's bytes that peers' blocks occupy, copied
 * aside before anything arrives; returns the address standing for rbuf
 * (byte displacement 0) in the copy, NULL on out of memory. */
static void *aside(struct cm_nbc *s, void *rbuf, const struct cm_nbc_blocks *rb, const MPI_Datatype *rtypes,
                   MPI_Datatype rtype, int p)
{
    MPI_Aint lo = 0, hi = 0;
    int any = 0;
    for (int i = 0; i < p; i++) {
        int n = cm_nbc_bcount(rb, i);
        if (n == 0)
            continue;
        struct cm_dt d;
        cm_coll_dt(rtypes ? rtypes[i] : rtype, &d);
        MPI_Aint at = rtypes ? cm_nbc_bdispl(rb, i) : cm_nbc_bdispl(rb, i) * d.extent;
        MPI_Aint a = at + d.true_lb, b = at + d.true_lb + (MPI_Aint)(n - 1) * d.extent + d.true_extent;
        if (!any || a < lo)
            lo = a;
        if (!any || b > hi)
            hi = b;
        any = 1;
    }
    char *tmp = cm_nbc_scratch(s, MPI_BYTE, (int)(hi - lo));
    if (!tmp)
        return NULL;
    if (hi > lo) {
        cm_nbc_copy(s, (char *)rbuf + lo, (int)(hi - lo), MPI_BYTE, tmp, (int)(hi - lo), MPI_BYTE);
        cm_nbc_round(s);
    }
    return tmp - lo;
}

int cm_nbc_build_alltoallv(struct cm_nbc *s, const void *sbuf, const struct cm_nbc_blocks *sb,
                           MPI_Datatype stype, void *rbuf, const struct cm_nbc_blocks *rb, MPI_Datatype rtype,
                           MPI_Comm comm)
{
    int rank, p;
    rank_size(comm, &rank, &p);
    if (sbuf == MPI_IN_PLACE) {
        if (!(sbuf = aside(s, rbuf, rb, NULL, rtype, p)))
            return MPI_ERR_NO_MEM;
        sb = rb;
        stype = rtype;
    }
    struct cm_dt sd, rd;
    cm_coll_dt(stype, &sd);
    cm_coll_dt(rtype, &rd);
    /* i == p: my own block, last, as a local copy */
    for (int k = 1; k <= p; k++) {
        int i = (rank + k) % p;
        const void *out = cm_coll_at(sbuf, cm_nbc_bdispl(sb, i), &sd);
        void *in = cm_coll_at(rbuf, cm_nbc_bdispl(rb, i), &rd);
        if (i == rank) {
            cm_nbc_copy(s, out, cm_nbc_bcount(sb, i), stype, in, cm_nbc_bcount(rb, i), rtype);
        } else {
            cm_nbc_send(s, out, cm_nbc_bcount(sb, i), stype, i);
            cm_nbc_recv(s, in, cm_nbc_bcount(rb, i), rtype, i);
        }
    }
    return cm_nbc_round(s);
}

int cm_nbc_build_alltoallw(struct cm_nbc *s, const void *sbuf, const int *scounts, const int *sdispls,
                           const MPI_Datatype *stypes, void *rbuf, const int *rcounts, const int *rdispls,
                           const MPI_Datatype *rtypes, MPI_Comm comm)
{
    int rank, p;
    rank_size(comm, &rank, &p);
    if (sbuf == MPI_IN_PLACE) {
        struct cm_nbc_blocks rb = {rcounts, rdispls, 0};
        if (!(sbuf = aside(s, rbuf, &rb, rtypes, MPI_DATATYPE_NULL, p)))
            return MPI_ERR_NO_MEM;
        scounts = rcounts;
        sdispls = rdispls;
        stypes = rtypes;
    }
    for (int i = 0; i < p; i++) {
        if (i == rank)
            continue;
        cm_nbc_send(s, (const char *)sbuf + sdispls[i], scounts[i], stypes[i], i);
        cm_nbc_recv(s, (char *)rbuf + rdispls[i], rcounts[i], rtypes[i], i);
    }
    cm_nbc_copy(s, (const char *)sbuf + sdispls[rank], scounts[rank], stypes[rank], (char *)rbuf + rdispls[rank],
                rcounts[rank], rtypes[rank]);
    return cm_nbc_round(s);
}

/* sbuf == rbuf means in place (the front end resolved MPI_IN_PLACE). */
int cm_nbc_build_scan(struct cm_nbc *s, const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                      int exclusive, MPI_Comm comm)
{
    int rank, p;
    rank_size(comm, &rank, &p);
    if (!exclusive) {
        /* rbuf = prefix(0..rank-1) op mine; then pass rbuf on */
        void *prefix = rank > 0 ? cm_nbc_scratch(s, dt, count) : NULL;
        if (rank > 0 && !prefix)
            return MPI_ERR_NO_MEM;
        if (rank > 0)
            cm_nbc_recv(s, prefix, count, dt, rank - 1);
        if (sbuf != rbuf)
            cm_nbc_copy(s, sbuf, count, dt, rbuf, count, dt);
        if (rank > 0)
            cm_nbc_reduce(s, prefix, rbuf, count, dt, op);
        cm_nbc_round(s);
        if (rank + 1 < p)
            cm_nbc_send(s, rbuf, count, dt, rank + 1);
        return cm_nbc_round(s);
    }
    /* exclusive: rbuf = prefix(0..rank-1), passed on as rbuf op mine; mine
     * is set aside first because in place it lives in rbuf */
    if (rank == 0) {
        if (p > 1)
            cm_nbc_send(s, sbuf, count, dt, 1);
        return cm_nbc_round(s);
    }
    void *mine = cm_nbc_scratch(s, dt, count);
    if (!mine)
        return MPI_ERR_NO_MEM;
    cm_nbc_copy(s, sbuf, count, dt, mine, count, dt);
    cm_nbc_round(s);
    cm_nbc_recv(s, rbuf, count, dt, rank - 1);
    if (rank + 1 < p)
        cm_nbc_reduce(s, rbuf, mine, count, dt, op);
    cm_nbc_round(s);
    if (rank + 1 < p)
        cm_nbc_send(s, mine, count, dt, rank + 1);
    return cm_nbc_round(s);
}

int cm_nbc_build_reduce_scatter(struct cm_nbc *s, const void *sbuf, void *rbuf, const int *rcounts,
                                MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    int rank, p;
    rank_size(comm, &rank, &p);
    int total = 0;
    for (int i = 0; i < p; i++)
        total += rcounts[i];
    int *displs = cm_nbc_scratch(s, MPI_INT, p);
    void *full = rank == 0 ? cm_nbc_scratch(s, dt, total) : NULL;
    if (!displs || (rank == 0 && !full))
        return MPI_ERR_NO_MEM;
    for (int i = 0, at = 0; i < p; at += rcounts[i], i++)
        displs[i] = at;
    int rc = cm_nbc_build_reduce(s, sbuf, full, total, dt, op, 0, comm);
    if (rc == MPI_SUCCESS)
        rc = cm_nbc_build_scatterv(s, full, &(struct cm_nbc_blocks){rcounts, displs, 0}, dt, rbuf, rcounts[rank],
                                   dt, 0, comm);
    return rc;
}
