/*
 * direct/reduce_scatter_block.c -- reduce-scatter with equal blocks on the
 * shared area, for vectors that fit a slot: every rank copies its vector in,
 * one sync, and rank j folds block j of all of them in rank order straight
 * into its receive buffer -- one sync, nothing copied out (the allreduce
 * route folds the whole vector and copies a block out of it).  At 2 ranks
 * with blocks of up to CM_DIRECT_MEET_BYTES a rank publishes only the block the
 * other one needs, in the meeting line: one line moves per call.  Larger
 * vectors take the allreduce route, whose pieces through the slots beat the
 * pairwise exchange now (8 ranks on 2 cores, 128 KiB blocks: 362 us against
 * 503; 1 MiB 4295 against 5839).
 */
#include <mpi.h>
#ifdef CM_IN_COREMPI  /* corempi only: the host-MPI harness compiles every src/coll file */
#include "coll/direct/fold.h"
#include "shm/copy.h"

int cm_coll_reduce_scatter_block_shm(const void *sbuf, void *rbuf, int rcount, MPI_Datatype dt, MPI_Op op,
                                     MPI_Comm comm)
{
    MPI_Aint tlb;
    size_t b = cm_direct_bytes(rcount, dt, NULL, &tlb, NULL);
    const struct cm_comm *c = cm_comm_lookup(comm, NULL);
    int n = c->size, me = c->rank;
    const char *sb = (const char *)sbuf + tlb;   /* in place: sbuf == rbuf, the whole vector */
    char *rb = (char *)rbuf + tlb;
    if (n == 1) {
        if (sb != rb)
            cm_copy(rb, sb, b);
        return MPI_SUCCESS;
    }
    struct cm_direct *s = cm_direct_get(comm, "MPI_Reduce_scatter_block");
    size_t whole = (size_t)n * b;
    if (!s || whole > s->slot_bytes)
        return CM_COLL_VIA(reduce_scatter_block, allreduce)(sbuf, rbuf, rcount, dt, op, comm);
    int p = cm_direct_parity(s);
    if (n == 2 && s->meet && b <= CM_DIRECT_MEET_BYTES) {
        unsigned char own[CM_DIRECT_MEET_BYTES];   /* in place, rank 1's block leaves before rb changes */
        cm_copy_small(own, sb + (size_t)me * b, b);
        cm_copy_small(cm_direct_data(s, me, p, b), sb + (size_t)(1 - me) * b, b);
        cm_direct_sync(s, NULL, NULL);
        return cm_direct_fold_pair((const char *)own, cm_direct_data(s, 1 - me, p, b), rb, rcount, b, dt, op, me);
    }
    cm_copy_small(cm_direct_data(s, me, p, whole), sb, whole);
    cm_direct_sync(s, NULL, NULL);
    return cm_direct_fold_slots(s, p, whole, rb, rcount, dt, op, me * rcount);
}
#endif
