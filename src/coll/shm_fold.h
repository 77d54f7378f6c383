/*
 * shm_fold.h -- rank-ordered reductions over the shared area (shared by
 * shm_allreduce.c and shm_reduce.c).
 */
#ifndef CM_COLL_SHM_FOLD_H
#define CM_COLL_SHM_FOLD_H

#include "coll/shm.h"

/* Into acc (count elements, bytes at acc): x_0 op x_1 op ... op x_{n-1}, where
 * x_r is rank r's data of parity p (a whole-bytes vector; this folds count
 * elements from element elem_off on).  A right fold, so the operand order
 * is the rank order even for non-commutative ops. */
int cm_shm_fold_slots(struct cm_shm *s, int p, size_t whole, char *acc, int count, MPI_Datatype dt, MPI_Op op,
                      int elem_off);

/* Single-copy reduction of my slice: reads every rank's send buffer
 * (published in addr[0] of its flag line, parity p) chunk by chunk, folds in
 * rank order and writes each finished chunk at out + offset, publishing it on
 * my message counter. */
int cm_shm_reduce_my_slice(struct cm_shm *s, int p, int count, MPI_Datatype dt, MPI_Op op, char *out);

/* Copy rank k's finished slice chunks from its published result (addr[1]) into
 * dst as its message counter announces them. */
void cm_shm_fetch_slice(struct cm_shm *s, int p, int k, int count, size_t esize, char *dst);

#endif
