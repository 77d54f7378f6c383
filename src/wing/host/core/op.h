/*
 * core/op.h for the wing: the host's predefined ops mapped to the wing's
 * loops (wing/kernels.c); a user op is the host's to apply
 * (PMPI_Reduce_local, which calls it as the host expects).
 */
#ifndef CM_CORE_OP_H
#define CM_CORE_OP_H
#include <stddef.h>
#include <mpi.h>

typedef void (*cm_op_kernel_fn)(const void *in, void *inout, size_t n);
typedef void (*cm_op_kernel3_fn)(const void *left, const void *right, void *out, size_t n);

/* The wing's index of a predefined host op (1..), 0 for a user op. */
int cm_wing_op_index(MPI_Op op);
static inline int cm_op_index(MPI_Op op) { return cm_wing_op_index(op); }
static inline int cm_op_is_predefined(MPI_Op op) { return cm_wing_op_index(op) > 0; }
int cm_op_is_commutative(MPI_Op op);
/* The loops of a predefined op on a basic type, NULL when the wing has none. */
cm_op_kernel_fn cm_op_predefined_kernel(MPI_Op op, MPI_Datatype basic);
cm_op_kernel3_fn cm_op_predefined_kernel3(MPI_Op op, MPI_Datatype basic);
#endif
