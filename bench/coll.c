/* Collective latency, OSU style (standard MPI only).
 *
 * For each collective and message size: warm-up (which also sizes the batch),
 * then batches, each behind an MPI_Barrier; a batch's per-call time is the
 * slowest rank's, and the median over batches is printed:
 *   coll <name> <bytes> <usec>        (barrier prints bytes = 0)
 * <bytes> is what one rank contributes: the broadcast buffer; the reduced
 * vector (MPI_INT, MPI_SUM); one block of allgather/gather/scatter/
 * reduce_scatter_block; one peer's block of alltoall.  The v-variants and
 * reduce_scatter use equal blocks, as OSU's do.
 *
 * Options: -q quick; -v all sizes (4 B..4 MiB, powers of 4, plus 8 B);
 * -c name,name  only these collectives; -s bytes,bytes  only these sizes;
 * -m bytes  skip sizes above this.
 * allreduce_init: the MPI-4 persistent Allreduce made once per size, then
 * MPI_Start + MPI_Wait per call (what MPI_Allreduce costs without the
 * per-call setup); an MPI before 4.0 prints "coll allreduce_init <bytes> n/a".  Every call gets fresh data (a stamp in the
 * first word of every block) and checks it, so nothing can be skipped. */
#define _POSIX_C_SOURCE 200809L /* strdup, strtok_r */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_settle.h"
#include "bench_stats.h"

enum coll_kind {
    K_BARRIER, K_BCAST, K_REDUCE, K_ALLREDUCE, K_ALLREDUCE_INIT, K_ALLGATHER, K_ALLTOALL,
    K_GATHER, K_SCATTER, K_REDUCE_SCATTER_BLOCK, K_SCAN,
    K_EXSCAN, K_REDUCE_SCATTER, K_ALLGATHERV, K_GATHERV, K_SCATTERV, K_ALLTOALLV, K_ALLTOALLW, K_COUNT
};

static int rank, nranks;
static MPI_Request persistent = MPI_REQUEST_NULL;   /* allreduce_init's, per size */
static unsigned char *sendbuf, *recvbuf;

static const char *const coll_names[K_COUNT] = {
    "barrier", "bcast", "reduce", "allreduce", "allreduce_init", "allgather", "alltoall",
    "gather", "scatter", "reduce_scatter_block", "scan",
    "exscan", "reduce_scatter", "allgatherv", "gatherv", "scatterv", "alltoallv", "alltoallw",
};

/* The v-variants run OSU-style: every block the same size, at j * bytes. */
static int *counts, *displs; /* of MPI_BYTE: also alltoallw's byte displacements */
static MPI_Datatype *wtypes;

static void set_layout(int bytes)
{
    for (int j = 0; j < nranks; j++) {
        counts[j] = bytes;
        displs[j] = j * bytes;
        wtypes[j] = MPI_BYTE;
    }
}


static void put_int(unsigned char *block, int v) { memcpy(block, &v, sizeof v); }
static int get_int(const unsigned char *block)
{
    int v;
    memcpy(&v, block, sizeof v);
    return v;
}

static void expect(int got, int want, enum coll_kind k, int bytes)
{
    if (got != want) {
        fprintf(stderr, "coll: rank %d: %s at %d bytes got %d, want %d\n", rank,
                coll_names[k], bytes, got, want);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

/* Stamps stay small so that sums over all ranks never overflow an int. */
static int stamp_counter;
static int next_stamp(void)
{
    stamp_counter = (stamp_counter + 1) % 1000000;
    return stamp_counter;
}

static void one_call(enum coll_kind k, int bytes)
{
    const MPI_Comm w = MPI_COMM_WORLD;
    const int root = 0, ints = bytes / 4, p = nranks;
    const size_t blk = (size_t)bytes;
    const int s = next_stamp();
    const int rank_sum = p * (p - 1) / 2;

    switch (k) {
    case K_BARRIER:
        MPI_Barrier(w);
        break;
    case K_BCAST:
        if (rank == root)
            put_int(sendbuf, s);
        MPI_Bcast(sendbuf, bytes, MPI_BYTE, root, w);
        expect(get_int(sendbuf), s, k, bytes);
        break;
    case K_REDUCE:
        put_int(sendbuf, s + rank);
        MPI_Reduce(sendbuf, recvbuf, ints, MPI_INT, MPI_SUM, root, w);
        if (rank == root)
            expect(get_int(recvbuf), p * s + rank_sum, k, bytes);
        break;
    case K_ALLREDUCE:
        put_int(sendbuf, s + rank);
        MPI_Allreduce(sendbuf, recvbuf, ints, MPI_INT, MPI_SUM, w);
        expect(get_int(recvbuf), p * s + rank_sum, k, bytes);
        break;
    case K_ALLREDUCE_INIT:
        put_int(sendbuf, s + rank);
        MPI_Start(&persistent);
        MPI_Wait(&persistent, MPI_STATUS_IGNORE);
        expect(get_int(recvbuf), p * s + rank_sum, k, bytes);
        break;
    case K_SCAN:
        put_int(sendbuf, s + rank);
        MPI_Scan(sendbuf, recvbuf, ints, MPI_INT, MPI_SUM, w);
        expect(get_int(recvbuf), (rank + 1) * s + rank * (rank + 1) / 2, k, bytes);
        break;
    case K_ALLGATHER:
        put_int(sendbuf, s + rank);
        MPI_Allgather(sendbuf, bytes, MPI_BYTE, recvbuf, bytes, MPI_BYTE, w);
        for (int j = 0; j < p; j++)
            expect(get_int(recvbuf + j * blk), s + j, k, bytes);
        break;
    case K_GATHER:
        put_int(sendbuf, s + rank);
        MPI_Gather(sendbuf, bytes, MPI_BYTE, recvbuf, bytes, MPI_BYTE, root, w);
        if (rank == root)
            for (int j = 0; j < p; j++)
                expect(get_int(recvbuf + j * blk), s + j, k, bytes);
        break;
    case K_SCATTER:
        if (rank == root)
            for (int j = 0; j < p; j++)
                put_int(sendbuf + j * blk, s + j);
        MPI_Scatter(sendbuf, bytes, MPI_BYTE, recvbuf, bytes, MPI_BYTE, root, w);
        expect(get_int(recvbuf), s + rank, k, bytes);
        break;
    case K_ALLTOALL:
        /* The block from i to j carries s + 31 i + j: each one distinct. */
        for (int j = 0; j < p; j++)
            put_int(sendbuf + j * blk, s + 31 * rank + j);
        MPI_Alltoall(sendbuf, bytes, MPI_BYTE, recvbuf, bytes, MPI_BYTE, w);
        for (int i = 0; i < p; i++)
            expect(get_int(recvbuf + i * blk), s + 31 * i + rank, k, bytes);
        break;
    case K_REDUCE_SCATTER_BLOCK:
        for (int j = 0; j < p; j++)
            put_int(sendbuf + j * blk, s + rank + j);
        MPI_Reduce_scatter_block(sendbuf, recvbuf, ints, MPI_INT, MPI_SUM, w);
        expect(get_int(recvbuf), p * s + rank_sum + p * rank, k, bytes);
        break;
    case K_EXSCAN:
        put_int(sendbuf, s + rank);
        MPI_Exscan(sendbuf, recvbuf, ints, MPI_INT, MPI_SUM, w);
        if (rank > 0)
            expect(get_int(recvbuf), rank * s + rank * (rank - 1) / 2, k, bytes);
        break;
    case K_REDUCE_SCATTER:
        for (int j = 0; j < p; j++) {
            put_int(sendbuf + j * blk, s + rank + j);
            counts[j] = ints;
        }
        MPI_Reduce_scatter(sendbuf, recvbuf, counts, MPI_INT, MPI_SUM, w);
        expect(get_int(recvbuf), p * s + rank_sum + p * rank, k, bytes);
        break;
    case K_ALLGATHERV:
        set_layout(bytes);
        put_int(sendbuf, s + rank);
        MPI_Allgatherv(sendbuf, bytes, MPI_BYTE, recvbuf, counts, displs, MPI_BYTE, w);
        for (int j = 0; j < p; j++)
            expect(get_int(recvbuf + j * blk), s + j, k, bytes);
        break;
    case K_GATHERV:
        set_layout(bytes);
        put_int(sendbuf, s + rank);
        MPI_Gatherv(sendbuf, bytes, MPI_BYTE, recvbuf, counts, displs, MPI_BYTE, root, w);
        if (rank == root)
            for (int j = 0; j < p; j++)
                expect(get_int(recvbuf + j * blk), s + j, k, bytes);
        break;
    case K_SCATTERV:
        set_layout(bytes);
        if (rank == root)
            for (int j = 0; j < p; j++)
                put_int(sendbuf + j * blk, s + j);
        MPI_Scatterv(sendbuf, counts, displs, MPI_BYTE, recvbuf, bytes, MPI_BYTE, root, w);
        expect(get_int(recvbuf), s + rank, k, bytes);
        break;
    case K_ALLTOALLV:
    case K_ALLTOALLW:
        set_layout(bytes);
        for (int j = 0; j < p; j++)
            put_int(sendbuf + j * blk, s + 31 * rank + j);
        if (k == K_ALLTOALLV)
            MPI_Alltoallv(sendbuf, counts, displs, MPI_BYTE, recvbuf, counts, displs, MPI_BYTE, w);
        else
            MPI_Alltoallw(sendbuf, counts, displs, wtypes, recvbuf, counts, displs, wtypes, w);
        for (int i = 0; i < p; i++)
            expect(get_int(recvbuf + i * blk), s + 31 * i + rank, k, bytes);
        break;
    default:
        break;
    }
}

/* Per-call seconds of a batch, as seen by the slowest rank (on all ranks). */
static double timed_batch(enum coll_kind k, int bytes, int iters)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++)
        one_call(k, bytes);
    double mine = (MPI_Wtime() - t0) / iters, slowest;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest;
}

static double measure(enum coll_kind k, int bytes, const struct bench_opts *o)
{
    int batches = o->quick ? 5 : 11;
    double target = o->quick ? 0.003 : 0.01;
    /* Two calls to warm up, then up to 20 more to calibrate; both decisions
     * come from timed_batch's all-rank maximum, so every rank agrees.  With
     * more ranks than cores a call can cost a scheduler time slice: the
     * bounds keep such a run finite. */
    double first = timed_batch(k, bytes, 2);
    int warm = bench_clamp_iters(target / first, 1, 20);
    double per = timed_batch(k, bytes, warm);
    int iters = bench_clamp_iters(target / per, 1, 10000);
    /* A call longer than a whole batch's budget (big payloads, more ranks
     * than cores) gets fewer batches: still a median, in bounded time. */
    if (per > target)
        batches = o->quick ? 3 : 5;
    double samples[64];
    for (int b = 0; b < batches; b++)
        samples[b] = timed_batch(k, bytes, iters);
    return bench_median(samples, batches);
}

static int parse_list(const char *arg, int *out, int cap)
{
    int n = 0;
    char *copy = strdup(arg), *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok && n < cap; tok = strtok_r(NULL, ",", &save))
        out[n++] = atoi(tok);
    free(copy);
    return n;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct bench_opts o = bench_parse_opts(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);

    int sizes[32] = {8, 65536, 1 << 20}, nsizes = 3, max_bytes = 4 << 20;
    int wanted[K_COUNT];
    for (int k = 0; k < K_COUNT; k++)
        wanted[k] = 1;
    if (o.verbose) {
        nsizes = 0;
        for (int b = 4; b <= (4 << 20); b *= 4) {
            sizes[nsizes++] = b;
            if (b == 4)
                sizes[nsizes++] = 8;
        }
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-s") == 0 && i + 1 < argc) {
            nsizes = parse_list(argv[++i], sizes, 32);
        } else if (strcmp(argv[i], "-m") == 0 && i + 1 < argc) {
            max_bytes = atoi(argv[++i]);
        } else if (strcmp(argv[i], "-c") == 0 && i + 1 < argc) {
            char *copy = strdup(argv[++i]), *save = NULL;
            for (int k = 0; k < K_COUNT; k++)
                wanted[k] = 0;
            for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
                for (int k = 0; k < K_COUNT; k++)
                    if (strcmp(t, coll_names[k]) == 0)
                        wanted[k] = 1;
            free(copy);
        }
    }
    for (int i = 0; i < nsizes; i++)
        if (sizes[i] < 4 || sizes[i] % 4) {
            if (rank == 0)
                fprintf(stderr, "coll: sizes must be multiples of 4 bytes\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }

    int biggest = 0;
    for (int i = 0; i < nsizes; i++)
        if (sizes[i] <= max_bytes && sizes[i] > biggest)
            biggest = sizes[i];
    size_t room = (size_t)(biggest ? biggest : 4) * (size_t)nranks;
    sendbuf = malloc(room);
    recvbuf = malloc(room);
    counts = malloc(sizeof(int) * (size_t)nranks);
    displs = malloc(sizeof(int) * (size_t)nranks);
    wtypes = malloc(sizeof(MPI_Datatype) * (size_t)nranks);
    if (!sendbuf || !recvbuf || !counts || !displs || !wtypes)
        MPI_Abort(MPI_COMM_WORLD, 2);
    memset(sendbuf, 0, room); /* also the first touch, outside any timing */
    memset(recvbuf, 0, room);

    bench_settle(o.quick ? 0.1 : 0.3);
    if (rank == 0) {
        printf("# coll ranks %d\n", nranks);
        fflush(stdout);
    }
    for (int k = 0; k < K_COUNT; k++) {
        if (!wanted[k])
            continue;
        for (int i = 0; i < nsizes; i++) {
            int bytes = k == K_BARRIER ? 0 : sizes[i];
            if (bytes > max_bytes)
                continue;
            if (k == K_ALLREDUCE_INIT) {
#if MPI_VERSION >= 4
                MPI_Allreduce_init(sendbuf, recvbuf, bytes / 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                                   &persistent);
#else
                if (rank == 0)
                    printf("coll %s %d n/a\n", coll_names[k], bytes);
                continue;
#endif
            }
            double t = measure((enum coll_kind)k, bytes, &o);
            if (persistent != MPI_REQUEST_NULL)
                MPI_Request_free(&persistent);
            if (rank == 0) {
                printf("coll %s %d %.3f\n", coll_names[k], bytes, t * 1e6);
                fflush(stdout);
            }
            if (k == K_BARRIER)
                break;
        }
    }
    free(sendbuf);
    free(recvbuf);
    free(counts);
    free(displs);
    free(wtypes);
    MPI_Finalize();
    return 0;
}
