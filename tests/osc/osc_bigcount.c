/*
 * osc_bigcount.c -- the large-count one-sided calls with more than INT_MAX
 * elements (2^31 + 4096 bytes as MPI_BYTE) between two ranks, each cut in
 * pieces by the library (src/osc/large.c):
 *   Put_c into rank 1's Win_allocate window (rank 1 checks every word),
 *   Get_c back into rank 0's cleared buffer (rank 0 checks),
 *   Accumulate_c with MPI_BXOR of a second pattern (rank 1 checks the XOR),
 *   Raccumulate_c of the same (the window is back to the first pattern),
 *   Get_accumulate_c with MPI_NO_OP (the origin not read; rank 0 checks),
 *   Rget_accumulate_c with MPI_BXOR: rank 0 gets the first pattern back,
 *   and rank 1 finds the XOR again.
 * About 6.5 GiB of memory; not in the sanitizer build (ctest label "big").
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

static uint64_t word2(size_t i)
{
    return (uint64_t)i * 0xc2b2ae3d27d4eb4full ^ 0x3333;
}

/* xor2: the second pattern was XORed in. */
static void check_words(const uint64_t *p, const char *what, int xor2)
{
    for (size_t i = 0; i < (size_t)BYTES / 8; i++) {
        uint64_t want = word(i) ^ (xor2 ? word2(i) : 0);
        if (p[i] != want)
            CHECK(0, "%s: word %zu is %#llx, expected %#llx", what, i, (unsigned long long)p[i],
                  (unsigned long long)want);
    }
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
        check_words(buf, "Get_c", 0);

        for (size_t i = 0; i < (size_t)BYTES / 8; i++)
            buf[i] = word2(i);
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win));
        CHECK_MPI(MPI_Accumulate_c(buf, BYTES, MPI_BYTE, 1, 0, BYTES, MPI_BYTE, MPI_BXOR, win));
        CHECK_MPI(MPI_Win_unlock(1, win));
        MPI_Barrier(MPI_COMM_WORLD);   /* rank 1 checks */
        MPI_Barrier(MPI_COMM_WORLD);

        MPI_Request rq;
        uint64_t *res = malloc((size_t)BYTES);
        CHECK(res, "malloc of %lld bytes", (long long)BYTES);
        memset(res, 0, (size_t)BYTES);
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win));
        CHECK_MPI(MPI_Raccumulate_c(buf, BYTES, MPI_BYTE, 1, 0, BYTES, MPI_BYTE, MPI_BXOR, win, &rq));
        CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Get_accumulate_c(NULL, 0, MPI_BYTE, res, BYTES, MPI_BYTE, 1, 0, BYTES, MPI_BYTE, MPI_NO_OP,
                                       win));
        CHECK_MPI(MPI_Win_flush(1, win));
        check_words(res, "Raccumulate_c, then Get_accumulate_c with MPI_NO_OP", 0);
        memset(res, 0, (size_t)BYTES);
        CHECK_MPI(MPI_Rget_accumulate_c(buf, BYTES, MPI_BYTE, res, BYTES, MPI_BYTE, 1, 0, BYTES, MPI_BYTE, MPI_BXOR,
                                        win, &rq));
        CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Win_unlock(1, win));
        check_words(res, "Rget_accumulate_c's result", 0);
        MPI_Barrier(MPI_COMM_WORLD);   /* rank 1 checks */
        free(res);
        free(buf);
        printf("osc_bigcount: Put_c, Get_c, Accumulate_c, Raccumulate_c, Get_accumulate_c and Rget_accumulate_c "
               "of %lld bytes as MPI_BYTE\n", (long long)BYTES);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        check_words(mem, "Put_c", 0);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        check_words(mem, "Accumulate_c", 1);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        check_words(mem, "Rget_accumulate_c", 1);
    }
    CHECK_MPI(MPI_Win_free(&win));
    MPI_Finalize();
    return 0;
}
