/*
 * free_early.c -- MPI lets a program free a datatype or a user op as soon
 * as the call that uses it returned: a pending nonblocking (or a persistent)
 * operation must still complete correctly with it.  Each case below starts
 * an operation with a derived type (and a user op where it reduces), frees
 * them at once, scribbles over what the freed objects' memory could be
 * reused for (new types and ops of other shapes), then waits and checks the
 * data (point-to-point too: Irecv and Send_init/Recv_init, whose requests
 * already held their types).  Before the schedules held references this read freed type objects
 * (ASan: heap-use-after-free) or refused the freed op ("invalid operation
 * handle") at Wait.
 *
 * The last case runs 10000 nonblocking _c calls whose count is above
 * INT_MAX (of an empty type, so no memory is needed): each builds a
 * temporary type, and MPI_T's objects_datatypes_live must be the same after
 * the loop as before it (it grew by one per call before).
 *
 * Argument: "p2p" when run with COREMPI_SHM_NBC=0 (only for the message;
 * the environment picks the path).
 */
#include "check.h"

#include <stdint.h>

#define N 40 /* elements per rank and call */

static int rank, size;

/* Every other int: element i lives at ints 2i (extent 2 ints, size 1). */
static MPI_Datatype strided(void)
{
    MPI_Datatype t, r;
    CHECK_MPI(MPI_Type_vector(1, 1, 2, MPI_INT, &t));
    CHECK_MPI(MPI_Type_create_resized(t, 0, 2 * (MPI_Aint)sizeof(int), &r));
    CHECK_MPI(MPI_Type_free(&t));
    CHECK_MPI(MPI_Type_commit(&r));
    return r;
}

/* A sum that counts its calls, so a reduction through the predefined path
 * instead of the user's function is seen too. */
static int user_calls;
static void user_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int stride = *dt == MPI_INT ? 1 : 2; /* else the strided type below */
    user_calls++;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[stride * i] += ((int *)in)[stride * i];
}

/* Types and ops created and freed in between: a freed object's memory and
 * handle slot get reused, so a schedule reading freed state reads these. */
static void churn(void)
{
    for (int k = 0; k < 8; k++) {
        MPI_Datatype t;
        MPI_Op o;
        CHECK_MPI(MPI_Type_contiguous(k + 3, MPI_DOUBLE, &t));
        CHECK_MPI(MPI_Type_commit(&t));
        CHECK_MPI(MPI_Op_create(user_sum, 0, &o));
        CHECK_MPI(MPI_Type_free(&t));
        CHECK_MPI(MPI_Op_free(&o));
    }
}

static int *ints(size_t n, int fill)
{
    int *a = malloc(n * sizeof *a);
    CHECK(a, "out of memory");
    for (size_t i = 0; i < n; i++)
        a[i] = fill;
    return a;
}

static void wait_and_churn(MPI_Request *req)
{
    CHECK(*req != MPI_REQUEST_NULL, "no request");
    churn();
    CHECK_MPI(MPI_Wait(req, MPI_STATUS_IGNORE));
}

static void case_ibcast(int n)
{
    int root = size - 1;
    int *buf = ints(2 * (size_t)n, -1);
    for (int i = 0; i < n; i++)
        if (rank == root)
            buf[2 * i] = 7 * i + 1;
    MPI_Datatype t = strided();
    MPI_Request req;
    CHECK_MPI(MPI_Ibcast(buf, n, t, root, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Type_free(&t));
    wait_and_churn(&req);
    for (int i = 0; i < n; i++)
        CHECK(buf[2 * i] == 7 * i + 1 && buf[2 * i + 1] == -1, "Ibcast(%d): element %d is %d (gap %d)", n, i,
              buf[2 * i], buf[2 * i + 1]);
    free(buf);
}

/* Ireduce and Iallreduce: a user op on int, and MPI_SUM on the strided
 * type; every one freed right after the call. */
static void case_reductions(int n)
{
    int *s = ints((size_t)n, 0), *r = ints((size_t)n, -1);
    for (int i = 0; i < n; i++)
        s[i] = rank + i;
    int want_base = size * (size - 1) / 2;
    MPI_Op op;
    MPI_Request req;
    for (int all = 0; all < 2; all++) {
        CHECK_MPI(MPI_Op_create(user_sum, 1, &op));
        user_calls = 0;
        if (all)
            CHECK_MPI(MPI_Iallreduce(s, r, n, MPI_INT, op, MPI_COMM_WORLD, &req));
        else
            CHECK_MPI(MPI_Ireduce(s, r, n, MPI_INT, op, 0, MPI_COMM_WORLD, &req));
        CHECK_MPI(MPI_Op_free(&op));
        CHECK(op == MPI_OP_NULL, "MPI_Op_free left the handle");
        wait_and_churn(&req);
        if (all || rank == 0)
            for (int i = 0; i < n; i++)
                CHECK(r[i] == want_base + size * i, "%s(user op, %d): [%d] = %d, want %d",
                      all ? "Iallreduce" : "Ireduce", n, i, r[i], want_base + size * i);
    }
    /* A predefined op on a derived type (and a user op on it) */
    int *ds = ints(2 * (size_t)n, 0), *dr = ints(2 * (size_t)n, -5);
    for (int i = 0; i < n; i++)
        ds[2 * i] = rank * i;
    for (int user = 0; user < 2; user++) {
        for (int i = 0; i < 2 * n; i++)
            dr[i] = -5;
        MPI_Datatype t = strided();
        op = MPI_SUM;
        if (user)
            CHECK_MPI(MPI_Op_create(user_sum, 1, &op));
        CHECK_MPI(MPI_Iallreduce(ds, dr, n, t, op, MPI_COMM_WORLD, &req));
        CHECK_MPI(MPI_Type_free(&t));
        if (user)
            CHECK_MPI(MPI_Op_free(&op));
        wait_and_churn(&req);
        for (int i = 0; i < n; i++)
            CHECK(dr[2 * i] == want_base * i && dr[2 * i + 1] == -5, "Iallreduce(strided, %s, %d): [%d] = %d/%d",
                  user ? "user op" : "MPI_SUM", n, i, dr[2 * i], dr[2 * i + 1]);
    }
    free(s);
    free(r);
    free(ds);
    free(dr);
}

/* Ialltoallw: a strided type for each peer, freed at once. */
static void case_ialltoallw(int n)
{
    int *s = ints(2 * (size_t)n * size, 0), *r = ints(2 * (size_t)n * size, -1);
    int *counts = ints((size_t)size, n), *displs = ints((size_t)size, 0);
    MPI_Datatype *st = malloc((size_t)size * sizeof *st), *rt = malloc((size_t)size * sizeof *rt);
    CHECK(st && rt, "out of memory");
    for (int p = 0; p < size; p++) {
        displs[p] = p * 2 * n * (int)sizeof(int);
        st[p] = strided();
        rt[p] = strided();
        for (int i = 0; i < n; i++)
            s[2 * (p * n + i)] = 1000 * rank + 10 * p + i;
    }
    MPI_Request req;
    CHECK_MPI(MPI_Ialltoallw(s, counts, displs, st, r, counts, displs, rt, MPI_COMM_WORLD, &req));
    for (int p = 0; p < size; p++) {
        CHECK_MPI(MPI_Type_free(&st[p]));
        CHECK_MPI(MPI_Type_free(&rt[p]));
    }
    wait_and_churn(&req);
    for (int p = 0; p < size; p++)
        for (int i = 0; i < n; i++)
            CHECK(r[2 * (p * n + i)] == 1000 * p + 10 * rank + i && r[2 * (p * n + i) + 1] == -1,
                  "Ialltoallw(%d): from %d element %d is %d", n, p, i, r[2 * (p * n + i)]);
    free(s);
    free(r);
    free(counts);
    free(displs);
    free(st);
    free(rt);
}

/* Ineighbor_allgather and Ineighbor_alltoall on a periodic ring. */
static void case_neighbor(int n)
{
    MPI_Comm ring;
    int dims = size, periods = 1;
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, &dims, &periods, 0, &ring));
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    int *s = ints(4 * (size_t)n, 0), *r = ints(4 * (size_t)n, -1);
    for (int i = 0; i < 2 * n; i++)
        s[2 * i] = 100 * rank + i;
    MPI_Request req;
    for (int a2a = 0; a2a < 2; a2a++) {
        for (int i = 0; i < 4 * n; i++)
            r[i] = -1;
        MPI_Datatype t = strided(), u = strided();
        if (a2a)
            CHECK_MPI(MPI_Ineighbor_alltoall(s, n, t, r, n, u, ring, &req));
        else
            CHECK_MPI(MPI_Ineighbor_allgather(s, n, t, r, n, u, ring, &req));
        CHECK_MPI(MPI_Type_free(&t));
        CHECK_MPI(MPI_Type_free(&u));
        wait_and_churn(&req);
        /* in order: the left neighbour (-1), then the right one (+1); in an
         * alltoall the left gets my block 0, the right my block 1 */
        for (int i = 0; i < n; i++) {
            int from_left = 100 * left + (a2a ? n + i : i), from_right = 100 * right + i;
            CHECK(r[2 * i] == from_left && r[2 * (n + i)] == from_right && r[2 * i + 1] == -1,
                  "Ineighbor_%s(%d): element %d is %d/%d, want %d/%d", a2a ? "alltoall" : "allgather", n, i,
                  r[2 * i], r[2 * (n + i)], from_left, from_right);
        }
    }
    free(s);
    free(r);
    CHECK_MPI(MPI_Comm_free(&ring));
}

/* Allreduce_init: the type and the op freed before the first Start. */
static void case_persistent(int n)
{
    int *s = ints(2 * (size_t)n, 0), *r = ints(2 * (size_t)n, -3);
    MPI_Datatype t = strided();
    MPI_Op op;
    CHECK_MPI(MPI_Op_create(user_sum, 1, &op));
    MPI_Request req;
    CHECK_MPI(MPI_Allreduce_init(s, r, n, t, op, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    CHECK_MPI(MPI_Type_free(&t));
    CHECK_MPI(MPI_Op_free(&op));
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < n; i++)
            s[2 * i] = (rank + 1) * (i + round);
        churn();
        CHECK_MPI(MPI_Start(&req));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        for (int i = 0; i < n; i++)
            CHECK(r[2 * i] == size * (size + 1) / 2 * (i + round) && r[2 * i + 1] == -3,
                  "Allreduce_init(%d) round %d: [%d] = %d", n, round, i, r[2 * i]);
    }
    CHECK_MPI(MPI_Request_free(&req));
    free(s);
    free(r);
}

/* Irecv whose type is freed before the message is even sent. */
static void case_irecv(int n)
{
    int *r = ints(2 * (size_t)n, -1), *s = ints((size_t)n, 0);
    for (int i = 0; i < n; i++)
        s[i] = 31 * rank + i;
    int from = (rank + size - 1) % size, to = (rank + 1) % size;
    MPI_Datatype t = strided();
    MPI_Request req;
    CHECK_MPI(MPI_Irecv(r, n, t, from, 5, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Type_free(&t));
    churn();
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* every receive's type is gone now */
    CHECK_MPI(MPI_Send(s, n, MPI_INT, to, 5, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int i = 0; i < n; i++)
        CHECK(r[2 * i] == 31 * from + i && r[2 * i + 1] == -1, "Irecv(%d): [%d] = %d", n, i, r[2 * i]);
    free(r);
    free(s);
}

/* Persistent point-to-point: both requests' types freed before the first
 * Start, two rounds. */
static void case_p2p_persistent(int n)
{
    int *r = ints(2 * (size_t)n, -1), *s = ints(2 * (size_t)n, -1);
    int from = (rank + size - 1) % size, to = (rank + 1) % size;
    MPI_Datatype ts = strided(), tr = strided();
    MPI_Request q[2];
    CHECK_MPI(MPI_Recv_init(r, n, tr, from, 6, MPI_COMM_WORLD, &q[0]));
    CHECK_MPI(MPI_Send_init(s, n, ts, to, 6, MPI_COMM_WORLD, &q[1]));
    CHECK_MPI(MPI_Type_free(&ts));
    CHECK_MPI(MPI_Type_free(&tr));
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < n; i++)
            s[2 * i] = 17 * rank + i + round;
        churn();
        CHECK_MPI(MPI_Startall(2, q));
        CHECK_MPI(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
        for (int i = 0; i < n; i++)
            CHECK(r[2 * i] == 17 * from + i + round && r[2 * i + 1] == -1, "Recv_init(%d) round %d: [%d] = %d", n,
                  round, i, r[2 * i]);
    }
    CHECK_MPI(MPI_Request_free(&q[0]));
    CHECK_MPI(MPI_Request_free(&q[1]));
    free(r);
    free(s);
}

static long long live_types(MPI_T_pvar_session ps, MPI_T_pvar_handle ph)
{
    unsigned long long v = 0;
    CHECK(MPI_T_pvar_read(ps, ph, &v) == MPI_SUCCESS, "MPI_T_pvar_read failed");
    return (long long)v;
}

/* 10000 nonblocking _c calls with a count above INT_MAX: no type left behind. */
static void case_large_loop(void)
{
    int provided, idx, count;
    CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS, "MPI_T_init_thread");
    CHECK(MPI_T_pvar_get_index("objects_datatypes_live", MPI_T_PVAR_CLASS_LEVEL, &idx) == MPI_SUCCESS,
          "no pvar objects_datatypes_live");
    MPI_T_pvar_session ps;
    MPI_T_pvar_handle ph;
    CHECK(MPI_T_pvar_session_create(&ps) == MPI_SUCCESS, "pvar session");
    CHECK(MPI_T_pvar_handle_alloc(ps, idx, NULL, &ph, &count) == MPI_SUCCESS && count == 1, "pvar handle");

    MPI_Datatype empty;
    CHECK_MPI(MPI_Type_contiguous(0, MPI_INT, &empty));
    CHECK_MPI(MPI_Type_commit(&empty));
    long long before = live_types(ps, ph);
    CHECK(before >= 1, "objects_datatypes_live is %lld with one derived type alive", before);
    MPI_Count big = (MPI_Count)INT32_MAX + 7;
    int buf[1] = { 0 }, rbuf[1] = { 0 };
    MPI_Count *counts = malloc((size_t)size * sizeof *counts);
    MPI_Aint *displs = calloc((size_t)size, sizeof *displs);
    MPI_Datatype *types = malloc((size_t)size * sizeof *types);
    CHECK(counts && displs && types, "out of memory");
    for (int p = 0; p < size; p++) {
        counts[p] = big;
        types[p] = empty;
    }
    for (int k = 0; k < 10000; k++) {
        MPI_Request req;
        if (k % 2)
            CHECK_MPI(MPI_Ibcast_c(buf, big, empty, k % size, MPI_COMM_WORLD, &req));
        else
            CHECK_MPI(MPI_Ialltoallw_c(buf, counts, displs, types, rbuf, counts, displs, types, MPI_COMM_WORLD,
                                       &req));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    }
    long long after = live_types(ps, ph);
    CHECK(after == before, "10000 nonblocking _c calls left %lld datatypes alive (%lld before)", after, before);
    CHECK_MPI(MPI_Type_free(&empty));
    long long end = live_types(ps, ph);
    CHECK(end == before - 1, "objects_datatypes_live did not drop with MPI_Type_free (%lld, then %lld)", before,
          end);
    free(counts);
    free(displs);
    free(types);
    MPI_T_pvar_handle_free(ps, &ph);
    MPI_T_pvar_session_free(&ps);
    MPI_T_finalize();
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* small: the shared-memory engine's one-entry steps; large: its pieces
     * or the point-to-point schedules */
    const int sizes[] = { 1, N, 20000 };
    for (int k = 0; k < 3; k++) {
        int n = sizes[k];
        case_ibcast(n);
        case_reductions(n);
        case_ialltoallw(n);
        case_neighbor(n);
        case_persistent(n);
        case_irecv(n);
        case_p2p_persistent(n);
    }
    case_large_loop();
    if (rank == 0)
        printf("free_early: ok (%d ranks%s%s)\n", size, argc > 1 ? ", " : "", argc > 1 ? argv[1] : "");
    CHECK_MPI(MPI_Finalize());
    return 0;
}
