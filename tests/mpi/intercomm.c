/*
 * intercomm.c -- intercommunicators: creation (Intercomm_create with leaders
 * other than rank 0, Intercomm_create_from_groups), the queries, merge with
 * high/low and tied flags, dup/idup/split/create/compare/free, and
 * point-to-point (blocking, nonblocking, ANY_SOURCE, probe, persistent) with
 * remote ranks; bad arguments give the right class and a message naming the
 * call.  Needs 2 ranks or more (1: the checks that need no partner only).
 */
#include "icomm_inter.h"

#define expect_error icomm_expect_error

static void test_queries(struct icomm *t)
{
    int flag = -1, size, rank, r;
    CHECK_MPI(MPI_Comm_test_inter(t->inter, &flag));
    CHECK(flag == 1, "test_inter on an intercommunicator gave %d", flag);
    CHECK_MPI(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag));
    CHECK(flag == 0, "test_inter on WORLD gave %d", flag);
    CHECK_MPI(MPI_Comm_size(t->inter, &size));
    CHECK_MPI(MPI_Comm_rank(t->inter, &rank));
    CHECK(size == t->lsize && rank == t->lrank, "size/rank %d/%d, expected local %d/%d", size, rank, t->lsize,
          t->lrank);
    /* Local and remote groups map to the expected world ranks. */
    MPI_Group wg, lg, rg;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    CHECK_MPI(MPI_Comm_group(t->inter, &lg));
    CHECK_MPI(MPI_Comm_remote_group(t->inter, &rg));
    for (int i = 0; i < t->rsize; i++) {
        MPI_Group_translate_ranks(rg, 1, &i, wg, &r);
        CHECK(r == icomm_world_of(1 - t->color, i), "remote rank %d is world %d", i, r);
    }
    for (int i = 0; i < t->lsize; i++) {
        MPI_Group_translate_ranks(lg, 1, &i, wg, &r);
        CHECK(r == icomm_world_of(t->color, i), "local rank %d is world %d", i, r);
    }
    MPI_Group_free(&wg);
    MPI_Group_free(&lg);
    MPI_Group_free(&rg);
}

/* Each local rank sends to remote rank (lrank % rsize); receivers take
 * their messages with MPI_ANY_SOURCE and check the source is remote. */
static void test_p2p(struct icomm *t)
{
    int dest = t->lrank % t->rsize, msg = 1000 * t->color + t->lrank, expect = 0;
    for (int s = 0; s < t->rsize; s++)
        expect += s % t->lsize == t->lrank;
    MPI_Request sreq;
    CHECK_MPI(MPI_Isend(&msg, 1, MPI_INT, dest, 3, t->inter, &sreq));
    for (int i = 0; i < expect; i++) {
        int v = -1, flag = 0;
        MPI_Status st;
        CHECK_MPI(MPI_Probe(MPI_ANY_SOURCE, 3, t->inter, &st));
        CHECK(st.MPI_SOURCE % t->lsize == t->lrank, "probe found source %d", st.MPI_SOURCE);
        CHECK_MPI(MPI_Iprobe(st.MPI_SOURCE, 3, t->inter, &flag, MPI_STATUS_IGNORE));
        CHECK(flag, "iprobe of source %d found nothing", st.MPI_SOURCE);
        CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 3, t->inter, &st));
        CHECK(v == 1000 * (1 - t->color) + st.MPI_SOURCE, "got %d from remote rank %d", v, st.MPI_SOURCE);
    }
    CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));

    /* Persistent pair: local rank r and remote rank r, where both exist. */
    if (t->lrank < t->rsize) {
        int out = t->wrank, in = -1;
        MPI_Request rq[2];
        CHECK_MPI(MPI_Send_init(&out, 1, MPI_INT, t->lrank, 4, t->inter, &rq[0]));
        CHECK_MPI(MPI_Recv_init(&in, 1, MPI_INT, t->lrank, 4, t->inter, &rq[1]));
        for (int k = 0; k < 3; k++) {
            CHECK_MPI(MPI_Startall(2, rq));
            CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
            CHECK(in == icomm_world_of(1 - t->color, t->lrank), "persistent: got %d", in);
        }
        MPI_Request_free(&rq[0]);
        MPI_Request_free(&rq[1]);
        /* Sendrecv with PROC_NULL on one side. */
        int x = -5;
        CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, MPI_PROC_NULL, 5, &x, 1, MPI_INT, MPI_PROC_NULL, 5, t->inter,
                               MPI_STATUS_IGNORE));
        CHECK(x == -5, "receive from PROC_NULL wrote %d", x);
    }
}

/* Merge: even group first when it passes high = 0 and the odd 1, last when
 * reversed; tied flags: the group whose rank 0 is world rank 0 first. */
static void test_merge(struct icomm *t)
{
    for (int mode = 0; mode < 3; mode++) {
        int high = mode == 0 ? t->color : mode == 1 ? 1 - t->color : 1;
        int first = mode == 0 ? t->color == 0 : mode == 1 ? t->color == 1 : t->color == 0;
        MPI_Comm m;
        int rank, size, v;
        CHECK_MPI(MPI_Intercomm_merge(t->inter, high, &m));
        MPI_Comm_rank(m, &rank);
        MPI_Comm_size(m, &size);
        CHECK(size == t->wsize, "merged size %d", size);
        int want = first ? t->lrank : t->rsize + t->lrank;
        CHECK(rank == want, "merge mode %d: rank %d, expected %d", mode, rank, want);
        int flag = 1;
        MPI_Comm_test_inter(m, &flag);
        CHECK(!flag, "merged communicator is an intercommunicator");
        /* It works: a sum of the world ranks. */
        CHECK_MPI(MPI_Allreduce(&t->wrank, &v, 1, MPI_INT, MPI_SUM, m));
        CHECK(v == t->wsize * (t->wsize - 1) / 2, "allreduce on merged gave %d", v);
        MPI_Comm_free(&m);
    }
}

static void test_dup_compare(struct icomm *t)
{
    MPI_Comm d, d2;
    int r;
    MPI_Request req;
    CHECK_MPI(MPI_Comm_dup(t->inter, &d));
    CHECK_MPI(MPI_Comm_compare(t->inter, d, &r));
    CHECK(r == MPI_CONGRUENT, "compare(inter, dup) = %d", r);
    CHECK_MPI(MPI_Comm_compare(t->inter, t->inter, &r));
    CHECK(r == MPI_IDENT, "compare(inter, inter) = %d", r);
    CHECK_MPI(MPI_Comm_compare(t->inter, MPI_COMM_WORLD, &r));
    CHECK(r == MPI_UNEQUAL, "compare(inter, WORLD) = %d", r);
    CHECK_MPI(MPI_Comm_idup(d, &d2, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    int flag = 0, rs = 0;
    MPI_Comm_test_inter(d2, &flag);
    MPI_Comm_remote_size(d2, &rs);
    CHECK(flag && rs == t->rsize, "idup: inter %d remote size %d", flag, rs);
    /* Traffic on the dup does not match a receive on the original. */
    if (t->lrank == 0) {
        int a = 11, b = 22, x = 0, y = 0;
        MPI_Request q[4];
        MPI_Isend(&a, 1, MPI_INT, 0, 9, d, &q[0]);
        MPI_Isend(&b, 1, MPI_INT, 0, 9, d2, &q[1]);
        MPI_Irecv(&y, 1, MPI_INT, 0, 9, d2, &q[2]);
        MPI_Irecv(&x, 1, MPI_INT, 0, 9, d, &q[3]);
        CHECK_MPI(MPI_Waitall(4, q, MPI_STATUSES_IGNORE));
        CHECK(x == 11 && y == 22, "dup traffic mixed: %d %d", x, y);
    }
    MPI_Comm_free(&d2);
    MPI_Comm_free(&d);
}

/* Split: world ranks w with w % 3 == 2 pass MPI_UNDEFINED, others color
 * (w / 2) % 2 and key -w (reversed order). */
static int split_color(int w) { return w % 3 == 2 ? MPI_UNDEFINED : (w / 2) % 2; }

static void test_split(struct icomm *t)
{
    int c = split_color(t->wrank);
    MPI_Comm s;
    CHECK_MPI(MPI_Comm_split(t->inter, c, -t->wrank, &s));
    int nl = 0, nr = 0, myrank = 0;
    for (int i = 0; i < t->lsize; i++) {
        int w = icomm_world_of(t->color, i);
        if (c != MPI_UNDEFINED && split_color(w) == c) {
            nl++;
            myrank += w > t->wrank; /* reversed by key */
        }
    }
    for (int i = 0; i < t->rsize; i++)
        nr += c != MPI_UNDEFINED && split_color(icomm_world_of(1 - t->color, i)) == c;
    if (c == MPI_UNDEFINED || nr == 0) {
        CHECK(s == MPI_COMM_NULL, "split: expected MPI_COMM_NULL (color %d, remote members %d)", c, nr);
        return;
    }
    CHECK(s != MPI_COMM_NULL, "split gave MPI_COMM_NULL");
    int size, rank, rs, flag;
    MPI_Comm_size(s, &size);
    MPI_Comm_rank(s, &rank);
    MPI_Comm_remote_size(s, &rs);
    MPI_Comm_test_inter(s, &flag);
    CHECK(flag && size == nl && rank == myrank && rs == nr, "split: inter %d size %d/%d rank %d/%d remote %d/%d",
          flag, size, nl, rank, myrank, rs, nr);
    /* Remote rank 0 of the split answers with its world rank. */
    int w = -1;
    if (rank == 0)
        CHECK_MPI(MPI_Sendrecv(&t->wrank, 1, MPI_INT, 0, 1, &w, 1, MPI_INT, 0, 1, s, MPI_STATUS_IGNORE));
    MPI_Comm_free(&s);
}

/* Create: the even group keeps all but its local rank 0, the odd group
 * keeps everyone; with one even rank the even side is empty: all NULL. */
static void test_create(struct icomm *t)
{
    MPI_Group lg, g;
    MPI_Comm_group(t->inter, &lg);
    int zero = 0;
    g = lg;
    if (t->color == 0)
        MPI_Group_excl(lg, 1, &zero, &g);
    MPI_Comm c;
    CHECK_MPI(MPI_Comm_create(t->inter, g, &c));
    int even = icomm_group_size(t->wsize, 0);
    int in = !(t->color == 0 && t->lrank == 0) && even > 1;
    CHECK((c != MPI_COMM_NULL) == in, "create: got %s", c == MPI_COMM_NULL ? "MPI_COMM_NULL" : "a communicator");
    if (in) {
        int rs, size;
        MPI_Comm_remote_size(c, &rs);
        MPI_Comm_size(c, &size);
        CHECK(size == (t->color == 0 ? t->lsize - 1 : t->lsize), "create: local size %d", size);
        CHECK(rs == (t->color == 0 ? t->rsize : t->rsize - 1), "create: remote size %d", rs);
        MPI_Comm_free(&c);
    }
    if (g != lg)
        MPI_Group_free(&g);
    MPI_Group_free(&lg);
}

static void test_from_groups(struct icomm *t)
{
    MPI_Group wg, even, odd;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int ne = icomm_group_size(t->wsize, 0), no = icomm_group_size(t->wsize, 1);
    int range_e[1][3] = { { 0, 2 * (ne - 1), 2 } }, range_o[1][3] = { { 1, 2 * (no - 1) + 1, 2 } };
    MPI_Group_range_incl(wg, 1, range_e, &even);
    MPI_Group_range_incl(wg, 1, range_o, &odd);
    MPI_Comm c;
    /* Leaders: the even group's rank 0, the odd group's rank 1 (or 0). */
    int odd_leader = no > 1 ? 1 : 0;
    CHECK_MPI(MPI_Intercomm_create_from_groups(t->color ? odd : even, t->color ? odd_leader : 0,
                                               t->color ? even : odd, t->color ? 0 : odd_leader, "corempi-test",
                                               MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    int rs, v = -1;
    MPI_Comm_remote_size(c, &rs);
    CHECK(rs == t->rsize, "from_groups: remote size %d", rs);
    if (t->lrank < t->rsize)
        CHECK_MPI(MPI_Sendrecv(&t->wrank, 1, MPI_INT, t->lrank, 2, &v, 1, MPI_INT, t->lrank, 2, c, MPI_STATUS_IGNORE));
    if (t->lrank < t->rsize)
        CHECK(v == icomm_world_of(1 - t->color, t->lrank), "from_groups: got %d", v);
    MPI_Comm_free(&c);
    MPI_Group_free(&wg);
    MPI_Group_free(&even);
    MPI_Group_free(&odd);
}

static void test_errors(struct icomm *t)
{
    MPI_Comm c;
    int n, x = 0;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    expect_error(MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &c), MPI_ERR_COMM, "MPI_Intercomm_merge", "merge of WORLD");
    expect_error(MPI_Comm_remote_size(MPI_COMM_WORLD, &n), MPI_ERR_COMM, "MPI_Comm_remote_size", "remote_size(WORLD)");
    expect_error(MPI_Intercomm_create(MPI_COMM_WORLD, t->wsize, MPI_COMM_WORLD, 0, 1, &c), MPI_ERR_RANK,
                 "MPI_Intercomm_create", "bad local_leader");
    expect_error(MPI_Intercomm_create(MPI_COMM_WORLD, 0, MPI_COMM_WORLD, 0, -3, &c), MPI_ERR_TAG,
                 "MPI_Intercomm_create", "negative tag");
    MPI_Group wg;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    expect_error(MPI_Intercomm_create_from_groups(MPI_GROUP_EMPTY, 0, wg, 0, "x", MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                                  &c),
                 MPI_ERR_GROUP, "MPI_Intercomm_create_from_groups", "caller not in local_group");
    expect_error(MPI_Intercomm_create_from_groups(wg, 0, wg, 0, "x", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c),
                 MPI_ERR_GROUP, "MPI_Intercomm_create_from_groups", "overlapping groups");
    expect_error(MPI_Intercomm_create_from_groups(wg, t->wsize, wg, 0, "x", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c),
                 MPI_ERR_RANK, "MPI_Intercomm_create_from_groups", "bad local_leader");
    MPI_Group_free(&wg);
    if (t->inter == MPI_COMM_NULL)
        return;
    MPI_Comm_set_errhandler(t->inter, MPI_ERRORS_RETURN);
    expect_error(MPI_Send(&x, 1, MPI_INT, t->rsize, 0, t->inter), MPI_ERR_RANK, "MPI_Send", "send to remote size");
    expect_error(MPI_Intercomm_create(t->inter, 0, MPI_COMM_WORLD, 0, 1, &c), MPI_ERR_COMM, "MPI_Intercomm_create",
                 "intercomm as local_comm");
    expect_error(MPI_Comm_create_group(t->inter, MPI_GROUP_EMPTY, 0, &c), MPI_ERR_COMM, "MPI_Comm_create_group",
                 "create_group on an intercomm");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct icomm t = { MPI_COMM_NULL, MPI_COMM_NULL, 0, 0, 0, 0, 0, 0 };
    MPI_Comm_size(MPI_COMM_WORLD, &t.wsize);
    if (t.wsize >= 2) {
        icomm_make(&t);
        test_queries(&t);
        test_p2p(&t);
        test_merge(&t);
        test_dup_compare(&t);
        test_split(&t);
        test_create(&t);
        test_from_groups(&t);
    } else {
        MPI_Comm_rank(MPI_COMM_WORLD, &t.wrank);
    }
    test_errors(&t);
    if (t.inter != MPI_COMM_NULL)
        icomm_free(&t);
    MPI_Finalize();
    return 0;
}
