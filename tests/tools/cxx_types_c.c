/* cxx_types_c.c -- the MPI C++ types are usable from C: a C program holding
 * bool and double _Complex (the same layout) reduces them as MPI_CXX_*.
 * Prints "cxx_types_c: ok" once per rank; a mismatch exits 1. */
#include <complex.h>
#include <stdbool.h>
#include <stdio.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, fails = 0, s;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double _Complex z = CMPLX(rank + 1, 1), sum;
    MPI_Allreduce(&z, &sum, 1, MPI_CXX_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD);
    if (creal(sum) != size * (size + 1) / 2 || cimag(sum) != size)
        fails++, fprintf(stderr, "cxx_types_c: MPI_SUM on MPI_CXX_DOUBLE_COMPLEX\n");
    float _Complex f = CMPLXF(2, 0), prod;
    MPI_Allreduce(&f, &prod, 1, MPI_CXX_FLOAT_COMPLEX, MPI_PROD, MPI_COMM_WORLD);
    if (crealf(prod) != (float)(1 << size))
        fails++, fprintf(stderr, "cxx_types_c: MPI_PROD on MPI_CXX_FLOAT_COMPLEX\n");
    bool b = rank == 0, any;
    MPI_Allreduce(&b, &any, 1, MPI_CXX_BOOL, MPI_LOR, MPI_COMM_WORLD);
    if (!any)
        fails++, fprintf(stderr, "cxx_types_c: MPI_LOR on MPI_CXX_BOOL\n");
    MPI_Type_size(MPI_CXX_LONG_DOUBLE_COMPLEX, &s);
    if (s != (int)sizeof(long double _Complex))
        fails++, fprintf(stderr, "cxx_types_c: MPI_CXX_LONG_DOUBLE_COMPLEX size %d\n", s);
    MPI_Finalize();
    if (!fails)
        printf("cxx_types_c: ok\n");
    return fails != 0;
}
