/*
 * kernels.c -- loops for the predefined ops on the basic element kinds
 * (wing/kernels.h).  Floating-point kinds have the arithmetic and
 * comparison ops only; MAXLOC/MINLOC, REPLACE and NO_OP go to the host.
 */
#include "wing/kernels.h"
#include <stdint.h>

#define F_MAX(a, b) ((a) > (b) ? (a) : (b))
#define F_MIN(a, b) ((a) < (b) ? (a) : (b))
#define F_SUM(a, b) ((a) + (b))
#define F_PROD(a, b) ((a) * (b))
#define F_LAND(a, b) ((a) && (b))
#define F_LOR(a, b) ((a) || (b))
#define F_LXOR(a, b) (!(a) != !(b))
#define F_BAND(a, b) ((a) & (b))
#define F_BOR(a, b) ((a) | (b))
#define F_BXOR(a, b) ((a) ^ (b))

#define LOOPS(OP, T)                                                                                           \
    static void k2_##OP##_##T(const void *in, void *inout, size_t n)                                          \
    {                                                                                                          \
        const T *restrict a = in;                                                                              \
        T *restrict b = inout;                                                                                 \
        for (size_t i = 0; i < n; i++)                                                                         \
            b[i] = (T)F_##OP(a[i], b[i]);                                                                      \
    }                                                                                                          \
    static void k3_##OP##_##T(const void *left, const void *right, void *out, size_t n)                       \
    {                                                                                                          \
        const T *restrict a = left, *restrict b = right;                                                       \
        T *restrict c = out;                                                                                   \
        for (size_t i = 0; i < n; i++)                                                                         \
            c[i] = (T)F_##OP(a[i], b[i]);                                                                      \
    }
#define ARITH(T) LOOPS(MAX, T) LOOPS(MIN, T) LOOPS(SUM, T) LOOPS(PROD, T)
#define LOGIC(T) LOOPS(LAND, T) LOOPS(LOR, T) LOOPS(LXOR, T)
#define BITS(T) LOOPS(BAND, T) LOOPS(BOR, T) LOOPS(BXOR, T)
#define INTEGER(T) ARITH(T) LOGIC(T) BITS(T)
INTEGER(int8_t) INTEGER(int16_t) INTEGER(int32_t) INTEGER(int64_t)
INTEGER(uint8_t) INTEGER(uint16_t) INTEGER(uint32_t) INTEGER(uint64_t)
ARITH(float) ARITH(double)

#define ROW_INT(T) { NULL, k2_MAX_##T, k2_MIN_##T, k2_SUM_##T, k2_PROD_##T, k2_LAND_##T, k2_BAND_##T, \
                     k2_LOR_##T, k2_BOR_##T, k2_LXOR_##T, k2_BXOR_##T }
#define ROW_FLT(T) { NULL, k2_MAX_##T, k2_MIN_##T, k2_SUM_##T, k2_PROD_##T }
#define ROW3_INT(T) { NULL, k3_MAX_##T, k3_MIN_##T, k3_SUM_##T, k3_PROD_##T, k3_LAND_##T, k3_BAND_##T, \
                      k3_LOR_##T, k3_BOR_##T, k3_LXOR_##T, k3_BXOR_##T }
#define ROW3_FLT(T) { NULL, k3_MAX_##T, k3_MIN_##T, k3_SUM_##T, k3_PROD_##T }

/* [kind][op], in the order of kernels.h's enums. */
static const cm_op_kernel_fn k2[CM_WK_NUM][CM_WO_NUM] = {
    [CM_WK_I8] = ROW_INT(int8_t), [CM_WK_I16] = ROW_INT(int16_t), [CM_WK_I32] = ROW_INT(int32_t),
    [CM_WK_I64] = ROW_INT(int64_t), [CM_WK_U8] = ROW_INT(uint8_t), [CM_WK_U16] = ROW_INT(uint16_t),
    [CM_WK_U32] = ROW_INT(uint32_t), [CM_WK_U64] = ROW_INT(uint64_t), [CM_WK_F32] = ROW_FLT(float),
    [CM_WK_F64] = ROW_FLT(double),
};
static const cm_op_kernel3_fn k3[CM_WK_NUM][CM_WO_NUM] = {
    [CM_WK_I8] = ROW3_INT(int8_t), [CM_WK_I16] = ROW3_INT(int16_t), [CM_WK_I32] = ROW3_INT(int32_t),
    [CM_WK_I64] = ROW3_INT(int64_t), [CM_WK_U8] = ROW3_INT(uint8_t), [CM_WK_U16] = ROW3_INT(uint16_t),
    [CM_WK_U32] = ROW3_INT(uint32_t), [CM_WK_U64] = ROW3_INT(uint64_t), [CM_WK_F32] = ROW3_FLT(float),
    [CM_WK_F64] = ROW3_FLT(double),
};

cm_op_kernel_fn cm_wing_kernel(int op, int kind)
{
    return op > 0 && op < CM_WO_NUM && kind > 0 && kind < CM_WK_NUM ? k2[kind][op] : NULL;
}

cm_op_kernel3_fn cm_wing_kernel3(int op, int kind)
{
    return op > 0 && op < CM_WO_NUM && kind > 0 && kind < CM_WK_NUM ? k3[kind][op] : NULL;
}
