/*
 * affine_op.h -- a user reduction that is associative but not commutative,
 * for the tests that check a fold ran in rank order (reduce_fifo.c,
 * shm_nbc.c): composition of affine maps x -> a*x + b, each a pair of
 * unsigned ints (a, b).
 */
#ifndef COREMPI_TESTS_AFFINE_OP_H
#define COREMPI_TESTS_AFFINE_OP_H

#include <mpi.h>

/* (a1, b1) o (a2, b2): x -> a1 * (a2 * x + b2) + b1, in inout. */
static void compose(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    unsigned *x = in, *y = inout;
    for (int i = 0; i < *len; i++) {
        unsigned a = x[2 * i] * y[2 * i], b = x[2 * i] * y[2 * i + 1] + x[2 * i + 1];
        y[2 * i] = a;
        y[2 * i + 1] = b;
    }
}

#endif
