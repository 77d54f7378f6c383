/*
 * thread_nbc_queue.c -- a communicator's nonblocking collectives moved by
 * another thread's progress while the calling thread queues more and runs
 * blocking ones (MPI_THREAD_MULTIPLE, docs/threads.md; the area's queue
 * lock, coll/direct/nbc_lock.c).
 *
 * Usage: thread_nbc_queue [callers [rounds]]   (defaults 2, 2000)
 * THREAD_NBC_SEED=<n> reruns a seed (rank 0's is used by every rank); a
 * failure prints it with the thread, the round and the call.
 *
 * Each caller thread has its own communicator (a dup of WORLD, its
 * shared-memory area attached by a first blocking call) and runs rounds of
 * 1-4 nonblocking collectives (Iallreduce, Ibarrier, Ibcast) followed by a
 * blocking Allreduce or Barrier (which must first finish the queue) or by
 * Waitall alone; a poller thread meanwhile keeps calling MPI_Test, so it
 * often holds the progress lock and polls the callers' requests, stepping
 * their queues.  The choices of a round are a function of (seed, thread,
 * round), the same on every rank, and every result is checked.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "mt_start.h"

static int rank, size, callers = 2, rounds = 2000;
static unsigned long long seed;
static MPI_Comm *own;
static volatile int stop;

static long long value(int r, int t, int round, int k)
{
    return (long long)(mix(seed ^ mix((uint64_t)r << 48 ^ (uint64_t)t << 40 ^ (uint64_t)round << 8 ^ (uint64_t)k)) &
                       0xffffff);
}

static void fail(int t, int round, const char *call, long long got, long long want)
{
    fprintf(stderr, "thread_nbc_queue: rank %d thread %d round %d %s: got %lld, want %lld (rerun with THREAD_NBC_SEED=%llu)\n",
            rank, t, round, call, got, want, seed);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static long long sum_of(int t, int round, int k)
{
    long long s = 0;
    for (int r = 0; r < size; r++)
        s += value(r, t, round, k);
    return s;
}

static void *caller(void *arg)
{
    int t = (int)(intptr_t)arg;
    MPI_Comm c = own[t];
    for (int round = 0; round < rounds; round++) {
        uint64_t h = mix(seed ^ mix((uint64_t)t << 32 | (uint64_t)round));
        int n = 1 + (int)(h & 3), end = (int)(h >> 2 & 3);
        long long in[4], out[4], b[4];
        int kind[4];
        MPI_Request req[4];
        for (int k = 0; k < n; k++) {
            kind[k] = (int)(h >> (4 + 2 * k) & 3);
            in[k] = value(rank, t, round, k);
            out[k] = -1;
            switch (kind[k]) {
            case 0: case 1: MPI_Iallreduce(&in[k], &out[k], 1, MPI_LONG_LONG, MPI_SUM, c, &req[k]); break;
            case 2: MPI_Ibarrier(c, &req[k]); break;
            default:
                b[k] = rank == 0 ? value(0, t, round, k) : 0;
                MPI_Ibcast(&b[k], 1, MPI_LONG_LONG, 0, c, &req[k]);
            }
        }
        /* The blocking call finishes the queue first (its own protocol may
         * not start while a nonblocking one is being stepped). */
        long long v = value(rank, t, round, 9), all = 0;
        if (end == 0)
            MPI_Allreduce(&v, &all, 1, MPI_LONG_LONG, MPI_SUM, c);
        else if (end == 1)
            MPI_Barrier(c);
        MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
        if (end == 0 && all != sum_of(t, round, 9))
            fail(t, round, "MPI_Allreduce", all, sum_of(t, round, 9));
        for (int k = 0; k < n; k++) {
            if (kind[k] < 2 && out[k] != sum_of(t, round, k))
                fail(t, round, "MPI_Iallreduce", out[k], sum_of(t, round, k));
            if (kind[k] == 3 && b[k] != value(0, t, round, k))
                fail(t, round, "MPI_Ibcast", b[k], value(0, t, round, k));
        }
    }
    return NULL;
}

/* Keeps calling into the progress engine: a receive nobody sends to. */
static void *poller(void *arg)
{
    (void)arg;
    int dummy, flag;
    MPI_Request r;
    MPI_Irecv(&dummy, 1, MPI_INT, MPI_ANY_SOURCE, 77, MPI_COMM_SELF, &r);
    while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE))
        MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
    MPI_Cancel(&r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    return NULL;
}

int main(int argc, char **argv)
{
    seed = mt_start(&argc, &argv, "thread_nbc_queue", "THREAD_NBC_SEED", &callers, &rounds, &rank, &size);
    /* A communicator's area is attached by its first blocking collective
     * (docs/threads.md: the first one of the process runs before the
     * threads start, too). */
    own = malloc((size_t)callers * sizeof *own);
    for (int t = 0; t < callers; t++) {
        MPI_Comm_dup(MPI_COMM_WORLD, &own[t]);
        MPI_Barrier(own[t]);
    }
    pthread_t p, *th = malloc((size_t)callers * sizeof *th);
    pthread_create(&p, NULL, poller, NULL);
    for (int t = 0; t < callers; t++)
        pthread_create(&th[t], NULL, caller, (void *)(intptr_t)t);
    for (int t = 0; t < callers; t++)
        pthread_join(th[t], NULL);
    __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
    pthread_join(p, NULL);
    for (int t = 0; t < callers; t++)
        MPI_Comm_free(&own[t]);
    free(own);
    free(th);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("thread_nbc_queue: %d ranks x %d callers x %d rounds ok (seed %llu)\n", size, callers, rounds, seed);
    MPI_Finalize();
    return 0;
}
