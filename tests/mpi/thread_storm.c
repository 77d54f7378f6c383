/*
 * thread_storm.c -- T threads per rank call MPI at once (MPI_THREAD_MULTIPLE,
 * docs/threads.md): a seeded random mix of point-to-point operations on a
 * shared communicator and on each thread's own, communicator creation on
 * different parents and collectives on different communicators, every
 * result checked.
 *
 * Usage: thread_storm [threads [rounds]]   (defaults 4, 300)
 * THREAD_STORM_SEED=<n> reruns a seed (rank 0's is used by every rank),
 * THREAD_STORM_OPS=<mask> runs only the operations of op_names[] in mask;
 * a failure prints the seed, the thread, the round and the operation.
 *
 * Why the results are checkable: every rank's thread t draws the same
 * operation for round i (its generator is seeded with (seed, t, i)), so the
 * threads numbered t of all ranks meet in the same operation; thread t's
 * messages of round i carry tag t + 64 (i mod 4096) on the shared
 * communicator (MPI_ANY_SOURCE receives then can only match thread t's
 * messages of that round, from whichever rank), or travel on thread t's own
 * communicator (MPI_ANY_TAG from one source: its messages keep their order;
 * or MPI_ANY_SOURCE with the round's tag, as on the shared one).  Every payload word is a function of
 * (seed, sender, thread, round, index), and so are lengths.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mt_start.h"

static int rank, size, nthreads = 4, rounds = 300;
static unsigned long long seed;
static MPI_Comm *own;
static pthread_barrier_t start;   /* the threads' first calls at once */
static unsigned ops = ~0u;   /* THREAD_STORM_OPS: a mask of op_names (to narrow a failure down) */   /* thread t's communicator (a dup of WORLD, made by the main thread) */

#define ctx mt_ctx

static void fail(const struct ctx *c, const char *what, long long got, long long want)
{
    mt_fail("thread_storm", "THREAD_STORM_SEED", seed, rank, c, what, got, want);
}

static uint64_t word(int src, int t, int round, int k)
{
    return mt_word(seed, src, t, round, k);
}

/* Length in words of src's message of (t, round): 0 .. 40 (eager) or, one
 * time in 8, up to 40000 (rendezvous). */
static int length(int src, int t, int round)
{
    uint64_t h = word(src, t, round, -1);
    return (h & 7) == 0 ? 2048 + (int)((h >> 8) % 37000) : (int)((h >> 8) % 41);
}

static uint64_t *fill(int src, int t, int round, int n)
{
    uint64_t *b = malloc((size_t)(n ? n : 1) * sizeof *b);
    for (int k = 0; k < n; k++)
        b[k] = word(src, t, round, k);
    return b;
}

static void check(const struct ctx *c, const uint64_t *b, int src, int n)
{
    for (int k = 0; k < n; k++)
        if (b[k] != word(src, c->t, c->round, k))
            fail(c, "payload word", k, src);
}

static void check_count(const struct ctx *c, const MPI_Status *st, int want)
{
    int n;
    MPI_Get_count(st, MPI_UINT64_T, &n);
    if (n != want)
        fail(c, "count", n, want);
}

/* Everyone sends its message to every other rank; receives are posted in
 * the way the variant says and completed with the given completion call. */
static void all_to_all(struct ctx *c, MPI_Comm comm, int tag, int any_source, int any_tag, int sync, int how)
{
    int n = size - 1, me = length(rank, c->t, c->round);
    MPI_Request *req = malloc(2 * (size_t)n * sizeof *req);
    MPI_Status *st = malloc(2 * (size_t)n * sizeof *st);
    uint64_t **in = malloc((size_t)n * sizeof *in), *out = fill(rank, c->t, c->round, me);
    for (int k = 0; k < n; k++) {
        int src = (rank + 1 + k) % size;
        in[k] = malloc(40000 * sizeof(uint64_t));
        MPI_Irecv(in[k], 40000, MPI_UINT64_T, any_source ? MPI_ANY_SOURCE : src, any_tag ? MPI_ANY_TAG : tag, comm,
                  &req[k]);
    }
    for (int k = 0; k < n; k++) {
        int dst = (rank + 1 + k) % size;
        if (sync)
            MPI_Issend(out, me, MPI_UINT64_T, dst, tag, comm, &req[n + k]);
        else
            MPI_Isend(out, me, MPI_UINT64_T, dst, tag, comm, &req[n + k]);
    }
    if (how == 0) {
        MPI_Waitall(2 * n, req, st);
    } else if (how == 1) {
        int flag = 0;
        while (!flag)
            MPI_Testall(2 * n, req, &flag, st);
    } else {
        for (int left = 2 * n; left > 0; left--) {
            int i;
            MPI_Status s;
            MPI_Waitany(2 * n, req, &i, &s);
            st[i] = s;
        }
    }
    int seen = 0;
    for (int k = 0; k < n; k++) {
        int src = st[k].MPI_SOURCE;
        if (src < 0 || src >= size || src == rank || (seen >> src & 1))
            fail(c, "source", src, -1);
        seen |= 1 << src;
        if (st[k].MPI_TAG != tag)
            fail(c, "tag", st[k].MPI_TAG, tag);
        check_count(c, &st[k], length(src, c->t, c->round));
        check(c, in[k], src, length(src, c->t, c->round));
        free(in[k]);
    }
    free(in);
    free(out);
    free(req);
    free(st);
}

/* Probe (or Mprobe) for each message, then receive exactly its length. */
static void probed(struct ctx *c, MPI_Comm comm, int tag, int matched)
{
    int me = length(rank, c->t, c->round);
    uint64_t *out = fill(rank, c->t, c->round, me);
    MPI_Request *sreq = malloc((size_t)size * sizeof *sreq);
    for (int k = 0; k < size - 1; k++)
        MPI_Isend(out, me, MPI_UINT64_T, (rank + 1 + k) % size, tag, comm, &sreq[k]);
    for (int k = 0; k < size - 1; k++) {
        MPI_Status st;
        MPI_Message msg = MPI_MESSAGE_NULL;
        if (matched) {
            MPI_Mprobe(MPI_ANY_SOURCE, tag, comm, &msg, &st);
        } else {
            int flag = 0;
            if (k & 1)
                MPI_Probe(MPI_ANY_SOURCE, tag, comm, &st);
            else
                while (!flag)
                    MPI_Iprobe(MPI_ANY_SOURCE, tag, comm, &flag, &st);
        }
        int src = st.MPI_SOURCE, n = length(src, c->t, c->round);
        check_count(c, &st, n);
        uint64_t *in = malloc((size_t)(n ? n : 1) * sizeof *in);
        if (matched)
            MPI_Mrecv(in, n, MPI_UINT64_T, &msg, &st);
        else
            MPI_Recv(in, n, MPI_UINT64_T, src, tag, comm, &st);
        if (st.MPI_SOURCE != src)
            fail(c, "source after probe", st.MPI_SOURCE, src);
        check(c, in, src, n);
        free(in);
    }
    MPI_Waitall(size - 1, sreq, MPI_STATUSES_IGNORE);
    free(sreq);
    free(out);
}

/* A receive nobody sends to, cancelled, between blocking exchanges. */
static void cancelled(struct ctx *c, MPI_Comm comm, int tag)
{
    uint64_t dummy;
    MPI_Request r;
    MPI_Status st;
    MPI_Irecv(&dummy, 1, MPI_UINT64_T, MPI_ANY_SOURCE, 64 * 4096 + c->t, comm, &r);   /* never sent */
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int me = length(rank, c->t, c->round), n = length(left, c->t, c->round);
    uint64_t *out = fill(rank, c->t, c->round, me), *in = malloc(40000 * sizeof *in);
    MPI_Sendrecv(out, me, MPI_UINT64_T, right, tag, in, 40000, MPI_UINT64_T, left, tag, comm, &st);
    check_count(c, &st, n);
    check(c, in, left, n);
    MPI_Cancel(&r);
    MPI_Wait(&r, &st);
    int flag;
    MPI_Test_cancelled(&st, &flag);
    if (!flag)
        fail(c, "cancelled", flag, 1);
    free(out);
    free(in);
}

/* Collectives on the thread's own communicator, and a communicator made
 * from it (other threads make theirs from their own parents meanwhile). */
static void collectives(struct ctx *c, MPI_Comm comm, int make)
{
    /* split: by parity of the rank, or (one time in two) all together */
    int halves = make == 2 && (word(0, c->t, c->round, 1) & 1);
    long long v = (long long)(word(rank, c->t, c->round, 0) & 0xffff), sum = 0, want = 0;
    for (int r = 0; r < size; r++)
        if (!halves || r % 2 == rank % 2)
            want += (long long)(word(r, c->t, c->round, 0) & 0xffff);
    MPI_Comm use = comm;
    if (make == 1)
        MPI_Comm_dup(comm, &use);
    else if (make == 2)
        MPI_Comm_split(comm, halves ? rank % 2 : 0, size - rank, &use);
    MPI_Allreduce(&v, &sum, 1, MPI_LONG_LONG, MPI_SUM, use);
    if (sum != want)
        fail(c, "allreduce", sum, want);
    long long root_word = (long long)word(0, c->t, c->round, 2), b = rank == 0 ? root_word : 0;
    MPI_Bcast(&b, 1, MPI_LONG_LONG, 0, comm);
    if (b != root_word)
        fail(c, "bcast", b, root_word);
    MPI_Barrier(use);
    if (use != comm)
        MPI_Comm_free(&use);
}

/* Many messages at once to every other rank (more than the ring holds, so
 * some wait in the out-queues), all received MPI_ANY_SOURCE: the j-th
 * message from a source must be its j-th (messages of one sender on one
 * communicator and tag do not overtake). */
#define BURST 48
#define BURST_WORDS 1024   /* 8 KiB, eager: 48 of them overfill a 256 KiB ring */
static void burst(struct ctx *c, MPI_Comm comm, int tag)
{
    int n = (size - 1) * BURST;
    MPI_Request *req = malloc(2 * (size_t)n * sizeof *req);
    MPI_Status *st = malloc(2 * (size_t)n * sizeof *st);
    uint64_t *in = malloc((size_t)n * BURST_WORDS * sizeof *in), *out = malloc(BURST * BURST_WORDS * sizeof *out);
    for (int k = 0; k < BURST; k++)
        for (int w = 0; w < BURST_WORDS; w++)
            out[k * BURST_WORDS + w] = word(rank, c->t, c->round, k * BURST_WORDS + w);
    for (int i = 0; i < n; i++)
        MPI_Irecv(in + (size_t)i * BURST_WORDS, BURST_WORDS, MPI_UINT64_T, MPI_ANY_SOURCE, tag, comm, &req[i]);
    for (int k = 0, i = 0; k < BURST; k++)
        for (int d = 1; d < size; d++, i++)
            MPI_Isend(out + k * BURST_WORDS, BURST_WORDS, MPI_UINT64_T, (rank + d) % size, tag, comm, &req[n + i]);
    MPI_Waitall(2 * n, req, st);
    int next[64] = { 0 };
    for (int i = 0; i < n; i++) {
        int src = st[i].MPI_SOURCE;
        if (src < 0 || src >= size || src == rank || next[src] >= BURST)
            fail(c, "burst source", src, -1);
        check_count(c, &st[i], BURST_WORDS);
        int k = next[src]++;
        for (int w = 0; w < BURST_WORDS; w++)
            if (in[(size_t)i * BURST_WORDS + w] != word(src, c->t, c->round, k * BURST_WORDS + w))
                fail(c, "burst payload (order?)", k, src);
    }
    free(in);
    free(out);
    free(req);
    free(st);
}

/* Nonblocking collectives on the thread's own communicator, completed by
 * Test (the progress engine polls them, whichever thread progresses). */
static void nonblocking_coll(struct ctx *c, MPI_Comm comm)
{
    long long v = (long long)(word(rank, c->t, c->round, 0) & 0xffff), sum = 0, want = 0;
    for (int r = 0; r < size; r++)
        want += (long long)(word(r, c->t, c->round, 0) & 0xffff);
    MPI_Request req[2];
    MPI_Iallreduce(&v, &sum, 1, MPI_LONG_LONG, MPI_SUM, comm, &req[0]);
    MPI_Ibarrier(comm, &req[1]);
    int flag = 0;
    while (!flag)
        MPI_Testall(2, req, &flag, MPI_STATUSES_IGNORE);
    if (sum != want)
        fail(c, "iallreduce", sum, want);
}

static const char *const op_names[] = {
    "waitall", "testall", "waitany", "any_source", "any_tag_own", "issend", "probe", "mprobe", "cancel",
    "coll", "coll_dup", "coll_split", "nbc", "burst", "burst", "any_source_own", "any_source_own",
};
#define NOPS (int)(sizeof op_names / sizeof op_names[0])

static void *storm(void *arg)
{
    struct ctx c = { (int)(intptr_t)arg, 0, "" };
    /* Every thread's first call is a collective, all at once: the first
     * collectives of the process race (coll/select.c resolves its table
     * once; mutation 84). */
    pthread_barrier_wait(&start);
    long long one = 1, ranks = 0;
    MPI_Scan(&one, &ranks, 1, MPI_LONG_LONG, MPI_SUM, own[c.t]);   /* no shortcut: through the selector */
    if (ranks != rank + 1)
        fail(&c, "scan", ranks, rank + 1);
    for (c.round = 0; c.round < rounds; c.round++) {
        int op = mt_draw(seed, &c, op_names, NOPS, ops);
        if (op < 0)
            continue;
        /* A rank may run rounds ahead of another (a round of op "cancel"
         * couples neighbours only): the round is in the tag, so an
         * MPI_ANY_SOURCE receive never takes a later round's message. */
        int tag = c.t + 64 * (c.round % 4096);
        switch (op) {
        case 0: all_to_all(&c, MPI_COMM_WORLD, tag, 0, 0, 0, 0); break;
        case 1: all_to_all(&c, MPI_COMM_WORLD, tag, 0, 0, 0, 1); break;
        case 2: all_to_all(&c, MPI_COMM_WORLD, tag, 0, 0, 0, 2); break;
        case 3: all_to_all(&c, MPI_COMM_WORLD, tag, 1, 0, 0, 0); break;
        case 4: all_to_all(&c, own[c.t], tag, 0, 1, 0, 0); break;   /* MPI_ANY_TAG, one source each */
        case 5: all_to_all(&c, MPI_COMM_WORLD, tag, 1, 0, 1, 1); break;
        case 6: probed(&c, MPI_COMM_WORLD, tag, 0); break;
        case 7: probed(&c, MPI_COMM_WORLD, tag, 1); break;
        case 8: cancelled(&c, MPI_COMM_WORLD, tag); break;
        case 9: collectives(&c, own[c.t], 0); break;
        case 10: collectives(&c, own[c.t], 1); break;
        case 11: collectives(&c, own[c.t], 2); break;
        case 12: nonblocking_coll(&c, own[c.t]); break;
        case 13: case 14: burst(&c, MPI_COMM_WORLD, tag); break;
        /* MPI_ANY_SOURCE on the thread's own communicator: the threads'
         * wildcard receives on different contexts run at once (one
         * matching queue and lock each). */
        case 15: all_to_all(&c, own[c.t], tag, 1, 0, 0, 2); break;
        case 16: burst(&c, own[c.t], tag); break;
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    seed = mt_start(&argc, &argv, "thread_storm", "THREAD_STORM_SEED", &nthreads, &rounds, &rank, &size);
    const char *s;
    if ((s = getenv("THREAD_STORM_OPS")) && *s)
        ops = (unsigned)strtoul(s, NULL, 0);
    own = malloc((size_t)nthreads * sizeof *own);
    for (int t = 0; t < nthreads; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &own[t]);
    pthread_t *th = malloc((size_t)nthreads * sizeof *th);
    pthread_barrier_init(&start, NULL, (unsigned)nthreads);
    for (int t = 0; t < nthreads; t++)
        pthread_create(&th[t], NULL, storm, (void *)(intptr_t)t);
    for (int t = 0; t < nthreads; t++)
        pthread_join(th[t], NULL);
    pthread_barrier_destroy(&start);
    for (int t = 0; t < nthreads; t++)
        MPI_Comm_free(&own[t]);
    free(own);
    free(th);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("thread_storm: %d ranks x %d threads x %d rounds ok (seed %llu)\n", size, nthreads, rounds, seed);
    MPI_Finalize();
    return 0;
}
