/*
 * thread_check.c -- COREMPI_CHECK=1 against the thread level the program
 * was granted (core/thread_check.h, docs/threads.md "Checking the thread
 * level").  Two ranks; argv[1] names the case:
 *
 *   serialized  MPI_THREAD_SERIALIZED, and rank 0's second thread calls
 *               MPI_Send while its main thread is inside MPI_Recv.  Certain,
 *               not timed: the Recv has a bad tag, its communicator's error
 *               handler (which runs inside MPI_Recv) lets the thread go and
 *               waits for it to come back.  With the check:
 *               "MPI_Send on rank 0 (thread 2): called while MPI_Recv runs
 *               in thread 1; MPI_Init_thread granted MPI_THREAD_SERIALIZED"
 *   funneled    MPI_THREAD_FUNNELED, and a second thread calls MPI_Send.
 *   single      MPI_Init (MPI_THREAD_SINGLE), the same.
 *   session     MPI_Session_init with thread_level MPI_THREAD_FUNNELED, the
 *               same on a communicator of the session's mpi://WORLD.
 *   nested      a correct SERIALIZED program that must pass: two threads per
 *               rank take turns, and their calls run MPI inside callbacks
 *               (generalized request query, attribute copy and delete, error
 *               handlers, MPI_COMM_SELF's delete at MPI_Finalize) while the
 *               other thread calls the functions any thread may call
 *               (MPI_Query_thread, MPI_Wtime, ...) at the same time.
 *
 * Without the check the three violations run to the end: rank 0 prints
 * "no report" and the job exits 0, which their tests count as a failure.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int rank, peer;
static MPI_Comm world;          /* MPI_COMM_WORLD, or the session's */
static MPI_Session session = MPI_SESSION_NULL;

/* The two threads' handshake: stage only grows. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int stage;

static void fail(const char *what)
{
    fprintf(stderr, "thread_check: rank %d: %s\n", rank, what);
    exit(2);
}

static void set_stage(int s)
{
    pthread_mutex_lock(&mu);
    stage = s;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
}

static void wait_stage(int s)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_sec += 20;
    pthread_mutex_lock(&mu);
    while (stage < s)
        if (pthread_cond_timedwait(&cv, &mu, &t))
            fail("the other thread did not come");
    pthread_mutex_unlock(&mu);
}

/* ---- the violations ---- */

static void *send_to_peer(void *wait_first)
{
    if (wait_first)
        wait_stage(1);
    int v = 42;
    MPI_Send(&v, 1, MPI_INT, peer, 5, world);
    set_stage(2);
    return NULL;
}

/* Runs inside rank 0's MPI_Recv: the second thread calls MPI meanwhile. */
static void inside_recv(MPI_Comm *comm, int *code, ...)
{
    (void)comm; (void)code;
    set_stage(1);
    wait_stage(2);
}

static int violation(const char *mode)
{
    if (rank == 0) {
        pthread_t t;
        int overlap = !strcmp(mode, "serialized");
        MPI_Comm c;
        MPI_Errhandler e;
        MPI_Comm_dup(MPI_COMM_SELF, &c);
        MPI_Comm_create_errhandler(inside_recv, &e);
        MPI_Comm_set_errhandler(c, e);
        pthread_create(&t, NULL, send_to_peer, overlap ? "wait" : NULL);
        if (overlap) {
            int x;
            MPI_Recv(&x, 1, MPI_INT, 0, -7, c, MPI_STATUS_IGNORE);   /* bad tag: the handler */
        }
        pthread_join(t, NULL);
        MPI_Errhandler_free(&e);
        MPI_Comm_free(&c);
    } else {
        int v;
        MPI_Recv(&v, 1, MPI_INT, 0, 5, world, MPI_STATUS_IGNORE);
        if (v != 42)
            fail("wrong value");
    }
    MPI_Barrier(world);
    if (rank == 0)
        fprintf(stderr, "thread_check %s: no report\n", mode);
    if (session != MPI_SESSION_NULL) {
        MPI_Comm_free(&world);
        MPI_Session_finalize(&session);
    } else {
        MPI_Finalize();
    }
    return 0;
}

/* ---- the correct program ---- */

#define ROUNDS 40
static int turn;        /* the thread (0 main, 1 other) whose round it is */
static int any_req;     /* 1: the thread in MPI asks the other to make the any-thread calls; 2: done */
static int keyval, calls_in_callbacks;

static void any_thread_calls(void)
{
    int v, sub, flag;
    MPI_Query_thread(&v);
    if (v != MPI_THREAD_SERIALIZED)
        fail("MPI_Query_thread");
    MPI_Is_thread_main(&flag);
    MPI_Initialized(&flag);
    MPI_Finalized(&flag);
    MPI_Get_version(&v, &sub);
    (void)MPI_Wtime();
}

/* Inside a call of this thread: let the other one make its any-thread calls now. */
static void other_thread_meanwhile(void)
{
    pthread_mutex_lock(&mu);
    any_req = 1;
    pthread_cond_broadcast(&cv);
    while (any_req != 2)
        pthread_cond_wait(&cv, &mu);
    any_req = 0;
    pthread_mutex_unlock(&mu);
}

static int query(void *extra, MPI_Status *st)
{
    int r;
    (void)extra;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Status_set_elements(st, MPI_INT, 3);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = r;
    st->MPI_TAG = 1;
    calls_in_callbacks++;
    other_thread_meanwhile();
    return MPI_SUCCESS;
}
static int free_fn(void *extra) { (void)extra; return MPI_SUCCESS; }
static int cancel_fn(void *extra, int done) { (void)extra; (void)done; return MPI_SUCCESS; }

static int copy_attr(MPI_Comm old, int key, void *extra, void *in, void *out, int *flag)
{
    int size;
    (void)key; (void)extra;
    MPI_Comm_size(old, &size);
    *(void **)out = in;
    *flag = 1;
    calls_in_callbacks++;
    return MPI_SUCCESS;
}
static int delete_attr(MPI_Comm comm, int key, void *val, void *extra)
{
    int r;
    (void)key; (void)val; (void)extra;
    MPI_Comm_rank(comm, &r);
    calls_in_callbacks++;
    return MPI_SUCCESS;
}

static void handler(MPI_Comm *comm, int *code, ...)
{
    char text[MPI_MAX_ERROR_STRING];
    int n, r;
    MPI_Error_string(*code, text, &n);
    MPI_Comm_rank(*comm, &r);
    calls_in_callbacks++;
}

static void round_of(int r)
{
    int out = rank * 1000 + r, in = -1;
    MPI_Sendrecv(&out, 1, MPI_INT, peer, r, &in, 1, MPI_INT, peer, r, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (in != peer * 1000 + r)
        fail("wrong value from MPI_Sendrecv");
    MPI_Request req;
    MPI_Status st;
    MPI_Comm c;
    MPI_Errhandler e;
    int sum, one = 1, count;
    switch (r / 2 % 4) {   /* each kind by both threads; the last two rounds ask nothing of the other */
    case 0:   /* a generalized request's query, inside MPI_Wait */
        MPI_Grequest_start(query, free_fn, cancel_fn, NULL, &req);
        MPI_Grequest_complete(req);
        MPI_Wait(&req, &st);
        MPI_Get_count(&st, MPI_INT, &count);
        if (count != 3 || st.MPI_SOURCE != rank)
            fail("generalized request status");
        break;
    case 1:   /* attribute copy (MPI_Comm_dup) and delete (MPI_Comm_free) */
        MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, &one);
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        MPI_Comm_free(&c);
        MPI_Comm_delete_attr(MPI_COMM_WORLD, keyval);
        break;
    case 2:   /* an error handler, called and raised by a bad send */
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        MPI_Comm_create_errhandler(handler, &e);
        MPI_Comm_set_errhandler(c, e);
        MPI_Comm_call_errhandler(c, MPI_ERR_OTHER);
        MPI_Send(&out, 1, MPI_INT, peer, -3, c);
        MPI_Errhandler_free(&e);
        MPI_Comm_free(&c);
        break;
    default:  /* the _c forms and a collective */
        MPI_Sendrecv_c(&out, 1, MPI_INT, peer, r, &in, 1, MPI_INT, peer, r, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (sum != 2)
            fail("wrong sum");
        break;
    }
}

/* Rounds me, me + 2, ... (thread 0 is the main one): wait for the turn (meanwhile make the any-thread
 * calls when the thread in MPI asks), run the round, pass the turn. */
static void *rounds(void *arg)
{
    int me = arg ? 1 : 0;
    for (int r = me; r < ROUNDS; r += 2) {
        pthread_mutex_lock(&mu);
        while (turn != me) {
            if (any_req == 1) {
                pthread_mutex_unlock(&mu);
                any_thread_calls();
                pthread_mutex_lock(&mu);
                any_req = 2;
                pthread_cond_broadcast(&cv);
                continue;
            }
            pthread_cond_wait(&cv, &mu);
        }
        pthread_mutex_unlock(&mu);
        round_of(r);
        pthread_mutex_lock(&mu);
        turn = !me;
        pthread_cond_broadcast(&cv);
        pthread_mutex_unlock(&mu);
    }
    return NULL;
}

static int nested(void)
{
    MPI_Comm_create_keyval(copy_attr, delete_attr, &keyval, NULL);
    int self_key;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_attr, &self_key, NULL);
    MPI_Comm_set_attr(MPI_COMM_SELF, self_key, &self_key);   /* deleted by MPI_Finalize, inside it */
    pthread_t t;
    pthread_create(&t, NULL, rounds, "other");
    rounds(NULL);
    pthread_join(t, NULL);
    MPI_Comm_free_keyval(&keyval);
    if (calls_in_callbacks < ROUNDS / 8 * 5)
        fail("too few callbacks ran");
    if (rank == 0)
        printf("thread_check nested: ok (%d callbacks called MPI)\n", calls_in_callbacks);
    MPI_Finalize();
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "nested";
    int provided = MPI_THREAD_SINGLE, size;
    world = MPI_COMM_WORLD;
    if (!strcmp(mode, "single")) {
        MPI_Init(&argc, &argv);
    } else if (!strcmp(mode, "session")) {
        MPI_Info info;
        MPI_Group g;
        MPI_Info_create(&info);
        MPI_Info_set(info, "thread_level", "MPI_THREAD_FUNNELED");
        MPI_Session_init(info, MPI_ERRORS_ARE_FATAL, &session);
        MPI_Info_free(&info);
        MPI_Group_from_session_pset(session, "mpi://WORLD", &g);
        MPI_Comm_create_from_group(g, "thread_check", MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &world);
        MPI_Group_free(&g);
    } else {
        MPI_Init_thread(&argc, &argv, strcmp(mode, "funneled") ? MPI_THREAD_SERIALIZED : MPI_THREAD_FUNNELED,
                        &provided);
    }
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    if (size != 2)
        fail("run at 2 ranks");
    peer = 1 - rank;
    if (!strcmp(mode, "nested"))
        return provided == MPI_THREAD_SERIALIZED ? nested() : (fail("SERIALIZED not granted"), 1);
    return violation(mode);
}
