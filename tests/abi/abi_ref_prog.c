/*
 * abi_ref_prog.c -- an MPI program that knows only the standard ABI.
 *
 * Compiled with abi_ref.h (the MPI-5.0 definitions, not corempi's mpi.h).
 * Each rank checks the ABI version, the toint/fromint round trip of
 * MPI_COMM_WORLD, a ring exchange (status fields and count) and a sum;
 * prints "abi_ref_prog: ok" on rank 0, exits 1 with a line on any mismatch.
 */
#include "abi_ref.h"

#include <stdio.h>

static int fail(int rank, const char *what)
{
    printf("abi_ref_prog: rank %d: %s\n", rank, what);
    return 1;
}

int main(int argc, char **argv)
{
    int rank = -1, size = 0, major = 0, minor = -1;
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS)
        return fail(rank, "MPI_Init failed");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (MPI_Abi_get_version(&major, &minor) != MPI_SUCCESS || major != MPI_ABI_VERSION || minor != MPI_ABI_SUBVERSION)
        return fail(rank, "MPI_Abi_get_version is not 1.0");
    if (MPI_Comm_fromint(MPI_Comm_toint(MPI_COMM_WORLD)) != MPI_COMM_WORLD)
        return fail(rank, "MPI_Comm_fromint(MPI_Comm_toint(MPI_COMM_WORLD)) is another handle");

    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    long long out[3] = {rank, rank * 2, rank * 3}, in[3] = {-1, -1, -1};
    MPI_Status st;
    MPI_Sendrecv(out, 3, MPI_LONG_LONG, right, 7, in, 3, MPI_LONG_LONG, MPI_ANY_SOURCE, MPI_ANY_TAG,
                 MPI_COMM_WORLD, &st);
    int count = -1;
    MPI_Get_count(&st, MPI_LONG_LONG, &count);
    if (st.MPI_SOURCE != left || st.MPI_TAG != 7 || count != 3 || in[2] != left * 3)
        return fail(rank, "ring exchange: wrong status or data");

    int one = 1, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (sum != size)
        return fail(rank, "MPI_Allreduce(MPI_SUM) of ones is not the size");
    MPI_Finalize();
    if (rank == 0)
        printf("abi_ref_prog: ok\n");
    return 0;
}
