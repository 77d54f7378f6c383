/*
 * osc_bulk.c -- large contiguous Put and Get move every byte (issue 23
 * items 4-5): sizes around the thresholds where corempi starts copying in
 * pieces (src/osc/copy.c: from 256 KiB, 128 KiB pieces), odd sizes whose
 * last piece is short, and odd displacements and origin addresses.
 *
 * Each rank puts a pattern (position, origin rank, round) into its right
 * neighbour's window, then gets its left neighbour's region back after a
 * fence and compares every byte; the owner also checks its own memory
 * directly.  Windows: Win_allocate and Win_allocate_shared (the origin's own
 * copies) and Win_create (single copies by the kernel, plain copies for the
 * rank itself at 1 rank).
 */
#include "osc_common.h"

#define MAXB ((4 << 20) + 4096)

static unsigned char pat(size_t i, int rank, int round)
{
    return (unsigned char)((i * 131u + (size_t)rank * 17u + (size_t)round * 7u) ^ (i >> 12));
}

int main(int argc, char **argv)
{
    int me, n;
    (void)osc_start(&argc, &argv, "osc_bulk", &me, &n);
    static const size_t sizes[] = {
        (256 << 10) - 1, 256 << 10, (256 << 10) + 1, (384 << 10) + 5, (1 << 20) + 12345, (4 << 20) + 7};
    static const size_t offs[] = {0, 1, 4096 - 16, 123};
    const int kinds[3] = {OSC_ALLOCATE, OSC_SHARED, OSC_CREATE};
    unsigned char *src = malloc(MAXB + 64), *back = malloc(MAXB + 64);
    CHECK(src && back, "malloc");
    int right = (me + 1) % n, left = (me + n - 1) % n;
    for (int ki = 0; ki < 3; ki++) {
        const char *kind = osc_kind_name[kinds[ki]];
        MPI_Aint bytes = MAXB;
        unsigned char *base;
        MPI_Win win;
        void *user = NULL;
        if (kinds[ki] == OSC_ALLOCATE)
            CHECK_MPI(MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
        else if (kinds[ki] == OSC_SHARED)
            CHECK_MPI(MPI_Win_allocate_shared(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
        else {
            CHECK((user = malloc((size_t)bytes)), "malloc");
            base = user;
            CHECK_MPI(MPI_Win_create(base, bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        }
        for (int round = 0; round < (int)(sizeof sizes / sizeof sizes[0]); round++) {
            size_t len = sizes[round], off = offs[round % 4], org = offs[(round + 1) % 4];
            CHECK(off + len <= (size_t)MAXB && org + len <= (size_t)MAXB + 64, "test sizes");
            for (size_t i = 0; i < len; i++)
                src[org + i] = pat(i, me, round);
            memset(back, 0xee, MAXB + 64);
            CHECK_MPI(MPI_Win_fence(0, win));
            CHECK_MPI(MPI_Put(src + org, (int)len, MPI_BYTE, right, (MPI_Aint)off, (int)len, MPI_BYTE, win));
            CHECK_MPI(MPI_Win_fence(0, win));
            /* the owner sees the left neighbour's pattern, and nothing past it */
            for (size_t i = 0; i < len; i++)
                CHECK(base[off + i] == pat(i, left, round),
                      "%s window: %zu-byte Put from rank %d at displacement %zu: byte %zu is %u, expected %u", kind,
                      len, left, off, i, base[off + i], pat(i, left, round));
            CHECK_MPI(MPI_Get(back + org, (int)len, MPI_BYTE, left, (MPI_Aint)off, (int)len, MPI_BYTE, win));
            CHECK_MPI(MPI_Win_fence(0, win));
            /* left's memory holds what left-left put there */
            int ll = (left + n - 1) % n;
            for (size_t i = 0; i < len; i++)
                CHECK(back[org + i] == pat(i, ll, round),
                      "%s window: %zu-byte Get from rank %d at displacement %zu: byte %zu is %u, expected %u", kind, len,
                      left, off, i, back[org + i], pat(i, ll, round));
            CHECK(back[org + len] == 0xee && (org == 0 || back[org - 1] == 0xee),
                  "%s window: a %zu-byte Get wrote outside its buffer", kind, len);
            CHECK_MPI(MPI_Win_fence(0, win));
            memset(base, 0, (size_t)bytes); /* no stale pattern can pass the next round */
            CHECK_MPI(MPI_Win_fence(0, win));
        }
        CHECK_MPI(MPI_Win_free(&win));
        free(user);
        if (me == 0)
            printf("osc_bulk: %s window: %zu sizes up to %zu bytes, every byte checked\n", kind,
                   sizeof sizes / sizeof sizes[0], sizes[sizeof sizes / sizeof sizes[0] - 1]);
    }
    free(src);
    free(back);
    MPI_Finalize();
    return 0;
}
