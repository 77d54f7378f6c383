/*
 * osc_regions.c -- many attached regions on a dynamic window.
 *
 * Every rank attaches 70 separate regions (more than the 32 corempi once
 * allowed) and every rank puts into region k of every other rank under
 * Win_lock_all, then checks what arrived in its own; then 100 cycles of
 * attach, Put by the right neighbour, check, detach; then a Put into a
 * region already detached is refused with MPI_ERR_RMA_RANGE.  Run with
 * OSC_REGIONS_LIMIT=1 (rank 0 only, cheap enough at any size) it
 * also attaches until the library refuses, and expects MPI_ERR_RMA_ATTACH
 * before 100000 regions.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

enum { LIVE = 70, ELEMS = 4, CYCLES = 100 };   /* live regions, elements per slot, cycles */

int main(int argc, char **argv)
{
    int me, n;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Win win;
    CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));

    /* LIVE regions per rank, all attached at once */
    long long *reg[LIVE];
    MPI_Aint mine[LIVE], *all = malloc((size_t)n * LIVE * sizeof *all);
    CHECK(all, "malloc");
    for (int k = 0; k < LIVE; k++) {
        reg[k] = malloc((size_t)n * ELEMS * sizeof(long long));
        CHECK(reg[k], "malloc");
        memset(reg[k], 0, (size_t)n * ELEMS * sizeof(long long));
        CHECK_MPI(MPI_Win_attach(win, reg[k], (MPI_Aint)n * ELEMS * (MPI_Aint)sizeof(long long)));
        MPI_Get_address(reg[k], &mine[k]);
    }
    MPI_Allgather(mine, LIVE, MPI_AINT, all, LIVE, MPI_AINT, MPI_COMM_WORLD);
    CHECK_MPI(MPI_Win_lock_all(0, win));
    for (int t = 0; t < n; t++) {
        for (int k = 0; k < LIVE; k++) {
            long long v[ELEMS];
            for (int i = 0; i < ELEMS; i++)
                v[i] = 1000000LL * me + 1000 * k + i + 1;
            /* origin me writes slot me of region k of t */
            MPI_Aint d = all[t * LIVE + k] + (MPI_Aint)me * ELEMS * (MPI_Aint)sizeof(long long);
            CHECK_MPI(MPI_Put(v, ELEMS, MPI_LONG_LONG, t, d, ELEMS, MPI_LONG_LONG, win));
        }
    }
    CHECK_MPI(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = 0; k < LIVE; k++)
        for (int o = 0; o < n; o++)
            for (int i = 0; i < ELEMS; i++) {
                long long want = 1000000LL * o + 1000 * k + i + 1, got = reg[k][o * ELEMS + i];
                CHECK(got == want, "region %d slot %d element %d: %lld, expected %lld", k, o, i, got, want);
            }
    MPI_Barrier(MPI_COMM_WORLD);   /* nobody reads or writes these regions any more */
    for (int k = 0; k < LIVE; k++)
        CHECK_MPI(MPI_Win_detach(win, reg[k]));

    /* CYCLES attach/detach: the left neighbour puts, I check */
    int right = (me + 1) % n, left = (me + n - 1) % n;
    long long cell[2];
    for (int c = 0; c < CYCLES; c++) {
        cell[0] = cell[1] = -1;
        CHECK_MPI(MPI_Win_attach(win, cell, sizeof cell));
        MPI_Aint a, ra;
        MPI_Get_address(cell, &a);
        MPI_Sendrecv(&a, 1, MPI_AINT, left, c, &ra, 1, MPI_AINT, right, c, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        long long v = 1000LL * c + me;
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
        CHECK_MPI(MPI_Put(&v, 1, MPI_LONG_LONG, right, ra + (MPI_Aint)sizeof(long long), 1, MPI_LONG_LONG, win));
        CHECK_MPI(MPI_Win_unlock(right, win));
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK(cell[1] == 1000LL * c + left && cell[0] == -1, "cycle %d: cell %lld %lld, expected -1 %lld", c,
              cell[0], cell[1], 1000LL * c + left);
        CHECK_MPI(MPI_Win_detach(win, cell));
        MPI_Barrier(MPI_COMM_WORLD);
        if (c == CYCLES - 1 && n > 1) {
            /* the right neighbour's cell is detached now: refused */
            CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
            int rc = MPI_Put(&v, 1, MPI_LONG_LONG, right, ra, 1, MPI_LONG_LONG, win), cls = -1;
            MPI_Error_class(rc, &cls);
            CHECK(cls == MPI_ERR_RMA_RANGE, "Put into a detached region: class %d, expected MPI_ERR_RMA_RANGE", cls);
            CHECK_MPI(MPI_Win_unlock(right, win));
        }
    }

    /* the limit, when asked: a clear refusal, not a crash */
    const char *lim = getenv("OSC_REGIONS_LIMIT");
    if (me == 0 && lim && strcmp(lim, "1") == 0) {
        static long long cells[100000];
        int k, rc = MPI_SUCCESS, cls = MPI_SUCCESS;
        for (k = 0; k < 100000; k++)
            if ((rc = MPI_Win_attach(win, &cells[k], sizeof cells[k])) != MPI_SUCCESS)
                break;
        MPI_Error_class(rc, &cls);
        CHECK(k < 100000 && cls == MPI_ERR_RMA_ATTACH, "attach %d: class %d, expected MPI_ERR_RMA_ATTACH", k, cls);
        printf("osc_regions: the library refused region %d with MPI_ERR_RMA_ATTACH\n", k + 1);
        for (int j = 0; j < k; j++)
            CHECK_MPI(MPI_Win_detach(win, &cells[j]));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Win_free(&win));
    for (int k = 0; k < LIVE; k++)
        free(reg[k]);
    free(all);
    if (me == 0)
        printf("osc_regions: %d ranks, %d live regions each, %d attach/detach cycles\n", n, LIVE, CYCLES);
    MPI_Finalize();
    return 0;
}
