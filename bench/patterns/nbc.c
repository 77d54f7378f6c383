/* Nonblocking collectives: the immediate-wait cost, the blocking form next to
 * it, and how much of the collective hides behind computation.
 *
 * For each nonblocking collective and size (8 B, 64 KiB, 1 MiB; Ibarrier
 * once), four figures, each the median over batches of the slowest rank's
 * time per call (pattern_bench.h):
 *   blocking_us    the blocking form (MPI_Allreduce for Iallreduce, ...);
 *   wait_us        Icoll + MPI_Wait at once;
 *   compute_us     computation alone, as long as wait_us;
 *   overlapped_us  Icoll, the same computation, MPI_Wait;
 * and, as the usual overlap benchmarks do (no MPI call during the
 * computation), overlap_pct = 100 (1 - (overlapped - compute) / wait),
 * within 0..100: 100 when the collective finished behind the computation,
 * 0 when it only advanced inside MPI_Wait.
 * Prints  nbc ranks=N coll=C bytes=B blocking_us=.. wait_us=.. compute_us=..
 *         overlapped_us=.. overlap_pct=..
 * <bytes> is what one rank contributes, as in bench/coll.c (reductions:
 * MPI_INT, MPI_SUM).  Every call carries a fresh stamp in the first and last
 * int of every block, checked after it completes.
 * -t applies to each of the four measurements of each row; -c ialltoall
 * (say) measures that collective only. */
#include "pattern_bench.h"

enum nbc_kind { IBARRIER, IBCAST, IREDUCE, IALLREDUCE, IGATHER, ISCATTER, IALLGATHER, IALLTOALL,
                IREDUCE_SCATTER_BLOCK, KINDS };
static const char *const kind_names[KINDS] = {"ibarrier", "ibcast", "ireduce", "iallreduce", "igather",
                                              "iscatter", "iallgather", "ialltoall", "ireduce_scatter_block"};

enum form { BLOCKING, NONBLOCKING, COMPUTE_ONLY };

struct row {
    enum nbc_kind kind;
    int bytes;
    enum form form;
    double compute; /* seconds of computation between start and wait */
};

static int *sendbuf, *recvbuf;

static void put(int *block, int ints, int v)
{
    block[0] = v;
    block[ints - 1] = v;
}

static void check(const int *block, int ints, int want, const struct row *r)
{
    char what[96];
    snprintf(what, sizeof what, "nbc: %s of %d bytes, first int", kind_names[r->kind], r->bytes);
    pat_expect(block[0], want, what);
    snprintf(what, sizeof what, "nbc: %s of %d bytes, last int", kind_names[r->kind], r->bytes);
    pat_expect(block[ints - 1], want, what);
}

/* Computation for `seconds` of wall time with no MPI call inside: a library
 * that moves a collective only from inside MPI calls cannot overlap it. */
static void compute_for(double seconds)
{
    double t0 = MPI_Wtime();
    while (MPI_Wtime() - t0 < seconds)
        pat_work(1);
}

/* Starts the collective (or runs its blocking form when req is NULL). */
static void start(const struct row *r, int ints, MPI_Request *req)
{
    const MPI_Comm w = MPI_COMM_WORLD;
    const int b = r->bytes;
    switch (r->kind) {
    case IBARRIER:
        req ? MPI_Ibarrier(w, req) : MPI_Barrier(w);
        break;
    case IBCAST:
        req ? MPI_Ibcast(sendbuf, b, MPI_BYTE, 0, w, req) : MPI_Bcast(sendbuf, b, MPI_BYTE, 0, w);
        break;
    case IREDUCE:
        req ? MPI_Ireduce(sendbuf, recvbuf, ints, MPI_INT, MPI_SUM, 0, w, req)
            : MPI_Reduce(sendbuf, recvbuf, ints, MPI_INT, MPI_SUM, 0, w);
        break;
    case IALLREDUCE:
        req ? MPI_Iallreduce(sendbuf, recvbuf, ints, MPI_INT, MPI_SUM, w, req)
            : MPI_Allreduce(sendbuf, recvbuf, ints, MPI_INT, MPI_SUM, w);
        break;
    case IGATHER:
        req ? MPI_Igather(sendbuf, b, MPI_BYTE, recvbuf, b, MPI_BYTE, 0, w, req)
            : MPI_Gather(sendbuf, b, MPI_BYTE, recvbuf, b, MPI_BYTE, 0, w);
        break;
    case ISCATTER:
        req ? MPI_Iscatter(sendbuf, b, MPI_BYTE, recvbuf, b, MPI_BYTE, 0, w, req)
            : MPI_Scatter(sendbuf, b, MPI_BYTE, recvbuf, b, MPI_BYTE, 0, w);
        break;
    case IALLGATHER:
        req ? MPI_Iallgather(sendbuf, b, MPI_BYTE, recvbuf, b, MPI_BYTE, w, req)
            : MPI_Allgather(sendbuf, b, MPI_BYTE, recvbuf, b, MPI_BYTE, w);
        break;
    case IALLTOALL:
        req ? MPI_Ialltoall(sendbuf, b, MPI_BYTE, recvbuf, b, MPI_BYTE, w, req)
            : MPI_Alltoall(sendbuf, b, MPI_BYTE, recvbuf, b, MPI_BYTE, w);
        break;
    default:
        req ? MPI_Ireduce_scatter_block(sendbuf, recvbuf, ints, MPI_INT, MPI_SUM, w, req)
            : MPI_Reduce_scatter_block(sendbuf, recvbuf, ints, MPI_INT, MPI_SUM, w);
        break;
    }
}

static void one_call(void *ctx, long round)
{
    const struct row *r = ctx;
    if (r->form == COMPUTE_ONLY) {
        compute_for(r->compute);
        return;
    }
    const int p = pat_size, me = pat_rank, ints = r->bytes / (int)sizeof(int);
    const int s = (int)(round % 100000) + 1; /* small: sums over ranks fit an int */
    const int rank_sum = p * (p - 1) / 2;
    /* The stamps going in.  Block j of an all-to-all from rank i carries
     * s + 31 i + j, every block distinct. */
    switch (r->kind) {
    case IBCAST:
        if (me == 0)
            put(sendbuf, ints, s);
        break;
    case IREDUCE:
    case IALLREDUCE:
    case IGATHER:
    case IALLGATHER:
        put(sendbuf, ints, s + me);
        break;
    case ISCATTER:
    case IALLTOALL:
    case IREDUCE_SCATTER_BLOCK:
        if (r->kind != ISCATTER || me == 0)
            for (int j = 0; j < p; j++)
                put(sendbuf + (size_t)j * ints, ints,
                    r->kind == ISCATTER ? s + j : r->kind == IALLTOALL ? s + 31 * me + j : s + me + j);
        break;
    default:
        break;
    }
    if (r->form == BLOCKING) {
        start(r, ints, NULL);
    } else {
        MPI_Request req;
        start(r, ints, &req);
        if (r->compute > 0)
            compute_for(r->compute);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    /* The stamps coming out. */
    switch (r->kind) {
    case IBCAST:
        check(sendbuf, ints, s, r);
        break;
    case IREDUCE:
    case IALLREDUCE:
        if (r->kind == IALLREDUCE || me == 0)
            check(recvbuf, ints, p * s + rank_sum, r);
        break;
    case IGATHER:
    case IALLGATHER:
        if (r->kind == IALLGATHER || me == 0)
            for (int j = 0; j < p; j++)
                check(recvbuf + (size_t)j * ints, ints, s + j, r);
        break;
    case ISCATTER:
        check(recvbuf, ints, s + me, r);
        break;
    case IALLTOALL:
        for (int i = 0; i < p; i++)
            check(recvbuf + (size_t)i * ints, ints, s + 31 * i + me, r);
        break;
    case IREDUCE_SCATTER_BLOCK:
        check(recvbuf, ints, p * s + rank_sum + p * me, r);
        break;
    default:
        break;
    }
}

int main(int argc, char **argv)
{
    struct pat_opts o = pat_init(&argc, &argv, "nbc");
    static const int sizes[] = {8, 65536, 1 << 20};
    const size_t room = (size_t)(1 << 20) * (size_t)pat_size;
    sendbuf = calloc(room, 1); /* also the first touch, outside any timing */
    recvbuf = calloc(room, 1);
    if (!sendbuf || !recvbuf)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (int k = 0; k < KINDS; k++) {
        if (!pat_wanted(&o, kind_names[k]))
            continue;
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            struct row r = {(enum nbc_kind)k, k == IBARRIER ? 0 : sizes[i], BLOCKING, 0};
            double blocking = pat_measure(one_call, &r, &o);
            r.form = NONBLOCKING;
            double wait = pat_measure(one_call, &r, &o);
            r.form = COMPUTE_ONLY;
            r.compute = wait;
            double compute = pat_measure(one_call, &r, &o);
            r.form = NONBLOCKING;
            double overlapped = pat_measure(one_call, &r, &o);
            double pct = 100.0 * (1.0 - (overlapped - compute) / wait);
            pct = pct < 0 ? 0 : pct > 100 ? 100 : pct;
            if (pat_rank == 0) {
                printf("nbc ranks=%d coll=%s bytes=%d blocking_us=%.3f wait_us=%.3f compute_us=%.3f "
                       "overlapped_us=%.3f overlap_pct=%.1f\n",
                       pat_size, kind_names[k], r.bytes, blocking * 1e6, wait * 1e6, compute * 1e6,
                       overlapped * 1e6, pct);
                fflush(stdout);
            }
            if (k == IBARRIER)
                break;
        }
    }
    free(sendbuf);
    free(recvbuf);
    MPI_Finalize();
    return 0;
}
