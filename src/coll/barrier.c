/*
 * barrier.c -- barrier algorithms of seed 000 §4 ("Barrier latency"), all
 * with zero-byte messages.
 *
 *  rdb            recursive doubling; a non-power-of-two rest first checks in
 *                 with a partner and is released by it (log2 p + 2 rounds).
 *                 Cross-level messages only in the last round (best for 16 SPEs).
 *  dissemination  Bruck: round k sends to r + 2^k, hears from r - 2^k;
 *                 always ceil(log2 p) rounds (best for odd sizes).
 *  flat           one-to-all: everybody checks in with rank 0, which releases all.
 *  tree           binomial gather to 0, then binomial release.
 */
#include "coll/coll.h"

#include <stdlib.h>

#define TAG CM_TAG_BARRIER

static int zsend(int dst, MPI_Comm comm) { return cm_coll_send(NULL, 0, MPI_BYTE, dst, TAG, comm); }
static int zrecv(int src, MPI_Comm comm)
{
    return cm_coll_recv(NULL, 0, MPI_BYTE, src, TAG, comm, MPI_STATUS_IGNORE);
}
static int zexchange(int peer_to, int peer_from, MPI_Comm comm)
{
    return cm_coll_sendrecv(NULL, 0, MPI_BYTE, peer_to, TAG, NULL, 0, MPI_BYTE, peer_from, TAG, comm,
                         MPI_STATUS_IGNORE);
}

int cm_coll_barrier_rdb(MPI_Comm comm)
{
    int p, rank, rc = MPI_SUCCESS;
    PMPI_Comm_size(comm, &p);
    PMPI_Comm_rank(comm, &rank);
    int pof2 = cm_pof2_floor(p);
    if (rank >= pof2) {
        rc = zsend(rank - pof2, comm);
        return rc != MPI_SUCCESS ? rc : zrecv(rank - pof2, comm);
    }
    if (rank + pof2 < p && (rc = zrecv(rank + pof2, comm)) != MPI_SUCCESS)
        return rc;
    for (int mask = 1; mask < pof2 && rc == MPI_SUCCESS; mask <<= 1)
        rc = zexchange(rank ^ mask, rank ^ mask, comm);
    if (rc == MPI_SUCCESS && rank + pof2 < p)
        rc = zsend(rank + pof2, comm);
    return rc;
}

int cm_coll_barrier_dissemination(MPI_Comm comm)
{
    int p, rank, rc = MPI_SUCCESS;
    PMPI_Comm_size(comm, &p);
    PMPI_Comm_rank(comm, &rank);
    for (int d = 1; d < p && rc == MPI_SUCCESS; d <<= 1)
        rc = zexchange((rank + d) % p, (rank - d + p) % p, comm);
    return rc;
}

int cm_coll_barrier_flat(MPI_Comm comm)
{
    int p, rank, rc = MPI_SUCCESS;
    PMPI_Comm_size(comm, &p);
    PMPI_Comm_rank(comm, &rank);
    if (rank != 0) {
        rc = zsend(0, comm);
        return rc != MPI_SUCCESS ? rc : zrecv(0, comm);
    }
    for (int i = 1; i < p && rc == MPI_SUCCESS; i++)
        rc = zrecv(i, comm);
    for (int i = 1; i < p && rc == MPI_SUCCESS; i++)
        rc = zsend(i, comm);
    return rc;
}

int cm_coll_barrier_tree(MPI_Comm comm)
{
    int p, rank, rc = MPI_SUCCESS, mask;
    PMPI_Comm_size(comm, &p);
    PMPI_Comm_rank(comm, &rank);
    /* check in: children first, then my parent */
    for (mask = 1; mask < p; mask <<= 1) {
        if (rank & mask) {
            if ((rc = zsend(rank - mask, comm)) != MPI_SUCCESS)
                return rc;
            if ((rc = zrecv(rank - mask, comm)) != MPI_SUCCESS)
                return rc;
            break;
        }
        if (rank + mask < p && (rc = zrecv(rank + mask, comm)) != MPI_SUCCESS)
            return rc;
    }
    /* release my children, largest subtree first */
    for (mask >>= 1; mask > 0 && rc == MPI_SUCCESS; mask >>= 1)
        if (rank + mask < p)
            rc = zsend(rank + mask, comm);
    return rc;
}
