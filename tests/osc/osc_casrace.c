/*
 * osc_casrace.c -- Compare_and_swap and Fetch_and_op on one element, from
 * every rank at once with nothing in between, are atomic (MPI-4.1 12.7.1):
 * the one-pass path of acc.c (a target mapped by the origin, a predefined
 * type) holds the target's accumulate word for its read-compare-write, as
 * the general path does.
 *
 * On Win_allocate and Win_allocate_shared windows of rank 0, under
 * lock_all (shared, so the word is what excludes), every rank increments
 * c[0] by a Compare_and_swap retry loop and c[1] by Fetch_and_op(SUM):
 * c[0] and c[1] must end at n * iters, and the values each rank won are
 * distinct across ranks (every increment happened once).
 * usage: osc_casrace [seed [iters]]
 */
#include "osc_common.h"

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* every value in all[0..total) distinct and in [0, total) */
static void check_tickets(long long *all, int total, const char *what, const char *kind)
{
    qsort(all, (size_t)total, sizeof *all, cmp_ll);
    for (int i = 0; i < total; i++)
        CHECK(all[i] == i, "%s window: %s ticket %d is %lld (an increment was lost or doubled)", kind, what, i,
              all[i]);
}

int main(int argc, char **argv)
{
    int me, n;
    unsigned long seed = osc_start(&argc, &argv, "osc_casrace", &me, &n);
    int iters = argc > 2 ? atoi(argv[2]) : 20000;
    (void)seed;
    const enum osc_kind kinds[2] = {OSC_ALLOCATE, OSC_SHARED};
    const char *const names[2] = {"allocate", "allocate_shared"};
    long long *cas_won = malloc((size_t)iters * sizeof(long long));
    long long *fop_won = malloc((size_t)iters * sizeof(long long));
    long long *all = me == 0 ? malloc((size_t)iters * (size_t)n * sizeof(long long)) : NULL;
    CHECK(cas_won && fop_won && (me != 0 || all), "malloc");
    for (int ki = 0; ki < 2; ki++) {
        struct osc_win w;
        osc_win_make(&w, kinds[ki], 2, MPI_COMM_WORLD);
        const long long one = 1;
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK_MPI(MPI_Win_lock_all(0, w.win));
        long long seen = 0;
        for (int i = 0; i < iters; i++) {
            long long prev, next;
            for (long tries = 0;; tries++) {
                next = seen + 1;
                CHECK_MPI(MPI_Compare_and_swap(&next, &seen, &prev, MPI_LONG_LONG, 0, osc_disp(&w, 0, 0), w.win));
                if (prev == seen)
                    break;
                seen = prev;
                CHECK(tries < 100000000, "Compare_and_swap loop does not end");
            }
            cas_won[i] = seen++;
            CHECK_MPI(MPI_Fetch_and_op(&one, &fop_won[i], MPI_LONG_LONG, 0, osc_disp(&w, 0, 1), MPI_SUM, w.win));
        }
        CHECK_MPI(MPI_Win_unlock_all(w.win));
        MPI_Barrier(MPI_COMM_WORLD);
        long long total = (long long)n * iters;
        if (me == 0) {
            CHECK(w.base[0] == total, "%s window: Compare_and_swap counter %lld, expected %lld", names[ki],
                  w.base[0], total);
            CHECK(w.base[1] == total, "%s window: Fetch_and_op counter %lld, expected %lld", names[ki], w.base[1],
                  total);
        }
        MPI_Gather(cas_won, iters, MPI_LONG_LONG, all, iters, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
        if (me == 0)
            check_tickets(all, n * iters, "Compare_and_swap", names[ki]);
        MPI_Gather(fop_won, iters, MPI_LONG_LONG, all, iters, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
        if (me == 0)
            check_tickets(all, n * iters, "Fetch_and_op", names[ki]);
        osc_win_free(&w);
    }
    free(cas_won);
    free(fop_won);
    free(all);
    if (me == 0)
        printf("osc_casrace: ok\n");
    MPI_Finalize();
    return 0;
}
