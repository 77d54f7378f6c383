/*
 * direct/fold.h -- rank-ordered reductions over the shared area (shared by
 * direct/allreduce.c and direct/reduce.c).
 */
#ifndef CM_COLL_SHM_FOLD_H
#define CM_COLL_SHM_FOLD_H

#include "coll/direct/direct.h"
#include "core/dt_basic.h"
#include "core/op.h"
#include "shm/copy.h"

/* The loop of a predefined op on a basic type, or NULL (then the caller goes
 * through MPI_Reduce_local): the tiny reductions call it directly, since the
 * checks of MPI_Reduce_local would double their cost. */
static inline cm_op_kernel_fn cm_direct_kernel(MPI_Op op, MPI_Datatype dt)
{
    return cm_op_is_predefined(op) && cm_dt_is_basic(dt) ? cm_op_predefined_kernel(op, dt) : NULL;
}

/* Its three-operand twin (out = left op right). */
static inline cm_op_kernel3_fn cm_direct_kernel3(MPI_Op op, MPI_Datatype dt)
{
    return cm_op_is_predefined(op) && cm_dt_is_basic(dt) ? cm_op_predefined_kernel3(op, dt) : NULL;
}

/* Into acc (count elements, bytes at acc): x_0 op x_1 op ... op x_{n-1}, where
 * x_r is rank r's data of parity p (a whole-bytes vector; this folds count
 * elements from element elem_off on).  A right fold, so the operand order
 * is the rank order even for non-commutative ops. */
int cm_direct_fold_slots(struct cm_direct *s, int p, size_t whole, char *acc, int count, MPI_Datatype dt, MPI_Op op,
                      int elem_off);
/* The same, with the calling rank's x taken from own (a whole vector) instead
 * of its slot. */
int cm_direct_fold_slots_own(struct cm_direct *s, int p, size_t whole, char *acc, int count, MPI_Datatype dt, MPI_Op op,
                          int elem_off, const char *own);

/* Core specialization: every rank copies sb into its slot except its own
 * slice, which it folds straight from sb (a copy in and a read less), one
 * sync, every rank folds its slice into the shared result, a second sync,
 * and *result holds the whole folded vector (count elements, bytes in all). */
int cm_direct_fold_split(struct cm_direct *s, const char *sb, size_t bytes, int count, MPI_Datatype dt, MPI_Op op,
                      const void **result);

/* 2 ranks: out = x0 op x1 (n elements, bytes in all), own being rank me's
 * vector and other the other rank's; out must not be own. */
int cm_direct_fold_pair(const char *own, const char *other, char *out, int n, size_t bytes, MPI_Datatype dt,
                     MPI_Op op, int me);

/* The fold of a vector of count elements (es bytes each) for root (a
 * reduce), or for every rank when root < 0 (an allreduce), through the slots
 * piece by piece with one sync per piece.
 *  - 2 ranks: each rank that wants the result reads the other's copy of a
 *    piece from its slot and folds it whole, so no folded half crosses back
 *    (2-rank allreduce, 1 MiB: 39-43 us against 55-57 through the split
 *    fold, shared caches; Open MPI 100-106); a reduce's non-root copies piece
 *    k + 1 in while the root folds piece k.  No closing sync: the next write
 *    to the slots read last goes to the other parity, and the one after
 *    follows a sync that the reader reaches only when done.
 *  - More ranks: split folds.  The sync that opens piece k + 1 also closes
 *    the fold of piece k, whose result is then copied to rb by the ranks
 *    that want it; the result buffer of piece k is folded into again by
 *    piece k + 2, after a sync that every reader passed having copied it
 *    out, and a slot is refilled two pieces later likewise. */
int cm_direct_fold_pieces(struct cm_direct *s, const char *sb, char *rb, int count, size_t es, MPI_Datatype dt,
                       MPI_Op op, int root);

/* The same fold of whole vectors, in line when they sit in the flag lines (or
 * the meeting line) and the op has a kernel (the tiny allreduce: 108-110 ns
 * per 8-byte call at 2 ranks against 115-119 through cm_direct_fold_slots). */
static inline int cm_direct_fold_all(struct cm_direct *s, int p, size_t bytes, char *acc, int count, MPI_Datatype dt,
                                  MPI_Op op)
{
    cm_op_kernel_fn kernel = bytes <= CM_DIRECT_INLINE ? cm_direct_kernel(op, dt) : NULL;
    if (!kernel)
        return cm_direct_fold_slots(s, p, bytes, acc, count, dt, op, 0);
    cm_copy_small(acc, cm_direct_data(s, s->n - 1, p, bytes), bytes);
    for (int r = s->n - 2; r >= 0; r--)
        kernel(cm_direct_data(s, r, p, bytes), acc, (size_t)count);
    return MPI_SUCCESS;
}

/* Single-copy reduction of my slice: reads every rank's send buffer
 * (published in addr[0] of its flag line, parity p) chunk by chunk, folds in
 * rank order and writes each finished chunk at out + offset, publishing it on
 * my message counter. */
int cm_direct_reduce_my_slice(struct cm_direct *s, int p, int count, MPI_Datatype dt, MPI_Op op, char *out);

/* Copy rank k's finished slice chunks from its published result (addr[1]) into
 * dst as its message counter announces them. */
void cm_direct_fetch_slice(struct cm_direct *s, int p, int k, int count, size_t esize, char *dst);

#endif
