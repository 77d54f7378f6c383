/*
 * osc_atomic.c -- accumulates to the same elements are atomic per element
 * (MPI-4.1 12.7.1), whatever mix of ranks, operations and epochs does them
 * (issue 23 items 2 and 5).
 *
 * All ranks, many rounds, on one window of rank 0 (and of the last rank):
 *   c[0]  Accumulate(SUM, 1)                         -> n * rounds
 *   c[1]  Fetch_and_op(SUM, 1): every fetched value distinct, together
 *         exactly 0 .. n*rounds-1 (a ticket counter)
 *   c[2]  Compare_and_swap increment loop            -> n * rounds, and the
 *         values each rank saw win are distinct too
 *   c[3]  Get_accumulate(SUM, 2): fetched values distinct even numbers
 *   v[]   Accumulate(SUM) of a 64-element double vector of 1.0 -> exact
 *   x     Fetch_and_op(REPLACE) then (NO_OP): always some rank's value
 * Epochs alternate between a shared lock per operation and lock_all with
 * flush; some ranks nap while holding nothing, so ranks interleave.
 * usage: osc_atomic [seed [rounds]]
 */
#include "osc_common.h"

#define V 64

int main(int argc, char **argv)
{
    int me, n;
    unsigned long seed = osc_start(&argc, &argv, "osc_atomic", &me, &n);
    int rounds = argc > 2 ? atoi(argv[2]) : 200;
    uint64_t rng = seed + 977 * (uint64_t)me;
    int kinds[2] = {OSC_ALLOCATE, OSC_CREATE};
    for (int ki = 0; ki < 2; ki++) {
        struct osc_win w;
        osc_win_make(&w, (enum osc_kind)kinds[ki], 8 + V, MPI_COMM_WORLD);
        MPI_Win win = w.win;
        long long *tickets = malloc((size_t)rounds * sizeof(long long));
        long long *gacc = malloc((size_t)rounds * sizeof(long long));
        long long *cas_won = malloc((size_t)rounds * sizeof(long long));
        double ones[V];
        CHECK(tickets && gacc && cas_won, "malloc");
        for (int i = 0; i < V; i++)
            ones[i] = 1.0;
        const long long one = 1, two = 2, mine_val = 1000 + me;
        int target = ki == 0 ? 0 : n - 1;
        for (int r = 0; r < rounds; r++) {
            int per_op = (r / 7) % 2;
            if (!per_op)
                CHECK_MPI(MPI_Win_lock_all(0, win));
#define OPEN() do { if (per_op) CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win)); } while (0)
#define CLOSE() do { if (per_op) CHECK_MPI(MPI_Win_unlock(target, win)); else CHECK_MPI(MPI_Win_flush(target, win)); } while (0)
            OPEN();
            CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG_LONG, target, osc_disp(&w, target, 0), 1, MPI_LONG_LONG,
                                     MPI_SUM, win));
            CHECK_MPI(MPI_Fetch_and_op(&one, &tickets[r], MPI_LONG_LONG, target, osc_disp(&w, target, 1), MPI_SUM, win));
            CHECK_MPI(MPI_Get_accumulate(&two, 1, MPI_LONG_LONG, &gacc[r], 1, MPI_LONG_LONG, target,
                                         osc_disp(&w, target, 3), 1, MPI_LONG_LONG, MPI_SUM, win));
            CHECK_MPI(MPI_Accumulate(ones, V, MPI_DOUBLE, target, osc_disp(&w, target, 8), V, MPI_DOUBLE, MPI_SUM, win));
            CLOSE();
            /* The CAS increment: read, try old -> old+1, until it holds. */
            long long seen = 0, prev;
            for (int tries = 0;; tries++) {
                long long next = seen + 1;
                OPEN();
                CHECK_MPI(MPI_Compare_and_swap(&next, &seen, &prev, MPI_LONG_LONG, target, osc_disp(&w, target, 2), win));
                CLOSE();
                if (prev == seen)
                    break;
                seen = prev;
                CHECK(tries < 1000000, "Compare_and_swap loop does not end");
            }
            cas_won[r] = seen;
            OPEN();
            long long old, got;
            CHECK_MPI(MPI_Fetch_and_op(&mine_val, &old, MPI_LONG_LONG, target, osc_disp(&w, target, 4), MPI_REPLACE, win));
            CHECK_MPI(MPI_Fetch_and_op(NULL, &got, MPI_LONG_LONG, target, osc_disp(&w, target, 4), MPI_NO_OP, win));
            CLOSE();
            CHECK(old == 0 || (old >= 1000 && old < 1000 + n), "REPLACE fetched %lld: no rank's value", old);
            CHECK(got >= 1000 && got < 1000 + n, "NO_OP fetched %lld: no rank's value", got);
            if (!per_op)
                CHECK_MPI(MPI_Win_unlock_all(win));
            if (osc_rand_below(&rng, 16) == 0)
                osc_nap(200 + osc_rand_below(&rng, 800));
#undef OPEN
#undef CLOSE
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (me == target) {
            osc_local_begin(&w);
            long long total = (long long)n * rounds;
            CHECK(w.base[0] == total, "%s window: Accumulate(SUM) counter %lld, expected %lld",
                  osc_kind_name[w.kind], w.base[0], total);
            CHECK(w.base[1] == total, "%s window: Fetch_and_op counter %lld, expected %lld",
                  osc_kind_name[w.kind], w.base[1], total);
            CHECK(w.base[2] == total, "%s window: Compare_and_swap counter %lld, expected %lld",
                  osc_kind_name[w.kind], w.base[2], total);
            CHECK(w.base[3] == 2 * total, "%s window: Get_accumulate counter %lld, expected %lld",
                  osc_kind_name[w.kind], w.base[3], 2 * total);
            const double *v = (const double *)&w.base[8];
            for (int i = 0; i < V; i++)
                CHECK(v[i] == (double)total, "%s window: double SUM element %d is %g, expected %lld",
                      osc_kind_name[w.kind], i, v[i], total);
            osc_local_end(&w);
        }
        /* Every ticket, CAS win and Get_accumulate value exactly once. */
        long long total = (long long)n * rounds;
        long long *all = me == 0 ? malloc((size_t)total * 3 * sizeof(long long)) : NULL;
        CHECK(me != 0 || all, "malloc");
        MPI_Gather(tickets, rounds, MPI_LONG_LONG, all, rounds, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
        MPI_Gather(cas_won, rounds, MPI_LONG_LONG, me == 0 ? all + total : NULL, rounds, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
        MPI_Gather(gacc, rounds, MPI_LONG_LONG, me == 0 ? all + 2 * total : NULL, rounds, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
        if (me == 0) {
            static const char *const what[3] = {"Fetch_and_op ticket", "Compare_and_swap value", "Get_accumulate value"};
            for (int a = 0; a < 3; a++) {
                char *seen = calloc((size_t)total, 1);
                CHECK(seen, "calloc");
                for (long long i = 0; i < total; i++) {
                    long long v = all[a * total + i];
                    if (a == 2) {
                        CHECK(v % 2 == 0, "%s %lld is odd", what[a], v);
                        v /= 2;
                    }
                    CHECK(v >= 0 && v < total, "%s %lld out of 0..%lld", what[a], v, total - 1);
                    CHECK(!seen[v], "%s %lld fetched twice: not atomic", what[a], v);
                    seen[v] = 1;
                }
                free(seen);
            }
            free(all);
        }
        free(tickets);
        free(gacc);
        free(cas_won);
        osc_win_free(&w);
    }
    if (me == 0)
        printf("osc_atomic: %d ranks x %d rounds, counters exact\n", n, rounds);
    MPI_Finalize();
    return 0;
}
