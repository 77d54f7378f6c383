/*
 * slot_loop -- shared-memory collectives that go through the slots (not the
 * FIFOs), back to back, with data that changes every call.
 *
 * Data of epoch e sit in the buffers of parity e & 1 and may be read until
 * the reader arrives at the next sync; a writer touches that parity again
 * only for epoch e + 2 (src/coll/direct/direct.h, docs/protocols.md "Slot reuse by
 * parity").  A writer that reused a parity one epoch early would overwrite
 * a slow reader's data with the next call's: here every call's values are a
 * function of (call, rank, index), so the reader sees it.  Allreduce and
 * allgather blocks past the flag line's inline bytes, broadcasts past the
 * broadcast FIFO, one shape after another, some ranks now and then late.
 * The test catches the mutation under fault injection (make check-faults),
 * where readers stall between leaving a sync and reading.
 * Prints "slot_loop ok" on rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../test_end.h"

#define CALLS 3000
#define MAXN 2000          /* ints: 8000 bytes, past the 4 KiB broadcast FIFO */

static int value(int call, int rank, int i) { return call * 7919 + rank * 104729 + i * 31 + 1; }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *in = malloc(sizeof(int) * MAXN), *out = malloc(sizeof(int) * MAXN * (size_t)size);
    int bad = 0;
    for (int call = 0; call < CALLS; call++) {
        int kind = call % 3;
        if (rank == call % size && call % 61 == 0)
            usleep(500);
        if (kind == 0) {
            int n = 15 + call % 400;                      /* 60..1656 bytes */
            for (int i = 0; i < n; i++)
                in[i] = value(call, rank, i);
            MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            for (int i = 0; i < n; i++) {
                int want = 0;
                for (int r = 0; r < size; r++)
                    want += value(call, r, i);
                if (out[i] != want && bad++ < 5)
                    fprintf(stderr, "slot_loop: rank %d call %d allreduce[%d] = %d, want %d\n", rank, call, i,
                            out[i], want);
            }
        } else if (kind == 1) {
            int n = 15 + call % 250;                      /* 60..1056 bytes a block */
            for (int i = 0; i < n; i++)
                in[i] = value(call, rank, i);
            MPI_Allgather(in, n, MPI_INT, out, n, MPI_INT, MPI_COMM_WORLD);
            for (int r = 0; r < size; r++)
                for (int i = 0; i < n; i++)
                    if (out[r * n + i] != value(call, r, i) && bad++ < 5)
                        fprintf(stderr, "slot_loop: rank %d call %d allgather block %d[%d] = %d, want %d\n", rank,
                                call, r, i, out[r * n + i], value(call, r, i));
        } else {
            int n = 1100 + call % (MAXN - 1100), root = (call / 3) % size;
            for (int i = 0; i < n; i++)
                in[i] = rank == root ? value(call, root, i) : -1;
            MPI_Bcast(in, n, MPI_INT, root, MPI_COMM_WORLD);
            for (int i = 0; i < n; i++)
                if (in[i] != value(call, root, i) && bad++ < 5)
                    fprintf(stderr, "slot_loop: rank %d call %d bcast[%d] = %d, want %d\n", rank, call, i, in[i],
                            value(call, root, i));
        }
    }
    free(in);
    free(out);
    return test_end("slot_loop", bad);
}
