/* The end the instruction-counting loops (*_instr.c, counted with callgrind)
 * share.  Header-only, like bench_stats.h: each loop stays one file that the
 * build's mpicc compiles alone. */
#ifndef BENCH_INSTR_H
#define BENCH_INSTR_H

#include <mpi.h>
#include <stdio.h>

/* x is the loop's last value: printing it when negative (it never is) keeps
 * the compiler from dropping the loop.  Then MPI_Finalize; returns main's exit
 * status. */
static inline int bench_instr_end(double x)
{
    if (x < 0)
        printf("%g\n", x);
    MPI_Finalize();
    return 0;
}

#endif
