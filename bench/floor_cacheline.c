/* The physical floor of small-message latency: two threads on two different
 * cores hand a flag back and forth through one cache line.  No MPI library
 * can deliver a message between cores faster than this line moves.
 *
 * Prints: floor latency 0 <usec>   (one way = half a round trip, median of
 * batches).  -q quick.  Plain C11 + pthreads; build with cc -O2 -pthread. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "bench_stats.h"

/* The flag alone on its line, and the line alone in its 128-byte pair, so
 * that the adjacent-line prefetcher drags nothing else along. */
static struct {
    alignas(128) _Atomic uint64_t value;
    char pad[128 - sizeof(uint64_t)];
} flag;

static long round_trips_per_batch;
static int total_batches;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int pin_to(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

/* The ponger answers every odd value v with v + 1, for every batch. */
static void *ponger(void *arg)
{
    pin_to(*(int *)arg);
    uint64_t last = 2 * (uint64_t)round_trips_per_batch * (uint64_t)(total_batches + 1);
    for (uint64_t want = 1; want < last; want += 2) {
        while (atomic_load_explicit(&flag.value, memory_order_acquire) != want)
            ;
        atomic_store_explicit(&flag.value, want + 1, memory_order_release);
    }
    return NULL;
}

static void pinger_batch(uint64_t *v)
{
    for (long i = 0; i < round_trips_per_batch; i++) {
        atomic_store_explicit(&flag.value, *v + 1, memory_order_release);
        *v += 2;
        while (atomic_load_explicit(&flag.value, memory_order_acquire) != *v)
            ;
    }
}

/* The first two CPUs this process may run on. */
static int pick_cpus(int *a, int *b)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return -1;
    int found = 0;
    for (int c = 0; c < CPU_SETSIZE && found < 2; c++)
        if (CPU_ISSET(c, &set))
            *(found++ ? b : a) = c;
    return found == 2 ? 0 : -1;
}

int main(int argc, char **argv)
{
    struct bench_opts o = bench_parse_opts(argc, argv);
    int cpu_a, cpu_b;
    if (pick_cpus(&cpu_a, &cpu_b) != 0) {
        fprintf(stderr, "floor_cacheline: needs two CPUs\n");
        return 1;
    }
    total_batches = o.quick ? 7 : 21;
    round_trips_per_batch = o.quick ? 20000 : 50000;

    pthread_t t;
    if (pin_to(cpu_a) != 0 || pthread_create(&t, NULL, ponger, &cpu_b) != 0) {
        fprintf(stderr, "floor_cacheline: cannot pin or start the thread\n");
        return 1;
    }
    uint64_t v = 0;
    pinger_batch(&v); /* warm-up: both threads running, the line in play */
    double samples[64];
    for (int b = 0; b < total_batches; b++) {
        double t0 = now();
        pinger_batch(&v);
        samples[b] = (now() - t0) / (double)round_trips_per_batch / 2.0;
    }
    pthread_join(t, NULL);
    printf("floor latency 0 %.4f\n", bench_median(samples, total_batches) * 1e6);
    return 0;
}
