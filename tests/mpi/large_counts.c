/*
 * large_counts.c -- every MPI-4.1 "_c" function of corempi called with
 * small counts and compared with its int twin (the same call with int
 * counts): the same bytes arrive, the same sizes and extents come back.
 * Also: a negative count names the call and the argument; Get_count of more
 * than INT_MAX elements is MPI_UNDEFINED in the int binding only;
 * Type_get_envelope_c/get_contents_c report a _c constructor's large counts.
 * Runs at any number of ranks.  The real > 2^31 transfer: large_counts_big.c.
 */
#include "check.h"

#include <limits.h>
#include <stdint.h>

#define N 6          /* elements per peer */
#define MAXP 16
static int rank, size;
static int sbuf[N * MAXP], r1[N * MAXP], r2[N * MAXP];
static char space[4096]; /* the Bsend buffer */

/* Run the int call into r1 and the _c call into r2, from the same input;
 * both must produce the same bytes (what a call leaves alone -- a non-root's
 * receive buffer -- starts out the same in both; value checks below make
 * sure the calls do write). */
#define SAME(what, int_call, c_call)                                                  \
    do {                                                                              \
        memset(r1, 0x11, sizeof r1);                                                  \
        memset(r2, 0x11, sizeof r2);                                                  \
        CHECK_MPI(int_call);                                                          \
        CHECK_MPI(c_call);                                                            \
        CHECK(memcmp(r1, r2, sizeof r1) == 0, "%s: _c result differs from int twin", what); \
    } while (0)

/* A nonblocking call: start, wait. */
static int waited(int rc, MPI_Request *r)
{
    return rc ? rc : MPI_Wait(r, MPI_STATUS_IGNORE);
}
/* A persistent call: init, two rounds of start+wait, free. */
static int started(int rc, MPI_Request *r)
{
    for (int i = 0; rc == MPI_SUCCESS && i < 2; i++)
        if ((rc = MPI_Start(r)) == MPI_SUCCESS)
            rc = MPI_Wait(r, MPI_STATUS_IGNORE);
    return rc ? rc : MPI_Request_free(r);
}

static void fill(void)
{
    for (int i = 0; i < N * MAXP; i++)
        sbuf[i] = rank * 1000 + i + 1;
}

static void user_sum_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt)
{
    (void)dt;
    for (MPI_Count i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}
static void user_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

static MPI_Aint *adsp_zero(void)
{
    static MPI_Aint z[MAXP];
    return z;
}

static void p2p(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Request rq, sq;
    MPI_Status st;
    MPI_Count cc;
    int ic;
    /* one receive per send mode; the receive is posted first so that
     * blocking and ready sends to oneself (1 rank) complete */
    for (int mode = 0; mode < 12; mode++) {
        memset(r1, 0, sizeof r1);
        int tag = 10 + mode;
        if (mode % 3 == 0)
            CHECK_MPI(MPI_Irecv_c(r1, N, MPI_INT, left, tag, MPI_COMM_WORLD, &rq));
        else if (mode % 3 == 1)
        {
            CHECK_MPI(MPI_Recv_init_c(r1, N, MPI_INT, left, tag, MPI_COMM_WORLD, &rq));
            CHECK_MPI(MPI_Start(&rq));
        }
        else
            CHECK_MPI(MPI_Irecv(r1, N, MPI_INT, left, tag, MPI_COMM_WORLD, &rq));
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* every receive posted: Rsend is legal */
        const int *b = sbuf + tag;
        switch (mode) {
        case 0: CHECK_MPI(MPI_Send_c(b, N, MPI_INT, right, tag, MPI_COMM_WORLD)); break;
        case 1: CHECK_MPI(MPI_Ssend_c(b, N, MPI_INT, right, tag, MPI_COMM_WORLD)); break;
        case 2: CHECK_MPI(MPI_Rsend_c(b, N, MPI_INT, right, tag, MPI_COMM_WORLD)); break;
        case 3: CHECK_MPI(MPI_Bsend_c(b, N, MPI_INT, right, tag, MPI_COMM_WORLD)); break;
        case 4: CHECK_MPI(waited(MPI_Isend_c(b, N, MPI_INT, right, tag, MPI_COMM_WORLD, &sq), &sq)); break;
        case 5: CHECK_MPI(waited(MPI_Issend_c(b, N, MPI_INT, right, tag, MPI_COMM_WORLD, &sq), &sq)); break;
        case 6: CHECK_MPI(waited(MPI_Irsend_c(b, N, MPI_INT, right, tag, MPI_COMM_WORLD, &sq), &sq)); break;
        case 7: CHECK_MPI(waited(MPI_Ibsend_c(b, N, MPI_INT, right, tag, MPI_COMM_WORLD, &sq), &sq)); break;
        case 8: CHECK_MPI(MPI_Send_init_c(b, N, MPI_INT, right, tag, MPI_COMM_WORLD, &sq)); break;
        case 9: CHECK_MPI(MPI_Ssend_init_c(b, N, MPI_INT, right, tag, MPI_COMM_WORLD, &sq)); break;
        case 10: CHECK_MPI(MPI_Rsend_init_c(b, N, MPI_INT, right, tag, MPI_COMM_WORLD, &sq)); break;
        case 11: CHECK_MPI(MPI_Bsend_init_c(b, N, MPI_INT, right, tag, MPI_COMM_WORLD, &sq)); break;
        }
        if (mode >= 8) {
            CHECK_MPI(MPI_Start(&sq));
            CHECK_MPI(MPI_Wait(&sq, MPI_STATUS_IGNORE));
            CHECK_MPI(MPI_Request_free(&sq));
        }
        CHECK_MPI(MPI_Wait(&rq, &st));
        if (mode % 3 == 1)
            CHECK_MPI(MPI_Request_free(&rq));
        for (int i = 0; i < N; i++)
            CHECK(r1[i] == left * 1000 + tag + i + 1, "mode %d: element %d is %d", mode, i, r1[i]);
        CHECK_MPI(MPI_Get_count_c(&st, MPI_INT, &cc));
        CHECK_MPI(MPI_Get_count(&st, MPI_INT, &ic));
        CHECK(cc == N && ic == N, "mode %d: Get_count_c %lld, Get_count %d", mode, (long long)cc, ic);
        CHECK_MPI(MPI_Get_elements_c(&st, MPI_INT, &cc));
        CHECK(cc == N, "Get_elements_c %lld", (long long)cc);
    }
    /* blocking receive, matched receives */
    CHECK_MPI(MPI_Isend(sbuf, N, MPI_INT, right, 30, MPI_COMM_WORLD, &sq));
    CHECK_MPI(MPI_Recv_c(r1, N, MPI_INT, left, 30, MPI_COMM_WORLD, &st));
    CHECK_MPI(MPI_Wait(&sq, MPI_STATUS_IGNORE));
    CHECK(r1[N - 1] == left * 1000 + N, "Recv_c got %d", r1[N - 1]);
    MPI_Message m;
    CHECK_MPI(MPI_Isend(sbuf, N, MPI_INT, right, 31, MPI_COMM_WORLD, &sq));
    CHECK_MPI(MPI_Mprobe(left, 31, MPI_COMM_WORLD, &m, &st));
    CHECK_MPI(MPI_Mrecv_c(r1, N, MPI_INT, &m, &st));
    CHECK_MPI(MPI_Wait(&sq, MPI_STATUS_IGNORE));
    CHECK(r1[2] == left * 1000 + 3, "Mrecv_c got %d", r1[2]);
    CHECK_MPI(MPI_Isend(sbuf, N, MPI_INT, right, 32, MPI_COMM_WORLD, &sq));
    CHECK_MPI(MPI_Mprobe(left, 32, MPI_COMM_WORLD, &m, &st));
    CHECK_MPI(waited(MPI_Imrecv_c(r1, N, MPI_INT, &m, &rq), &rq));
    CHECK_MPI(MPI_Wait(&sq, MPI_STATUS_IGNORE));
    CHECK(r1[3] == left * 1000 + 4, "Imrecv_c got %d", r1[3]);
    /* send-receive */
    SAME("Sendrecv", MPI_Sendrecv(sbuf, N, MPI_INT, right, 33, r1, N, MPI_INT, left, 33, MPI_COMM_WORLD, &st),
         MPI_Sendrecv_c(sbuf, N, MPI_INT, right, 33, r2, N, MPI_INT, left, 33, MPI_COMM_WORLD, &st));
    SAME("Isendrecv", waited(MPI_Isendrecv(sbuf, N, MPI_INT, right, 34, r1, N, MPI_INT, left, 34, MPI_COMM_WORLD, &rq), &rq),
         waited(MPI_Isendrecv_c(sbuf, N, MPI_INT, right, 34, r2, N, MPI_INT, left, 34, MPI_COMM_WORLD, &rq), &rq));
    memcpy(r1, sbuf, sizeof r1);
    CHECK_MPI(MPI_Sendrecv_replace_c(r1, N, MPI_INT, right, 35, left, 35, MPI_COMM_WORLD, &st));
    CHECK(r1[0] == left * 1000 + 1, "Sendrecv_replace_c got %d", r1[0]);
    memcpy(r1, sbuf, sizeof r1);
    CHECK_MPI(waited(MPI_Isendrecv_replace_c(r1, N, MPI_INT, right, 36, left, 36, MPI_COMM_WORLD, &rq), &rq));
    CHECK(r1[1] == left * 1000 + 2, "Isendrecv_replace_c got %d", r1[1]);
    /* partitioned: 2 partitions of 3 */
    CHECK_MPI(MPI_Precv_init_c(r1, 2, 3, MPI_INT, left, 37, MPI_COMM_WORLD, MPI_INFO_NULL, &rq));
    CHECK_MPI(MPI_Psend_init_c(sbuf, 2, 3, MPI_INT, right, 37, MPI_COMM_WORLD, MPI_INFO_NULL, &sq));
    CHECK_MPI(MPI_Start(&rq));
    CHECK_MPI(MPI_Start(&sq));
    CHECK_MPI(MPI_Pready_range(0, 1, sq));
    CHECK_MPI(MPI_Wait(&sq, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK(r1[5] == left * 1000 + 6, "Precv_init_c got %d", r1[5]);
    CHECK_MPI(MPI_Request_free(&rq));
    CHECK_MPI(MPI_Request_free(&sq));
}

static void buffers(void)
{
    void *p;
    MPI_Count n;
    int in;
    CHECK_MPI(MPI_Buffer_detach_c(&p, &n)); /* the one p2p() attached */
    CHECK(n == (MPI_Count)sizeof space && p == space, "Buffer_detach_c: %lld bytes", (long long)n);
    CHECK_MPI(MPI_Comm_attach_buffer_c(MPI_COMM_WORLD, space, 1000));
    CHECK_MPI(MPI_Comm_detach_buffer_c(MPI_COMM_WORLD, &p, &n));
    CHECK(n == 1000 && p == space, "Comm_detach_buffer_c: %lld bytes", (long long)n);
    CHECK_MPI(MPI_Comm_attach_buffer_c(MPI_COMM_WORLD, space, 999));
    CHECK_MPI(MPI_Comm_detach_buffer(MPI_COMM_WORLD, &p, &in));
    CHECK(in == 999, "Comm_detach_buffer after _c attach: %d", in);
}

/* Two types that must be the same: size, extents, and what Pack makes of them. */
static void same_type(const char *what, MPI_Datatype a, MPI_Datatype b)
{
    MPI_Count s1, s2, lb1, lb2, e1, e2;
    int is;
    MPI_Aint alb, aext;
    CHECK_MPI(MPI_Type_commit(&a));
    CHECK_MPI(MPI_Type_commit(&b));
    CHECK_MPI(MPI_Type_size_c(a, &s1));
    CHECK_MPI(MPI_Type_size_c(b, &s2));
    CHECK_MPI(MPI_Type_size(a, &is));
    CHECK(s1 == s2 && s1 == is, "%s: sizes %lld %lld %d", what, (long long)s1, (long long)s2, is);
    CHECK_MPI(MPI_Type_get_extent_c(a, &lb1, &e1));
    CHECK_MPI(MPI_Type_get_extent_c(b, &lb2, &e2));
    CHECK_MPI(MPI_Type_get_extent(a, &alb, &aext));
    CHECK(lb1 == lb2 && e1 == e2 && lb1 == alb && e1 == aext, "%s: extents differ", what);
    CHECK_MPI(MPI_Type_get_true_extent_c(a, &lb1, &e1));
    CHECK_MPI(MPI_Type_get_true_extent_c(b, &lb2, &e2));
    CHECK_MPI(MPI_Type_get_true_extent(a, &alb, &aext));
    CHECK(lb1 == lb2 && e1 == e2 && lb1 == alb && e1 == aext, "%s: true extents differ", what);
    /* pack one element of each from a buffer big enough for any of them */
    int pos = 0;
    MPI_Count cpos = 0, psize;
    SAME(what, MPI_Pack(sbuf + 8, 1, a, r1, sizeof r1, &pos, MPI_COMM_WORLD),
         MPI_Pack_c(sbuf + 8, 1, b, r2, sizeof r2, &cpos, MPI_COMM_WORLD));
    CHECK(pos == cpos && pos == is, "%s: positions %d %lld", what, pos, (long long)cpos);
    CHECK_MPI(MPI_Pack_size_c(3, b, MPI_COMM_WORLD, &psize));
    CHECK_MPI(MPI_Pack_size(3, a, MPI_COMM_WORLD, &is));
    CHECK(psize == is, "%s: Pack_size_c %lld, Pack_size %d", what, (long long)psize, is);
    CHECK_MPI(MPI_Type_free(&a));
    CHECK_MPI(MPI_Type_free(&b));
}

static void types(void)
{
    MPI_Datatype a, b;
    int bl[3] = { 1, 2, 1 }, di[3] = { 0, 3, 7 };
    MPI_Count cbl[3] = { 1, 2, 1 }, cdi[3] = { 0, 3, 7 }, chd[3] = { 0, 12, 28 };
    MPI_Aint ahd[3] = { 0, 12, 28 };
    MPI_Datatype tys[3] = { MPI_INT, MPI_INT, MPI_INT };
    MPI_Type_contiguous(5, MPI_INT, &a), MPI_Type_contiguous_c(5, MPI_INT, &b), same_type("contiguous", a, b);
    MPI_Type_vector(3, 2, 4, MPI_INT, &a), MPI_Type_vector_c(3, 2, 4, MPI_INT, &b), same_type("vector", a, b);
    MPI_Type_create_hvector(3, 2, 20, MPI_INT, &a), MPI_Type_create_hvector_c(3, 2, 20, MPI_INT, &b);
    same_type("hvector", a, b);
    MPI_Type_indexed(3, bl, di, MPI_INT, &a), MPI_Type_indexed_c(3, cbl, cdi, MPI_INT, &b), same_type("indexed", a, b);
    MPI_Type_create_hindexed(3, bl, ahd, MPI_INT, &a), MPI_Type_create_hindexed_c(3, cbl, chd, MPI_INT, &b);
    same_type("hindexed", a, b);
    MPI_Type_create_indexed_block(3, 2, di, MPI_INT, &a), MPI_Type_create_indexed_block_c(3, 2, cdi, MPI_INT, &b);
    same_type("indexed_block", a, b);
    MPI_Type_create_hindexed_block(3, 2, ahd, MPI_INT, &a), MPI_Type_create_hindexed_block_c(3, 2, chd, MPI_INT, &b);
    same_type("hindexed_block", a, b);
    MPI_Type_create_struct(3, bl, ahd, tys, &a), MPI_Type_create_struct_c(3, cbl, chd, tys, &b);
    same_type("struct", a, b);
    int sz[2] = { 4, 5 }, sub[2] = { 2, 3 }, st[2] = { 1, 1 };
    MPI_Count csz[2] = { 4, 5 }, csub[2] = { 2, 3 }, cst[2] = { 1, 1 };
    MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_C, MPI_INT, &a);
    MPI_Type_create_subarray_c(2, csz, csub, cst, MPI_ORDER_C, MPI_INT, &b);
    same_type("subarray", a, b);
    int gs[1] = { 12 }, dist[1] = { MPI_DISTRIBUTE_BLOCK }, darg[1] = { MPI_DISTRIBUTE_DFLT_DARG }, ps[1] = { 2 };
    MPI_Count cgs[1] = { 12 };
    MPI_Type_create_darray(2, 1, 1, gs, dist, darg, ps, MPI_ORDER_C, MPI_INT, &a);
    MPI_Type_create_darray_c(2, 1, 1, cgs, dist, darg, ps, MPI_ORDER_C, MPI_INT, &b);
    same_type("darray", a, b);
    MPI_Type_create_resized(MPI_INT, -4, 12, &a), MPI_Type_create_resized_c(MPI_INT, -4, 12, &b);
    same_type("resized", a, b);

    /* the record of a _c constructor holds large counts */
    MPI_Count ni, na, nl, nd, large[3];
    int combiner, ints[1];
    MPI_Aint addrs[1];
    MPI_Datatype old[1];
    CHECK_MPI(MPI_Type_vector_c(3, 2, 4, MPI_INT, &b));
    CHECK_MPI(MPI_Type_get_envelope_c(b, &ni, &na, &nl, &nd, &combiner));
    CHECK(combiner == MPI_COMBINER_VECTOR && ni == 0 && na == 0 && nl == 3 && nd == 1,
          "vector_c envelope: %lld %lld %lld %lld", (long long)ni, (long long)na, (long long)nl, (long long)nd);
    CHECK_MPI(MPI_Type_get_contents_c(b, 0, 0, 3, 1, ints, addrs, large, old));
    CHECK(large[0] == 3 && large[1] == 2 && large[2] == 4 && old[0] == MPI_INT, "vector_c contents");
    CHECK_MPI(MPI_Type_free(&b));
    CHECK_MPI(MPI_Type_vector(3, 2, 4, MPI_INT, &a));
    CHECK_MPI(MPI_Type_get_envelope_c(a, &ni, &na, &nl, &nd, &combiner));
    CHECK(ni == 3 && nl == 0 && nd == 1, "vector envelope_c: ints %lld large %lld", (long long)ni, (long long)nl);
    CHECK_MPI(MPI_Type_free(&a));

    /* status elements */
    MPI_Status st2;
    MPI_Count c;
    int ic;
    CHECK_MPI(MPI_Status_set_elements_c(&st2, MPI_INT, 5));
    CHECK_MPI(MPI_Get_elements_c(&st2, MPI_INT, &c));
    CHECK_MPI(MPI_Get_count(&st2, MPI_INT, &ic));
    CHECK(c == 5 && ic == 5, "Status_set_elements_c: %lld %d", (long long)c, ic);
    /* more elements than an int holds: MPI_UNDEFINED in the int binding only */
    CHECK_MPI(MPI_Status_set_elements_c(&st2, MPI_BYTE, (MPI_Count)INT_MAX + 14));
    CHECK_MPI(MPI_Get_count_c(&st2, MPI_BYTE, &c));
    CHECK_MPI(MPI_Get_count(&st2, MPI_BYTE, &ic));
    CHECK(c == (MPI_Count)INT_MAX + 14 && ic == MPI_UNDEFINED, "big status: %lld %d", (long long)c, ic);
    CHECK_MPI(MPI_Get_count_c(&st2, MPI_INT, &c));
    CHECK(c == MPI_UNDEFINED, "2^31+13 bytes are no whole ints: %lld", (long long)c);
}

static void packs(void)
{
    static char pk[256], pk32[256];
    int pos = 0;
    MPI_Count cpos = 0;
    CHECK_MPI(MPI_Pack(sbuf, 9, MPI_INT, pk, sizeof pk, &pos, MPI_COMM_WORLD));
    pos = 0;
    SAME("Unpack", MPI_Unpack(pk, 100, &pos, r1, 9, MPI_INT, MPI_COMM_WORLD),
         MPI_Unpack_c(pk, 100, &cpos, r2, 9, MPI_INT, MPI_COMM_WORLD));
    CHECK(pos == cpos && cpos == 36 && r2[8] == sbuf[8], "Unpack_c position %lld", (long long)cpos);
    MPI_Aint apos = 0, asz;
    MPI_Count csz;
    cpos = 0;
    SAME("Pack_external", MPI_Pack_external("external32", sbuf, 7, MPI_INT, r1, 100, &apos),
         MPI_Pack_external_c("external32", sbuf, 7, MPI_INT, r2, 100, &cpos));
    CHECK(apos == cpos && apos == 28, "Pack_external_c position %lld", (long long)cpos);
    memcpy(pk32, r2, 28);
    apos = 0;
    cpos = 0;
    SAME("Unpack_external", MPI_Unpack_external("external32", pk32, 28, &apos, r1, 7, MPI_INT),
         MPI_Unpack_external_c("external32", pk32, 28, &cpos, r2, 7, MPI_INT));
    CHECK(apos == cpos && r2[6] == sbuf[6], "Unpack_external_c: %d", r2[6]);
    CHECK_MPI(MPI_Pack_external_size("external32", 7, MPI_INT, &asz));
    CHECK_MPI(MPI_Pack_external_size_c("external32", 7, MPI_INT, &csz));
    CHECK(asz == csz, "Pack_external_size_c %lld", (long long)csz);
    /* Reduce_local and a large-count user op */
    MPI_Op op, op_int;
    CHECK_MPI(MPI_Op_create_c(user_sum_c, 1, &op));
    CHECK_MPI(MPI_Op_create(user_sum, 1, &op_int));
    SAME("Reduce_local", (memcpy(r1, sbuf, sizeof r1), MPI_Reduce_local(sbuf, r1, N, MPI_INT, MPI_SUM)),
         (memcpy(r2, sbuf, sizeof r2), MPI_Reduce_local_c(sbuf, r2, N, MPI_INT, MPI_SUM)));
    SAME("Reduce_local user", (memcpy(r1, sbuf, sizeof r1), MPI_Reduce_local(sbuf, r1, N, MPI_INT, op_int)),
         (memcpy(r2, sbuf, sizeof r2), MPI_Reduce_local_c(sbuf, r2, N, MPI_INT, op)));
    SAME("Allreduce user_c", MPI_Allreduce(sbuf, r1, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
         MPI_Allreduce_c(sbuf, r2, N, MPI_INT, op, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Op_free(&op));
    CHECK_MPI(MPI_Op_free(&op_int));
}

static void colls(MPI_Comm cart)
{
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Request q;
    int root = size - 1;
    int cnt[MAXP], dsp[MAXP];
    MPI_Count ccnt[MAXP];
    MPI_Aint adsp[MAXP], bdsp[MAXP];
    int ibdsp[MAXP];
    MPI_Datatype ty[MAXP];
    for (int i = 0; i < MAXP; i++) {
        cnt[i] = ccnt[i] = 2;
        dsp[i] = adsp[i] = 3 * i;
        bdsp[i] = ibdsp[i] = 12 * i;
        ty[i] = MPI_INT;
    }
    /* rooted and uniform */
    SAME("Bcast", (memcpy(r1, sbuf, sizeof r1), MPI_Bcast(r1, N, MPI_INT, root, w)),
         (memcpy(r2, sbuf, sizeof r2), MPI_Bcast_c(r2, N, MPI_INT, root, w)));
    SAME("Ibcast", (memcpy(r1, sbuf, sizeof r1), waited(MPI_Ibcast(r1, N, MPI_INT, root, w, &q), &q)),
         (memcpy(r2, sbuf, sizeof r2), waited(MPI_Ibcast_c(r2, N, MPI_INT, root, w, &q), &q)));
    SAME("Bcast_init", (memcpy(r1, sbuf, sizeof r1), started(MPI_Bcast_init(r1, N, MPI_INT, root, w, MPI_INFO_NULL, &q), &q)),
         (memcpy(r2, sbuf, sizeof r2), started(MPI_Bcast_init_c(r2, N, MPI_INT, root, w, MPI_INFO_NULL, &q), &q)));
#define G2(name, iname, ...)                                                                                  \
    SAME(#name, MPI_##name(sbuf, 2, MPI_INT, r1, 2, MPI_INT, __VA_ARGS__),                            \
         MPI_##name##_c(sbuf, 2, MPI_INT, r2, 2, MPI_INT, __VA_ARGS__));                              \
    SAME(#iname, waited(MPI_##iname(sbuf, 2, MPI_INT, r1, 2, MPI_INT, __VA_ARGS__, &q), &q),       \
         waited(MPI_##iname##_c(sbuf, 2, MPI_INT, r2, 2, MPI_INT, __VA_ARGS__, &q), &q));             \
    SAME(#name "_init", started(MPI_##name##_init(sbuf, 2, MPI_INT, r1, 2, MPI_INT, __VA_ARGS__, MPI_INFO_NULL, &q), &q), \
         started(MPI_##name##_init_c(sbuf, 2, MPI_INT, r2, 2, MPI_INT, __VA_ARGS__, MPI_INFO_NULL, &q), &q))
    G2(Gather, Igather, root, w);
    G2(Scatter, Iscatter, root, w);
    G2(Allgather, Iallgather, w);
    G2(Alltoall, Ialltoall, w);
#undef G2
#define RED(name, iname, ...)                                                                                 \
    SAME(#name, MPI_##name(sbuf, r1, N, MPI_INT, MPI_SUM, __VA_ARGS__),                               \
         MPI_##name##_c(sbuf, r2, N, MPI_INT, MPI_SUM, __VA_ARGS__));                                 \
    SAME(#iname, waited(MPI_##iname(sbuf, r1, N, MPI_INT, MPI_SUM, __VA_ARGS__, &q), &q),          \
         waited(MPI_##iname##_c(sbuf, r2, N, MPI_INT, MPI_SUM, __VA_ARGS__, &q), &q));                \
    SAME(#name "_init", started(MPI_##name##_init(sbuf, r1, N, MPI_INT, MPI_SUM, __VA_ARGS__, MPI_INFO_NULL, &q), &q), \
         started(MPI_##name##_init_c(sbuf, r2, N, MPI_INT, MPI_SUM, __VA_ARGS__, MPI_INFO_NULL, &q), &q))
    RED(Reduce, Ireduce, root, w);
    RED(Allreduce, Iallreduce, w);
    RED(Scan, Iscan, w);
    RED(Exscan, Iexscan, w);
    /* the calls above do write: the last (Exscan_init) on rank 1 holds rank 0's data */
    CHECK(rank != 1 || r2[0] == sbuf[0] - 1000, "Exscan_init_c wrote %d", r2[0]);
#undef RED
    /* reduce-scatter: 2 each */
    SAME("Reduce_scatter_block", MPI_Reduce_scatter_block(sbuf, r1, 2, MPI_INT, MPI_SUM, w),
         MPI_Reduce_scatter_block_c(sbuf, r2, 2, MPI_INT, MPI_SUM, w));
    SAME("Ireduce_scatter_block", waited(MPI_Ireduce_scatter_block(sbuf, r1, 2, MPI_INT, MPI_SUM, w, &q), &q),
         waited(MPI_Ireduce_scatter_block_c(sbuf, r2, 2, MPI_INT, MPI_SUM, w, &q), &q));
    SAME("Reduce_scatter_block_init", started(MPI_Reduce_scatter_block_init(sbuf, r1, 2, MPI_INT, MPI_SUM, w, MPI_INFO_NULL, &q), &q),
         started(MPI_Reduce_scatter_block_init_c(sbuf, r2, 2, MPI_INT, MPI_SUM, w, MPI_INFO_NULL, &q), &q));
    SAME("Reduce_scatter", MPI_Reduce_scatter(sbuf, r1, cnt, MPI_INT, MPI_SUM, w),
         MPI_Reduce_scatter_c(sbuf, r2, ccnt, MPI_INT, MPI_SUM, w));
    SAME("Ireduce_scatter", waited(MPI_Ireduce_scatter(sbuf, r1, cnt, MPI_INT, MPI_SUM, w, &q), &q),
         waited(MPI_Ireduce_scatter_c(sbuf, r2, ccnt, MPI_INT, MPI_SUM, w, &q), &q));
    SAME("Reduce_scatter_init", started(MPI_Reduce_scatter_init(sbuf, r1, cnt, MPI_INT, MPI_SUM, w, MPI_INFO_NULL, &q), &q),
         started(MPI_Reduce_scatter_init_c(sbuf, r2, ccnt, MPI_INT, MPI_SUM, w, MPI_INFO_NULL, &q), &q));
    /* v and w */
#define GV(name, iname, ...)                                                                             \
    SAME(#name, MPI_##name(sbuf, 2, MPI_INT, r1, cnt, dsp, MPI_INT, __VA_ARGS__),                     \
         MPI_##name##_c(sbuf, 2, MPI_INT, r2, ccnt, adsp, MPI_INT, __VA_ARGS__));                     \
    SAME(#iname, waited(MPI_##iname(sbuf, 2, MPI_INT, r1, cnt, dsp, MPI_INT, __VA_ARGS__, &q), &q), \
         waited(MPI_##iname##_c(sbuf, 2, MPI_INT, r2, ccnt, adsp, MPI_INT, __VA_ARGS__, &q), &q)); \
    SAME(#name "_init", started(MPI_##name##_init(sbuf, 2, MPI_INT, r1, cnt, dsp, MPI_INT, __VA_ARGS__, MPI_INFO_NULL, &q), &q), \
         started(MPI_##name##_init_c(sbuf, 2, MPI_INT, r2, ccnt, adsp, MPI_INT, __VA_ARGS__, MPI_INFO_NULL, &q), &q))
    GV(Gatherv, Igatherv, root, w);
    GV(Allgatherv, Iallgatherv, w);
    GV(Neighbor_allgatherv, Ineighbor_allgatherv, cart);
    SAME("Scatterv", MPI_Scatterv(sbuf, cnt, dsp, MPI_INT, r1, 2, MPI_INT, root, w),
         MPI_Scatterv_c(sbuf, ccnt, adsp, MPI_INT, r2, 2, MPI_INT, root, w));
    SAME("Iscatterv", waited(MPI_Iscatterv(sbuf, cnt, dsp, MPI_INT, r1, 2, MPI_INT, root, w, &q), &q),
         waited(MPI_Iscatterv_c(sbuf, ccnt, adsp, MPI_INT, r2, 2, MPI_INT, root, w, &q), &q));
    SAME("Scatterv_init", started(MPI_Scatterv_init(sbuf, cnt, dsp, MPI_INT, r1, 2, MPI_INT, root, w, MPI_INFO_NULL, &q), &q),
         started(MPI_Scatterv_init_c(sbuf, ccnt, adsp, MPI_INT, r2, 2, MPI_INT, root, w, MPI_INFO_NULL, &q), &q));
#define AV(name, iname, c)                                                                               \
    SAME(#name, MPI_##name(sbuf, cnt, dsp, MPI_INT, r1, cnt, dsp, MPI_INT, c),                        \
         MPI_##name##_c(sbuf, ccnt, adsp, MPI_INT, r2, ccnt, adsp, MPI_INT, c));                      \
    SAME(#iname, waited(MPI_##iname(sbuf, cnt, dsp, MPI_INT, r1, cnt, dsp, MPI_INT, c, &q), &q), \
         waited(MPI_##iname##_c(sbuf, ccnt, adsp, MPI_INT, r2, ccnt, adsp, MPI_INT, c, &q), &q)); \
    SAME(#name "_init", started(MPI_##name##_init(sbuf, cnt, dsp, MPI_INT, r1, cnt, dsp, MPI_INT, c, MPI_INFO_NULL, &q), &q), \
         started(MPI_##name##_init_c(sbuf, ccnt, adsp, MPI_INT, r2, ccnt, adsp, MPI_INT, c, MPI_INFO_NULL, &q), &q))
    AV(Alltoallv, Ialltoallv, w);
    AV(Neighbor_alltoallv, Ineighbor_alltoallv, cart);
#define AW(name, iname, c, idsp)                                                                         \
    SAME(#name, MPI_##name(sbuf, cnt, idsp, ty, r1, cnt, idsp, ty, c),                                \
         MPI_##name##_c(sbuf, ccnt, bdsp, ty, r2, ccnt, bdsp, ty, c));                                \
    SAME(#iname, waited(MPI_##iname(sbuf, cnt, idsp, ty, r1, cnt, idsp, ty, c, &q), &q),       \
         waited(MPI_##iname##_c(sbuf, ccnt, bdsp, ty, r2, ccnt, bdsp, ty, c, &q), &q));           \
    SAME(#name "_init", started(MPI_##name##_init(sbuf, cnt, idsp, ty, r1, cnt, idsp, ty, c, MPI_INFO_NULL, &q), &q), \
         started(MPI_##name##_init_c(sbuf, ccnt, bdsp, ty, r2, ccnt, bdsp, ty, c, MPI_INFO_NULL, &q), &q))
    AW(Alltoallw, Ialltoallw, w, ibdsp);
    AW(Neighbor_alltoallw, Ineighbor_alltoallw, cart, bdsp);
    /* neighbourhood uniform */
#define NG(name, iname)                                                                                       \
    SAME(#name, MPI_##name(sbuf, 2, MPI_INT, r1, 2, MPI_INT, cart),                                   \
         MPI_##name##_c(sbuf, 2, MPI_INT, r2, 2, MPI_INT, cart));                                     \
    SAME(#iname, waited(MPI_##iname(sbuf, 2, MPI_INT, r1, 2, MPI_INT, cart, &q), &q),              \
         waited(MPI_##iname##_c(sbuf, 2, MPI_INT, r2, 2, MPI_INT, cart, &q), &q));                    \
    SAME(#name "_init", started(MPI_##name##_init(sbuf, 2, MPI_INT, r1, 2, MPI_INT, cart, MPI_INFO_NULL, &q), &q), \
         started(MPI_##name##_init_c(sbuf, 2, MPI_INT, r2, 2, MPI_INT, cart, MPI_INFO_NULL, &q), &q))
    NG(Neighbor_allgather, Ineighbor_allgather);
    NG(Neighbor_alltoall, Ineighbor_alltoall);
}

/* Counts above INT_MAX of an empty type: the wrappers' large path (a
 * temporary contiguous type, kept alive across nonblocking collectives)
 * without the memory; large_counts_big moves real bytes. */
static void empty_big(void)
{
    const MPI_Count big = (MPI_Count)INT_MAX + 5;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Datatype e;
    MPI_Request q[2];
    MPI_Status st;
    MPI_Count n, cnt[MAXP];
    MPI_Aint dsp[MAXP];
    MPI_Datatype ty[MAXP];
    CHECK_MPI(MPI_Type_contiguous(0, MPI_INT, &e));
    CHECK_MPI(MPI_Type_commit(&e));
    for (int i = 0; i < MAXP; i++)
        cnt[i] = big, dsp[i] = 0, ty[i] = e;
    CHECK_MPI(MPI_Irecv_c(r1, big, e, left, 50, MPI_COMM_WORLD, &q[0]));
    CHECK_MPI(MPI_Isend_c(sbuf, big, e, right, 50, MPI_COMM_WORLD, &q[1]));
    CHECK_MPI(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
    CHECK_MPI(MPI_Sendrecv_c(sbuf, big, e, right, 51, r1, big, e, left, 51, MPI_COMM_WORLD, &st));
    CHECK_MPI(MPI_Get_count_c(&st, e, &n));
    CHECK(n == 0, "Get_count_c of an empty type: %lld", (long long)n);
    CHECK_MPI(waited(MPI_Ibcast_c(r1, big, e, 0, MPI_COMM_WORLD, &q[0]), &q[0]));
    CHECK_MPI(waited(MPI_Iallgather_c(sbuf, big, e, r1, big, e, MPI_COMM_WORLD, &q[0]), &q[0]));
    CHECK_MPI(MPI_Gather_c(sbuf, big, e, r1, big, e, 0, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Alltoallw_c(sbuf, cnt, dsp, ty, r1, cnt, dsp, ty, MPI_COMM_WORLD));
    CHECK_MPI(waited(MPI_Ialltoallw_c(sbuf, cnt, dsp, ty, r1, cnt, dsp, ty, MPI_COMM_WORLD, &q[0]), &q[0]));
    CHECK_MPI(MPI_Type_free(&e));
}

/* Bad counts: the class, and a message naming the call and the argument. */
static void errors(void)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len, cls;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
#define BAD(call, name, arg)                                                                           \
    do {                                                                                               \
        int rc_ = (call);                                                                              \
        CHECK(rc_ != MPI_SUCCESS, "%s accepted a bad count", name);                                   \
        MPI_Error_class(rc_, &cls);                                                                    \
        MPI_Error_string(rc_, msg, &len);                                                              \
        CHECK(cls == MPI_ERR_COUNT && strstr(msg, name) && strstr(msg, arg),                           \
              "%s: class %d, message \"%s\"", name, cls, msg);                                         \
    } while (0)
    MPI_Request q;
    MPI_Datatype t;
    MPI_Count big[MAXP];
    for (int i = 0; i < MAXP; i++)
        big[i] = i == size - 1 ? (MPI_Count)INT_MAX + 1 : 1;
    BAD(MPI_Send_c(sbuf, -1, MPI_INT, 0, 0, MPI_COMM_WORLD), "MPI_Send_c", "count");
    BAD(MPI_Irecv_c(r1, -5, MPI_INT, 0, 0, MPI_COMM_WORLD, &q), "MPI_Irecv_c", "count");
    BAD(MPI_Sendrecv_c(sbuf, 1, MPI_INT, 0, 0, r1, -2, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
        "MPI_Sendrecv_c", "recvcount");
    BAD(MPI_Allreduce_c(sbuf, r1, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce_c", "count");
    BAD(MPI_Iallgather_c(sbuf, -3, MPI_INT, r1, 1, MPI_INT, MPI_COMM_WORLD, &q), "MPI_Iallgather_c", "sendcount");
    BAD(MPI_Allgatherv_c(sbuf, 1, MPI_INT, r1, big, adsp_zero(), MPI_INT, MPI_COMM_WORLD), "MPI_Allgatherv_c",
        "recvcounts[");
    BAD(MPI_Type_contiguous_c(-1, MPI_INT, &t), "MPI_Type_contiguous_c", "count");
    BAD(MPI_Type_indexed_c(1, big + size - 1, big, MPI_INT, &t), "MPI_Type_indexed_c", "array_of_blocklengths[0]");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size <= MAXP, "at most %d ranks", MAXP);
    fill();
    CHECK_MPI(MPI_Buffer_attach_c(space, sizeof space));
    p2p();
    buffers();
    types();
    packs();
    MPI_Comm cart;
    int dims[1] = { size }, per[1] = { 1 };
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, per, 0, &cart));
    colls(cart);
    MPI_Comm_free(&cart);
    empty_big();
    errors();
    MPI_Barrier(MPI_COMM_WORLD);
    return check_done("large_counts");
}
