/* Message rate and latency with threads (standard MPI only; issue 35).
 *
 *   mpirun -n N thread_msgrate [-t T] [-m] [-p rate|lat] [-q]
 *
 * Every rank runs T threads (T = 1: the main thread alone), thread t on its
 * own communicator (a dup of MPI_COMM_WORLD); rank r of the first half
 * pairs with rank r + N/2, its thread t with the peer's thread t.  So
 * "2 ranks x 2 threads" (-n 2 -t 2) and "4 processes in 2 pairs" (-n 4)
 * move the same messages between the same number of senders.
 *   rate: per thread pair the pattern of msgrate.c (a window of 64
 *         nonblocking 8-byte sends, Waitall, a 4-byte ack); the figure is
 *         the job's messages per second, all pairs and threads together.
 *   lat:  per thread pair an 8-byte ping-pong, all pairs at once; one-way
 *         microseconds (half a round trip), the mean of rank 0's threads.
 * The thread level asked for is MPI_THREAD_MULTIPLE when T > 1 or -m is
 * given, else MPI_THREAD_SINGLE.  Prints "thread_msgrate rate 8 <million
 * msg/s>" and "thread_msgrate lat 8 <us>", medians over batches, or "n/a"
 * in place of the figures when the library does not provide the level.
 * Every message carries its own stamp, checked on arrival.
 */
#define _POSIX_C_SOURCE 200809L   /* pthread barriers under -std=c11 */
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_stats.h"

#define WINDOW 64
#define MSG_BYTES 8
#define DATA_TAG 23
#define ACK_TAG 24
#define LAT_TAG 25
#define MAX_THREADS 16
#define MAX_BATCHES 64

enum phase { RATE, LAT };

static int rank, size, nthreads = 1, sender, peer, quick;
static MPI_Comm comm[MAX_THREADS];
static pthread_barrier_t bar;
static double took[MAX_THREADS];

struct thread_state {
    uint64_t slots[WINDOW];
    MPI_Request reqs[WINDOW];
    uint64_t next_stamp;
} __attribute__((aligned(64)));
static struct thread_state ts[MAX_THREADS];

static void post_receives(int t)
{
    for (int j = 0; j < WINDOW; j++)
        MPI_Irecv(&ts[t].slots[j], MSG_BYTES, MPI_BYTE, peer, DATA_TAG, comm[t], &ts[t].reqs[j]);
}

static void windows(int t, int iters)
{
    struct thread_state *s = &ts[t];
    int ack = 0;
    for (int i = 0; i < iters; i++) {
        uint64_t base = s->next_stamp;
        s->next_stamp += WINDOW;
        if (sender) {
            for (int j = 0; j < WINDOW; j++) {
                s->slots[j] = base + (uint64_t)j;
                MPI_Isend(&s->slots[j], MSG_BYTES, MPI_BYTE, peer, DATA_TAG, comm[t], &s->reqs[j]);
            }
            MPI_Waitall(WINDOW, s->reqs, MPI_STATUSES_IGNORE);
            MPI_Recv(&ack, 1, MPI_INT, peer, ACK_TAG, comm[t], MPI_STATUS_IGNORE);
        } else {
            MPI_Waitall(WINDOW, s->reqs, MPI_STATUSES_IGNORE);
            for (int j = 0; j < WINDOW; j++)
                if (s->slots[j] != base + (uint64_t)j) {
                    fprintf(stderr, "thread_msgrate: rank %d thread %d: message %d of window %d wrong\n", rank, t,
                            j, i);
                    MPI_Abort(MPI_COMM_WORLD, 3);
                }
            if (i + 1 < iters)
                post_receives(t);
            MPI_Send(&ack, 1, MPI_INT, peer, ACK_TAG, comm[t]);
        }
    }
}

static void pingpong(int t, int iters)
{
    uint64_t v = 0;
    for (int i = 0; i < iters; i++) {
        if (sender) {
            v = (uint64_t)i;
            MPI_Send(&v, MSG_BYTES, MPI_BYTE, peer, LAT_TAG, comm[t]);
            MPI_Recv(&v, MSG_BYTES, MPI_BYTE, peer, LAT_TAG, comm[t], MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&v, MSG_BYTES, MPI_BYTE, peer, LAT_TAG, comm[t], MPI_STATUS_IGNORE);
            MPI_Send(&v, MSG_BYTES, MPI_BYTE, peer, LAT_TAG, comm[t]);
        }
        if (v != (uint64_t)i) {
            fprintf(stderr, "thread_msgrate: rank %d thread %d: ping %d came back as %llu\n", rank, t, i,
                    (unsigned long long)v);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
    }
}

/* One batch on every thread of every rank, started together (thread 0, the
 * main one, runs the job's barrier while the others wait); on thread 0 the
 * batch's figure for this rank: its messages per second (receivers 0) or
 * its threads' mean one-way latency in seconds. */
static double batch(int t, enum phase p, int iters)
{
    if (p == RATE && !sender)
        post_receives(t);
    pthread_barrier_wait(&bar);
    if (t == 0)
        MPI_Barrier(MPI_COMM_WORLD);
    pthread_barrier_wait(&bar);
    double t0 = MPI_Wtime();
    if (p == RATE)
        windows(t, iters);
    else
        pingpong(t, iters);
    took[t] = MPI_Wtime() - t0;
    pthread_barrier_wait(&bar);
    double longest = 0, sum = 0;
    for (int k = 0; k < nthreads; k++) {
        longest = took[k] > longest ? took[k] : longest;
        sum += took[k];
    }
    if (p == RATE)
        return sender ? (double)nthreads * iters * WINDOW / longest : 0;
    return sum / nthreads / (2.0 * iters);
}

static void measure(int t, enum phase p)
{
    static int iters;
    static double samples[MAX_BATCHES];
    int warm = p == RATE ? 30 : 500, batches = quick ? 5 : 15;
    double target = quick ? 0.01 : 0.04;   /* seconds per batch */
    double first = batch(t, p, warm);
    if (t == 0) {
        /* rank 0's pace (a sender) sets every rank's batch length */
        double per = p == RATE ? (double)nthreads * WINDOW / first : 2.0 * first;
        iters = bench_clamp_iters(target / per, 1, p == RATE ? 20000 : 1000000);
        MPI_Bcast(&iters, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    pthread_barrier_wait(&bar);
    int n = iters;
    for (int b = 0; b < batches; b++) {
        double v = batch(t, p, n);
        if (t == 0) {
            double all = v;
            if (p == RATE)
                MPI_Allreduce(&v, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            samples[b] = all;
        }
    }
    if (t == 0 && rank == 0) {
        double m = bench_median(samples, batches);
        if (p == RATE)
            printf("thread_msgrate rate %d %.4f\n", MSG_BYTES, m / 1e6);
        else
            printf("thread_msgrate lat %d %.4f\n", MSG_BYTES, m * 1e6);
        fflush(stdout);
    }
}

static int want_rate = 1, want_lat = 1;

static void *run(void *arg)
{
    int t = (int)(intptr_t)arg;
    if (want_lat)
        measure(t, LAT);
    if (want_rate)
        measure(t, RATE);
    return NULL;
}

int main(int argc, char **argv)
{
    int force_multiple = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-t") && i + 1 < argc)
            nthreads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-m"))
            force_multiple = 1;
        else if (!strcmp(argv[i], "-q"))
            quick = 1;
        else if (!strcmp(argv[i], "-p") && i + 1 < argc) {
            ++i;
            want_rate = !strcmp(argv[i], "rate");
            want_lat = !strcmp(argv[i], "lat");
        }
    }
    if (nthreads < 1 || nthreads > MAX_THREADS) {
        fprintf(stderr, "thread_msgrate: -t takes 1 to %d threads\n", MAX_THREADS);
        return 2;
    }
    int want = nthreads > 1 || force_multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, got;
    MPI_Init_thread(&argc, &argv, want, &got);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size % 2) {
        if (rank == 0)
            fprintf(stderr, "thread_msgrate: needs an even number of ranks\n");
        MPI_Finalize();
        return 2;
    }
    if (got < want) {
        if (rank == 0) {
            if (want_lat)
                printf("thread_msgrate lat %d n/a\n", MSG_BYTES);
            if (want_rate)
                printf("thread_msgrate rate %d n/a\n", MSG_BYTES);
        }
        MPI_Finalize();
        return 0;
    }
    sender = rank < size / 2;
    peer = sender ? rank + size / 2 : rank - size / 2;
    for (int t = 0; t < nthreads; t++) {
        MPI_Comm_dup(MPI_COMM_WORLD, &comm[t]);
        ts[t].next_stamp = 1;
    }
    for (int i = 0; i < 100; i++)   /* the launcher's start-up settles */
        MPI_Barrier(MPI_COMM_WORLD);
    pthread_barrier_init(&bar, NULL, (unsigned)nthreads);
    pthread_t th[MAX_THREADS];
    for (int t = 1; t < nthreads; t++)
        pthread_create(&th[t], NULL, run, (void *)(intptr_t)t);
    run((void *)0);
    for (int t = 1; t < nthreads; t++)
        pthread_join(th[t], NULL);
    pthread_barrier_destroy(&bar);
    for (int t = 0; t < nthreads; t++)
        MPI_Comm_free(&comm[t]);
    MPI_Finalize();
    return 0;
}
