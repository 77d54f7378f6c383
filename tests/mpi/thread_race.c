/*
 * thread_race.c -- two threads of a process make the same first move at the
 * same moment, many times over (docs/protocols.md section 9, mutations 80,
 * 85 and 89: each lock there guards a window of a few instructions that a
 * random mix of calls, as in thread_objects, almost never hits).  The
 * threads meet at a spinning barrier before each attempt, so that both run
 * the racing call at once whenever the machine gives them two cores; the
 * fault build's stall points (`mt_queue_make`, `mt_table_claim`, `mt_greq`)
 * widen the windows.  Not randomized: the attempts are all alike.
 *
 *   thread_race greq N    (any size; ranks alone) thread 0 starts a
 *       generalized request, then thread 0 completes it while thread 1
 *       frees it: free_fn must run exactly once per request (without the
 *       lock both may leave it to the other, and it leaks).
 *   thread_race dtype N   (any size) both threads make a datatype at once:
 *       the handles must differ and keep their sizes (without the table
 *       lock both may claim one slot).
 *   thread_race queue N   (2 ranks) rank 0's thread 0 duplicates
 *       MPI_COMM_WORLD and at once receives from MPI_ANY_SOURCE on the new
 *       communicator, while its thread 1 progresses (MPI_Iprobe) and so
 *       handles rank 1's message on it as it arrives: the first use of the
 *       new context from both sides at once.  A receive that does not
 *       match within 10 s (a queue made twice, one of them lost) fails.
 */
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NT 2

static int rank, size, iters = 2000, bad;
static const char *mode = "greq";

/* A sense-reversing barrier of the NT threads that spins (yielding):
 * blocking would wake them one after the other. */
static int arrived, gen;
static void meet(void)
{
    int g = __atomic_load_n(&gen, __ATOMIC_ACQUIRE);
    if (__atomic_add_fetch(&arrived, 1, __ATOMIC_ACQ_REL) == NT) {
        __atomic_store_n(&arrived, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&gen, g + 1, __ATOMIC_RELEASE);
        return;
    }
    while (__atomic_load_n(&gen, __ATOMIC_ACQUIRE) == g)
        sched_yield();
}

/* The threads leave meet() a cache miss or so apart and their calls reach
 * the window by paths of different lengths: each then spins a number of
 * steps that varies with the attempt (a fixed function of i and t), so
 * that the attempts sweep the offsets between the two. */
static void skew(int t, int i)
{
    unsigned n = ((unsigned)i * 2654435761u >> (t ? 20 : 24)) & 255;
    for (volatile unsigned k = 0; k < n; k++)
        __asm__ volatile("" ::: "memory");
}

/* ---- greq: Grequest_complete against Request_free (mutation 89) */
static int frees;
static MPI_Request greq;
static int query(void *extra, MPI_Status *st)
{
    (void)extra;
    MPI_Status_set_elements(st, MPI_BYTE, 0);
    MPI_Status_set_cancelled(st, 0);
    return MPI_SUCCESS;
}
static int free_fn(void *extra)
{
    (void)extra;
    __atomic_add_fetch(&frees, 1, __ATOMIC_RELAXED);
    return MPI_SUCCESS;
}
static int cancel_fn(void *extra, int complete) { (void)extra, (void)complete; return MPI_SUCCESS; }

static int greq_round(int t, int i)
{
    if (t == 0)
        MPI_Grequest_start(query, free_fn, cancel_fn, NULL, &greq);
    meet();
    MPI_Request mine = greq;
    skew(t, i);
    if (t == 0)
        MPI_Grequest_complete(mine);
    else
        MPI_Request_free(&mine);
    meet();
    int n = __atomic_load_n(&frees, __ATOMIC_RELAXED);
    if (n != i + 1) {
        if (t == 0)
            fprintf(stderr, "thread_race greq: rank %d: free_fn ran %d times for %d requests\n", rank, n, i + 1);
        return 1;
    }
    return 0;
}

/* ---- dtype: two datatypes registered at once (mutation 85) */
static MPI_Datatype made[NT];
static int dtype_round(int t, int i)
{
    meet();
    skew(t, i);
    MPI_Type_contiguous(t + 1, MPI_INT, &made[t]);
    MPI_Type_commit(&made[t]);
    meet();
    int wrong = made[0] == made[1];
    for (int u = 0; u < NT && !wrong; u++) {
        int sz;
        MPI_Type_size(made[u], &sz);
        wrong = sz != (int)sizeof(int) * (u + 1);
    }
    if (wrong && t == 0)
        fprintf(stderr, "thread_race dtype: rank %d: two datatypes made at once share handle %ld\n", rank,
                (long)(intptr_t)made[0]);
    meet();   /* both have looked before either frees */
    if (!wrong)
        MPI_Type_free(&made[t]);
    return wrong;
}

/* ---- queue: a new context's first receive and first arrival (mutation 80) */
static int stop;
static int queue_round(int t, int i)
{
    if (t == 1) {   /* rank 0's progress thread; ends when thread 0 says */
        int flag;
        while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE))
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        return 0;
    }
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    int v = i, got = -1;
    if (rank == 1) {
        MPI_Send(&v, 1, MPI_INT, 0, 7, c);
    } else {
        MPI_Request r;
        int flag = 0;
        MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 7, c, &r);
        double until = MPI_Wtime() + 10;
        while (!flag && MPI_Wtime() < until)
            MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
        if (!flag || got != i) {
            fprintf(stderr, "thread_race queue: rank 0: the receive on duplicate %d %s\n", i,
                    flag ? "took another message" : "never matched its message (10 s)");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    /* Not freed: a freed context id may come back, and its queue is made. */
    (void)c;
    return 0;
}

static void *run(void *arg)
{
    int t = (int)(intptr_t)arg;
    int q = !strcmp(mode, "queue");
    if (q) {
        /* one attempt per duplicate; thread 1 progresses throughout */
        if (t == 1 && rank == 0)
            queue_round(1, 0);
        else if (t == 0) {
            for (int i = 0; i < iters; i++)
                queue_round(0, i);
            __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
        }
        return NULL;
    }
    for (int i = 0; i < iters; i++) {
        int wrong = !strcmp(mode, "greq") ? greq_round(t, i) : dtype_round(t, i);
        if (wrong) {
            if (t == 0)
                bad = 1;
            break;   /* both threads saw it: both stop */
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1)
        mode = argv[1];
    if (argc > 2)
        iters = atoi(argv[2]);
    if (provided != MPI_THREAD_MULTIPLE || (strcmp(mode, "greq") && strcmp(mode, "dtype") && strcmp(mode, "queue")) ||
        (!strcmp(mode, "queue") && size != 2)) {
        if (rank == 0)
            fprintf(stderr, "thread_race: usage: greq|dtype|queue N (queue at 2 ranks), MULTIPLE (got %d)\n",
                    provided);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    pthread_t th;
    pthread_create(&th, NULL, run, (void *)(intptr_t)1);
    run((void *)0);
    pthread_join(th, NULL);
    int any;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && !any)
        printf("thread_race %s ok (%d attempts)\n", mode, iters);
    MPI_Finalize();
    return any;
}
