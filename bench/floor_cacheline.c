/* The physical floor of small-message latency: two threads on two different
 * cores hand a flag back and forth through one cache line.  No MPI library
 * can deliver a message between cores faster than this line moves.
 *
 * A second figure is the floor of any design with one queue per direction
 * (rings, FIFOs: how MPI libraries pass messages, since both sides may send
 * at once): each direction writes its own ring of lines, the next line per
 * message, and the other side polls it.  Same two threads, same counting,
 * no software beyond the stores and loads.
 *
 * Prints: floor latency 0 <usec>         (one line)
 *         floor latency_rings 0 <usec>   (a ring of lines per direction)
 * one way = half a round trip, median of batches.  -q quick.  Plain C11 +
 * pthreads; build with cc -O2 -pthread. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "bench_floor.h"
#include "bench_stats.h"

/* The flag alone on its line, and the line alone in its 128-byte pair, so
 * that the adjacent-line prefetcher drags nothing else along. */
static struct {
    alignas(128) _Atomic uint64_t value;
    char pad[128 - sizeof(uint64_t)];
} flag;

/* Two rings of RING_LINES lines, one per direction, each line alone in its
 * 128-byte pair like the flag above. */
#define RING_LINES 1024
struct ring_line {
    alignas(128) _Atomic uint64_t value;
    char pad[128 - sizeof(uint64_t)];
};
static struct ring_line ring_ping[RING_LINES], ring_pong[RING_LINES];
static int use_rings;

static long round_trips_per_batch;
static int total_batches;

/* Message m (m = 1, 2, ...) of a direction: one line (both directions share
 * it) or line m of that direction's ring. */
static _Atomic uint64_t *ping_line(uint64_t m)
{
    return use_rings ? &ring_ping[m % RING_LINES].value : &flag.value;
}
static _Atomic uint64_t *pong_line(uint64_t m)
{
    return use_rings ? &ring_pong[m % RING_LINES].value : &flag.value;
}

/* The ponger answers ping m (value 2m - 1) with pong m (value 2m). */
static void *ponger(void *arg)
{
    bench_pin_cpu(*(int *)arg);
    uint64_t last = (uint64_t)round_trips_per_batch * (uint64_t)(total_batches + 1);
    for (uint64_t m = 1; m <= last; m++) {
        while (atomic_load_explicit(ping_line(m), memory_order_acquire) != 2 * m - 1)
            ;
        atomic_store_explicit(pong_line(m), 2 * m, memory_order_release);
    }
    return NULL;
}

static void pinger_batch(uint64_t *m)
{
    for (long i = 0; i < round_trips_per_batch; i++) {
        ++*m;
        atomic_store_explicit(ping_line(*m), 2 * *m - 1, memory_order_release);
        while (atomic_load_explicit(pong_line(*m), memory_order_acquire) != 2 * *m)
            ;
    }
}

int main(int argc, char **argv)
{
    struct bench_opts o = bench_parse_opts(argc, argv);
    int cpu_a, cpu_b;
    if (bench_two_cpus("floor_cacheline", &cpu_a, &cpu_b) != 0)
        return 1;
    total_batches = o.quick ? 7 : 21;
    round_trips_per_batch = o.quick ? 20000 : 50000;

    for (use_rings = 0; use_rings < 2; use_rings++) {
        pthread_t t;
        if (bench_pin_cpu(cpu_a) != 0 || pthread_create(&t, NULL, ponger, &cpu_b) != 0) {
            fprintf(stderr, "floor_cacheline: cannot pin or start the thread\n");
            return 1;
        }
        uint64_t m = 0;
        pinger_batch(&m); /* warm-up: both threads running, the lines in play */
        double samples[64];
        for (int b = 0; b < total_batches; b++) {
            double t0 = bench_now();
            pinger_batch(&m);
            samples[b] = (bench_now() - t0) / (double)round_trips_per_batch / 2.0;
        }
        pthread_join(t, NULL);
        printf("floor %s 0 %.4f\n", use_rings ? "latency_rings" : "latency",
               bench_median(samples, total_batches) * 1e6);
    }
    return 0;
}
