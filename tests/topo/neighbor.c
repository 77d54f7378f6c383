/*
 * neighbor.c -- the five neighbourhood collectives, blocking and then again in
 * their nonblocking forms (a world barrier while each is pending), on Cartesian grids
 * (1-3 dimensions, periodic or not, including periodic dimensions of size 1
 * and 2 where one process is the neighbour on both sides), a graph and a
 * distributed graph.  Every received value is checked against what the
 * topology says must arrive; slots of MPI_PROC_NULL neighbours stay untouched.
 *
 * Element e of the block that rank n sends in its out-slot m is
 * n*10000 + m*100 + e.  Which block lands in my in-slot j:
 *   Cartesian: the sender's slot j ^ 1 (what goes towards -1 arrives from +1);
 *   graphs:    the k-th time n is my source pairs with the k-th time I am n's
 *              destination.
 */
#include "topo_check.h"
#pragma GCC diagnostic ignored "-Wstringop-overread" /* MPI_UNWEIGHTED is a sentinel pointer */

#define MAXN 64
#define SENTINEL (-1)

enum kind { CART, GRAPH, DIST, DISTG };

/* nbmode: every MPI_Neighbor_X below runs as MPI_Ineighbor_X, a blocking
 * barrier on MPI_COMM_WORLD (all ranks are in every topology here), Wait.
 * Inside a macro its own name is not expanded again, so the else branch
 * is the real blocking call. */
static int nbmode;
static MPI_Request nb_req;
static int nb_wait(int rc)
{
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Barrier(MPI_COMM_WORLD);
    return MPI_Wait(&nb_req, MPI_STATUS_IGNORE);
}
#define NB(blocking, nonblocking, ...) \
    (nbmode ? nb_wait(nonblocking(__VA_ARGS__, &nb_req)) : blocking(__VA_ARGS__))
#define MPI_Neighbor_allgather(...) NB(MPI_Neighbor_allgather, MPI_Ineighbor_allgather, __VA_ARGS__)
#define MPI_Neighbor_allgatherv(...) NB(MPI_Neighbor_allgatherv, MPI_Ineighbor_allgatherv, __VA_ARGS__)
#define MPI_Neighbor_alltoall(...) NB(MPI_Neighbor_alltoall, MPI_Ineighbor_alltoall, __VA_ARGS__)
#define MPI_Neighbor_alltoallv(...) NB(MPI_Neighbor_alltoallv, MPI_Ineighbor_alltoallv, __VA_ARGS__)
#define MPI_Neighbor_alltoallw(...) NB(MPI_Neighbor_alltoallw, MPI_Ineighbor_alltoallw, __VA_ARGS__)

/* DISTG (general Dist_graph_create): the library chooses the order of the
 * lists, so they are read back and every rank's out-list is gathered here. */
static int distg_out[MAXN][3], distg_in[3];

struct topo {
    enum kind kind;
    int nd, dims[3], periods[3];
    int n; /* job size */
};

static void cart_coords(const struct topo *t, int r, int *c)
{
    for (int i = t->nd - 1; i >= 0; i--) {
        c[i] = r % t->dims[i];
        r /= t->dims[i];
    }
}

static int cart_neighbor(const struct topo *t, int r, int dim, int disp)
{
    int c[3];
    cart_coords(t, r, c);
    int x = c[dim] + disp;
    if (t->periods[dim])
        x = ((x % t->dims[dim]) + t->dims[dim]) % t->dims[dim];
    else if (x < 0 || x >= t->dims[dim])
        return MPI_PROC_NULL;
    c[dim] = x;
    int rank = 0;
    for (int i = 0; i < t->nd; i++)
        rank = rank * t->dims[i] + c[i];
    return rank;
}

/* Neighbour lists of any rank r, computed here from the definition. */
static int out_list(const struct topo *t, int r, int *l)
{
    int n = t->n, k = 0;
    switch (t->kind) {
    case CART:
        for (int d = 0; d < t->nd; d++) {
            l[k++] = cart_neighbor(t, r, d, -1);
            l[k++] = cart_neighbor(t, r, d, +1);
        }
        return k;
    case GRAPH: /* ring both ways, plus a star around 0 (multi-edges when n is small) */
        if (n > 1) {
            l[k++] = (r + 1) % n;
            l[k++] = (r + n - 1) % n;
        }
        if (r == 0)
            for (int j = 1; j < n; j++)
                l[k++] = j;
        else
            l[k++] = 0;
        return k;
    case DISTG:
        memcpy(l, distg_out[r], sizeof distg_out[r]);
        return 3;
    case DIST: /* out: r+1, r+3, r (a self edge) */
        l[k++] = (r + 1) % n;
        l[k++] = (r + 3) % n;
        l[k++] = r;
        return k;
    }
    return 0;
}

static int in_list(const struct topo *t, int r, int *l)
{
    if (t->kind == DISTG) {
        memcpy(l, distg_in, sizeof distg_in); /* only asked for the calling rank */
        return 3;
    }
    if (t->kind != DIST)
        return out_list(t, r, l); /* symmetric */
    int n = t->n, k = 0;
    l[k++] = (r + n - 1) % n;
    l[k++] = (r + 3 * n - 3) % n;
    l[k++] = r;
    return k;
}

/* The sender's out-slot whose block lands in my in-slot j. */
static int source_slot(const struct topo *t, int me, const int *in, int j)
{
    if (t->kind == CART)
        return j ^ 1;
    int nb = in[j], k = 0;
    for (int i = 0; i < j; i++)
        k += in[i] == nb;
    int out[MAXN], no = out_list(t, nb, out);
    for (int m = 0; m < no; m++)
        if (out[m] == me && k-- == 0)
            return m;
    CHECK(0, "test bug: no slot of %d sends to %d", nb, me);
    return -1;
}

static int value(int n, int m, int e)
{
    return n * 10000 + m * 100 + e;
}

static int count_for(int m)
{
    return 1 + m % 3;
}

static MPI_Comm make_comm(const struct topo *t)
{
    MPI_Comm c = MPI_COMM_NULL;
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (t->kind == CART) {
        OK(MPI_Cart_create(MPI_COMM_WORLD, t->nd, t->dims, t->periods, 0, &c));
    } else if (t->kind == GRAPH) {
        int index[MAXN], edges[4 * MAXN], e = 0;
        for (int r = 0; r < t->n; r++) {
            e += out_list(t, r, edges + e);
            index[r] = e;
        }
        OK(MPI_Graph_create(MPI_COMM_WORLD, t->n, index, edges, 0, &c));
    } else if (t->kind == DISTG) {
        /* I name the edges of s = me+1: s -> s+1, s -> s+2, s -> s (weights unused) */
        int n = t->n, src = (me + 1) % n, deg = 3, dst[3] = { (src + 1) % n, (src + 2) % n, src };
        OK(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &src, &deg, dst, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c));
        int indeg, outdeg, w, out[3], wi[3], wo[3];
        OK(MPI_Dist_graph_neighbors_count(c, &indeg, &outdeg, &w));
        CHECK(indeg == 3 && outdeg == 3, "general dist graph: degrees (%d, %d)", indeg, outdeg);
        OK(MPI_Dist_graph_neighbors(c, 3, distg_in, wi, 3, out, wo));
        CHECK(!w, "general dist graph made with MPI_UNWEIGHTED is weighted");
        OK(MPI_Allgather(out, 3, MPI_INT, distg_out, 3, MPI_INT, MPI_COMM_WORLD));
        /* as multisets: in = {me-1, me-2, me}, out = {me+1, me+2, me} */
        int ein[3] = { (me + n - 1) % n, (me + n - 2) % n, me }, eout[3] = { (me + 1) % n, (me + 2) % n, me };
        for (int i = 0; i < 3; i++) {
            int a = 0, b = 0, x = 0, y = 0;
            for (int j = 0; j < 3; j++) {
                a += distg_in[j] == ein[i];
                b += ein[j] == ein[i];
                x += out[j] == eout[i];
                y += eout[j] == eout[i];
            }
            CHECK(a == b && x == y, "general dist graph: neighbour %d or %d missing", ein[i], eout[i]);
        }
    } else {
        int in[8], out[8];
        int ni = in_list(t, me, in), no = out_list(t, me, out);
        OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, ni, in, MPI_UNWEIGHTED, no, out, MPI_UNWEIGHTED,
                                          MPI_INFO_NULL, 0, &c));
    }
    return c;
}

static void run_topology(const struct topo *t, const char *what)
{
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm comm = make_comm(t);
    int in[MAXN], out[MAXN];
    int ni = in_list(t, me, in), no = out_list(t, me, out);

    /* The library's own view of the neighbours must agree with ours. */
    if (t->kind == CART) {
        for (int d = 0; d < t->nd; d++) {
            int s, r;
            OK(MPI_Cart_shift(comm, d, 1, &s, &r));
            CHECK(s == in[2 * d] && r == in[2 * d + 1], "%s: Cart_shift(%d) disagrees", what, d);
        }
    }

    enum { C = 3, SLOT = 8 }; /* at most C elements per block, slots SLOT apart (gaps stay untouched) */
    int sbuf[MAXN * SLOT], rbuf[MAXN * SLOT];
    int scounts[MAXN], sdispls[MAXN], rcounts[MAXN], rdispls[MAXN];
    MPI_Aint sbytes[MAXN], rbytes[MAXN];
    MPI_Datatype stypes[MAXN], rtypes[MAXN];

    /* allgather: everyone receives each in-neighbour's C values */
    for (int e = 0; e < C; e++)
        sbuf[e] = value(me, 0, e);
    for (int i = 0; i < MAXN * SLOT; i++)
        rbuf[i] = SENTINEL;
    OK(MPI_Neighbor_allgather(sbuf, C, MPI_INT, rbuf, C, MPI_INT, comm));
    for (int j = 0; j < ni; j++)
        for (int e = 0; e < C; e++) {
            int expect = in[j] == MPI_PROC_NULL ? SENTINEL : value(in[j], 0, e);
            CHECK(rbuf[j * C + e] == expect, "%s allgather: slot %d elem %d = %d, expected %d", what, j, e,
                  rbuf[j * C + e], expect);
        }

    /* allgatherv: slots SLOT apart */
    for (int i = 0; i < MAXN * SLOT; i++)
        rbuf[i] = SENTINEL;
    for (int j = 0; j < ni; j++) {
        rcounts[j] = C;
        rdispls[j] = (ni - 1 - j) * SLOT; /* reversed, to catch displacement mix-ups */
    }
    OK(MPI_Neighbor_allgatherv(sbuf, C, MPI_INT, rbuf, rcounts, rdispls, MPI_INT, comm));
    for (int j = 0; j < ni; j++)
        for (int e = 0; e < SLOT; e++) {
            int expect = in[j] == MPI_PROC_NULL || e >= C ? SENTINEL : value(in[j], 0, e);
            int got = rbuf[rdispls[j] + e];
            CHECK(got == expect, "%s allgatherv: slot %d elem %d = %d, expected %d", what, j, e, got, expect);
        }

    /* alltoall: block m goes to out[m] */
    for (int m = 0; m < no; m++)
        for (int e = 0; e < C; e++)
            sbuf[m * C + e] = value(me, m, e);
    for (int i = 0; i < MAXN * SLOT; i++)
        rbuf[i] = SENTINEL;
    OK(MPI_Neighbor_alltoall(sbuf, C, MPI_INT, rbuf, C, MPI_INT, comm));
    for (int j = 0; j < ni; j++) {
        int m = in[j] == MPI_PROC_NULL ? 0 : source_slot(t, me, in, j);
        for (int e = 0; e < C; e++) {
            int expect = in[j] == MPI_PROC_NULL ? SENTINEL : value(in[j], m, e);
            CHECK(rbuf[j * C + e] == expect, "%s alltoall: slot %d (from %d) elem %d = %d, expected %d", what, j,
                  in[j], e, rbuf[j * C + e], expect);
        }
    }

    /* alltoallv: block m has count_for(m) elements; gaps between slots */
    for (int m = 0; m < no; m++) {
        scounts[m] = count_for(m);
        sdispls[m] = m * SLOT;
        for (int e = 0; e < scounts[m]; e++)
            sbuf[sdispls[m] + e] = value(me, m, e);
    }
    for (int i = 0; i < MAXN * SLOT; i++)
        rbuf[i] = SENTINEL;
    for (int j = 0; j < ni; j++) {
        rcounts[j] = in[j] == MPI_PROC_NULL ? C : count_for(source_slot(t, me, in, j));
        rdispls[j] = j * SLOT;
    }
    OK(MPI_Neighbor_alltoallv(sbuf, scounts, sdispls, MPI_INT, rbuf, rcounts, rdispls, MPI_INT, comm));
    for (int j = 0; j < ni; j++) {
        int m = in[j] == MPI_PROC_NULL ? 0 : source_slot(t, me, in, j);
        for (int e = 0; e < SLOT; e++) {
            int expect = in[j] == MPI_PROC_NULL || e >= rcounts[j] ? SENTINEL : value(in[j], m, e);
            CHECK(rbuf[j * SLOT + e] == expect, "%s alltoallv: slot %d elem %d = %d, expected %d", what, j, e,
                  rbuf[j * SLOT + e], expect);
        }
    }

    /* alltoallw: byte displacements, a derived receive type (pairs of ints) where the count is even */
    MPI_Datatype pair;
    OK(MPI_Type_contiguous(2, MPI_INT, &pair));
    OK(MPI_Type_commit(&pair));
    for (int m = 0; m < no; m++) {
        stypes[m] = MPI_INT;
        sbytes[m] = (MPI_Aint)sdispls[m] * (MPI_Aint)sizeof(int);
    }
    for (int i = 0; i < MAXN * SLOT; i++)
        rbuf[i] = SENTINEL;
    for (int j = 0; j < ni; j++) {
        rbytes[j] = (MPI_Aint)(j * SLOT) * (MPI_Aint)sizeof(int);
        if (rcounts[j] % 2 == 0) {
            rtypes[j] = pair;
            rcounts[j] /= 2;
        } else {
            rtypes[j] = MPI_INT;
        }
    }
    OK(MPI_Neighbor_alltoallw(sbuf, scounts, sbytes, stypes, rbuf, rcounts, rbytes, rtypes, comm));
    for (int j = 0; j < ni; j++) {
        int m = in[j] == MPI_PROC_NULL ? 0 : source_slot(t, me, in, j);
        int n = rcounts[j] * (rtypes[j] == pair ? 2 : 1);
        for (int e = 0; e < SLOT; e++) {
            int expect = in[j] == MPI_PROC_NULL || e >= n ? SENTINEL : value(in[j], m, e);
            CHECK(rbuf[j * SLOT + e] == expect, "%s alltoallw: slot %d elem %d = %d, expected %d", what, j, e,
                  rbuf[j * SLOT + e], expect);
        }
    }
    OK(MPI_Type_free(&pair));
    OK(MPI_Comm_free(&comm));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    CHECK(n <= MAXN / 4, "this test runs at up to %d ranks", MAXN / 4);
    char what[64];
    for (nbmode = 0; nbmode < 2; nbmode++) {
    for (int nd = 1; nd <= 3; nd++)
        for (int pmask = 0; pmask < (1 << nd); pmask++) {
            struct topo t = { CART, nd, { 0, 0, 0 }, { 0, 0, 0 }, n };
            OK(MPI_Dims_create(n, nd, t.dims));
            for (int i = 0; i < nd; i++)
                t.periods[i] = (pmask >> i) & 1;
            snprintf(what, sizeof what, "cart %dd periods %d", nd, pmask);
            run_topology(&t, what);
        }
    /* dimensions of size 1 and 2, periodic: the same neighbour on both sides */
    {
        struct topo t = { CART, 2, { n, 1 }, { 1, 1 }, n };
        run_topology(&t, "cart n x 1 periodic");
        if (n % 2 == 0) {
            struct topo u = { CART, 2, { 2, n / 2 }, { 1, 0 }, n };
            run_topology(&u, "cart 2 x n/2, first periodic");
        }
    }
    struct topo g = { GRAPH, 0, { 0 }, { 0 }, n };
    run_topology(&g, "graph");
    struct topo d = { DIST, 0, { 0 }, { 0 }, n };
    run_topology(&d, "dist graph");
    struct topo dg = { DISTG, 0, { 0 }, { 0 }, n };
    run_topology(&dg, "general dist graph");
    }
    topo_pass("neighbor");
    MPI_Finalize();
    return 0;
}
