/*
 * large_counts_big.c -- more than 2^31 elements for real, at 2 ranks:
 * Send_c/Recv_c of 2^31+13 MPI_BYTE (checked at both ends and at sampled
 * positions), Get_count_c of it (and MPI_UNDEFINED from the int Get_count),
 * then Bcast_c back and Allreduce_c (MPI_BOR, in place) of the same count.
 * About 2 GiB per rank plus what the collectives borrow.
 */
#include "check.h"

#include <limits.h>
#include <stdint.h>

#define COUNT (((MPI_Count)1 << 31) + 13)
#define STEP 4093 /* sampling stride: a prime other than PERIOD */

/* The data: a pseudo-random byte sequence of prime period, so a block that
 * lands shifted by any power of two is seen; filled by doubling memcpy
 * (the fill must not dominate the test's minute). */
#define PERIOD 1048573
static unsigned char base[PERIOD];
static unsigned char pattern(MPI_Count i)
{
    return base[i % PERIOD];
}
static void fill(unsigned char *b)
{
    uint32_t x = 12345;
    for (int i = 0; i < PERIOD; i++) {
        x = x * 1103515245u + 12345u;
        base[i] = (unsigned char)(x >> 24);
    }
    MPI_Count have = PERIOD < COUNT ? PERIOD : COUNT;
    memcpy(b, base, (size_t)have);
    while (have < COUNT) {
        MPI_Count n = have < COUNT - have ? have : COUNT - have;
        memcpy(b + have, b, (size_t)n); /* b[have + j] = b[j], and have is a multiple of PERIOD */
        have += n;
    }
}

/* Sampled positions and the last page hold the pattern. */
static void check_data(const unsigned char *b, const char *what)
{
    for (MPI_Count i = 0; i < COUNT; i += STEP)
        CHECK(b[i] == pattern(i), "%s: byte %lld is %u, want %u", what, (long long)i, b[i], pattern(i));
    for (MPI_Count i = COUNT - 4096; i < COUNT; i++)
        CHECK(b[i] == pattern(i), "%s: byte %lld is %u, want %u", what, (long long)i, b[i], pattern(i));
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2, "run at 2 ranks");
    unsigned char *b = malloc((size_t)COUNT);
    CHECK(b, "cannot allocate %lld bytes", (long long)COUNT);
    double t0 = MPI_Wtime();
    MPI_Status st;
    if (rank == 0) {
        fill(b);
        CHECK_MPI(MPI_Send_c(b, COUNT, MPI_BYTE, 1, 7, MPI_COMM_WORLD));
        check_data(b, "sender's buffer after Send_c");
    } else {
        fill(b); /* the pattern table; the buffer is cleared next */
        memset(b, 0, (size_t)COUNT);
        CHECK_MPI(MPI_Recv_c(b, COUNT, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &st));
        check_data(b, "Recv_c");
        MPI_Count n;
        int in;
        CHECK_MPI(MPI_Get_count_c(&st, MPI_BYTE, &n));
        CHECK(n == COUNT, "Get_count_c: %lld", (long long)n);
        CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &in));
        CHECK(in == MPI_UNDEFINED, "int Get_count of 2^31+13: %d", in);
    }
    double t1 = MPI_Wtime();
    /* back from rank 1 to a cleared rank 0 */
    if (rank == 0)
        memset(b, 0, (size_t)COUNT);
    CHECK_MPI(MPI_Bcast_c(b, COUNT, MPI_BYTE, 1, MPI_COMM_WORLD));
    check_data(b, "Bcast_c");
    double t2 = MPI_Wtime();
    /* rank 0 clear again: OR with rank 1's data is the data everywhere */
    if (rank == 0)
        memset(b, 0, (size_t)COUNT);
    CHECK_MPI(MPI_Allreduce_c(MPI_IN_PLACE, b, COUNT, MPI_BYTE, MPI_BOR, MPI_COMM_WORLD));
    check_data(b, "Allreduce_c");
    double t3 = MPI_Wtime();
    free(b);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("large_counts_big: %lld bytes: send/recv %.1f s, bcast %.1f s, allreduce %.1f s\n",
               (long long)COUNT, t1 - t0, t2 - t1, t3 - t2);
    MPI_Finalize();
    return 0;
}
