/*
 * mismatch_agree.c -- no false alarms from the default argument check
 * (docs/collectives.md, "Mismatched arguments"): correct programs whose
 * ranks pass different datatypes with equal type signatures, MPI_PACKED
 * against typed data, MPI_BYTE on every rank, and calls that move no data
 * with unrelated types, succeed and deliver the right data at every size.
 *
 * usage: mismatch_agree [CASE...]   (every case without arguments)
 *
 * MPI 4.1, 3.3.1: the types of a send and a receive match when they name the
 * same basic types in the same order (a derived type counts by its
 * signature); MPI_PACKED matches any type; MPI_BYTE matches only MPI_BYTE
 * (a 4 MPI_INT against 16 MPI_BYTE program is erroneous: tests/coll/
 * mismatch.c, bcast_int_byte).  An empty signature matches any.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 4

static int rank, size, failures;
static MPI_Datatype contig4, pair2;     /* 1 x contiguous(4 INT); 2 x MPI_2INT: both 4 MPI_INT */

static void expect(const char *name, const int *got, int n, int base)
{
    for (int i = 0; i < n; i++)
        if (got[i] != base + i) {
            printf("rank %d: %s: element %d is %d, expected %d\n", rank, name, i, got[i], base + i);
            failures++;
            return;
        }
}

static void ok(const char *name, int rc)
{
    if (rc == MPI_SUCCESS)
        return;
    char text[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(rc, text, &len);
    printf("rank %d: %s: false error: %s\n", rank, name, text);
    failures++;
}

/* 4 MPI_INT as this rank describes them: variant 0 plain, 1 contiguous, 2 pairs. */
static void shape(int variant, int *count, MPI_Datatype *dt)
{
    *count = variant == 0 ? N : variant == 1 ? 1 : N / 2;
    *dt = variant == 0 ? MPI_INT : variant == 1 ? contig4 : pair2;
}

static void c_bcast_shapes(MPI_Comm comm)
{
    for (int root = 0; root < size; root++) {
        int b[N], count;
        MPI_Datatype dt;
        for (int i = 0; i < N; i++)
            b[i] = rank == root ? 100 * root + i : -1;
        shape((rank + root) % 3, &count, &dt);
        ok("bcast_shapes", MPI_Bcast(b, count, dt, root, comm));
        expect("bcast_shapes", b, N, 100 * root);
    }
}

/* The root packs, the others receive typed; then the other way round. */
static void c_bcast_packed(MPI_Comm comm)
{
    int b[N], pos = 0, psize;
    char packed[64];
    MPI_Pack_size(N, MPI_INT, comm, &psize);
    for (int i = 0; i < N; i++)
        b[i] = rank == 0 ? 50 + i : -1;
    if (rank == 0) {
        MPI_Pack(b, N, MPI_INT, packed, sizeof packed, &pos, comm);
        ok("bcast_packed", MPI_Bcast(packed, pos, MPI_PACKED, 0, comm));
    } else {
        ok("bcast_packed", MPI_Bcast(b, N, MPI_INT, 0, comm));
        expect("bcast_packed", b, N, 50);
    }
    for (int i = 0; i < N; i++)
        b[i] = rank == 0 ? 70 + i : -1;
    if (rank == 0) {
        ok("bcast_packed", MPI_Bcast(b, N, MPI_INT, 0, comm));
    } else {
        ok("bcast_packed", MPI_Bcast(packed, psize, MPI_PACKED, 0, comm));
        pos = 0;
        MPI_Unpack(packed, psize, &pos, b, N, MPI_INT, comm);
        expect("bcast_packed", b, N, 70);
    }
}

static void c_bcast_byte(MPI_Comm comm)
{
    int b[N];
    for (int i = 0; i < N; i++)
        b[i] = rank == size - 1 ? 30 + i : -1;
    ok("bcast_byte", MPI_Bcast(b, (int)sizeof b, MPI_BYTE, size - 1, comm));
    expect("bcast_byte", b, N, 30);
}

static void c_gather_scatter_shapes(MPI_Comm comm)
{
    int mine[N], *all = malloc(sizeof(int) * N * (size_t)size), count, rcount;
    MPI_Datatype dt, rdt;
    for (int i = 0; i < N; i++)
        mine[i] = 10 * rank + i;
    shape(rank % 3, &count, &dt);
    shape((rank + 1) % 3, &rcount, &rdt);
    ok("gather_shapes", MPI_Gather(mine, count, dt, all, rcount, rdt, 0, comm));
    for (int r = 0; rank == 0 && r < size; r++)
        expect("gather_shapes", all + N * r, N, 10 * r);
    for (int r = 0; rank == 0 && r < size; r++)
        for (int i = 0; i < N; i++)
            all[N * r + i] = 20 * r + i;
    memset(mine, 0xff, sizeof mine);
    ok("scatter_shapes", MPI_Scatter(all, rcount, rdt, mine, count, dt, 0, comm));
    expect("scatter_shapes", mine, N, 20 * rank);
    free(all);
}

static void c_allgather_alltoall_shapes(MPI_Comm comm)
{
    int *s = malloc(sizeof(int) * N * (size_t)size), *r = malloc(sizeof(int) * N * (size_t)size), count, rcount;
    MPI_Datatype dt, rdt;
    shape(rank % 3, &count, &dt);
    shape((rank + 2) % 3, &rcount, &rdt);
    for (int i = 0; i < N; i++)
        s[i] = 10 * rank + i;
    ok("allgather_shapes", MPI_Allgather(s, count, dt, r, rcount, rdt, comm));
    for (int j = 0; j < size; j++)
        expect("allgather_shapes", r + N * j, N, 10 * j);
    for (int j = 0; j < size; j++)
        for (int i = 0; i < N; i++)
            s[N * j + i] = 1000 * rank + 10 * j + i;
    ok("alltoall_shapes", MPI_Alltoall(s, count, dt, r, rcount, rdt, comm));
    for (int j = 0; j < size; j++)
        expect("alltoall_shapes", r + N * j, N, 1000 * j + 10 * rank);
    free(s), free(r);
}

/* Calls that move nothing: any types (an empty signature matches any). */
static void c_empty_any_type(MPI_Comm comm)
{
    MPI_Datatype t = rank % 2 ? MPI_FLOAT : MPI_INT;
    int x = 0, *counts = calloc((size_t)size, sizeof(int)), *displs = calloc((size_t)size, sizeof(int));
    ok("empty_gather", MPI_Gather(&x, 0, t, &x, 0, t, 0, comm));
    ok("empty_scatter", MPI_Scatter(&x, 0, t, &x, 0, t, 0, comm));
    ok("empty_alltoall", MPI_Alltoall(&x, 0, t, &x, 0, t, comm));
    ok("empty_allgatherv", MPI_Allgatherv(&x, 0, t, &x, counts, displs, t, comm));
    ok("empty_gatherv", MPI_Gatherv(&x, 0, t, &x, counts, displs, t, 0, comm));
    ok("empty_scatterv", MPI_Scatterv(&x, counts, displs, t, &x, 0, t, 0, comm));
    /* Issue 32 item 2: a count of 0 no longer returns at once (every rank
     * meets the others, whose words it compares): empty calls on every
     * rank, any type or MPI_PACKED, NULL buffers, every root, must still
     * pass, and the reductions with one datatype everywhere. */
    for (int root = 0; root < size; root++) {
        ok("empty_bcast", MPI_Bcast(NULL, 0, root == rank ? MPI_PACKED : t, root, comm));
        ok("empty_gather_root", MPI_Gather(NULL, 0, t, NULL, 0, MPI_PACKED, root, comm));
        ok("empty_scatter_root", MPI_Scatter(NULL, 0, MPI_PACKED, NULL, 0, t, root, comm));
        ok("empty_reduce", MPI_Reduce(NULL, NULL, 0, MPI_INT, MPI_SUM, root, comm));
    }
    ok("empty_allgather", MPI_Allgather(&x, 0, t, &x, 0, t, comm));
    ok("empty_allreduce", MPI_Allreduce(NULL, NULL, 0, MPI_INT, MPI_SUM, comm));
    ok("empty_allreduce_in_place", MPI_Allreduce(MPI_IN_PLACE, NULL, 0, MPI_DOUBLE, MPI_MAX, comm));
    ok("empty_scan", MPI_Scan(NULL, NULL, 0, MPI_INT, MPI_SUM, comm));
    ok("empty_exscan", MPI_Exscan(NULL, NULL, 0, MPI_INT, MPI_SUM, comm));
    ok("empty_rsb", MPI_Reduce_scatter_block(NULL, NULL, 0, MPI_INT, MPI_SUM, comm));
    ok("empty_reduce_scatter", MPI_Reduce_scatter(NULL, NULL, counts, MPI_INT, MPI_SUM, comm));
    int one = rank + 1, sum = 0;
    ok("after_empty", MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm));
    if (sum != size * (size + 1) / 2) {
        printf("rank %d: after the empty calls an allreduce gave %d\n", rank, sum);
        failures++;
    }
    free(counts), free(displs);
}

/* v forms: ranks that send nothing may name any type; rank 1 sends nothing. */
static void c_v_zero_senders(MPI_Comm comm)
{
    int *counts = calloc((size_t)size, sizeof(int)), *displs = calloc((size_t)size, sizeof(int));
    int *all = calloc((size_t)size * N, sizeof(int)), mine[N];
    for (int r = 0; r < size; r++)
        counts[r] = r == 1 ? 0 : N, displs[r] = N * r;
    for (int i = 0; i < N; i++)
        mine[i] = 10 * rank + i;
    int zero = rank == 1;
    MPI_Datatype t = zero ? MPI_DOUBLE : MPI_INT;
    ok("gatherv_zero", MPI_Gatherv(mine, zero ? 0 : N, t, all, counts, displs, MPI_INT, 0, comm));
    for (int r = 0; rank == 0 && r < size; r++)
        if (r != 1)
            expect("gatherv_zero", all + N * r, N, 10 * r);
    ok("allgatherv_zero", MPI_Allgatherv(mine, zero ? 0 : N, t, all, counts, displs, MPI_INT, comm));
    for (int r = 0; r < size; r++)
        if (r != 1)
            expect("allgatherv_zero", all + N * r, N, 10 * r);
    memset(mine, 0xff, sizeof mine);
    for (int r = 0; r < size; r++)
        for (int i = 0; i < N; i++)
            all[N * r + i] = 20 * r + i;
    ok("scatterv_zero", MPI_Scatterv(all, counts, displs, MPI_INT, mine, zero ? 0 : N, t, 0, comm));
    if (!zero)
        expect("scatterv_zero", mine, N, 20 * rank);
    free(counts), free(displs), free(all);
}

/* Alltoallv where each rank exchanges with itself only, in a type of its own. */
static void c_alltoallv_self(MPI_Comm comm)
{
    int *sc = calloc((size_t)size, sizeof(int)), *d = calloc((size_t)size, sizeof(int)), s[N], r[N];
    sc[rank] = N;
    for (int i = 0; i < N; i++)
        s[i] = 10 * rank + i, r[i] = -1;
    MPI_Datatype t = rank % 2 ? MPI_FLOAT : MPI_INT;     /* 4-byte either way: copied bit for bit */
    ok("alltoallv_self", MPI_Alltoallv(s, sc, d, t, r, sc, d, t, comm));
    expect("alltoallv_self", r, N, 10 * rank);
    free(sc), free(d);
}

/* MPI_PACKED against typed data where the FIFO entries and the alltoallv/w
 * slot headers carry the whole class (issue 32 item 2): gather, scatter
 * and their v forms with the root's side as MPI_PACKED bytes, alltoallw
 * with every block from rank 0 received as MPI_PACKED; and an alltoallw
 * whose blocks have a class per receiver (MPI_FLOAT to odd ranks, MPI_INT
 * to even ones), each pair agreeing.  `ints` per block: 4 takes the FIFOs
 * and the 2-rank tiny pair, 200 the slots' rounds. */
static void packed_classes(MPI_Comm comm, int ints)
{
    int bytes = ints * (int)sizeof(int), *s = malloc((size_t)size * (size_t)bytes);
    int *r = malloc((size_t)size * (size_t)bytes), *cnt = malloc(4 * (size_t)size * sizeof(int));
    int *bcnt = cnt + size, *dsp = cnt + 2 * size, *bdsp = cnt + 3 * size;
    MPI_Datatype *st = malloc(2 * (size_t)size * sizeof(MPI_Datatype)), *rt = st + size;
    for (int j = 0; j < size; j++)
        cnt[j] = ints, bcnt[j] = bytes, dsp[j] = ints * j, bdsp[j] = bytes * j;
    for (int i = 0; i < size * ints; i++)
        s[i] = 100 * rank + i;
    int root = rank == 0;
    ok("gather_packed", MPI_Gather(root ? MPI_IN_PLACE : s, ints, MPI_INT, root ? s : r, root ? bytes : 0,
                                   MPI_PACKED, 0, comm));
    for (int j = 1; root && j < size; j++)
        expect("gather_packed", s + ints * j, ints, 100 * j);
    ok("gatherv_packed", MPI_Gatherv(root ? MPI_IN_PLACE : s, ints, MPI_INT, s, bcnt, bdsp, MPI_PACKED, 0, comm));
    for (int i = 0; i < size * ints; i++)
        s[i] = 100 * rank + i;
    ok("scatter_packed", MPI_Scatter(s, root ? bytes : 0, MPI_PACKED, root ? MPI_IN_PLACE : r, ints, MPI_INT, 0,
                                     comm));
    if (!root)
        expect("scatter_packed", r, ints, ints * rank);
    ok("scatterv_packed", MPI_Scatterv(s, bcnt, bdsp, MPI_PACKED, root ? MPI_IN_PLACE : r, ints, MPI_INT, 0, comm));
    if (!root)
        expect("scatterv_packed", r, ints, ints * rank);
    for (int j = 0; j < size; j++) {
        st[j] = MPI_INT;
        rt[j] = j == 0 && !root ? MPI_PACKED : MPI_INT;
        cnt[j] = rt[j] == MPI_PACKED ? bytes : ints;
        bdsp[j] = bytes * j;
    }
    int *scnt = bcnt;
    for (int j = 0; j < size; j++)
        scnt[j] = ints;
    ok("alltoallw_packed", MPI_Alltoallw(s, scnt, bdsp, st, r, cnt, bdsp, rt, comm));
    for (int j = 0; j < size; j++)
        expect("alltoallw_packed", r + ints * j, ints, 100 * j + ints * rank);
    for (int j = 0; j < size; j++) {
        st[j] = j % 2 ? MPI_FLOAT : MPI_INT;       /* 4 bytes either way: copied bit for bit */
        rt[j] = rank % 2 ? MPI_FLOAT : MPI_INT;
        cnt[j] = ints;
    }
    ok("alltoallw_class_per_peer", MPI_Alltoallw(s, scnt, bdsp, st, r, cnt, bdsp, rt, comm));
    for (int j = 0; j < size; j++)
        expect("alltoallw_class_per_peer", r + ints * j, ints, 100 * j + ints * rank);
    free(s), free(r), free(cnt), free(st);
}
static void c_packed_classes(MPI_Comm comm)
{
    packed_classes(comm, 4);
    packed_classes(comm, 200);
}

/* The nonblocking and persistent calls carry the same words (issue 32
 * item 2 b): signature-equal shapes and packed data pass there too. */
static void c_nonblocking_shapes(MPI_Comm comm)
{
    int b[N], count, *all = malloc(sizeof(int) * N * (size_t)size);
    MPI_Datatype dt;
    MPI_Request req;
    for (int root = 0; root < size; root++) {
        for (int i = 0; i < N; i++)
            b[i] = rank == root ? 100 * root + i : -1;
        shape((rank + root) % 3, &count, &dt);
        ok("ibcast_shapes", MPI_Ibcast(b, count, dt, root, comm, &req));
        ok("ibcast_shapes", MPI_Wait(&req, MPI_STATUS_IGNORE));
        expect("ibcast_shapes", b, N, 100 * root);
    }
    for (int i = 0; i < N; i++)
        b[i] = 10 * rank + i;
    int rcount;
    MPI_Datatype rdt;
    shape(rank % 3, &count, &dt);
    shape((rank + 1) % 3, &rcount, &rdt);
    ok("iallgather_shapes", MPI_Iallgather(b, count, dt, all, rcount, rdt, comm, &req));
    ok("iallgather_shapes", MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int r = 0; r < size; r++)
        expect("iallgather_shapes", all + N * r, N, 10 * r);
    ok("igather_shapes", MPI_Igather(b, count, dt, all, rcount, rdt, size - 1, comm, &req));
    ok("igather_shapes", MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int r = 0; rank == size - 1 && r < size; r++)
        expect("igather_shapes", all + N * r, N, 10 * r);
    for (int i = 0; i < N; i++)
        b[i] = rank == 0 ? 40 + i : -1;
    char packed[64];
    int pos = 0;
    if (rank == 0)
        MPI_Pack(b, N, MPI_INT, packed, sizeof packed, &pos, comm);
    ok("ibcast_packed", rank == 0 ? MPI_Ibcast(packed, pos, MPI_PACKED, 0, comm, &req)
                                  : MPI_Ibcast(b, N, MPI_INT, 0, comm, &req));
    ok("ibcast_packed", MPI_Wait(&req, MPI_STATUS_IGNORE));
    expect("ibcast_packed", b, N, 40);
    ok("bcast_init_shapes", MPI_Bcast_init(b, count, dt, 0, comm, MPI_INFO_NULL, &req));
    for (int rep = 0; rep < 2; rep++) {
        ok("bcast_init_shapes", MPI_Start(&req));
        ok("bcast_init_shapes", MPI_Wait(&req, MPI_STATUS_IGNORE));
        expect("bcast_init_shapes", b, N, 40);
    }
    MPI_Request_free(&req);
    free(all);
}

/* Wait for req after the call that made it (rc). */
static void done(const char *name, int rc, MPI_Request *req)
{
    ok(name, rc);
    if (rc == MPI_SUCCESS)
        ok(name, MPI_Wait(req, MPI_STATUS_IGNORE));
}

/* The v and w forms, scan, exscan and reduce_scatter on their schedules
 * (issue 32 item 2): each message's size is compared with its receive's,
 * the word's class with the receiver's; signature-equal shapes, zero-count
 * ranks naming other types, and a self-only exchange in a type of its own
 * must pass. */
static void c_nonblocking_v_shapes(MPI_Comm comm)
{
    int *counts = calloc((size_t)size, sizeof(int)), *displs = calloc((size_t)size, sizeof(int));
    int *bdispls = calloc((size_t)size, sizeof(int)), *all = calloc((size_t)size * N, sizeof(int)), mine[N];
    MPI_Datatype *types = calloc((size_t)size, sizeof(MPI_Datatype));
    MPI_Request req;
    int count, zero = rank == 1;
    MPI_Datatype dt;
    for (int r = 0; r < size; r++)
        counts[r] = r == 1 ? 0 : N, displs[r] = N * r, bdispls[r] = (int)sizeof(int) * N * r, types[r] = MPI_INT;
    for (int i = 0; i < N; i++)
        mine[i] = 10 * rank + i;
    shape(rank % 3, &count, &dt);
    MPI_Datatype t = zero ? MPI_DOUBLE : dt;
    done("igatherv_zero", MPI_Igatherv(mine, zero ? 0 : count, t, all, counts, displs, MPI_INT, 0, comm, &req), &req);
    for (int r = 0; rank == 0 && r < size; r++)
        if (r != 1)
            expect("igatherv_zero", all + N * r, N, 10 * r);
    done("iallgatherv_zero", MPI_Iallgatherv(mine, zero ? 0 : count, t, all, counts, displs, MPI_INT, comm, &req),
         &req);
    for (int r = 0; r < size; r++)
        if (r != 1)
            expect("iallgatherv_zero", all + N * r, N, 10 * r);
    for (int r = 0; r < size; r++)
        for (int i = 0; i < N; i++)
            all[N * r + i] = 20 * r + i;
    memset(mine, 0xff, sizeof mine);
    done("iscatterv_zero", MPI_Iscatterv(all, counts, displs, MPI_INT, mine, zero ? 0 : count, t, 0, comm, &req),
         &req);
    if (!zero)
        expect("iscatterv_zero", mine, N, 20 * rank);
    /* every pair exchanges 4 ints, each side in its own shape */
    int *sc = calloc((size_t)size, sizeof(int)), *rbuf = calloc((size_t)size * N, sizeof(int));
    int *sbuf = calloc((size_t)size * N, sizeof(int));
    for (int r = 0; r < size; r++) {
        sc[r] = count;
        types[r] = dt;
        for (int i = 0; i < N; i++)
            sbuf[N * r + i] = 100 * rank + 10 * r + i;
    }
    done("ialltoallw_shapes", MPI_Ialltoallw(sbuf, sc, bdispls, types, rbuf, sc, bdispls, types, comm, &req), &req);
    for (int r = 0; r < size; r++)
        expect("ialltoallw_shapes", rbuf + N * r, N, 100 * r + 10 * rank);
    /* reductions of 4 ints as 4 MPI_INT or 1 contiguous(4 MPI_INT) */
    int v[N], out[N], rc4[64];
    MPI_Datatype rdt = rank % 2 ? contig4 : MPI_INT;
    int rcount = rank % 2 ? 1 : N;
    for (int i = 0; i < N; i++)
        v[i] = i;
    done("iscan_shapes", MPI_Iscan(v, out, rcount, rdt, MPI_SUM, comm, &req), &req);
    for (int i = 0; i < N; i++)
        if (out[i] != (rank + 1) * i) {
            printf("rank %d: iscan_shapes: element %d is %d\n", rank, i, out[i]);
            failures++;
            break;
        }
    done("iexscan_shapes", MPI_Iexscan(v, out, rcount, rdt, MPI_SUM, comm, &req), &req);
    for (int i = 0; rank > 0 && i < N; i++)
        if (out[i] != rank * i) {
            printf("rank %d: iexscan_shapes: element %d is %d\n", rank, i, out[i]);
            failures++;
            break;
        }
    for (int r = 0; r < size && r < 64; r++)
        rc4[r] = 1;
    for (int r = 0; r < size; r++)
        for (int i = 0; i < N; i++)
            sbuf[N * r + i] = r + i;
    done("ireduce_scatter_shapes", MPI_Ireduce_scatter(sbuf, out, rc4, contig4, MPI_SUM, comm, &req), &req);
    for (int i = 0; i < N; i++)
        if (out[i] != size * (rank + i)) {
            printf("rank %d: ireduce_scatter_shapes: element %d is %d\n", rank, i, out[i]);
            failures++;
            break;
        }
    free(counts), free(displs), free(bdispls), free(all), free(types), free(sc), free(rbuf), free(sbuf);
}

static const struct {
    const char *name;
    void (*run)(MPI_Comm);
} cases[] = {
    { "bcast_shapes", c_bcast_shapes },
    { "bcast_packed", c_bcast_packed },
    { "bcast_byte", c_bcast_byte },
    { "gather_scatter_shapes", c_gather_scatter_shapes },
    { "allgather_alltoall_shapes", c_allgather_alltoall_shapes },
    { "empty_any_type", c_empty_any_type },
    { "v_zero_senders", c_v_zero_senders },
    { "alltoallv_self", c_alltoallv_self },
    { "packed_classes", c_packed_classes },
    { "nonblocking_shapes", c_nonblocking_shapes },
    { "nonblocking_v_shapes", c_nonblocking_v_shapes },
};

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Type_contiguous(N, MPI_INT, &contig4);
    MPI_Type_commit(&contig4);
    pair2 = MPI_2INT;
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Barrier(comm);          /* attaches the area (docs/collectives.md) */
    int ran = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int pick = argc == 1;
        for (int a = 1; a < argc; a++)
            pick |= !strcmp(argv[a], cases[i].name);
        if (!pick)
            continue;
        for (int rep = 0; rep < 3; rep++)   /* again on a warm area (FIFO entries, 2-rank paths) */
            cases[i].run(comm);
        ran++;
    }
    MPI_Comm_free(&comm);
    MPI_Type_free(&contig4);
    int total;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(total || !ran ? "mismatch_agree FAILED (%d failures)\n" : "mismatch_agree ok (%d cases)\n",
               total ? total : ran);
    MPI_Finalize();
    return total != 0 || !ran;
}
