/*
 * osc_matrix.c -- every RMA operation under every synchronisation on every
 * window kind (issue 23 item 5).
 *
 * For each (kind, sync, op) case every rank r is the origin of one operation
 * on target t = (r + shift) % n, on the K elements of "slot r" of t's window,
 * so no two origins touch the same element and every outcome is exact.  shift
 * changes from case to case, so every rank pair (and rank to itself) occurs.
 * One rank per case lags (sleeps before its epoch): a late fence or PSCW
 * partner, or a passive target that is not calling MPI at all.
 *
 * Request-based operations (Rput ...) are valid only in passive-target
 * epochs (MPI-4.1 12.3), so they are skipped under fence and PSCW.
 * usage: osc_matrix [seed]   (the seed only moves the lagging rank and values)
 */
#include "osc_common.h"

#define K 4 /* elements per slot */

enum osc_sync { S_FENCE, S_PSCW, S_LOCK_SHARED, S_LOCK_EXCL, S_LOCKALL_FLUSH, S_FLUSH_LOCAL, S_NSYNC };
static const char *const sync_name[S_NSYNC] = {
    "fence", "pscw", "lock_shared", "lock_exclusive", "lock_all+flush", "lock_all+flush_local"};

enum osc_op { O_PUT, O_GET, O_ACC, O_GACC, O_FOP, O_CAS, O_RPUT, O_RGET, O_RACC, O_RGACC, O_NOPS };
static const char *const op_name[O_NOPS] = {
    "Put", "Get", "Accumulate", "Get_accumulate", "Fetch_and_op", "Compare_and_swap",
    "Rput", "Rget", "Raccumulate", "Rget_accumulate"};

static int me, n;
static unsigned long salt;

/* What element k of slot s of rank t holds before a case. */
static long long init_val(int t, int s, int k) { return 1000000LL * (t + 1) + 1000 * s + k + (long long)(salt % 97); }
/* What origin r contributes to element k. */
static long long orig_val(int r, int k) { return 7000000LL + 100 * r + k * 3 + 1; }

static int passive(int sync) { return sync >= S_LOCK_SHARED; }

static void epoch_open(int sync, MPI_Win win, int target, int origin_of_me)
{
    MPI_Group world, g;
    switch (sync) {
    case S_FENCE:
        CHECK_MPI(MPI_Win_fence(0, win));
        break;
    case S_PSCW:
        /* The post group is who targets me, the start group whom I target. */
        MPI_Comm_group(MPI_COMM_WORLD, &world);
        MPI_Group_incl(world, 1, &origin_of_me, &g);
        CHECK_MPI(MPI_Win_post(g, 0, win));
        MPI_Group_free(&g);
        MPI_Group_incl(world, 1, &target, &g);
        CHECK_MPI(MPI_Win_start(g, 0, win));
        MPI_Group_free(&g);
        MPI_Group_free(&world);
        break;
    case S_LOCK_SHARED:
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win));
        break;
    case S_LOCK_EXCL:
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win));
        break;
    default:
        CHECK_MPI(MPI_Win_lock_all(0, win));
    }
}

/* Completes the origin side; on return the origin buffers hold their results. */
static void epoch_close(int sync, MPI_Win win, int target)
{
    switch (sync) {
    case S_FENCE:
        CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
        break;
    case S_PSCW:
        CHECK_MPI(MPI_Win_complete(win));
        CHECK_MPI(MPI_Win_wait(win));
        break;
    case S_LOCK_SHARED:
    case S_LOCK_EXCL:
        CHECK_MPI(MPI_Win_unlock(target, win));
        break;
    case S_LOCKALL_FLUSH:
        CHECK_MPI(MPI_Win_flush(target, win));
        break;
    default: /* S_FLUSH_LOCAL: closed after the local check (see run_case) */
        break;
    }
}

static void run_case(struct osc_win *w, int sync, int op, int shift, int lagger)
{
    const int target = (me + shift) % n, origin_of_me = (me - shift % n + n) % n;
    long long obuf[K], rbuf[K], cbuf[K];
    MPI_Request req = MPI_REQUEST_NULL;
    const char *what = op_name[op];

    /* Every rank's window to its initial values. */
    osc_local_begin(w);
    for (int s = 0; s < n; s++)
        for (int k = 0; k < K; k++)
            w->base[s * K + k] = init_val(me, s, k);
    osc_local_end(w);
    for (int k = 0; k < K; k++) {
        obuf[k] = orig_val(me, k);
        rbuf[k] = -1;
        cbuf[k] = init_val(target, me, k);
    }
    cbuf[1] = -5; /* a compare that fails, on element 1 */
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == lagger)
        osc_nap(3000);

    MPI_Aint d = osc_disp(w, target, me * K);
    epoch_open(sync, w->win, target, origin_of_me);
    switch (op) {
    case O_PUT:
        CHECK_MPI(MPI_Put(obuf, K, MPI_LONG_LONG, target, d, K, MPI_LONG_LONG, w->win));
        break;
    case O_GET:
        CHECK_MPI(MPI_Get(rbuf, K, MPI_LONG_LONG, target, d, K, MPI_LONG_LONG, w->win));
        break;
    case O_ACC:
        CHECK_MPI(MPI_Accumulate(obuf, K, MPI_LONG_LONG, target, d, K, MPI_LONG_LONG, MPI_SUM, w->win));
        break;
    case O_GACC:
        CHECK_MPI(MPI_Get_accumulate(obuf, K, MPI_LONG_LONG, rbuf, K, MPI_LONG_LONG, target, d, K,
                                     MPI_LONG_LONG, MPI_SUM, w->win));
        break;
    case O_FOP:
        CHECK_MPI(MPI_Fetch_and_op(obuf, rbuf, MPI_LONG_LONG, target, d, MPI_SUM, w->win));
        break;
    case O_CAS:
        /* element 0 swaps (compare matches), element 1 does not */
        CHECK_MPI(MPI_Compare_and_swap(&obuf[0], &cbuf[0], &rbuf[0], MPI_LONG_LONG, target, d, w->win));
        CHECK_MPI(MPI_Compare_and_swap(&obuf[1], &cbuf[1], &rbuf[1], MPI_LONG_LONG, target,
                                       osc_disp(w, target, me * K + 1), w->win));
        break;
    case O_RPUT:
        CHECK_MPI(MPI_Rput(obuf, K, MPI_LONG_LONG, target, d, K, MPI_LONG_LONG, w->win, &req));
        break;
    case O_RGET:
        CHECK_MPI(MPI_Rget(rbuf, K, MPI_LONG_LONG, target, d, K, MPI_LONG_LONG, w->win, &req));
        break;
    case O_RACC:
        CHECK_MPI(MPI_Raccumulate(obuf, K, MPI_LONG_LONG, target, d, K, MPI_LONG_LONG, MPI_SUM, w->win, &req));
        break;
    case O_RGACC:
        CHECK_MPI(MPI_Rget_accumulate(obuf, K, MPI_LONG_LONG, rbuf, K, MPI_LONG_LONG, target, d, K,
                                      MPI_LONG_LONG, MPI_SUM, w->win, &req));
        break;
    }
    if (req != MPI_REQUEST_NULL) {
        /* Local completion: the origin buffers are ours again, results in. */
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        CHECK(req == MPI_REQUEST_NULL, "%s: MPI_Wait left the request set", what);
    }
    if (sync == S_FLUSH_LOCAL) {
        CHECK_MPI(MPI_Win_flush_local(target, w->win));
    } else {
        epoch_close(sync, w->win, target);
    }

    /* Results at the origin (complete: after close, flush, flush_local or Wait). */
    int fetches = op == O_GET || op == O_GACC || op == O_RGET || op == O_RGACC;
    for (int k = 0; k < K; k++) {
        long long want = -1;
        if (fetches || ((op == O_FOP || op == O_CAS) && k == 0) || (op == O_CAS && k == 1))
            want = init_val(target, me, k);
        CHECK(rbuf[k] == want, "%s %s %s n=%d: origin result[%d] = %lld, expected %lld (target %d)",
              osc_kind_name[w->kind], sync_name[sync], what, n, k, rbuf[k], want, target);
    }
    if (sync == S_FLUSH_LOCAL) {
        /* Locally complete: the origin buffer may change without effect. */
        for (int k = 0; k < K; k++)
            obuf[k] = -77;
        CHECK_MPI(MPI_Win_flush(target, w->win));
        CHECK_MPI(MPI_Win_unlock_all(w->win));
    } else if (sync == S_LOCKALL_FLUSH) {
        CHECK_MPI(MPI_Win_unlock_all(w->win));
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* The target side: slot origin_of_me changed as the op says, the rest not. */
    osc_local_begin(w);
    for (int s = 0; s < n; s++)
        for (int k = 0; k < K; k++) {
            long long got = w->base[s * K + k], want = init_val(me, s, k);
            if (s == origin_of_me) {
                long long v = orig_val(s, k);
                switch (op) {
                case O_PUT: case O_RPUT: want = v; break;
                case O_ACC: case O_GACC: case O_RACC: case O_RGACC: want += v; break;
                case O_FOP: if (k == 0) want += v; break;
                case O_CAS: if (k == 0) want = v; break;
                default: break;
                }
            }
            CHECK(got == want, "%s %s %s n=%d: target element [slot %d][%d] = %lld, expected %lld (origin %d)",
                  osc_kind_name[w->kind], sync_name[sync], what, n, s, k, got, want, origin_of_me);
        }
    osc_local_end(w);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    unsigned long seed = osc_start(&argc, &argv, "osc_matrix", &me, &n);
    uint64_t rng = seed * 2654435761u + 1;
    salt = seed;
    int cases = 0;
    for (int kind = 0; kind < OSC_NKINDS; kind++) {
        struct osc_win w;
        osc_win_make(&w, (enum osc_kind)kind, n * K, MPI_COMM_WORLD);
        for (int sync = 0; sync < S_NSYNC; sync++)
            for (int op = 0; op < O_NOPS; op++) {
                if (op >= O_RPUT && !passive(sync))
                    continue;
                int shift = (cases + kind) % n, lagger = osc_rand_below(&rng, n);
                run_case(&w, sync, op, shift, lagger);
                cases++;
            }
        osc_win_free(&w);
    }
    if (me == 0)
        printf("osc_matrix: %d cases passed at %d ranks\n", cases, n);
    MPI_Finalize();
    return 0;
}
