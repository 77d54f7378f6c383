/*
 * intercomm.c -- intercommunicators: creation (Intercomm_create with leaders
 * other than rank 0, Intercomm_create_from_groups), the queries, merge with
 * high/low and tied flags, dup/idup/split/create/compare/free, idups of
 * several intercommunicators started in different orders by the two groups, and
 * Comm_split_type (by shared memory and hardware level, checked against
 * WORLD's split), point-to-point (blocking, nonblocking, ANY_SOURCE, probe, persistent) with
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

/* Nonblocking idups of intercommunicators started in different orders by
 * the two groups (a blocking agreement inside Comm_idup deadlocks here),
 * with point-to-point traffic on them before the Wait; one with info. */
static void test_idup_orders(struct icomm *t)
{
    enum { K = 3 };
    MPI_Comm base[K], dup[K];
    MPI_Request req[K];
    base[0] = t->inter;
    CHECK_MPI(MPI_Comm_dup(t->inter, &base[1]));
    CHECK_MPI(MPI_Comm_dup(base[1], &base[2]));
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
    for (int j = 0; j < K; j++) {
        int i = t->color ? K - 1 - j : j;   /* odd group: reverse order */
        if (i == 1)
            CHECK_MPI(MPI_Comm_idup_with_info(base[i], info, &dup[i], &req[i]));
        else
            CHECK_MPI(MPI_Comm_idup(base[i], &dup[i], &req[i]));
    }
    MPI_Info_free(&info);
    /* Traffic on the parents while the idups are pending. */
    for (int i = 0; i < K; i++) {
        int peer = t->lrank % t->rsize, from = -1, sent = t->wrank * 10 + i;
        /* Local rank l sends to remote rank l % rsize: receive from every
         * remote rank that sends here. */
        MPI_Request q;
        CHECK_MPI(MPI_Isend(&sent, 1, MPI_INT, peer, 40 + i, base[i], &q));
        for (int r = 0; r < t->rsize; r++)
            if (r % t->lsize == t->lrank) {
                CHECK_MPI(MPI_Recv(&from, 1, MPI_INT, r, 40 + i, base[i], MPI_STATUS_IGNORE));
                CHECK(from == icomm_world_of(1 - t->color, r) * 10 + i, "traffic on parent %d: %d", i, from);
            }
        CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
    }
    /* Rank 0 tests instead of waiting: idups progress from Test too. */
    int done = 0;
    if (t->lrank == 0)
        while (!done)
            CHECK_MPI(MPI_Testall(K, req, &done, MPI_STATUSES_IGNORE));
    else
        CHECK_MPI(MPI_Waitall(K, req, MPI_STATUSES_IGNORE));
    for (int i = 0; i < K; i++) {
        int flag = 0, rs = 0, ls = 0, r = -1;
        CHECK(dup[i] != MPI_COMM_NULL, "idup %d gave MPI_COMM_NULL", i);
        MPI_Comm_test_inter(dup[i], &flag);
        MPI_Comm_remote_size(dup[i], &rs);
        MPI_Comm_size(dup[i], &ls);
        CHECK(flag && rs == t->rsize && ls == t->lsize, "idup %d: inter %d sizes %d %d", i, flag, ls, rs);
        CHECK_MPI(MPI_Comm_compare(base[i], dup[i], &r));
        CHECK(r == MPI_CONGRUENT, "idup %d: compare %d", i, r);
        for (int k = 0; k < i; k++) {
            CHECK_MPI(MPI_Comm_compare(dup[k], dup[i], &r));
            CHECK(r == MPI_CONGRUENT, "idups %d and %d: compare %d", k, i, r);
        }
    }
    MPI_Info used;
    char v[16] = "";
    int flag = 0;
    MPI_Comm_get_info(dup[1], &used);
    MPI_Info_get(used, "mpi_assert_no_any_tag", sizeof v - 1, v, &flag);
    MPI_Info_free(&used);
    CHECK(flag && !strcmp(v, "true"), "idup_with_info: hint %s", flag ? v : "(unset)");
    /* The new contexts are apart: the same tag on every dup and parent. */
    if (t->lrank == 0) {
        int out[2 * K], in[2 * K];
        MPI_Request q[4 * K];
        for (int i = 0; i < K; i++) {
            out[i] = i;
            out[K + i] = 100 + i;
            MPI_Isend(&out[i], 1, MPI_INT, 0, 5, base[i], &q[i]);
            MPI_Isend(&out[K + i], 1, MPI_INT, 0, 5, dup[i], &q[K + i]);
        }
        for (int i = K - 1; i >= 0; i--) {
            MPI_Irecv(&in[K + i], 1, MPI_INT, 0, 5, dup[i], &q[2 * K + i]);
            MPI_Irecv(&in[i], 1, MPI_INT, 0, 5, base[i], &q[3 * K + i]);
        }
        CHECK_MPI(MPI_Waitall(4 * K, q, MPI_STATUSES_IGNORE));
        for (int i = 0; i < 2 * K; i++)
            CHECK(in[i] == out[i], "idup traffic mixed: slot %d got %d", i, in[i]);
    }
    for (int i = 0; i < K; i++)
        MPI_Comm_free(&dup[i]);
    MPI_Comm_free(&base[1]);
    MPI_Comm_free(&base[2]);
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

/* World ranks of a group, in group order (n: its size). */
static int *world_ranks(MPI_Group g, int *n)
{
    MPI_Group wg;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_size(g, n);
    int *in = malloc((size_t)*n * sizeof(int) + 1), *out = malloc((size_t)*n * sizeof(int) + 1);
    for (int i = 0; i < *n; i++)
        in[i] = i;
    CHECK_MPI(MPI_Group_translate_ranks(g, *n, in, wg, out));
    MPI_Group_free(&wg);
    free(in);
    return out;
}

/* s must be MPI_COMM_NULL when no world rank of `same` (those of my
 * parity) or of the other parity ... is listed; else an intercommunicator
 * whose local group is exactly the listed ranks of my parity and whose
 * remote group the listed ranks of the other parity, both in world order
 * when `reversed` is 0, reverse world order when 1 (key -wrank). */
static void expect_split(struct icomm *t, MPI_Comm s, const int *members, int n, int reversed, const char *what)
{
    int nl = 0, nr = 0;
    for (int i = 0; i < n; i++)
        members[i] % 2 == t->color ? nl++ : nr++;
    if (nl == 0 || nr == 0) {
        CHECK(s == MPI_COMM_NULL, "%s: expected MPI_COMM_NULL (%d local, %d remote)", what, nl, nr);
        return;
    }
    CHECK(s != MPI_COMM_NULL, "%s: MPI_COMM_NULL, expected %d local and %d remote", what, nl, nr);
    int flag = 0;
    MPI_Comm_test_inter(s, &flag);
    CHECK(flag, "%s: not an intercommunicator", what);
    for (int side = 0; side < 2; side++) {
        MPI_Group g;
        side ? MPI_Comm_remote_group(s, &g) : MPI_Comm_group(s, &g);
        int m, *w = world_ranks(g, &m), k = 0;
        MPI_Group_free(&g);
        int want_parity = side ? 1 - t->color : t->color;
        CHECK(m == (side ? nr : nl), "%s: %s group size %d, expected %d", what, side ? "remote" : "local", m,
              side ? nr : nl);
        for (int j = 0; j < n; j++) {
            int x = members[reversed ? n - 1 - j : j];
            if (x % 2 != want_parity)
                continue;
            CHECK(w[k] == x, "%s: %s rank %d is world %d, expected %d", what, side ? "remote" : "local", k, w[k], x);
            k++;
        }
        free(w);
    }
    /* It carries traffic: rank 0 of each side swaps world ranks. */
    int rank, got = -1;
    MPI_Comm_rank(s, &rank);
    if (rank == 0) {
        CHECK_MPI(MPI_Sendrecv(&t->wrank, 1, MPI_INT, 0, 3, &got, 1, MPI_INT, 0, 3, s, MPI_STATUS_IGNORE));
        CHECK(got >= 0 && got % 2 != t->color, "%s: remote rank 0 is world rank %d", what, got);
    }
}

/* Comm_split_type of an intercommunicator (MPI-4.1 §7.4.2, split by type
 * as Comm_split splits by color): checked against the same split of WORLD,
 * whose parts the even and odd ranks of each part then form. */
static void test_split_type(struct icomm *t)
{
    MPI_Comm s, ws;
    /* Shared memory: one node, so everyone; world rank 0 opts out. */
    int type = t->wrank == 0 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED;
    CHECK_MPI(MPI_Comm_split_type(t->inter, type, -t->wrank, MPI_INFO_NULL, &s));
    int n = 0, *all = malloc((size_t)t->wsize * sizeof(int));
    for (int w = 1; w < t->wsize; w++)
        all[n++] = w;
    if (t->wrank == 0)
        CHECK(s == MPI_COMM_NULL, "split_type(MPI_UNDEFINED) gave a communicator");
    else
        expect_split(t, s, all, n, 1, "split_type shared");
    if (s != MPI_COMM_NULL)
        MPI_Comm_free(&s);
    free(all);

    /* By package, and each rank's own core: the parts of WORLD's split. */
    const char *levels[] = { "Package", "Core" };
    for (int l = 0; l < 2; l++) {
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "mpi_hw_resource_type", levels[l]);
        CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, t->wrank, info, &ws));
        CHECK_MPI(MPI_Comm_split_type(t->inter, MPI_COMM_TYPE_HW_GUIDED, t->wrank, info, &s));
        MPI_Info_free(&info);
        if (ws == MPI_COMM_NULL) {
            CHECK(s == MPI_COMM_NULL, "split_type %s: WORLD's split is null, the intercomm's is not", levels[l]);
            continue;
        }
        MPI_Group g;
        MPI_Comm_group(ws, &g);
        int *members = world_ranks(g, &n);
        MPI_Group_free(&g);
        expect_split(t, s, members, n, 0, levels[l]);
        if (s != MPI_COMM_NULL) {
            MPI_Info used;
            char v[64] = "";
            int flag = 0;
            MPI_Comm_get_info(s, &used);
            MPI_Info_get(used, "mpi_hw_resource_type", sizeof v - 1, v, &flag);
            MPI_Info_free(&used);
            CHECK(flag && !strcmp(v, levels[l]), "split_type %s: info key \"%s\"", levels[l], flag ? v : "(unset)");
            MPI_Comm_free(&s);
        }
        free(members);
        MPI_Comm_free(&ws);
    }

    /* Unguided: each side picks a level; the parts stay within the sides. */
    CHECK_MPI(MPI_Comm_split_type(t->inter, MPI_COMM_TYPE_HW_UNGUIDED, 0, MPI_INFO_NULL, &s));
    if (s != MPI_COMM_NULL) {
        int ls, rs, flag;
        MPI_Comm_size(s, &ls);
        MPI_Comm_remote_size(s, &rs);
        MPI_Comm_test_inter(s, &flag);
        CHECK(flag && ls <= t->lsize && rs <= t->rsize, "unguided: inter %d sizes %d %d", flag, ls, rs);
        MPI_Comm_free(&s);
    }
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
    expect_error(MPI_Comm_split_type(t->inter, 12345, 0, MPI_INFO_NULL, &c), MPI_ERR_ARG, "MPI_Comm_split_type",
                 "split_type of an unknown type on an intercomm");
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
        test_idup_orders(&t);
        test_split(&t);
        test_split_type(&t);
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
