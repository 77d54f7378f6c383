/*
 * persistent.c -- MPI-4 persistent collectives (MPI_<coll>_init).
 *
 * Every collective, on three communicators (MPI_COMM_WORLD after a blocking
 * collective, so the shared-memory engine takes what it can; a fresh dup
 * whose first collectives are persistent, whose _init sets up its area; a
 * split into odd and even ranks; with COREMPI_SHM_NBC=0 all three run on
 * point-to-point schedules), counts 0, 1, 7 and a large one: each
 * request is started several times with new buffer contents and checked
 * after each completion (Wait, or a Test loop), with blocking calls on the
 * same communicator in between.  Then Startall over requests on different
 * communicators, the persistent neighbourhood collectives, the request's
 * life (inactive after completion, Wait/Test on it return at once, freeing
 * an inactive or a never started one), Start never waiting for another
 * rank (a token sent after Start that the peer needs before its Start),
 * a tiny Allreduce_init started behind or among other collectives,
 * and bad arguments (error class and
 * the _init's name in the message).  Prints "persistent ok" on success.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STARTS 4

static int errors, wrank;

#define CHECK(cond, ...)                                              \
    do {                                                              \
        if (!(cond)) {                                                \
            if (errors++ < 20) {                                      \
                fprintf(stderr, "persistent: rank %d: ", wrank);      \
                fprintf(stderr, __VA_ARGS__);                         \
                fprintf(stderr, " (line %d)\n", __LINE__);            \
            }                                                         \
        }                                                             \
    } while (0)

/* The value rank r contributes at element i in start k. */
static int val(int r, int k, int i) { return r * 1000 + k * 7 + i % 13; }

static void complete(MPI_Request *q, int k)
{
    MPI_Request h = *q;
    if (k % 2 == 0) {
        MPI_Wait(q, MPI_STATUS_IGNORE);
    } else {
        int flag = 0;
        while (!flag)
            MPI_Test(q, &flag, MPI_STATUS_IGNORE);
    }
    CHECK(*q == h, "completion changed or freed the persistent request");
}

static void run_rooted(MPI_Comm c, int count, const char *what)
{
    int n, me;
    MPI_Comm_size(c, &n);
    MPI_Comm_rank(c, &me);
    int root = n / 2, m = count ? count : 1;
    int *sb = malloc(sizeof(int) * (size_t)m * n), *rb = malloc(sizeof(int) * (size_t)m * n);
    int *counts = malloc(sizeof(int) * n), *displs = malloc(sizeof(int) * n);
    for (int r = 0; r < n; r++) {
        counts[r] = r % 2 ? count : (count + 1) / 2;
        displs[r] = r * count;
    }
    MPI_Request q[5];
    MPI_Bcast_init(rb, count, MPI_INT, root, c, MPI_INFO_NULL, &q[0]);
    MPI_Reduce_init(sb, rb, count, MPI_INT, MPI_SUM, root, c, MPI_INFO_NULL, &q[1]);
    MPI_Gather_init(sb, count, MPI_INT, rb, count, MPI_INT, root, c, MPI_INFO_NULL, &q[2]);
    MPI_Scatterv_init(sb, counts, displs, MPI_INT, rb, counts[me], MPI_INT, root, c, MPI_INFO_NULL, &q[3]);
    MPI_Gatherv_init(sb, counts[me], MPI_INT, rb, counts, displs, MPI_INT, root, c, MPI_INFO_NULL, &q[4]);
    for (int k = 0; k < STARTS; k++) {
        /* Bcast */
        for (int i = 0; i < count; i++)
            rb[i] = me == root ? val(root, k, i) : -1;
        MPI_Start(&q[0]);
        complete(&q[0], k);
        for (int i = 0; i < count; i++)
            CHECK(rb[i] == val(root, k, i), "%s Bcast_init start %d [%d] = %d", what, k, i, rb[i]);
        /* Reduce */
        for (int i = 0; i < count; i++) {
            sb[i] = val(me, k, i);
            rb[i] = -1;
        }
        MPI_Start(&q[1]);
        complete(&q[1], k);
        if (me == root)
            for (int i = 0; i < count; i++) {
                int want = 0;
                for (int r = 0; r < n; r++)
                    want += val(r, k, i);
                CHECK(rb[i] == want, "%s Reduce_init start %d [%d] = %d, want %d", what, k, i, rb[i], want);
            }
        /* A blocking collective between two starts. */
        MPI_Barrier(c);
        /* Gather */
        for (int i = 0; i < count * n; i++)
            rb[i] = -1;
        MPI_Start(&q[2]);
        complete(&q[2], k);
        if (me == root)
            for (int r = 0; r < n; r++)
                for (int i = 0; i < count; i++)
                    CHECK(rb[r * count + i] == val(r, k, i), "%s Gather_init start %d from %d [%d]", what, k, r, i);
        /* Scatterv: root's sb holds rank r's block at r * count */
        for (int r = 0; r < n; r++)
            for (int i = 0; i < count; i++)
                sb[r * count + i] = val(r, k, i) + 1;
        for (int i = 0; i < count; i++)
            rb[i] = -1;
        MPI_Start(&q[3]);
        complete(&q[3], k);
        for (int i = 0; i < counts[me]; i++)
            CHECK(rb[i] == val(me, k, i) + 1, "%s Scatterv_init start %d [%d] = %d", what, k, i, rb[i]);
        /* Gatherv */
        for (int i = 0; i < count; i++)
            sb[i] = val(me, k, i) + 2;
        for (int i = 0; i < count * n; i++)
            rb[i] = -1;
        MPI_Start(&q[4]);
        complete(&q[4], k);
        if (me == root)
            for (int r = 0; r < n; r++)
                for (int i = 0; i < counts[r]; i++)
                    CHECK(rb[r * count + i] == val(r, k, i) + 2, "%s Gatherv_init start %d from %d [%d]", what, k, r, i);
    }
    for (int j = 0; j < 5; j++) {
        MPI_Request_free(&q[j]);
        CHECK(q[j] == MPI_REQUEST_NULL, "Request_free of an inactive request left the handle");
    }
    /* Scatter with MPI_IN_PLACE at the root, started twice. */
    MPI_Request s;
    MPI_Scatter_init(sb, count, MPI_INT, me == root ? MPI_IN_PLACE : rb, count, MPI_INT, root, c, MPI_INFO_NULL, &s);
    for (int k = 0; k < 2; k++) {
        for (int r = 0; r < n; r++)
            for (int i = 0; i < count; i++)
                sb[r * count + i] = val(r, k, i) + 3;
        MPI_Start(&s);
        complete(&s, k);
        if (me != root)
            for (int i = 0; i < count; i++)
                CHECK(rb[i] == val(me, k, i) + 3, "%s Scatter_init start %d [%d]", what, k, i);
    }
    MPI_Request_free(&s);
    free(sb);
    free(rb);
    free(counts);
    free(displs);
}

static void run_reductions(MPI_Comm c, int count, const char *what)
{
    int n, me;
    MPI_Comm_size(c, &n);
    MPI_Comm_rank(c, &me);
    int m = count ? count : 1;
    int *sb = malloc(sizeof(int) * (size_t)m * n), *rb = malloc(sizeof(int) * (size_t)m * n);
    double *dv = malloc(sizeof(double) * (size_t)m);
    int *rcounts = malloc(sizeof(int) * n);
    for (int r = 0; r < n; r++)
        rcounts[r] = count;
    MPI_Request q[7];
    MPI_Allreduce_init(sb, rb, count, MPI_INT, MPI_SUM, c, MPI_INFO_NULL, &q[0]);
    MPI_Allreduce_init(MPI_IN_PLACE, dv, count, MPI_DOUBLE, MPI_MAX, c, MPI_INFO_NULL, &q[1]);
    MPI_Scan_init(sb, rb, count, MPI_INT, MPI_SUM, c, MPI_INFO_NULL, &q[2]);
    MPI_Exscan_init(sb, rb, count, MPI_INT, MPI_MAX, c, MPI_INFO_NULL, &q[3]);
    MPI_Reduce_scatter_block_init(sb, rb, count, MPI_INT, MPI_SUM, c, MPI_INFO_NULL, &q[4]);
    MPI_Reduce_scatter_init(sb, rb, rcounts, MPI_INT, MPI_SUM, c, MPI_INFO_NULL, &q[5]);
    MPI_Barrier_init(c, MPI_INFO_NULL, &q[6]);
    for (int k = 0; k < STARTS; k++) {
        for (int i = 0; i < count; i++)
            sb[i] = val(me, k, i);
        MPI_Start(&q[0]);
        complete(&q[0], k);
        for (int i = 0; i < count; i++) {
            int want = 0;
            for (int r = 0; r < n; r++)
                want += val(r, k, i);
            CHECK(rb[i] == want, "%s Allreduce_init start %d [%d] = %d, want %d", what, k, i, rb[i], want);
        }
        int blocking = 0;   /* a blocking reduction between starts */
        MPI_Allreduce(&me, &blocking, 1, MPI_INT, MPI_SUM, c);
        CHECK(blocking == n * (n - 1) / 2, "%s blocking Allreduce between starts", what);
        for (int i = 0; i < count; i++)
            dv[i] = (double)val(me, k, i) * (i % 2 ? -1 : 1);
        MPI_Start(&q[1]);
        complete(&q[1], k);
        for (int i = 0; i < count; i++) {
            double want = i % 2 ? -(double)val(0, k, i) : (double)val(n - 1, k, i);
            CHECK(dv[i] == want, "%s Allreduce_init in place MAX start %d [%d] = %g, want %g", what, k, i, dv[i], want);
        }
        MPI_Start(&q[2]);
        complete(&q[2], k);
        for (int i = 0; i < count; i++) {
            int want = 0;
            for (int r = 0; r <= me; r++)
                want += val(r, k, i);
            CHECK(rb[i] == want, "%s Scan_init start %d [%d] = %d, want %d", what, k, i, rb[i], want);
        }
        MPI_Start(&q[3]);
        complete(&q[3], k);
        if (me > 0)
            for (int i = 0; i < count; i++)
                CHECK(rb[i] == val(me - 1, k, i), "%s Exscan_init start %d [%d] = %d", what, k, i, rb[i]);
        for (int j = 4; j <= 5; j++) {
            for (int i = 0; i < count * n; i++)
                sb[i] = val(me, k, i) + j;
            MPI_Start(&q[j]);
            complete(&q[j], k);
            for (int i = 0; i < count; i++) {
                int want = 0;
                for (int r = 0; r < n; r++)
                    want += val(r, k, me * count + i) + j;
                CHECK(rb[i] == want, "%s %s start %d [%d] = %d, want %d", what,
                      j == 4 ? "Reduce_scatter_block_init" : "Reduce_scatter_init", k, i, rb[i], want);
            }
        }
        MPI_Start(&q[6]);
        complete(&q[6], k);
    }
    for (int j = 0; j < 7; j++)
        MPI_Request_free(&q[j]);
    free(sb);
    free(rb);
    free(dv);
    free(rcounts);
}

static void run_all(MPI_Comm c, int count, const char *what)
{
    int n, me;
    MPI_Comm_size(c, &n);
    MPI_Comm_rank(c, &me);
    size_t m = (size_t)(count ? count : 1) * n;
    int *sb = malloc(sizeof(int) * m), *rb = malloc(sizeof(int) * m);
    int *counts = malloc(sizeof(int) * n), *displs = malloc(sizeof(int) * n);
    int *bdispls = malloc(sizeof(int) * n);
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * n);
    for (int r = 0; r < n; r++) {
        counts[r] = count;
        displs[r] = r * count;
        bdispls[r] = r * count * (int)sizeof(int);
        types[r] = MPI_INT;
    }
    MPI_Request q[5];
    MPI_Allgather_init(sb, count, MPI_INT, rb, count, MPI_INT, c, MPI_INFO_NULL, &q[0]);
    MPI_Allgatherv_init(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb, counts, displs, MPI_INT, c, MPI_INFO_NULL, &q[1]);
    MPI_Alltoall_init(sb, count, MPI_INT, rb, count, MPI_INT, c, MPI_INFO_NULL, &q[2]);
    MPI_Alltoallv_init(sb, counts, displs, MPI_INT, rb, counts, displs, MPI_INT, c, MPI_INFO_NULL, &q[3]);
    MPI_Alltoallw_init(sb, counts, bdispls, types, rb, counts, bdispls, types, c, MPI_INFO_NULL, &q[4]);
    for (int k = 0; k < STARTS; k++) {
        for (int i = 0; i < count; i++)
            sb[i] = val(me, k, i);
        MPI_Start(&q[0]);
        complete(&q[0], k);
        for (int r = 0; r < n; r++)
            for (int i = 0; i < count; i++)
                CHECK(rb[r * count + i] == val(r, k, i), "%s Allgather_init start %d from %d [%d]", what, k, r, i);
        for (int i = 0; i < count; i++)
            rb[me * count + i] = val(me, k, i) + 5;
        MPI_Start(&q[1]);
        complete(&q[1], k);
        for (int r = 0; r < n; r++)
            for (int i = 0; i < count; i++)
                CHECK(rb[r * count + i] == val(r, k, i) + 5, "%s Allgatherv_init in place start %d from %d [%d]",
                      what, k, r, i);
        for (int j = 2; j <= 4; j++) {
            /* block for rank d: element i is val(me, k, d * count + i) + j */
            for (size_t i = 0; i < (size_t)count * n; i++)
                sb[i] = val(me, k, (int)i) + j;
            for (size_t i = 0; i < (size_t)count * n; i++)
                rb[i] = -1;
            MPI_Start(&q[j]);
            complete(&q[j], k);
            for (int r = 0; r < n; r++)
                for (int i = 0; i < count; i++)
                    CHECK(rb[r * count + i] == val(r, k, me * count + i) + j, "%s Alltoall%s_init start %d from %d [%d]",
                          what, j == 2 ? "" : j == 3 ? "v" : "w", k, r, i);
        }
    }
    MPI_Startall(5, q);   /* all at once: start and complete, contents unchecked */
    MPI_Waitall(5, q, MPI_STATUSES_IGNORE);
    for (int j = 0; j < 5; j++)
        MPI_Request_free(&q[j]);
    free(sb);
    free(rb);
    free(counts);
    free(displs);
    free(bdispls);
    free(types);
}

/* Startall over persistent collectives on three communicators. */
static void run_startall(MPI_Comm *comms, int ncomms)
{
    MPI_Request q[6];
    int in[3], out[3], bc[3];
    for (int j = 0; j < ncomms; j++) {
        MPI_Allreduce_init(&in[j], &out[j], 1, MPI_INT, MPI_SUM, comms[j], MPI_INFO_NULL, &q[2 * j]);
        MPI_Bcast_init(&bc[j], 1, MPI_INT, 0, comms[j], MPI_INFO_NULL, &q[2 * j + 1]);
    }
    for (int k = 0; k < STARTS; k++) {
        for (int j = 0; j < ncomms; j++) {
            int me;
            MPI_Comm_rank(comms[j], &me);
            in[j] = val(me, k, j);
            bc[j] = me == 0 ? val(0, k, j) + 9 : -1;
        }
        MPI_Startall(2 * ncomms, q);
        if (k % 2)
            MPI_Waitall(2 * ncomms, q, MPI_STATUSES_IGNORE);
        else
            for (int i = 2 * ncomms - 1; i >= 0; i--)
                MPI_Wait(&q[i], MPI_STATUS_IGNORE);
        for (int j = 0; j < ncomms; j++) {
            int n, want = 0;
            MPI_Comm_size(comms[j], &n);
            for (int r = 0; r < n; r++)
                want += val(r, k, j);
            CHECK(out[j] == want, "Startall: comm %d start %d Allreduce %d, want %d", j, k, out[j], want);
            CHECK(bc[j] == val(0, k, j) + 9, "Startall: comm %d start %d Bcast %d", j, k, bc[j]);
        }
    }
    for (int i = 0; i < 2 * ncomms; i++)
        MPI_Request_free(&q[i]);
}

/* A periodic ring: left and right neighbours. */
static void run_neighbors(void)
{
    int n, me, dims[1] = {0}, periods[1] = {1};
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Dims_create(n, 1, dims);
    MPI_Comm ring;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    MPI_Comm_rank(ring, &me);
    int left, right;
    MPI_Cart_shift(ring, 0, 1, &left, &right);
    int sb[2], rb[2], one[2] = {1, 1}, d[2] = {0, 1};
    MPI_Aint bd[2] = {0, sizeof(int)};
    MPI_Datatype t[2] = {MPI_INT, MPI_INT};
    MPI_Request q[5];
    MPI_Neighbor_allgather_init(sb, 1, MPI_INT, rb, 1, MPI_INT, ring, MPI_INFO_NULL, &q[0]);
    MPI_Neighbor_allgatherv_init(sb, 1, MPI_INT, rb, one, d, MPI_INT, ring, MPI_INFO_NULL, &q[1]);
    MPI_Neighbor_alltoall_init(sb, 1, MPI_INT, rb, 1, MPI_INT, ring, MPI_INFO_NULL, &q[2]);
    MPI_Neighbor_alltoallv_init(sb, one, d, MPI_INT, rb, one, d, MPI_INT, ring, MPI_INFO_NULL, &q[3]);
    MPI_Neighbor_alltoallw_init(sb, one, bd, t, rb, one, bd, t, ring, MPI_INFO_NULL, &q[4]);
    for (int k = 0; k < STARTS; k++)
        for (int j = 0; j < 5; j++) {
            /* alltoall forms: sb[0] goes left, sb[1] right; allgather forms send sb[0] both ways */
            sb[0] = val(me, k, j);
            sb[1] = val(me, k, j) + 50;
            rb[0] = rb[1] = -1;
            MPI_Start(&q[j]);
            complete(&q[j], k);
            int a2a = j >= 2;
            int from_left = a2a ? val(left, k, j) + 50 : val(left, k, j);
            int from_right = val(right, k, j);
            CHECK(rb[0] == from_left && rb[1] == from_right, "neighbour form %d start %d: got %d %d, want %d %d", j,
                  k, rb[0], rb[1], from_left, from_right);
        }
    for (int j = 0; j < 5; j++)
        MPI_Request_free(&q[j]);
    MPI_Comm_free(&ring);
}

static void my_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((const int *)in)[i];
}

/* The user frees the derived type after the _init: later starts still use
 * it (the plan holds it); a non-commutative user op. */
/* MPI_Start never waits for another rank (docs/persistent.md): rank 0
 * starts, then sends rank 1 the token rank 1 waits for before it starts;
 * a Start that waited for rank 1 would hang here.  Small vectors (the
 * slots) and large ones (single copy), in place too, several starts, with
 * two requests on two communicators started in opposite orders on
 * ranks 0 and 1 (one communicator's must start in one order everywhere). */
static void run_start_nowait(MPI_Comm c, const char *what)
{
    int n, me;
    MPI_Comm_size(c, &n);
    MPI_Comm_rank(c, &me);
    if (n < 2)
        return;
    MPI_Comm d;
    MPI_Comm_dup(c, &d);
    MPI_Barrier(d);   /* blocking first: d gets the engine's area when c has one */
    int sizes[3] = {1, 100, 30000};
    for (int z = 0; z < 3; z++) {
        int count = sizes[z];
        int *sb = malloc(sizeof(int) * (size_t)count), *rb = malloc(sizeof(int) * (size_t)count);
        int *ip = malloc(sizeof(int) * (size_t)count);
        MPI_Request q[2];
        MPI_Allreduce_init(sb, rb, count, MPI_INT, MPI_SUM, c, MPI_INFO_NULL, &q[0]);
        MPI_Allreduce_init(MPI_IN_PLACE, ip, count, MPI_INT, MPI_MAX, d, MPI_INFO_NULL, &q[1]);
        for (int k = 0; k < STARTS; k++) {
            for (int i = 0; i < count; i++) {
                sb[i] = val(me, k, i);
                ip[i] = val(me, k, i) - 3 * me;
            }
            int token = k;
            if (me == 1)
                MPI_Recv(&token, 1, MPI_INT, 0, 77, c, MPI_STATUS_IGNORE);
            int first = me == 1 ? 1 : 0;
            MPI_Start(&q[first]);
            MPI_Start(&q[1 - first]);
            if (me == 0)
                MPI_Send(&token, 1, MPI_INT, 1, 77, c);
            MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
            for (int i = 0; i < count; i++) {
                int want = 0, mx = val(0, k, i);
                for (int r = 0; r < n; r++) {
                    want += val(r, k, i);
                    if (val(r, k, i) - 3 * r > mx)
                        mx = val(r, k, i) - 3 * r;
                }
                if (rb[i] != want || ip[i] != mx) {
                    CHECK(0, "%s start-nowait count %d start %d [%d] = %d/%d, want %d/%d", what, count, k, i, rb[i],
                          ip[i], want, mx);
                    break;
                }
            }
        }
        MPI_Request_free(&q[0]);
        MPI_Request_free(&q[1]);
        free(sb);
        free(rb);
        free(ip);
    }
    MPI_Comm_free(&d);
}

/* A tiny persistent allreduce (8 bytes: at 2 ranks the meeting line and its
 * own Wait, docs/persistent.md) started while the area is busy or used in
 * between: behind a pending Ibarrier (Wait on it first), completed by a
 * blocking Allreduce that runs between Start and Wait, completed by Test,
 * and behind an Iallreduce waited for after it.  Each start's result is
 * checked: a Wait that folded before its own epoch, or an old epoch, returns
 * the previous start's sum. */
static void run_queued(MPI_Comm c, const char *what)
{
    int n, me;
    MPI_Comm_size(c, &n);
    MPI_Comm_rank(c, &me);
    int sb[2], rb[2], ib = 0, ir = 0, bl = 0;
    MPI_Request q, o = MPI_REQUEST_NULL;
    MPI_Allreduce_init(sb, rb, 2, MPI_INT, MPI_SUM, c, MPI_INFO_NULL, &q);
    for (int k = 0; k < 8 * STARTS; k++) {
        sb[0] = val(me, k, 0);
        sb[1] = -val(me, k, 1);
        int way = k % 4, flag = 0;
        if (way == 0)
            MPI_Ibarrier(c, &o);
        if (way == 3) {
            ib = me + k;
            MPI_Iallreduce(&ib, &ir, 1, MPI_INT, MPI_SUM, c, &o);
        }
        MPI_Start(&q);
        if (way == 1) {
            MPI_Allreduce(&me, &bl, 1, MPI_INT, MPI_SUM, c);
            CHECK(bl == n * (n - 1) / 2, "%s queued: blocking Allreduce between Start and Wait", what);
        }
        if (way == 2)
            while (!flag)
                MPI_Test(&q, &flag, MPI_STATUS_IGNORE);
        else
            MPI_Wait(&q, MPI_STATUS_IGNORE);
        if (o != MPI_REQUEST_NULL)
            MPI_Wait(&o, MPI_STATUS_IGNORE);
        int want0 = 0, want1 = 0;
        for (int r = 0; r < n; r++) {
            want0 += val(r, k, 0);
            want1 -= val(r, k, 1);
        }
        CHECK(rb[0] == want0 && rb[1] == want1, "%s queued (way %d) start %d = %d %d, want %d %d", what, way, k,
              rb[0], rb[1], want0, want1);
        if (way == 3)
            CHECK(ir == n * (n - 1) / 2 + n * k, "%s queued: Iallreduce behind the start %d = %d", what, k, ir);
    }
    MPI_Request_free(&q);
}

static void run_freed(MPI_Comm c, const char *what)
{
    int n, me;
    MPI_Comm_size(c, &n);
    MPI_Comm_rank(c, &me);
    MPI_Datatype vt;
    MPI_Type_vector(3, 1, 2, MPI_INT, &vt);
    MPI_Type_commit(&vt);
    MPI_Op uop;
    MPI_Op_create(my_sum, 0, &uop);
    int buf[12], in[5], out[5];
    MPI_Request q[3];
    MPI_Bcast_init(buf, 2, vt, 0, c, MPI_INFO_NULL, &q[0]);
    MPI_Allreduce_init(in, out, 5, MPI_INT, uop, c, MPI_INFO_NULL, &q[1]);
    MPI_Alltoallw_init(in, (int[]){1}, (int[]){0}, &vt, out, (int[]){1}, (int[]){0}, &vt, MPI_COMM_SELF,
                       MPI_INFO_NULL, &q[2]);
    MPI_Type_free(&vt);
    /* (The user op is freed only at the end: a retained freed op is still
     * refused by MPI_Reduce_local, which the point-to-point schedules fold
     * with -- a nonblocking Iallreduce has the same limit.) */
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < 12; i++)
            buf[i] = me == 0 ? val(0, k, i) : -1;
        for (int i = 0; i < 5; i++) {
            in[i] = val(me, k, i);
            out[i] = -1;
        }
        MPI_Startall(2, q);
        MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
        for (int i = 0; i < 12; i++) {
            int carried = i < 10 && (i % 5) % 2 == 0;   /* two vectors of 3 at stride 2, extent 5 ints */
            int want = me == 0 || carried ? val(0, k, i) : -1;
            CHECK(buf[i] == want, "%s Bcast_init of a freed vector type, start %d [%d] = %d, want %d", what, k, i,
                  buf[i], want);
        }
        for (int i = 0; i < 5; i++) {
            int want = 0;
            for (int r = 0; r < n; r++)
                want += val(r, k, i);
            CHECK(out[i] == want, "%s Allreduce_init with a user op, start %d [%d]", what, k, i);
        }
        MPI_Start(&q[2]);
        MPI_Wait(&q[2], MPI_STATUS_IGNORE);
        CHECK(out[0] == in[0] && out[2] == in[2] && out[4] == in[4], "%s Alltoallw_init of a freed type on self",
              what);
    }
    for (int j = 0; j < 3; j++)
        MPI_Request_free(&q[j]);
    MPI_Op_free(&uop);
}

/* Life of a request, and bad arguments (MPI_ERRORS_RETURN on a dup). */
static void run_errors(void)
{
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    int n, x = 1, y = 0, flag = 0, rc, cls;
    MPI_Comm_size(c, &n);
    MPI_Request q;
    /* Never started, then freed. */
    MPI_Allreduce_init(&x, &y, 1, MPI_INT, MPI_SUM, c, MPI_INFO_NULL, &q);
    MPI_Test(&q, &flag, MPI_STATUS_IGNORE);
    CHECK(flag == 1 && q != MPI_REQUEST_NULL, "Test on an inactive persistent request");
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    CHECK(q != MPI_REQUEST_NULL, "Wait on an inactive persistent request freed it");
    MPI_Request_free(&q);
    CHECK(q == MPI_REQUEST_NULL, "Request_free of a never started request");
    /* Start of an active one: an error, the request stays usable. */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "corempi_unknown_key", "1");
    MPI_Allreduce_init(&x, &y, 1, MPI_INT, MPI_SUM, c, info, &q);
    MPI_Info_free(&info);
    MPI_Start(&q);
    rc = MPI_Start(&q);
    CHECK(rc != MPI_SUCCESS, "MPI_Start of an active persistent collective succeeded");
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    CHECK(y == n, "Allreduce_init with an info: %d, want %d", y, n);
    /* Freed while active: it still completes (the blocking calls after it
     * on the communicator progress it), and its result lands. */
    y = 0;
    MPI_Start(&q);
    MPI_Request_free(&q);
    CHECK(q == MPI_REQUEST_NULL, "Request_free of an active request left the handle");
    int z = 0;
    MPI_Allreduce(&x, &z, 1, MPI_INT, MPI_SUM, c);
    MPI_Barrier(c);
    for (int spin = 0; spin < 100000 && y != n; spin++) {
        int flag;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, c, &flag, MPI_STATUS_IGNORE);
    }
    CHECK(y == n && z == n, "Allreduce_init freed while active: %d, want %d", y, n);

    struct { const char *name; int want; } cases[] = {
        {"MPI_Allreduce_init", MPI_ERR_COUNT}, {"MPI_Bcast_init", MPI_ERR_ROOT}, {"MPI_Reduce_init", MPI_ERR_OP},
        {"MPI_Gather_init", MPI_ERR_TYPE}, {"MPI_Barrier_init", MPI_ERR_REQUEST}, {"MPI_Alltoallv_init", MPI_ERR_COUNT},
        {"MPI_Scan_init", MPI_ERR_BUFFER}, {"MPI_Allreduce_init", MPI_ERR_INFO},
    };
    int negative[64];
    for (int i = 0; i < 64; i++)
        negative[i] = -1;
    MPI_Info freed;
    MPI_Info_create(&freed);
    MPI_Info stale = freed;   /* a handle that no longer names an info */
    MPI_Info_free(&freed);
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        q = MPI_REQUEST_NULL;
        switch (i) {
        case 0: rc = MPI_Allreduce_init(&x, &y, -1, MPI_INT, MPI_SUM, c, MPI_INFO_NULL, &q); break;
        case 1: rc = MPI_Bcast_init(&x, 1, MPI_INT, n, c, MPI_INFO_NULL, &q); break;
        case 2: rc = MPI_Reduce_init(&x, &y, 1, MPI_INT, MPI_OP_NULL, 0, c, MPI_INFO_NULL, &q); break;
        case 3: rc = MPI_Gather_init(&x, 1, MPI_DATATYPE_NULL, &y, 1, MPI_INT, 0, c, MPI_INFO_NULL, &q); break;
        case 4: rc = MPI_Barrier_init(c, MPI_INFO_NULL, NULL); break;
        case 5: rc = MPI_Alltoallv_init(&x, negative, negative, MPI_INT, &y, negative, negative, MPI_INT, c,
                                        MPI_INFO_NULL, &q); break;
        case 6: rc = MPI_Scan_init(&x, &x, 1, MPI_INT, MPI_SUM, c, MPI_INFO_NULL, &q); break;
        default: rc = MPI_Allreduce_init(&x, &y, 1, MPI_INT, MPI_SUM, c, stale, &q); break;
        }
        cls = MPI_SUCCESS;
        if (rc != MPI_SUCCESS)
            MPI_Error_class(rc, &cls);
        CHECK(cls == cases[i].want, "bad %s (case %u): class %d, want %d", cases[i].name, i, cls, cases[i].want);
        CHECK(q == MPI_REQUEST_NULL, "a failed %s returned a request", cases[i].name);
        if (q != MPI_REQUEST_NULL)
            MPI_Request_free(&q);
    }
    MPI_Comm_free(&c);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    if (argc > 1 && !strcmp(argv[1], "fatal")) {
        /* The default handler: one line naming the _init, the rank and the argument. */
        int x = 0, y;
        MPI_Request q;
        MPI_Allreduce_init(&x, &y, -3, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &q);
        MPI_Finalize();
        return 0;
    }
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);   /* world's first collective is blocking: the engine's area */
    MPI_Comm fresh, half;
    MPI_Comm_dup(MPI_COMM_WORLD, &fresh);
    MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, -wrank, &half);
    MPI_Comm comms[3] = {MPI_COMM_WORLD, fresh, half};
    const char *names[3] = {"world", "fresh dup", "split"};
    int counts[4] = {0, 1, 7, argc > 1 && !strcmp(argv[1], "quick") ? 300 : 20000};
    for (int ci = 0; ci < 3; ci++)
        for (int k = 0; k < 4; k++) {
            char what[64];
            snprintf(what, sizeof what, "%s count %d", names[ci], counts[k]);
            run_reductions(comms[ci], counts[k], what);
            run_rooted(comms[ci], counts[k], what);
            run_all(comms[ci], counts[k], what);
        }
    run_startall(comms, 3);
    for (int ci = 0; ci < 3; ci++)
        run_start_nowait(comms[ci], names[ci]);
    for (int ci = 0; ci < 3; ci++)
        run_queued(comms[ci], names[ci]);
    run_freed(MPI_COMM_WORLD, "world");
    run_freed(fresh, "fresh dup");
    run_neighbors();
    run_errors();
    MPI_Comm_free(&fresh);
    MPI_Comm_free(&half);
    int total = 0;
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0 && total == 0)
        printf("persistent ok\n");
    MPI_Finalize();
    return total != 0;
}
