/*
 * hang_watch.c -- mpirun's deadlock watch, on by default (docs/mpirun.md).
 *
 * Deadlocks it must report (mpirun ends the job, status 124, a line per
 * rank naming its call):
 *   recv      every rank in MPI_Recv from its right neighbour;
 *   lock      rank 1 holds an exclusive lock on rank 0's window and enters
 *             MPI_Barrier; rank 0 asks for the same lock in MPI_Win_lock;
 *   mismatch  rank 0 in MPI_Barrier, the others in MPI_Bcast from rank 0.
 * Schedules it must leave alone (the job ends with status 0):
 *   sleep S   rank 0 sleeps S seconds outside MPI, the others wait in
 *             MPI_Barrier;
 *   compute S rank 0 computes S seconds between two MPI_Allreduce, the others
 *             wait in the second;
 *   big S     rank 0 sends 256 MiB messages to rank 1 for S seconds while the
 *             others wait in MPI_Barrier (slow but moving);
 *   spawn S   rank 0 spawns a child that sleeps S seconds before it sends;
 *             every parent waits (rank 0 in MPI_Recv from the child);
 *   slowop S  an MPI_Iallreduce whose user op takes S seconds at rank 0,
 *             run by the progress of its MPI_Wait (the others start late,
 *             so rank 0 is asleep in the wait when their data comes);
 *   greq S    rank 0 waits for a generalized request that a thread of its
 *             own completes after S seconds, the others in MPI_Barrier.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <time.h>
#include "check.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void sleep_s(double s)
{
    struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static volatile double sink;
static void compute_s(double s)
{
    double t0 = now_s(), x = 1;
    while (now_s() - t0 < s)
        for (int i = 0; i < 100000; i++)
            x = x * 1.0000001 + 1e-9;
    sink = x;
}

static double op_seconds;
static void slow_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    if (op_seconds > 0) {
        compute_s(op_seconds);
        op_seconds = 0;
    }
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

static void slow_user_op(int rank, int size, double seconds)
{
    MPI_Op op;
    MPI_Op_create(slow_sum, 1, &op);
    op_seconds = rank == 0 ? seconds : 0;
    if (rank != 0)
        sleep_s(0.5);
    int x = rank, y = 0;
    MPI_Request r;
    MPI_Iallreduce(&x, &y, 1, MPI_INT, op, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    CHECK(y == size * (size - 1) / 2, "sum %d", y);
    MPI_Op_free(&op);
}

static int greq_query(void *state, MPI_Status *st)
{
    (void)state;
    MPI_Status_set_elements(st, MPI_BYTE, 0);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}
static int greq_free(void *state) { (void)state; return MPI_SUCCESS; }
static int greq_cancel(void *state, int done) { (void)state; (void)done; return MPI_SUCCESS; }

static double greq_seconds;
static void *complete_later(void *p)
{
    sleep_s(greq_seconds);
    MPI_Grequest_complete(*(MPI_Request *)p);
    return NULL;
}

static void grequest_of_a_thread(int rank, double seconds)
{
    if (rank == 0) {
        MPI_Request r;
        pthread_t t;
        MPI_Grequest_start(greq_query, greq_free, greq_cancel, NULL, &r);
        MPI_Request copy = r;
        greq_seconds = seconds;
        CHECK(pthread_create(&t, NULL, complete_later, &copy) == 0, "pthread_create");
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        pthread_join(t, NULL);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void lock_held_by_a_rank_in_barrier(int rank)
{
    int *base;
    MPI_Win win;
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    int token = 0;
    if (rank == 1) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Send(&token, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);   /* "I hold it" */
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (rank == 0) {
        MPI_Recv(&token, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    CHECK(0, "the lock was granted twice");
}

static void big_messages(int rank, double seconds)
{
    const int n = 256 << 20;
    char *buf = malloc((size_t)n);
    CHECK(buf, "out of memory");
    memset(buf, rank, (size_t)n);
    int more = 1, count = 0;
    double t0 = now_s();
    if (rank <= 1) {
        while (more) {
            if (rank == 0) {
                more = now_s() - t0 < seconds;
                MPI_Send(&more, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
                MPI_Send(buf, n, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
            } else {
                MPI_Recv(&more, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Recv(buf, n, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
            count++;
        }
        if (rank == 0)
            printf("hang_watch: %d messages of 256 MiB in %.1f s\n", count, now_s() - t0);
    }
    free(buf);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void spawn_slow_child(char *self, double seconds)
{
    char secs[32];
    snprintf(secs, sizeof secs, "%g", seconds);
    char *args[] = { "child", secs, NULL };
    MPI_Comm inter;
    MPI_Comm_spawn(self, args, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
    int rank, v = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Recv(&v, 1, MPI_INT, 0, 0, inter, MPI_STATUS_IGNORE);
        CHECK(v == 42, "child sent %d", v);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm_disconnect(&inter);
}

static void child(double seconds)
{
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    sleep_s(seconds);
    int v = 42;
    MPI_Send(&v, 1, MPI_INT, 0, 0, parent);
    MPI_Comm_disconnect(&parent);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *mode = argc > 1 ? argv[1] : "";
    double secs = argc > 2 ? atof(argv[2]) : 0;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int x = rank, y = 0;
    if (!strcmp(mode, "recv")) {
        MPI_Recv(&y, 1, MPI_INT, (rank + 1) % size, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(0, "MPI_Recv returned with no message sent");
    } else if (!strcmp(mode, "lock")) {
        CHECK(size >= 2, "lock needs 2 ranks");
        lock_held_by_a_rank_in_barrier(rank);
    } else if (!strcmp(mode, "mismatch")) {
        CHECK(size >= 2, "mismatch needs 2 ranks");
        if (rank == 0)
            MPI_Barrier(MPI_COMM_WORLD);
        else
            MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK(0, "mismatched collectives completed");
    } else if (!strcmp(mode, "sleep")) {
        if (rank == 0)
            sleep_s(secs);
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (!strcmp(mode, "compute")) {
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (rank == 0)
            compute_s(secs);
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        CHECK(y == size * (size - 1) / 2, "sum %d", y);
    } else if (!strcmp(mode, "big")) {
        CHECK(size >= 2, "big needs 2 ranks");
        big_messages(rank, secs);
    } else if (!strcmp(mode, "spawn")) {
        spawn_slow_child(argv[0], secs);
    } else if (!strcmp(mode, "slowop")) {
        slow_user_op(rank, size, secs);
    } else if (!strcmp(mode, "greq")) {
        grequest_of_a_thread(rank, secs);
    } else if (!strcmp(mode, "child")) {
        child(secs);
    } else {
        CHECK(0, "unknown mode '%s'", mode);
    }
    if (rank == 0 && strcmp(mode, "child"))
        printf("hang_watch %s: ok\n", mode);
    MPI_Finalize();
    return 0;
}
