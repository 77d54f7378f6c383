/*
 * osc_bigcount.c -- MPI_Put_c and MPI_Get_c of more than INT_MAX elements
 * (2^31 + 4096 bytes as MPI_BYTE) between two ranks: rank 1's Win_allocate
 * window receives rank 0's buffer, rank 1 checks every word, then rank 0
 * gets it back into its cleared buffer and checks again.  About 4.5 GiB of
 * memory; not in the sanitizer build (ctest label "big").
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define BYTES (((MPI_Count)1 << 31) + 4096)

static uint64_t word(size_t i)
{
    return (uint64_t)i * 0x9e3779b97f4a7c15ull ^ 0x5555;
}

static void check_words(const uint64_t *p, const char *what)
{
    for (size_t i = 0; i < (size_t)BYTES / 8; i++)
        if (p[i] != word(i))
            CHECK(0, "%s: word %zu is %#llx, expected %#llx", what, i, (unsigned long long)p[i],
                  (unsigned long long)word(i));
}

int main(int argc, char **argv)
{
    int me, n;
    uint64_t *mem = NULL;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    CHECK(n == 2, "run with 2 ranks");
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate(me == 1 ? (MPI_Aint)BYTES : 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    if (me == 0) {
        uint64_t *buf = malloc((size_t)BYTES);
        CHECK(buf, "malloc of %lld bytes", (long long)BYTES);
        for (size_t i = 0; i < (size_t)BYTES / 8; i++)
            buf[i] = word(i);
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win));
        CHECK_MPI(MPI_Put_c(buf, BYTES, MPI_BYTE, 1, 0, BYTES, MPI_BYTE, win));
        CHECK_MPI(MPI_Win_unlock(1, win));
        MPI_Barrier(MPI_COMM_WORLD);   /* rank 1 checks */
        MPI_Barrier(MPI_COMM_WORLD);
        memset(buf, 0, (size_t)BYTES);
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win));
        CHECK_MPI(MPI_Get_c(buf, BYTES, MPI_BYTE, 1, 0, BYTES, MPI_BYTE, win));
        CHECK_MPI(MPI_Win_unlock(1, win));
        check_words(buf, "Get_c");
        free(buf);
        printf("osc_bigcount: Put_c and Get_c of %lld bytes as MPI_BYTE\n", (long long)BYTES);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        check_words(mem, "Put_c");
        MPI_Barrier(MPI_COMM_WORLD);
    }
    CHECK_MPI(MPI_Win_free(&win));
    MPI_Finalize();
    return 0;
}
