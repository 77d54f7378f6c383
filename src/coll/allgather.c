/*
 * allgather.c -- all-gather algorithms of seed 000 §3.3 and §4.
 *
 *  rdb           recursive doubling: log2 p rounds; a non-power-of-two rest
 *                hands its block to a partner first and gets all at the end
 *                (ceil(log2 p) + 2 rounds).
 *  bruck         ceil(log2 p) rounds for any p, through a rotated scratch buffer.
 *  ring          p-1 rounds, each rank passes one block to its right neighbour.
 *  gather_bcast  binomial gather to rank 0, then binomial broadcast (2 log2 p
 *                rounds, but only two messages cross a level).
 *  hybrid        hybrid-x-y: binomial gather inside groups of neighbouring
 *                ranks, rdb among the group leaders, binomial broadcast in the
 *                groups (group size: cm_coll_level_size).
 * All of them first put the caller's block into its slot of rbuf, then work
 * on rbuf in units of rcount elements of rtype.
 */
#include "coll/coll.h"

#include <stdlib.h>

#define TAG CM_TAG_ALLGATHER

static int place_own(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                     MPI_Datatype rtype, MPI_Comm comm, int *rank, int *p, struct cm_dt *d)
{
    PMPI_Comm_rank(comm, rank);
    PMPI_Comm_size(comm, p);
    cm_coll_dt(rtype, d);
    if (sbuf == MPI_IN_PLACE)
        return MPI_SUCCESS;
    return cm_coll_copy(sbuf, scount, stype, cm_coll_at(rbuf, (MPI_Aint)*rank * rcount, d), rcount,
                        rtype, comm);
}

int cm_coll_allgather_rdb(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                          MPI_Datatype rtype, MPI_Comm comm)
{
    int rank, p;
    struct cm_dt d;
    int rc = place_own(sbuf, scount, stype, rbuf, rcount, rtype, comm, &rank, &p, &d);
    struct cm_members all = {0, 1, p, 0, 0};
    if (rc == MPI_SUCCESS)
        rc = cm_part_allgather_rdb(rbuf, rcount, rtype, p, 1, &all, rank, TAG, comm);
    return rc;
}

int cm_coll_allgather_bruck(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                            MPI_Datatype rtype, MPI_Comm comm)
{
    int rank, p;
    struct cm_dt d;
    int rc = place_own(sbuf, scount, stype, rbuf, rcount, rtype, comm, &rank, &p, &d);
    if (rc != MPI_SUCCESS || p == 1)
        return rc;
    void *block;
    void *tmp = cm_coll_tmp(rtype, p * rcount, &block);
    if (!tmp)
        return MPI_ERR_NO_MEM;
#define TB(j) cm_coll_at(tmp, (MPI_Aint)(j) * rcount, &d)
#define RB(j) cm_coll_at(rbuf, (MPI_Aint)(j) * rcount, &d)
    /* tmp block j holds the block of rank (rank + j) mod p */
    rc = cm_coll_copy(RB(rank), rcount, rtype, TB(0), rcount, rtype, comm);
    for (int dist = 1; dist < p && rc == MPI_SUCCESS; dist <<= 1) {
        int n = dist < p - dist ? dist : p - dist;
        rc = cm_coll_sendrecv(TB(0), n * rcount, rtype, (rank - dist + p) % p, TAG, TB(dist), n * rcount, rtype,
                           (rank + dist) % p, TAG, comm, MPI_STATUS_IGNORE);
    }
    if (rc == MPI_SUCCESS)
        rc = cm_coll_copy(TB(0), (p - rank) * rcount, rtype, RB(rank), (p - rank) * rcount, rtype, comm);
    if (rc == MPI_SUCCESS && rank > 0)
        rc = cm_coll_copy(TB(p - rank), rank * rcount, rtype, RB(0), rank * rcount, rtype, comm);
#undef TB
#undef RB
    cm_coll_tmp_free(block);
    return rc;
}

int cm_coll_allgather_ring(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                           MPI_Datatype rtype, MPI_Comm comm)
{
    int rank, p;
    struct cm_dt d;
    int rc = place_own(sbuf, scount, stype, rbuf, rcount, rtype, comm, &rank, &p, &d);
    int right = (rank + 1) % p, left = (rank - 1 + p) % p;
    for (int s = 0; s < p - 1 && rc == MPI_SUCCESS; s++) {
        int sb = (rank - s + p) % p, rb = (rank - s - 1 + p) % p;
        rc = cm_coll_sendrecv(cm_coll_at(rbuf, (MPI_Aint)sb * rcount, &d), rcount, rtype, right, TAG,
                           cm_coll_at(rbuf, (MPI_Aint)rb * rcount, &d), rcount, rtype, left, TAG, comm,
                           MPI_STATUS_IGNORE);
    }
    return rc;
}

int cm_coll_allgather_gather_bcast(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                                   int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
    int rank, p;
    struct cm_dt d;
    int rc = place_own(sbuf, scount, stype, rbuf, rcount, rtype, comm, &rank, &p, &d);
    struct cm_members all = {0, 1, p, 0, 0};
    if (rc == MPI_SUCCESS)
        rc = cm_part_gather_binomial_blocks(rbuf, rcount, rtype, 0, &all, rank, TAG, comm);
    if (rc == MPI_SUCCESS)
        rc = cm_part_bcast_binomial(rbuf, p * rcount, rtype, &all, rank, 0, TAG, comm);
    return rc;
}

int cm_coll_allgather_hybrid(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                             MPI_Datatype rtype, MPI_Comm comm)
{
    int rank, p;
    struct cm_dt d;
    int rc = place_own(sbuf, scount, stype, rbuf, rcount, rtype, comm, &rank, &p, &d);
    int g = cm_coll_level_size(comm, p);
    int leader = rank - rank % g, gs = p - leader < g ? p - leader : g;
    struct cm_members group = {leader, 1, gs, 0, 0};
    struct cm_members leaders = {0, g, (p + g - 1) / g, 0, 0};
    if (rc == MPI_SUCCESS)
        rc = cm_part_gather_binomial_blocks(rbuf, rcount, rtype, leader, &group, rank - leader, TAG, comm);
    if (rc == MPI_SUCCESS && rank == leader)
        rc = cm_part_allgather_rdb(rbuf, rcount, rtype, p, g, &leaders, rank / g, TAG, comm);
    if (rc == MPI_SUCCESS)
        rc = cm_part_bcast_binomial(rbuf, p * rcount, rtype, &group, rank - leader, 0, TAG, comm);
    return rc;
}
