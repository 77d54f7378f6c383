/* Message rate between ranks 0 and 1 (standard MPI only).
 *
 * Rank 0 sends a window of 64 nonblocking 8-byte messages and waits for them;
 * rank 1 has its receives posted before the window arrives and answers with a
 * 4-byte acknowledgement, which keeps the sender from running ahead (the
 * OSU message-rate pattern).  Prints:
 *   msgrate rate 8 <million messages/s>
 * median over batches; -q for a quick pass.  Every message carries its own
 * stamp, checked on arrival, so no message can be dropped or coalesced. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_settle.h"
#include "bench_stats.h"

#define WINDOW 64
#define MSG_BYTES 8
#define DATA_TAG 23
#define ACK_TAG 24

static uint64_t slots[WINDOW];
static MPI_Request reqs[WINDOW];
static uint64_t next_stamp = 1;

static void post_receives(void)
{
    for (int j = 0; j < WINDOW; j++)
        MPI_Irecv(&slots[j], MSG_BYTES, MPI_BYTE, 0, DATA_TAG, MPI_COMM_WORLD, &reqs[j]);
}

/* The receiver's Irecvs for the first window are posted by the caller
 * before the batch's barrier, those for later windows before the ack. */
static void windows(int rank, int iters)
{
    int ack = 0;
    for (int i = 0; i < iters; i++) {
        uint64_t base = next_stamp;
        next_stamp += WINDOW;
        if (rank == 0) {
            for (int j = 0; j < WINDOW; j++) {
                slots[j] = base + (uint64_t)j;
                MPI_Isend(&slots[j], MSG_BYTES, MPI_BYTE, 1, DATA_TAG, MPI_COMM_WORLD, &reqs[j]);
            }
            MPI_Waitall(WINDOW, reqs, MPI_STATUSES_IGNORE);
            MPI_Recv(&ack, 1, MPI_INT, 1, ACK_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Waitall(WINDOW, reqs, MPI_STATUSES_IGNORE);
            for (int j = 0; j < WINDOW; j++) {
                if (slots[j] != base + (uint64_t)j) {
                    fprintf(stderr, "msgrate: message %d of window %d wrong\n", j, i);
                    MPI_Abort(MPI_COMM_WORLD, 3);
                }
            }
            if (i + 1 < iters)
                post_receives();
            MPI_Send(&ack, 1, MPI_INT, 0, ACK_TAG, MPI_COMM_WORLD);
        }
    }
}

static double timed_windows(int rank, int iters)
{
    if (rank == 1)
        post_receives();
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    windows(rank, iters);
    return MPI_Wtime() - t0;
}

int main(int argc, char **argv)
{
    struct bench_opts o;
    int rank;
    if (bench_start_pair(&argc, &argv, "msgrate", &o, &rank))
        return 1;
    int batches = o.quick ? 5 : 15;
    double target = o.quick ? 0.004 : 0.02;

    int warm = 50;
    double per = timed_windows(rank, warm) / warm;
    int iters = bench_clamp_iters(target / per, 1, 100000);
    MPI_Bcast(&iters, 1, MPI_INT, 0, MPI_COMM_WORLD);

    double samples[64];
    for (int b = 0; b < batches; b++)
        samples[b] = (double)iters * WINDOW / timed_windows(rank, iters);
    if (rank == 0) {
        printf("msgrate rate %d %.4f\n", MSG_BYTES, bench_median(samples, batches) / 1e6);
        fflush(stdout);
    }
    MPI_Finalize();
    return 0;
}
