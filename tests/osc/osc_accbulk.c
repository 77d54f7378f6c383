/*
 * osc_accbulk.c -- large accumulates from every rank at once into one
 * target fold exactly (MPI-4.1 12.7.1, same op and basic type: atomic per
 * element), on allocate, allocate_shared and create windows (issue 38).
 *
 * Accumulates apply the op kernel with plain loads and stores (src/osc/acc.c)
 * and rely on the target's accumulate lock -- or on the origin's exclusive
 * lock -- for atomicity; a path that skipped both under a shared lock would
 * lose updates here.  Every round each rank picks (from the seed) a shared
 * lock (half the rounds), lock_all + flush or an exclusive lock, and adds
 * (rank + 1) to every double of rank 0's window (V of them: long enough
 * that ranks overlap), and Fetch_and_op(SUM, 1.0) on element 0 (mixing a single-element path
 * with the bulk one).  At the end element i is rounds * n(n+1)/2 (+ rounds
 * * n for element 0), exactly: small integers in doubles.
 * usage: osc_accbulk [seed [rounds]]
 */
#include "osc_common.h"

#define V 32768

int main(int argc, char **argv)
{
    int me, n;
    unsigned long seed = osc_start(&argc, &argv, "osc_accbulk", &me, &n);
    int rounds = argc > 2 ? atoi(argv[2]) : 1000;
    uint64_t rng = seed + 7919 * (uint64_t)me;
    double *add = malloc(V * sizeof(double));
    CHECK(add, "malloc");
    for (int i = 0; i < V; i++)
        add[i] = me + 1;
    const enum osc_kind kinds[3] = {OSC_ALLOCATE, OSC_SHARED, OSC_CREATE};
    for (int ki = 0; ki < 3; ki++) {
        struct osc_win w;
        osc_win_make(&w, kinds[ki], V, MPI_COMM_WORLD); /* long long slots: 8 bytes, as a double */
        MPI_Aint d0 = osc_disp(&w, 0, 0);
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        for (int r = 0; r < rounds; r++) {
            int mode = osc_rand_below(&rng, 4); /* 0 shared, 1 lock_all, 2 exclusive, 3 shared */
            const double one = 1.0;
            double got;
            if (mode == 1)
                CHECK_MPI(MPI_Win_lock_all(0, w.win));
            else
                CHECK_MPI(MPI_Win_lock(mode == 2 ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED, 0, 0, w.win));
            CHECK_MPI(MPI_Accumulate(add, V, MPI_DOUBLE, 0, d0, V, MPI_DOUBLE, MPI_SUM, w.win));
            CHECK_MPI(MPI_Fetch_and_op(&one, &got, MPI_DOUBLE, 0, d0, MPI_SUM, w.win));
            if (mode == 1) {
                CHECK_MPI(MPI_Win_flush(0, w.win));
                CHECK_MPI(MPI_Win_unlock_all(w.win));
            } else {
                CHECK_MPI(MPI_Win_unlock(0, w.win));
            }
        }
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        if (me == 0) {
            osc_local_begin(&w);
            const double *v = (const double *)(void *)w.base;
            double each = (double)rounds * n * (n + 1) / 2;
            long bad = 0;
            for (int i = 0; i < V; i++) {
                double want = each + (i == 0 ? (double)rounds * n : 0);
                if (v[i] != want && bad++ < 5)
                    fprintf(stderr, "osc_accbulk %s: element %d is %.17g, want %.17g (seed %lu)\n",
                            osc_kind_name[kinds[ki]], i, v[i], want, seed);
            }
            osc_local_end(&w);
            CHECK(bad == 0, "lost accumulates");
        }
        osc_win_free(&w);
    }
    free(add);
    MPI_Finalize();
    return 0;
}
