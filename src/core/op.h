/*
 * op.h -- reduction operations: the internal API the collectives use.
 *
 * Predefined ops (dense indices 1..CM_OP_NUM_PREDEFINED-1 of core/handle.h)
 * are fixed; user ops (MPI_Op_create) get indices from CM_OP_NUM_PREDEFINED
 * up, reused after MPI_Op_free.
 * Which predefined op is defined on which predefined type follows MPI 4.0
 * section 6.9.2; notes/ops.md has the table and the NaN rules.
 *
 * Thread safety: the user-op table is guarded by a mutex; predefined ops need
 * no lock.  Applying a user op does not hold the lock while the user function runs.
 */
#ifndef CM_CORE_OP_H
#define CM_CORE_OP_H

#include <stddef.h>
#include "mpi.h"
#include "core/handle.h"

/* Combine n elements: inout[i] = in[i] (op) inout[i].
 * For a predefined op, type must be a predefined datatype handle; the result
 * is MPI_SUCCESS, or MPI_ERR_OP when the op is not defined on that type (or
 * op is not a valid op) -- the caller raises the error.
 * For a user op, type may be any datatype handle: it is passed to the user
 * function as is, in chunks of at most INT_MAX elements (the chunk stride is
 * the type's extent, from core/datatype.h for derived types; MPI_ERR_TYPE
 * when n > INT_MAX and that extent is unknown).
 * in and inout must not overlap (the loops are restrict-qualified). */
int cm_op_apply(MPI_Op op, MPI_Datatype type, const void *in, void *inout, size_t n);

/* 1 for a predefined op or a live user op (created and not yet freed). */
int cm_op_is_valid(MPI_Op op);

/* 1 for a predefined op or a user op that can still be applied: live, or
 * freed by the user while a pending operation retains it.  Reductions
 * inside a running collective check this, not cm_op_is_valid: the user may
 * free the op right after starting the collective (MPI allows it). */
int cm_op_is_usable(MPI_Op op);

/* 1 if op is commutative (all predefined ops are); 0 for an invalid op. */
int cm_op_is_commutative(MPI_Op op);

/* 1 if predefined op is defined on predefined type basic; always 1 for a live user op. */
int cm_op_allowed(MPI_Op op, MPI_Datatype basic);

/* 1 for a predefined op handle (MPI_MAX..MPI_NO_OP). */
static inline int cm_op_is_predefined(MPI_Op op)
{
    int i = cm_op_index(op);
    return i > 0 && i < CM_OP_NUM_PREDEFINED;
}

/* "MPI_SUM"; "user-defined operation" for user ops; "MPI_OP_NULL" for 0;
 * "invalid operation" otherwise.  For error messages. */
const char *cm_op_name(MPI_Op op);

/* Keep a user op alive while a nonblocking collective still needs it:
 * MPI_Op_free on a retained op hands back MPI_OP_NULL at once, but the
 * handle stays usable (and is not reused) until the last release.
 * Both are no-ops for predefined ops. */
void cm_op_retain(MPI_Op op);
void cm_op_release(MPI_Op op);

/* User ops alive now (live, or freed and still retained); for MPI_T. */
int cm_op_live_count(void);

/* Frees every user op (MPI_Finalize calls this). */
void cm_op_finalize(void);

/* Provided by the datatype engine (weak: NULL while it is absent):
 * MPI_Reduce_local of a predefined op on a derived datatype handle, already
 * checked to be valid.  Returns an MPI error class and raises nothing itself
 * (MPI_Reduce_local raises it); MPI_ERR_OP means "op not defined on the
 * basic type the derived type is made of". */
int cm_dt_reduce_local_derived(const void *inbuf, void *inoutbuf, int count,
                               MPI_Datatype datatype, MPI_Op op)
    __attribute__((weak, visibility("hidden")));

/* --- below: between op.c and op_predefined.c ------------------------------ */

typedef void (*cm_op_kernel_fn)(const void *in, void *inout, size_t n);

/* out[i] = left[i] op right[i], none of the three overlapping. */
typedef void (*cm_op_kernel3_fn)(const void *left, const void *right, void *out, size_t n);

/* The loop for (predefined op, predefined type), or NULL when not allowed;
 * the three-operand twin likewise. */
cm_op_kernel_fn cm_op_predefined_kernel(MPI_Op op, MPI_Datatype basic);
cm_op_kernel3_fn cm_op_predefined_kernel3(MPI_Op op, MPI_Datatype basic);

#endif
