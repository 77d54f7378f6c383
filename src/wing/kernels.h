/* kernels.h -- the wing's loops for predefined ops on basic types (wing/kernels.c). */
#ifndef CM_WING_KERNELS_H
#define CM_WING_KERNELS_H
#include "core/op.h"

enum { CM_WK_NONE, CM_WK_I8, CM_WK_I16, CM_WK_I32, CM_WK_I64, CM_WK_U8, CM_WK_U16, CM_WK_U32, CM_WK_U64,
       CM_WK_F32, CM_WK_F64, CM_WK_NUM };
enum { CM_WO_NONE, CM_WO_MAX, CM_WO_MIN, CM_WO_SUM, CM_WO_PROD, CM_WO_LAND, CM_WO_BAND, CM_WO_LOR, CM_WO_BOR,
       CM_WO_LXOR, CM_WO_BXOR, CM_WO_MAXLOC, CM_WO_MINLOC, CM_WO_REPLACE, CM_WO_NO_OP, CM_WO_NUM };

/* inout[i] = in[i] op inout[i], and out[i] = left[i] op right[i]; NULL when
 * the wing has no loop (the engine then calls the host's PMPI_Reduce_local,
 * which also raises the error of an op not defined on the type). */
cm_op_kernel_fn cm_wing_kernel(int op, int kind);
cm_op_kernel3_fn cm_wing_kernel3(int op, int kind);
#endif
