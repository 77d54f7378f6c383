/*
 * intercomm_coll.c -- every blocking collective on an intercommunicator
 * (even against odd world ranks, icomm_inter.h), with the root in either
 * group and at different ranks, MPI_ROOT at the root and MPI_PROC_NULL at
 * the rest of its group; each group must get what the other contributed;
 * all of it again through the nonblocking forms, and three of those
 * outstanding at once with a blocking one.
 * Then the calls refused on intercommunicators (Scan, Exscan, the
 * nonblocking forms, topologies and neighborhood collectives) and bad roots, under MPI_ERRORS_RETURN, with a message
 * naming the call.  Needs 2 ranks or more.
 */
#include "icomm_inter.h"

static struct icomm t;

/* What local rank r of group c contributes. */
static int v(int c, int r) { return 100 * c + r + 1; }
static int other(void) { return 1 - t.color; }

/* Call fn(root argument) for a root at rank rr of group rg. */
static int root_arg(int rg, int rr)
{
    if (t.color != rg)
        return rr;
    return t.lrank == rr ? MPI_ROOT : MPI_PROC_NULL;
}

/* nb: run each collective as its nonblocking form followed by MPI_Wait. */
static int nb;
static MPI_Request nb_req;
static int nb_wait(int rc) { return rc ? rc : MPI_Wait(&nb_req, MPI_STATUS_IGNORE); }
#define NB(blocking, nonblocking, ...) (nb ? nb_wait(nonblocking(__VA_ARGS__, &nb_req)) : blocking(__VA_ARGS__))

static void test_rooted(int rg, int rr)
{
    int root = root_arg(rg, rr), me = v(t.color, t.lrank);
    int n = t.rsize, *buf = calloc((size_t)(n * (n + 1) + 8), sizeof(int)), *counts = calloc((size_t)n, sizeof(int)),
        *displs = calloc((size_t)n, sizeof(int));
    /* Bcast */
    int b = root == MPI_ROOT ? 4242 + rr : -1;
    CHECK_MPI(NB(MPI_Bcast, MPI_Ibcast, &b, 1, MPI_INT, root, t.inter));
    if (root >= 0)
        CHECK(b == 4242 + rr, "bcast from group %d rank %d: got %d", rg, rr, b);
    else if (root == MPI_PROC_NULL)
        CHECK(b == -1, "bcast: PROC_NULL rank's buffer changed to %d", b);
    /* Reduce (sum over the non-root group) */
    int sum = 0, got = -1;
    for (int j = 0; j < n; j++)
        sum += v(other(), j);
    CHECK_MPI(NB(MPI_Reduce, MPI_Ireduce, &me, &got, 1, MPI_INT, MPI_SUM, root, t.inter));
    if (root == MPI_ROOT)
        CHECK(got == sum, "reduce: got %d, expected %d", got, sum);
    else if (root == MPI_PROC_NULL)
        CHECK(got == -1, "reduce: PROC_NULL rank's buffer changed");
    /* Gather / Gatherv (rank j sends j + 1 copies, stored backwards) */
    CHECK_MPI(NB(MPI_Gather, MPI_Igather, &me, 1, MPI_INT, buf, 1, MPI_INT, root, t.inter));
    if (root == MPI_ROOT)
        for (int j = 0; j < n; j++)
            CHECK(buf[j] == v(other(), j), "gather: block %d is %d", j, buf[j]);
    int at = 0;
    for (int j = n - 1; j >= 0; j--) {
        counts[j] = j + 1;
        displs[j] = at;
        at += j + 1;
    }
    int mine[64];
    for (int k = 0; k < 64; k++)
        mine[k] = me;
    CHECK_MPI(NB(MPI_Gatherv, MPI_Igatherv, mine, t.lrank + 1, MPI_INT, buf, counts, displs, MPI_INT, root, t.inter));
    if (root == MPI_ROOT)
        for (int j = 0; j < n; j++)
            for (int k = 0; k <= j; k++)
                CHECK(buf[displs[j] + k] == v(other(), j), "gatherv: block %d element %d is %d", j, k,
                      buf[displs[j] + k]);
    /* Scatter / Scatterv */
    for (int j = 0; j < n * (n + 1); j++)
        buf[j] = 7000 + j;
    got = -1;
    CHECK_MPI(NB(MPI_Scatter, MPI_Iscatter, buf, 1, MPI_INT, &got, 1, MPI_INT, root, t.inter));
    if (root >= 0)
        CHECK(got == 7000 + t.lrank, "scatter: got %d", got);
    int rbuf[64] = { 0 };
    CHECK_MPI(NB(MPI_Scatterv, MPI_Iscatterv, buf, counts, displs, MPI_INT, rbuf, t.lrank + 1, MPI_INT, root, t.inter));
    if (root >= 0) {
        int my_at = 0;
        for (int j = t.lsize - 1; j > t.lrank; j--) /* the root laid out blocks for this group */
            my_at += j + 1;
        for (int k = 0; k <= t.lrank; k++)
            CHECK(rbuf[k] == 7000 + my_at + k, "scatterv: element %d is %d", k, rbuf[k]);
    }
    free(buf);
    free(counts);
    free(displs);
}

static void test_all(void)
{
    int n = t.rsize, me = v(t.color, t.lrank), sum = 0, max = 0;
    for (int j = 0; j < n; j++) {
        sum += v(other(), j);
        max = v(other(), j) > max ? v(other(), j) : max;
    }
    CHECK_MPI((nb ? nb_wait(MPI_Ibarrier(t.inter, &nb_req)) : MPI_Barrier(t.inter)));
    int got = 0;
    CHECK_MPI(NB(MPI_Allreduce, MPI_Iallreduce, &me, &got, 1, MPI_INT, MPI_SUM, t.inter));
    CHECK(got == sum, "allreduce sum: %d, expected %d", got, sum);
    CHECK_MPI(NB(MPI_Allreduce, MPI_Iallreduce, &me, &got, 1, MPI_INT, MPI_MAX, t.inter));
    CHECK(got == max, "allreduce max: %d, expected %d", got, max);

    int *r = calloc((size_t)(n * (n + 1) + 1), sizeof(int)), *counts = calloc((size_t)n, sizeof(int)),
        *displs = calloc((size_t)n, sizeof(int)), *s = calloc((size_t)(n + t.lsize) * (n + t.lsize), sizeof(int));
    CHECK_MPI(NB(MPI_Allgather, MPI_Iallgather, &me, 1, MPI_INT, r, 1, MPI_INT, t.inter));
    for (int j = 0; j < n; j++)
        CHECK(r[j] == v(other(), j), "allgather: block %d is %d", j, r[j]);
    int at = 0, mine[64];
    for (int k = 0; k < 64; k++)
        mine[k] = me;
    for (int j = n - 1; j >= 0; j--) {
        counts[j] = j + 1;
        displs[j] = at;
        at += j + 1;
    }
    CHECK_MPI(NB(MPI_Allgatherv, MPI_Iallgatherv, mine, t.lrank + 1, MPI_INT, r, counts, displs, MPI_INT, t.inter));
    for (int j = 0; j < n; j++)
        for (int k = 0; k <= j; k++)
            CHECK(r[displs[j] + k] == v(other(), j), "allgatherv: block %d element %d", j, k);

    /* Alltoall: to remote j, 10000 * color + 100 * lrank + j. */
    for (int j = 0; j < n; j++)
        s[j] = 10000 * t.color + 100 * t.lrank + j;
    CHECK_MPI(NB(MPI_Alltoall, MPI_Ialltoall, s, 1, MPI_INT, r, 1, MPI_INT, t.inter));
    for (int j = 0; j < n; j++)
        CHECK(r[j] == 10000 * other() + 100 * j + t.lrank, "alltoall: from %d got %d", j, r[j]);
    int *ones = calloc((size_t)n, sizeof(int)), *rev = calloc((size_t)n, sizeof(int)), *bytes = calloc((size_t)n, sizeof(int));
    MPI_Datatype *types = calloc((size_t)n, sizeof(MPI_Datatype));
    for (int j = 0; j < n; j++) {
        ones[j] = 1;
        rev[j] = n - 1 - j;
        bytes[j] = (n - 1 - j) * (int)sizeof(int);
        types[j] = MPI_INT;
    }
    CHECK_MPI(NB(MPI_Alltoallv, MPI_Ialltoallv, s, ones, rev, MPI_INT, r, ones, rev, MPI_INT, t.inter));
    for (int j = 0; j < n; j++)
        CHECK(r[n - 1 - j] == 10000 * other() + 100 * j + (t.lsize - 1 - t.lrank), "alltoallv: from %d got %d", j,
              r[n - 1 - j]);
    CHECK_MPI(NB(MPI_Alltoallw, MPI_Ialltoallw, s, ones, bytes, types, r, ones, bytes, types, t.inter));
    for (int j = 0; j < n; j++)
        CHECK(r[n - 1 - j] == 10000 * other() + 100 * j + (t.lsize - 1 - t.lrank), "alltoallw: from %d got %d", j,
              r[n - 1 - j]);

    /* Reduce_scatter_block: vectors of lsize * rsize elements in both
     * groups, element k of rank j's vector is v + k. */
    int T = t.lsize * t.rsize;
    for (int k = 0; k < T; k++)
        s[k] = me + k;
    CHECK_MPI(NB(MPI_Reduce_scatter_block, MPI_Ireduce_scatter_block, s, r, t.rsize, MPI_INT, MPI_SUM, t.inter));
    for (int e = 0; e < t.rsize; e++)
        CHECK(r[e] == sum + n * (t.lrank * t.rsize + e), "reduce_scatter_block: element %d is %d", e, r[e]);
    int *rc = calloc((size_t)t.lsize, sizeof(int));
    for (int i = 0; i < t.lsize; i++)
        rc[i] = t.rsize;
    CHECK_MPI(NB(MPI_Reduce_scatter, MPI_Ireduce_scatter, s, r, rc, MPI_INT, MPI_SUM, t.inter));
    for (int e = 0; e < t.rsize; e++)
        CHECK(r[e] == sum + n * (t.lrank * t.rsize + e), "reduce_scatter: element %d is %d", e, r[e]);
    free(rc);
    free(ones);
    free(rev);
    free(bytes);
    free(types);
    free(r);
    free(s);
    free(counts);
    free(displs);
}

/* Two nonblocking collectives outstanding on one intercommunicator, and a
 * blocking one on it while they are: each completes with its own data. */
static void test_overlap(void)
{
    int me = v(t.color, t.lrank), sum = 0, got = 0, b = t.color == 0 && t.lrank == 0 ? 77 : -1, s2 = 0;
    for (int j = 0; j < t.rsize; j++)
        sum += v(other(), j);
    MPI_Request q[3];
    CHECK_MPI(MPI_Iallreduce(&me, &got, 1, MPI_INT, MPI_SUM, t.inter, &q[0]));
    CHECK_MPI(MPI_Ibarrier(t.inter, &q[1]));
    CHECK_MPI(MPI_Ibcast(&b, 1, MPI_INT, t.color == 0 ? (t.lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, t.inter, &q[2]));
    CHECK_MPI(MPI_Allreduce(&me, &s2, 1, MPI_INT, MPI_SUM, t.inter));
    CHECK_MPI(MPI_Waitall(3, q, MPI_STATUSES_IGNORE));
    CHECK(got == sum && s2 == sum, "overlapped allreduces: %d and %d, expected %d", got, s2, sum);
    if (t.color == 1)
        CHECK(b == 77, "overlapped ibcast: got %d", b);
}

static void expect_error(int rc, int cls, const char *call) { icomm_expect_error(rc, cls, call, call); }

static void test_errors(void)
{
    int x = 1, y = 0;
    MPI_Request req;
    MPI_Comm_set_errhandler(t.inter, MPI_ERRORS_RETURN);
    expect_error(MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, t.inter), MPI_ERR_COMM, "MPI_Scan");
    expect_error(MPI_Exscan(&x, &y, 1, MPI_INT, MPI_SUM, t.inter), MPI_ERR_COMM, "MPI_Exscan");
    expect_error(MPI_Iscan(&x, &y, 1, MPI_INT, MPI_SUM, t.inter, &req), MPI_ERR_COMM, "MPI_Iscan");
    expect_error(MPI_Bcast(&x, 1, MPI_INT, t.rsize, t.inter), MPI_ERR_ROOT, "MPI_Bcast");
    int dims[1] = { t.lsize }, periods[1] = { 0 };
    MPI_Comm c;
    expect_error(MPI_Cart_create(t.inter, 1, dims, periods, 0, &c), MPI_ERR_COMM, "MPI_Cart_create");
    expect_error(MPI_Neighbor_allgather(&x, 1, MPI_INT, &y, 1, MPI_INT, t.inter), MPI_ERR_COMM,
                 "MPI_Neighbor_allgather");
    expect_error(MPI_Allreduce(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_SUM, t.inter), MPI_ERR_BUFFER, "MPI_Allreduce");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &t.wsize);
    if (t.wsize < 2) {
        MPI_Finalize();
        return 0;
    }
    icomm_make(&t);
    for (nb = 0; nb < 2; nb++) {
        for (int rg = 0; rg < 2; rg++) {
            int gsize = icomm_group_size(t.wsize, rg);
            test_rooted(rg, 0);
            if (gsize > 1)
                test_rooted(rg, gsize - 1);
        }
        test_all();
    }
    test_overlap();
    test_errors();
    icomm_free(&t);
    MPI_Finalize();
    return 0;
}
