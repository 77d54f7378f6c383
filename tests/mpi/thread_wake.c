/*
 * thread_wake.c -- under MPI_THREAD_MULTIPLE every sleeping thread is woken
 * when what it waits for happens (docs/threads.md, "Sleeping threads").
 *
 * Rank 0 runs T threads (argv[1], default 3), each blocked in turn in an
 * MPI_Recv on its own communicator, an MPI_Probe on it (a wait for
 * "anything moved", not for one request), or an MPI_Wait on a generalized
 * request that rank 0's main thread completes; or it leaves MPI while
 * another thread waits (below).  Rank 1 (one thread) sends
 * to one of them at a time, in a seeded order, after a pause of 1-3 ms: by
 * then every waiter has given up spinning (COREMPI_SPIN=0) and sleeps, one
 * on the rank's doorbell, the others each on its own word.  A lost wake
 * does not corrupt anything: the sleeper stays asleep until its 200 ms
 * timeout.  The leaving rounds test the doorbell's hand-over: every
 * thread but one leaves MPI and stays away until that one's receive is
 * done, so if the doorbell's holder left without waking a sleeper, nobody
 * is on the doorbell when the message comes (protocols.md mutation 82).
 * So each message carries its send time and the receiver fails
 * the test if more than STALLS_OK of them took 150 ms or more (a loaded
 * machine may delay one or two).  THREAD_WAKE_SEED reruns a seed.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "mt_start.h"

#define STALL 0.150   /* s: far above a pause, below a lost wake's 0.2 */
#define STALLS_OK 2
#define MAXT 8

static int rank, size, nthreads = 3, rounds = 240;
static unsigned long long seed;
static MPI_Comm own[MAXT];
static int stalls;
static double worst;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);   /* one clock for both processes */
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void took(double sent, double woke, const char *how, int t)
{
    double d = woke - sent;
    pthread_mutex_lock(&lock);
    if (d > worst)
        worst = d;
    if (d >= STALL) {
        stalls++;
        fprintf(stderr, "thread_wake: thread %d woke %.0f ms after its %s (seed %llu)\n", t, d * 1e3, how, seed);
    }
    pthread_mutex_unlock(&lock);
}

/* A generalized request: MPI_Wait on it returns once the main thread
 * calls MPI_Grequest_complete. */
static int query(void *extra, MPI_Status *st)
{
    (void)extra;
    MPI_Status_set_elements(st, MPI_BYTE, 0);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}
static int free_fn(void *extra) { (void)extra; return MPI_SUCCESS; }
static int cancel_fn(void *extra, int complete) { (void)extra, (void)complete; return MPI_SUCCESS; }

static MPI_Request greq[MAXT];
static double greq_sent[MAXT];
static int greq_ready[MAXT];
static int handed;   /* 1 + the last round whose timed receive is done */

/* Rank 0's thread t: a round's kind (the tag of a first message, whose
 * payload -1 says stop), then the timed wait: 1 a receive, 2 a probe (a
 * wait for "anything moved", not for one request), 3 a generalized
 * request that the main thread completes; or 5: leave MPI while another
 * thread waits for its receive (kind 1), until that receive is done or
 * for at most 400 ms.  A kind's first message carries its round, which
 * a receive of kind 1 publishes in `handed` once it is done. */
static void *waiter(void *arg)
{
    int t = (int)(intptr_t)arg;
    for (;;) {
        MPI_Status st;
        double sent;
        MPI_Recv(&sent, 1, MPI_DOUBLE, 1, MPI_ANY_TAG, own[t], &st);
        if (sent < 0)
            return NULL;
        if (st.MPI_TAG == 1) {
            int round = (int)sent;
            MPI_Recv(&sent, 1, MPI_DOUBLE, 1, 4, own[t], MPI_STATUS_IGNORE);
            took(sent, now(), "receive", t);
            __atomic_store_n(&handed, round + 1, __ATOMIC_RELEASE);
        } else if (st.MPI_TAG == 2) {
            MPI_Probe(1, 4, own[t], MPI_STATUS_IGNORE);
            double woke = now();
            MPI_Recv(&sent, 1, MPI_DOUBLE, 1, 4, own[t], MPI_STATUS_IGNORE);
            took(sent, woke, "probe", t);
        } else if (st.MPI_TAG == 5) {
            /* Away from MPI for a while: if this thread slept on the
             * doorbell, it must have handed it over to a sleeper. */
            int round = (int)sent;
            double until = now() + 0.4;
            while (__atomic_load_n(&handed, __ATOMIC_ACQUIRE) <= round && now() < until)
                usleep(500);
        } else {
            MPI_Grequest_start(query, free_fn, cancel_fn, NULL, &greq[t]);
            __atomic_store_n(&greq_ready[t], 1, __ATOMIC_RELEASE);
            MPI_Wait(&greq[t], MPI_STATUS_IGNORE);
            took(greq_sent[t], now(), "generalized request", t);
        }
        MPI_Send(&sent, 1, MPI_DOUBLE, 1, 9, own[t]);   /* done: the next round may start */
    }
}

int main(int argc, char **argv)
{
    seed = mt_start(&argc, &argv, "thread_wake", "THREAD_WAKE_SEED", &nthreads, &rounds, &rank, &size);
    if (nthreads > MAXT || size != 2)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (int t = 0; t < nthreads; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &own[t]);
    pthread_t th[MAXT];
    if (rank == 0)
        for (int t = 0; t < nthreads; t++)
            pthread_create(&th[t], NULL, waiter, (void *)(intptr_t)t);
    for (int i = 0; i < rounds; i++) {
        int t = (int)(mix(seed ^ (uint64_t)i) % (uint64_t)nthreads), kind = 1 + (int)(mix(seed + (uint64_t)i) % 4);
        int u = (t + 1) % nthreads;   /* kind 4: all but u leave (5), u receives (1) */
        if (kind == 4 && nthreads == 1)
            kind = 1;
        useconds_t pause = 1000 + (useconds_t)(mix(seed * 3 + (uint64_t)i) % 2000);
        double sent;
        if (rank == 1 && kind == 4) {
            /* u first goes to sleep on its timed receive; then the others,
             * the doorbell's holder among them unless u took it, leave */
            double round = i;
            MPI_Send(&round, 1, MPI_DOUBLE, 0, 1, own[u]);
            usleep(pause);
            for (int v = 0; v < nthreads; v++)
                if (v != u)
                    MPI_Send(&round, 1, MPI_DOUBLE, 0, 5, own[v]);
            usleep(pause);
            sent = now();
            MPI_Send(&sent, 1, MPI_DOUBLE, 0, 4, own[u]);
            for (int v = 0; v < nthreads; v++)
                MPI_Recv(&sent, 1, MPI_DOUBLE, 0, 9, own[v], MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            double dummy = i;   /* the round */
            MPI_Send(&dummy, 1, MPI_DOUBLE, 0, kind, own[t]);   /* the round's kind */
            if (kind != 3) {
                usleep(pause);
                sent = now();
                MPI_Send(&sent, 1, MPI_DOUBLE, 0, 4, own[t]);
            }
            MPI_Recv(&sent, 1, MPI_DOUBLE, 0, 9, own[t], MPI_STATUS_IGNORE);
        } else if (kind == 3) {
            /* rank 0's main thread completes thread t's generalized request */
            while (!__atomic_load_n(&greq_ready[t], __ATOMIC_ACQUIRE))
                usleep(100);
            __atomic_store_n(&greq_ready[t], 0, __ATOMIC_RELAXED);
            usleep(pause);
            greq_sent[t] = now();
            MPI_Grequest_complete(greq[t]);
        }
        /* rank 0's main thread stays out of MPI otherwise: it must not be
         * the one that progresses for the sleepers */
    }
    if (rank == 1) {
        double stop = -1;
        for (int t = 0; t < nthreads; t++)
            MPI_Send(&stop, 1, MPI_DOUBLE, 0, 1, own[t]);
    } else {
        for (int t = 0; t < nthreads; t++)
            pthread_join(th[t], NULL);
    }
    for (int t = 0; t < nthreads; t++)
        MPI_Comm_free(&own[t]);
    int bad = stalls > STALLS_OK;
    if (rank == 0) {
        printf("thread_wake: %d stalls of %d rounds, worst %.1f ms (seed %llu)\n", stalls, rounds, worst * 1e3, seed);
        if (!bad)
            printf("thread_wake ok\n");
    }
    MPI_Finalize();
    return bad;
}
