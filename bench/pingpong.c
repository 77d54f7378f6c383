/* Point-to-point ping-pong between ranks 0 and 1 (standard MPI only).
 *
 * Prints machine-readable lines:
 *   pingpong latency <bytes> <usec>     one-way time = half a round trip
 *   pingpong bw <bytes> <GB/s>          bytes / one-way time (1 GB = 1e9 B)
 * Default: latency at 1 and 8 B, bandwidth at 64 KiB, 1 MiB, 4 MiB.
 * -v: both metrics for every power of 4 from 1 B to 4 MiB.  -q: quick pass.
 *
 * Every iteration writes a fresh stamp into the buffer before sending and the
 * receiver checks it, so no library can skip or cache a transfer.  Each
 * timed batch starts after the same MPI_Barrier; the median over batches is
 * reported so that a batch hit by the scheduler does not count. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_settle.h"
#include "bench_stats.h"

#define PP_TAG 17
#define MAX_BYTES (4u << 20)

/* The stamp goes into the first and last 8 bytes (or bytes, for tiny
 * messages), so a transfer that moved only part of the buffer is caught too. */
static void put_stamp(unsigned char *buf, size_t n, uint64_t stamp)
{
    if (n >= 8) {
        memcpy(buf, &stamp, 8);
        memcpy(buf + n - 8, &stamp, 8);
    } else {
        buf[0] = (unsigned char)stamp;
        buf[n - 1] = (unsigned char)stamp;
    }
}

static void check_stamp(const unsigned char *buf, size_t n, uint64_t stamp)
{
    int ok;
    if (n >= 8) {
        uint64_t head, tail;
        memcpy(&head, buf, 8);
        memcpy(&tail, buf + n - 8, 8);
        ok = head == stamp && tail == stamp;
    } else {
        ok = buf[0] == (unsigned char)stamp && buf[n - 1] == (unsigned char)stamp;
    }
    if (!ok) {
        fprintf(stderr, "pingpong: wrong data at %zu bytes (stamp %llu)\n", n,
                (unsigned long long)stamp);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

/* One round trip; the stamp counter is global so no two sends carry the same
 * value, across batches and sizes. */
static uint64_t next_stamp = 1;

static void round_trips(int rank, unsigned char *buf, int n, int iters)
{
    for (int i = 0; i < iters; i++) {
        uint64_t stamp = next_stamp;
        next_stamp += 2;
        if (rank == 0) {
            put_stamp(buf, (size_t)n, stamp);
            MPI_Send(buf, n, MPI_BYTE, 1, PP_TAG, MPI_COMM_WORLD);
            MPI_Recv(buf, n, MPI_BYTE, 1, PP_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            check_stamp(buf, (size_t)n, stamp + 1);
        } else if (rank == 1) {
            MPI_Recv(buf, n, MPI_BYTE, 0, PP_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            check_stamp(buf, (size_t)n, stamp);
            put_stamp(buf, (size_t)n, stamp + 1);
            MPI_Send(buf, n, MPI_BYTE, 0, PP_TAG, MPI_COMM_WORLD);
        }
    }
}

struct trips {
    int rank, n;
    unsigned char *buf;
};

static void run_trips(void *ctx, int iters)
{
    struct trips *t = ctx;
    round_trips(t->rank, t->buf, t->n, iters);
}

/* Returns the median one-way time in seconds (meaningful on rank 0). */
static double measure(int rank, unsigned char *buf, int n, const struct bench_opts *o)
{
    struct trips t = { rank, n, buf };
    return bench_measure(run_trips, &t, n <= 65536 ? 200 : 10, 200000, o) / 2.0;
}

int main(int argc, char **argv)
{
    struct bench_opts o;
    int rank;
    if (bench_start_pair(&argc, &argv, "pingpong", &o, &rank))
        return 1;
    unsigned char *buf = malloc(MAX_BYTES);
    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 2);
    memset(buf, 0, MAX_BYTES);

    static const int lat_sizes[] = {1, 8};
    static const int bw_sizes[] = {65536, 1 << 20, 4 << 20};

    if (o.verbose) {
        for (int n = 1; n <= (int)MAX_BYTES; n *= 4) {
            double t = measure(rank, buf, n, &o);
            if (rank == 0) {
                printf("pingpong latency %d %.3f\n", n, t * 1e6);
                printf("pingpong bw %d %.3f\n", n, n / t / 1e9);
                fflush(stdout);
            }
        }
    } else {
        for (size_t i = 0; i < sizeof lat_sizes / sizeof *lat_sizes; i++) {
            double t = measure(rank, buf, lat_sizes[i], &o);
            if (rank == 0) {
                printf("pingpong latency %d %.3f\n", lat_sizes[i], t * 1e6);
                fflush(stdout);
            }
        }
        for (size_t i = 0; i < sizeof bw_sizes / sizeof *bw_sizes; i++) {
            double t = measure(rank, buf, bw_sizes[i], &o);
            if (rank == 0) {
                printf("pingpong bw %d %.3f\n", bw_sizes[i], bw_sizes[i] / t / 1e9);
                fflush(stdout);
            }
        }
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
