/*
 * bcast_fifo -- back-to-back tiny broadcasts and scatters with a rotating
 * root and a sometimes slow reader: the broadcast FIFO (src/coll/direct/direct.h) lets
 * a root run up to its depth ahead of the readers, so a root that reused an
 * entry before every rank had finished the call that last used it would hand
 * a slow reader a later call's data.
 *
 * Broadcast and scatter share the FIFO's entries and count, so they are
 * interleaved.  Sizes run from 1 byte (inline in the entry's first line) to
 * the FIFO's 1 KiB.  Every payload is a function of (call, byte) and every
 * reader checks all of it.  Prints "bcast_fifo ok" on rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../test_end.h"

#define CALLS 1200
#define MAXBYTES 1024

static unsigned char expected(int call, int i) { return (unsigned char)(call * 131 + i * 7 + 1); }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static unsigned char buf[MAXBYTES], all[MAXBYTES];
    const int sizes[] = { 1, 8, 13, 56, 57, 200, 1024 };
    int bad = 0;
    for (int call = 0; call < CALLS; call++) {
        /* The root stays for 150 calls: long enough to run a whole FIFO ahead. */
        int root = (call / 150) % size;
        int slow = (root + 1) % size;
        if (rank == slow && call % 37 == 0)
            usleep(2000);
        if (call % 3 == 2) {
            /* Scatter: every block fits the entry together. */
            int block = sizes[call % 7] / size > 0 ? sizes[call % 7] / size : 1;
            if (rank == root)
                for (int r = 0; r < size; r++)
                    for (int i = 0; i < block; i++)
                        all[r * block + i] = (unsigned char)(expected(call, i) ^ r);
            MPI_Scatter(all, block, MPI_BYTE, buf, block, MPI_BYTE, root, MPI_COMM_WORLD);
            for (int i = 0; i < block; i++)
                if (buf[i] != (unsigned char)(expected(call, i) ^ rank) && bad++ < 5)
                    fprintf(stderr, "bcast_fifo: rank %d, scatter %d (root %d), byte %d of %d: got %u, want %u\n",
                            rank, call, root, i, block, buf[i], (unsigned char)(expected(call, i) ^ rank));
            continue;
        }
        int n = sizes[call % 7];
        for (int i = 0; i < n; i++)
            buf[i] = rank == root ? expected(call, i) : 0;
        MPI_Bcast(buf, n, MPI_BYTE, root, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++)
            if (buf[i] != expected(call, i) && bad++ < 5)
                fprintf(stderr, "bcast_fifo: rank %d, bcast %d (root %d), byte %d of %d: got %u, want %u\n", rank,
                        call, root, i, n, buf[i], expected(call, i));
    }
    return test_end("bcast_fifo", bad);
}
