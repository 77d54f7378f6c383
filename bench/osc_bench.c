/* One-sided communication between ranks 0 and 1 (standard MPI-3 calls only;
 * issue 23 item 6).  Rank 0 is the origin, rank 1 the target.
 *
 * Prints machine-readable lines "osc_bench <metric> <bytes> <value>":
 *   put_lat_flush 8 / get_lat_flush 8    µs per Put/Get + Win_flush (lock_all)
 *   put_bw_flush / get_bw_flush N        GB/s, N = 64 KiB, 1 MiB, 4 MiB
 *   put_lat_fence 8 / get_lat_fence 8    µs per Put/Get + Win_fence (both ranks)
 *   put_bw_fence / get_bw_fence N        GB/s
 *   fence_lat 0                          µs per empty Win_fence
 *   acc_rate 8                           million Accumulate(SUM, 1 double)/s,
 *                                        64 per flush
 *   fop_lat 8                            µs per Fetch_and_op(SUM, long) + flush
 *   fop_rate 8                           million Fetch_and_op/s, 64 per flush
 *   shm_store_bw N                       GB/s: rank 0 memcpy's into rank 1's
 *                                        segment of a Win_allocate_shared window
 *   shm_memcpy_floor N                   GB/s: the same memcpy into a plain
 *                                        POSIX shared-memory segment rank 1
 *                                        touched first (no MPI: the floor)
 * -p rma | -p shm: only that part (bench/run.sh runs the shared-memory part as
 * its own job: Open MPI 4.1 crashes on shared windows, and must lose only
 * those cells).  -q quick.  Median over batches, like bench/pingpong.c.
 *
 * Every timed transfer is checked once after its batch: a stamp put into the
 * first and last word and read back at the other side, so no library can
 * skip the data movement. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench_settle.h"
#include "bench_stats.h"

#define MAX_BYTES (4 << 20)
#define RATE_BATCH 64

static int rank;
static MPI_Win win;
static unsigned char *wbase, *local;
static struct bench_opts o;

enum bench_kind {
    K_PUT_FLUSH, K_GET_FLUSH, K_PUT_FENCE, K_GET_FENCE, K_FENCE, K_ACC, K_FOP_LAT, K_FOP_RATE, K_SHM, K_FLOOR
};
static unsigned char *shm_peer, *floor_peer; /* rank 1's memory, mapped in rank 0 */

/* iters repetitions of one measured operation; both ranks call it, only the
 * fence kinds need rank 1 to do anything. */
static void run(enum bench_kind k, int bytes, int iters)
{
    static double dsum = 1.0;
    static long lone = 1, lgot;
    switch (k) {
    case K_PUT_FLUSH:
    case K_GET_FLUSH:
        if (rank != 0)
            return;
        for (int i = 0; i < iters; i++) {
            if (k == K_PUT_FLUSH)
                MPI_Put(local, bytes, MPI_BYTE, 1, 0, bytes, MPI_BYTE, win);
            else
                MPI_Get(local, bytes, MPI_BYTE, 1, 0, bytes, MPI_BYTE, win);
            MPI_Win_flush(1, win);
        }
        break;
    case K_PUT_FENCE:
    case K_GET_FENCE:
    case K_FENCE:
        for (int i = 0; i < iters; i++) {
            if (rank == 0 && k == K_PUT_FENCE)
                MPI_Put(local, bytes, MPI_BYTE, 1, 0, bytes, MPI_BYTE, win);
            else if (rank == 0 && k == K_GET_FENCE)
                MPI_Get(local, bytes, MPI_BYTE, 1, 0, bytes, MPI_BYTE, win);
            MPI_Win_fence(0, win);
        }
        break;
    case K_ACC:
        if (rank != 0)
            return;
        for (int i = 0; i < iters; i++) {
            for (int j = 0; j < RATE_BATCH; j++)
                MPI_Accumulate(&dsum, 1, MPI_DOUBLE, 1, 8 * (j % 8), 1, MPI_DOUBLE, MPI_SUM, win);
            MPI_Win_flush(1, win);
        }
        break;
    case K_FOP_LAT:
    case K_FOP_RATE:
        if (rank != 0)
            return;
        for (int i = 0; i < iters; i++) {
            int per = k == K_FOP_LAT ? 1 : RATE_BATCH;
            for (int j = 0; j < per; j++)
                MPI_Fetch_and_op(&lone, &lgot, MPI_LONG, 1, 128, MPI_SUM, win);
            MPI_Win_flush(1, win);
        }
        break;
    case K_SHM:
    case K_FLOOR:
        if (rank != 0)
            return;
        for (int i = 0; i < iters; i++) {
            memcpy(k == K_SHM ? shm_peer : floor_peer, local, (size_t)bytes);
            __asm__ __volatile__("" ::: "memory"); /* the copy is not dead */
        }
        break;
    }
}

struct one_kind {
    enum bench_kind k;
    int bytes;
};

static void run_kind(void *ctx, int iters)
{
    struct one_kind *x = ctx;
    run(x->k, x->bytes, iters);
}

/* Median seconds per iteration; rank 0 calibrates and its figure is everyone's. */
static double measure(enum bench_kind k, int bytes)
{
    struct one_kind x = { k, bytes };
    double t = bench_measure(run_kind, &x, bytes <= 65536 ? 100 : 5, 1000000, &o);
    MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return t;
}

static void report(const char *metric, int bytes, double value)
{
    if (rank == 0) {
        printf("osc_bench %s %d %.4f\n", metric, bytes, value);
        fflush(stdout);
    }
}

static void fail(const char *what)
{
    fprintf(stderr, "osc_bench: %s\n", what);
    MPI_Abort(MPI_COMM_WORLD, 3);
}

/* The data really moved: rank 0 puts a stamp, rank 1 finds it; rank 1
 * writes one, rank 0 gets it.  Inside the caller's epoch kind. */
static uint64_t stamp = 0x1000;
static void verify(int bytes, int fence)
{
    uint64_t s = ++stamp, got = 0;
    if (bytes < 8)
        return;
    if (fence)
        MPI_Win_fence(0, win);
    if (rank == 0) {
        memcpy(local, &s, 8);
        memcpy(local + bytes - 8, &s, 8);
        MPI_Put(local, bytes, MPI_BYTE, 1, 0, bytes, MPI_BYTE, win);
        if (fence)
            MPI_Win_fence(0, win);
        else
            MPI_Win_flush(1, win);
    } else if (fence) {
        MPI_Win_fence(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        if (!fence) /* in the lock_all epoch: the put is visible after a sync */
            MPI_Win_sync(win);
        uint64_t head, tail;
        memcpy(&head, wbase, 8);
        memcpy(&tail, wbase + bytes - 8, 8);
        if (head != s || tail != s)
            fail("Put did not deliver the data");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Get(&got, 8, MPI_BYTE, 1, bytes - 8, 8, MPI_BYTE, win);
        if (fence)
            MPI_Win_fence(0, win);
        else
            MPI_Win_flush(1, win);
        if (got != s)
            fail("Get did not return the data");
    } else if (fence) {
        MPI_Win_fence(0, win);
    }
    if (fence)
        MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
}

static void part_rma(void)
{
    static const int bw[] = {65536, 1 << 20, 4 << 20};
    MPI_Win_allocate(MAX_BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wbase, &win);
    memset(wbase, 0, MAX_BYTES);
    MPI_Barrier(MPI_COMM_WORLD);

    /* passive target: lock_all + flush; rank 1 waits in the barriers */
    MPI_Win_lock_all(0, win);
    report("put_lat_flush", 8, measure(K_PUT_FLUSH, 8) * 1e6);
    report("get_lat_flush", 8, measure(K_GET_FLUSH, 8) * 1e6);
    for (int i = 0; i < 3; i++) {
        report("put_bw_flush", bw[i], bw[i] / measure(K_PUT_FLUSH, bw[i]) / 1e9);
        verify(bw[i], 0);
        report("get_bw_flush", bw[i], bw[i] / measure(K_GET_FLUSH, bw[i]) / 1e9);
    }
    report("acc_rate", 8, RATE_BATCH / measure(K_ACC, 8) / 1e6);
    report("fop_lat", 8, measure(K_FOP_LAT, 8) * 1e6);
    report("fop_rate", 8, RATE_BATCH / measure(K_FOP_RATE, 8) / 1e6);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        /* acc_rate added 1.0 to doubles 0..7 and fop_rate/fop_lat 1 to long 16:
         * at least the warm-up's worth must be there. */
        double d;
        long l;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        memcpy(&d, wbase, sizeof d);
        memcpy(&l, wbase + 128, sizeof l);
        MPI_Win_unlock(1, win);
        if (!(d >= 100) || l < 100)
            fail("Accumulate/Fetch_and_op results missing");
    }

    /* active target: fence */
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    report("fence_lat", 0, measure(K_FENCE, 0) * 1e6);
    report("put_lat_fence", 8, measure(K_PUT_FENCE, 8) * 1e6);
    report("get_lat_fence", 8, measure(K_GET_FENCE, 8) * 1e6);
    for (int i = 0; i < 3; i++) {
        report("put_bw_fence", bw[i], bw[i] / measure(K_PUT_FENCE, bw[i]) / 1e9);
        report("get_bw_fence", bw[i], bw[i] / measure(K_GET_FENCE, bw[i]) / 1e9);
    }
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    verify(1 << 20, 1);
    MPI_Win_free(&win);
}

static void part_shm(void)
{
    static const int bw[] = {65536, 1 << 20, 4 << 20};
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int nsize;
    MPI_Comm_size(node, &nsize);
    if (nsize < 2)
        fail("ranks 0 and 1 share no memory");
    /* Each rank's segment first touched by its owner (as the floor's is). */
    MPI_Win_allocate_shared(rank < 2 ? MAX_BYTES : 0, 1, MPI_INFO_NULL, node, &wbase, &win);
    if (rank < 2)   /* a size-0 segment's base is NULL (MPI-4.1 12.2.3) */
        memset(wbase, 0, MAX_BYTES);
    MPI_Aint sz;
    int du;
    MPI_Win_shared_query(win, 1, &sz, &du, &shm_peer);
    if (sz < MAX_BYTES)
        fail("Win_shared_query: rank 1's segment too small");

    /* The floor: plain shared memory created and first touched by rank 1.
     * An anonymous memfd, which rank 0 opens through /proc: it has no name
     * that could outlive a crash of either rank (a POSIX segment did, when
     * a rank died between shm_open and shm_unlink). */
    int who[2] = { (int)getpid(), -1 };
    if (rank == 1) {
        who[1] = memfd_create("osc_bench_floor", 0);
        if (who[1] < 0 || ftruncate(who[1], MAX_BYTES) != 0)
            fail("memfd_create for the floor");
        floor_peer = mmap(NULL, MAX_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, who[1], 0);
        if (floor_peer != MAP_FAILED)
            memset(floor_peer, 0, MAX_BYTES);
    }
    MPI_Bcast(who, 2, MPI_INT, 1, MPI_COMM_WORLD);
    if (rank == 0) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/fd/%d", who[0], who[1]);
        int fd = open(path, O_RDWR);
        if (fd < 0)
            fail("open of rank 1's floor memory");
        floor_peer = mmap(NULL, MAX_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        close(fd);
    }
    if (floor_peer == MAP_FAILED)
        fail("mmap of the floor memory");
    MPI_Barrier(MPI_COMM_WORLD);   /* rank 0 has it mapped: rank 1's descriptor may go */
    if (rank == 1)
        close(who[1]);

    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    for (int i = 0; i < 3; i++) {
        report("shm_store_bw", bw[i], bw[i] / measure(K_SHM, bw[i]) / 1e9);
        report("shm_memcpy_floor", bw[i], bw[i] / measure(K_FLOOR, bw[i]) / 1e9);
    }
    /* stores reached rank 1's segment */
    uint64_t s = 0xabcdef12345ull;
    if (rank == 0)
        memcpy(shm_peer + 4096, &s, 8);
    MPI_Win_sync(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(win);
    if (rank == 1 && memcmp(wbase + 4096, &s, 8) != 0)
        fail("a store through Win_shared_query's pointer did not reach the owner");
    MPI_Win_unlock_all(win);
    if (floor_peer)
        munmap(floor_peer, MAX_BYTES);
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    o = bench_parse_opts(argc, argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2)
        fail("needs at least 2 ranks");
    const char *part = "all";
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], "-p") == 0)
            part = argv[i + 1];
    bench_settle(o.quick ? 0.1 : 0.3);
    local = malloc(MAX_BYTES);
    if (!local)
        fail("malloc");
    memset(local, 1, MAX_BYTES);
    if (strcmp(part, "all") == 0 || strcmp(part, "rma") == 0)
        part_rma();
    if (strcmp(part, "all") == 0 || strcmp(part, "shm") == 0)
        part_shm();
    free(local);
    MPI_Finalize();
    return 0;
}
