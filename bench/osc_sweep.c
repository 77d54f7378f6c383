/* The OSU-style one-sided sweep (issue 38 item 1): every operation x window
 * flavour x synchronisation mode x size between ranks 0 and 1, latency as
 * OSU's osu_{put,get,acc,get_acc,fop,cas}_latency measure it.  Standard MPI-3
 * only, so the same source builds with any mpicc.
 *
 * Operations (OSU's types): put, get (MPI_CHAR), acc, get_acc (MPI_CHAR,
 * MPI_SUM), fop (MPI_LONG_LONG, MPI_SUM), cas (MPI_LONG_LONG); fop and cas at
 * their one element (8 B) only.
 * Flavours: create (page-aligned malloc memory, as OSU), allocate,
 * allocate_shared, dynamic (malloc memory attached, its address exchanged).
 * Synchronisation, per measured iteration of rank 0 (as OSU):
 *   lock        Win_lock(1) op Win_unlock(1)
 *   flush       op Win_flush(1)        inside one Win_lock(1) per batch
 *   flush_local op Win_flush_local(1)  inside one Win_lock(1) per batch
 *   lock_all    Win_lock_all op Win_unlock_all
 *   fence       rank 0: fence op fence fence; rank 1: fence fence op fence
 *               (each rank one op per iteration; time / 2, as OSU)
 *   pscw        rank 0: start op complete post wait; rank 1: post wait
 *               start op complete (time / 2, as OSU)
 * The lock is MPI_LOCK_SHARED, but MPI_LOCK_EXCLUSIVE for get_acc, as in
 * OSU's sources; -x takes the exclusive lock for every operation.
 *
 * Prints "osc_sweep <op>_<flavour>:<sync> <bytes> <µs>", the median over
 * batches of µs per operation (bench_stats.h; batches of 2 ms with -q, 5 ms
 * without).
 * Options: -q quick (sizes 8 B, 4 KiB, 256 KiB, 4 MiB; 5 batches), -x,
 * -o ops, -w flavours, -s syncs (comma-separated subsets), -m max bytes.
 * Before its cells each flavour's accumulate is checked once (the sum must
 * arrive), so no library can skip the work. */
#define _POSIX_C_SOURCE 200112L
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_settle.h"
#include "bench_stats.h"

#define MAX_BYTES (4 << 20)

enum op { PUT, GET, ACC, GET_ACC, FOP, CAS, NOPS };
enum flav { CREATE, ALLOCATE, SHARED, DYNAMIC, NFLAVS };
enum sync { LOCK, FLUSH, FLUSH_LOCAL, LOCK_ALL, FENCE, PSCW, NSYNCS };
static const char *const op_name[] = { "put", "get", "acc", "get_acc", "fop", "cas" };
static const char *const flav_name[] = { "create", "allocate", "allocate_shared", "dynamic" };
static const char *const sync_name[] = { "lock", "flush", "flush_local", "lock_all", "fence", "pscw" };

static int rank, all_excl;
static MPI_Win win;
static MPI_Aint disp0;       /* the peer's window start: 0, or its address on a dynamic window */
static MPI_Group peer_group;
static char *sbuf, *rbuf;    /* origin and result buffers */
static long long one = 1, cmp_val, fetched;

struct cell {
    enum op op;
    enum sync sync;
    int bytes;
};

static void do_op(const struct cell *c, int peer)
{
    int n = c->bytes;
    MPI_Aint d = disp0;
    switch (c->op) {
    case PUT:
        MPI_Put(sbuf, n, MPI_CHAR, peer, d, n, MPI_CHAR, win);
        break;
    case GET:
        MPI_Get(rbuf, n, MPI_CHAR, peer, d, n, MPI_CHAR, win);
        break;
    case ACC:
        MPI_Accumulate(sbuf, n, MPI_CHAR, peer, d, n, MPI_CHAR, MPI_SUM, win);
        break;
    case GET_ACC:
        MPI_Get_accumulate(sbuf, n, MPI_CHAR, rbuf, n, MPI_CHAR, peer, d, n, MPI_CHAR, MPI_SUM, win);
        break;
    case FOP:
        MPI_Fetch_and_op(&one, &fetched, MPI_LONG_LONG, peer, d, MPI_SUM, win);
        break;
    case CAS:
        MPI_Compare_and_swap(&one, &cmp_val, &fetched, MPI_LONG_LONG, peer, d, win);
        break;
    default:
        break;
    }
}

static int lock_type(enum op op)
{
    return all_excl || op == GET_ACC ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED;
}

/* iters iterations of one cell; every rank calls it */
static void run(void *ctx, int iters)
{
    const struct cell *c = ctx;
    int lt = lock_type(c->op);
    switch (c->sync) {
    case LOCK:
    case LOCK_ALL:
        if (rank != 0)
            return;
        for (int i = 0; i < iters; i++) {
            if (c->sync == LOCK)
                MPI_Win_lock(lt, 1, 0, win);
            else
                MPI_Win_lock_all(0, win);
            do_op(c, 1);
            if (c->sync == LOCK)
                MPI_Win_unlock(1, win);
            else
                MPI_Win_unlock_all(win);
        }
        break;
    case FLUSH:
    case FLUSH_LOCAL:
        if (rank != 0)
            return;
        MPI_Win_lock(lt, 1, 0, win);
        for (int i = 0; i < iters; i++) {
            do_op(c, 1);
            if (c->sync == FLUSH)
                MPI_Win_flush(1, win);
            else
                MPI_Win_flush_local(1, win);
        }
        MPI_Win_unlock(1, win);
        break;
    case FENCE:
        for (int i = 0; i < iters; i++) {
            MPI_Win_fence(0, win);
            if (rank == 0)
                do_op(c, 1);
            MPI_Win_fence(0, win);
            if (rank == 1)
                do_op(c, 0);
            MPI_Win_fence(0, win);
        }
        break;
    case PSCW:
        for (int i = 0; i < iters; i++) {
            if (rank == 0) {
                MPI_Win_start(peer_group, 0, win);
                do_op(c, 1);
                MPI_Win_complete(win);
                MPI_Win_post(peer_group, 0, win);
                MPI_Win_wait(win);
            } else if (rank == 1) {
                MPI_Win_post(peer_group, 0, win);
                MPI_Win_wait(win);
                MPI_Win_start(peer_group, 0, win);
                do_op(c, 0);
                MPI_Win_complete(win);
            }
        }
        break;
    default:
        break;
    }
}

/* the window of one flavour, MAX_BYTES on ranks 0 and 1 (a rank beyond
 * them gives none); *mem is what to free after Win_free */
static void make_window(enum flav f, void **mem)
{
    MPI_Aint sz = rank < 2 ? MAX_BYTES : 0;
    void *base = NULL;
    *mem = NULL;
    disp0 = 0;
    switch (f) {
    case CREATE:
    case DYNAMIC:
        if (sz && posix_memalign(&base, 4096, (size_t)sz))
            MPI_Abort(MPI_COMM_WORLD, 2);
        if (sz)
            memset(base, 0, (size_t)sz);
        *mem = base;
        if (f == CREATE) {
            MPI_Win_create(base, sz, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        } else {
            MPI_Aint mine = 0;
            MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
            if (sz) {
                MPI_Win_attach(win, base, sz);
                MPI_Get_address(base, &mine);
                MPI_Sendrecv(&mine, 1, MPI_AINT, 1 - rank, 0, &disp0, 1, MPI_AINT, 1 - rank, 0, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
            }
        }
        break;
    case ALLOCATE:
        MPI_Win_allocate(sz, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
        if (sz)     /* a rank with no memory may get a NULL base: memset(NULL, 0, 0) is undefined */
            memset(base, 0, (size_t)sz);
        break;
    case SHARED:
        MPI_Win_allocate_shared(sz, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
        if (sz)
            memset(base, 0, (size_t)sz);
        break;
    default:
        break;
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* rank 0 adds 1 to 4 KiB of rank 1's zeroed window and reads it back */
static int check_window(enum flav f)
{
    int bad = 0;
    const int n = 4096;
    if (rank == 0) {
        memset(sbuf, 1, n);
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        MPI_Accumulate(sbuf, n, MPI_CHAR, 1, disp0, n, MPI_CHAR, MPI_SUM, win);
        MPI_Win_unlock(1, win);
        memset(rbuf, 9, n);
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
        MPI_Get(rbuf, n, MPI_CHAR, 1, disp0, n, MPI_CHAR, win);
        MPI_Win_unlock(1, win);
        for (int i = 0; i < n; i++)
            bad |= rbuf[i] != 1;
        if (bad)
            fprintf(stderr, "osc_sweep: %s: accumulated data did not arrive\n", flav_name[f]);
    }
    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return bad;
}

/* "a,b,c" -> bit mask of the names found in names[0..n) (all if NULL) */
static unsigned pick(const char *list, const char *const *names, int n)
{
    if (!list)
        return ~0u;
    unsigned m = 0;
    for (int i = 0; i < n; i++) {
        size_t l = strlen(names[i]);
        for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
            if (strncmp(p, names[i], l) == 0 && (p[l] == ',' || p[l] == 0))
                m |= 1u << i;
    }
    return m;
}

/* µs per operation: batches of 2 ms (-q, 5 of them) or 5 ms (9); fence and
 * pscw iterations hold one operation of each rank, counted as OSU does */
static double measure(struct cell *c, const struct bench_opts *o)
{
    double m = bench_measure_batches(run, c, c->bytes <= 65536 ? 10 : 2, 20000, o->quick ? 5 : 9,
                                     o->quick ? 0.002 : 0.005);
    return c->sync == FENCE || c->sync == PSCW ? m / 2 : m;
}

int main(int argc, char **argv)
{
    struct bench_opts o;
    if (bench_start_pair(&argc, &argv, "osc_sweep", &o, &rank))
        return 0;
    const char *ops = NULL, *flavs = NULL, *syncs = NULL;
    long maxb = MAX_BYTES;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-x"))
            all_excl = 1;
        else if (i + 1 < argc && !strcmp(argv[i], "-o"))
            ops = argv[++i];
        else if (i + 1 < argc && !strcmp(argv[i], "-w"))
            flavs = argv[++i];
        else if (i + 1 < argc && !strcmp(argv[i], "-s"))
            syncs = argv[++i];
        else if (i + 1 < argc && !strcmp(argv[i], "-m"))
            maxb = atol(argv[++i]);
    }
    unsigned opm = pick(ops, op_name, NOPS), flm = pick(flavs, flav_name, NFLAVS),
             sym = pick(syncs, sync_name, NSYNCS);
    static const int full_sizes[] = { 8, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1 << 20, 4 << 20 };
    static const int quick_sizes[] = { 8, 4096, 262144, 4 << 20 };
    const int *sizes = o.quick ? quick_sizes : full_sizes;
    int nsizes = o.quick ? 4 : 11;

    /* page-aligned, as OSU's: malloc's alignment of a large block differs
     * between libraries (Open MPI tunes malloc), and a copy's speed with it */
    if (posix_memalign((void **)&sbuf, 4096, MAX_BYTES) || posix_memalign((void **)&rbuf, 4096, MAX_BYTES))
        MPI_Abort(MPI_COMM_WORLD, 2);
    memset(sbuf, 1, MAX_BYTES);
    memset(rbuf, 0, MAX_BYTES);
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int peer = rank == 0 ? 1 : 0;
    MPI_Group_incl(world, 1, &peer, &peer_group);
    MPI_Group_free(&world);

    int failed = 0;
    for (int f = 0; f < NFLAVS; f++) {
        if (!(flm >> f & 1))
            continue;
        void *mem;
        make_window((enum flav)f, &mem);
        failed |= check_window((enum flav)f);
        for (int s = 0; s < NSYNCS && !failed; s++) {
            if (!(sym >> s & 1))
                continue;
            for (int op = 0; op < NOPS; op++) {
                if (!(opm >> op & 1))
                    continue;
                for (int z = 0; z < nsizes; z++) {
                    int single = op == FOP || op == CAS;
                    if ((single && z > 0) || sizes[z] > maxb)
                        break;
                    struct cell c = { (enum op)op, (enum sync)s, single ? 8 : sizes[z] };
                    double us = 1e6 * measure(&c, &o);
                    if (rank == 0) {
                        printf("osc_sweep %s_%s:%s %d %.4f\n", op_name[op], flav_name[f], sync_name[s], c.bytes,
                               us);
                        fflush(stdout);
                    }
                }
            }
        }
        MPI_Win_free(&win);
        free(mem);
    }
    MPI_Group_free(&peer_group);
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return failed;
}
