/*
 * osc_shared.c -- Win_allocate_shared and Win_shared_query: peers load and
 * store each other's segments directly (issue 23 items 1 and 5).
 *
 * Segments of different sizes per rank (rank 1's is empty), contiguous by
 * default and with alloc_shared_noncontig:
 *   - shared_query of every rank gives its size and disp_unit, and the
 *     default layout is one contiguous block in rank order (MPI-4.1 12.2.3);
 *   - shared_query(MPI_PROC_NULL) gives the first segment of nonzero size;
 *   - rounds of: every rank stores into its right neighbour's segment,
 *     Win_sync + barrier + Win_sync, every rank checks its own segment and
 *     reads its left neighbour's through the pointer as well;
 *   - a flag handed around the ring through shared memory only (Win_sync in
 *     the wait loop), so a store is seen without any MPI call between;
 *   - shared_query on a Win_allocate window: size 0, or the owner's memory.
 */
#include <sched.h>

#include "osc_common.h"

static int me, n;

static MPI_Aint seg_elems(int r) { return r == 1 ? 0 : 16 + 8 * (r % 3); }

static void check_layout(MPI_Win win, long long *mine, int noncontig)
{
    long long *prev_end = NULL;
    for (int r = 0; r < n; r++) {
        MPI_Aint size = -1;
        int du = -1;
        long long *p = NULL;
        CHECK_MPI(MPI_Win_shared_query(win, r, &size, &du, &p));
        CHECK(size == seg_elems(r) * (MPI_Aint)sizeof(long long), "shared_query(%d): size %ld, expected %ld", r,
              (long)size, (long)(seg_elems(r) * (MPI_Aint)sizeof(long long)));
        CHECK(du == (int)sizeof(long long), "shared_query(%d): disp_unit %d", r, du);
        if (r == me && size > 0)
            CHECK(p == mine, "shared_query(me) is not my baseptr");
        if (!noncontig && size > 0 && prev_end)
            CHECK(p == prev_end, "contiguous window: rank %d's segment does not follow rank %d's", r, r - 1);
        if (size > 0)
            prev_end = p + seg_elems(r);
    }
    MPI_Aint size = -1;
    int du = -1;
    long long *p = NULL, *p0 = NULL;
    CHECK_MPI(MPI_Win_shared_query(win, MPI_PROC_NULL, &size, &du, &p));
    CHECK_MPI(MPI_Win_shared_query(win, 0, &size, &du, &p0));
    CHECK(p == p0 && size == seg_elems(0) * (MPI_Aint)sizeof(long long),
          "shared_query(MPI_PROC_NULL) is not rank 0's segment (the first nonzero one)");
}

int main(int argc, char **argv)
{
    unsigned long seed = osc_start(&argc, &argv, "osc_shared", &me, &n);
    uint64_t rng = seed + (uint64_t)me * 31;
    for (int noncontig = 0; noncontig < 2; noncontig++) {
        MPI_Info info = MPI_INFO_NULL;
        if (noncontig) {
            MPI_Info_create(&info);
            MPI_Info_set(info, "alloc_shared_noncontig", "true");
        }
        long long *mine = NULL;
        MPI_Win win;
        CHECK_MPI(MPI_Win_allocate_shared(seg_elems(me) * (MPI_Aint)sizeof(long long), (int)sizeof(long long), info,
                                          MPI_COMM_WORLD, &mine, &win));
        if (info != MPI_INFO_NULL)
            MPI_Info_free(&info);
        check_layout(win, mine, noncontig);

        /* The owners of a segment form a ring: each stores into the next
         * owner's segment (its right), and reads the previous one's (left);
         * a rank without a segment only reads.  left's writer: left's left. */
        int right = me, left = me, lw = me;
        do right = (right + 1) % n; while (seg_elems(right) == 0);
        do left = (left + n - 1) % n; while (seg_elems(left) == 0);
        lw = left;
        do lw = (lw + n - 1) % n; while (seg_elems(lw) == 0);
        int writer = left; /* who stores into my segment, if I have one */
        int owner = seg_elems(me) > 0;
        long long *rp = NULL, *lp = NULL;
        MPI_Aint sz;
        int du;
        CHECK_MPI(MPI_Win_shared_query(win, right, &sz, &du, &rp));
        CHECK_MPI(MPI_Win_shared_query(win, left, &sz, &du, &lp));
        CHECK_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
        for (int round = 0; round < 50; round++) {
            for (MPI_Aint i = 0; owner && i < seg_elems(right); i++)
                rp[i] = 1000000LL * round + 1000 * me + i;
            if (osc_rand_below(&rng, 8) == 0)
                osc_nap(500);
            CHECK_MPI(MPI_Win_sync(win));
            MPI_Barrier(MPI_COMM_WORLD);
            CHECK_MPI(MPI_Win_sync(win));
            if (owner)
                for (MPI_Aint i = 0; i < seg_elems(me); i++)
                    CHECK(mine[i] == 1000000LL * round + 1000 * writer + i,
                          "%s round %d: my element %ld is %lld, rank %d stored %lld", noncontig ? "noncontig" : "contig",
                          round, (long)i, mine[i], writer, 1000000LL * round + 1000 * writer + i);
            /* the left owner's segment, read through its pointer */
            CHECK(lp[0] == 1000000LL * round + 1000 * lw, "round %d: rank %d's segment reads %lld through my pointer",
                  round, left, lp[0]);
            MPI_Barrier(MPI_COMM_WORLD);
        }

        /* A token around the ring of segment owners, through memory only:
         * the owner of segment s waits for s[0] == hop, then writes hop+1
         * into the next owner's segment. */
        if (n > 1) {
            for (int r = 0; r < n; r++)
                if (seg_elems(r) > 0) {
                    if (r == me)
                        mine[0] = -1;
                }
            CHECK_MPI(MPI_Win_sync(win));
            MPI_Barrier(MPI_COMM_WORLD);
            CHECK_MPI(MPI_Win_sync(win));
            int owners = 0, pos = -1;
            for (int r = 0; r < n; r++)
                if (seg_elems(r) > 0) {
                    if (r == me)
                        pos = owners;
                    owners++;
                }
            /* Every hop waits for the next owner to be scheduled: fewer laps
             * when ranks outnumber the cores. */
            const int laps = n > 4 ? 4 : 20;
            if (pos == 0) {
                rp[0] = 1; /* hop 1 to the next owner */
                CHECK_MPI(MPI_Win_sync(win));
            }
            if (pos >= 0 && owners > 1) {
                for (int lap = 0; lap < laps; lap++) {
                    long long want = (long long)lap * owners + pos + (pos == 0 ? owners : 0);
                    if (pos == 0 && lap == laps - 1)
                        break; /* the last hop ends at rank 0's start */
                    double t0 = MPI_Wtime();
                    volatile long long *vm = mine;
                    while (vm[0] != want) {
                        CHECK_MPI(MPI_Win_sync(win));
                        sched_yield(); /* the owner of the token may need this core */
                        CHECK(MPI_Wtime() - t0 < 60, "token: waited 60 s for hop %lld (have %lld)", want, vm[0]);
                    }
                    rp[0] = want + 1;
                    CHECK_MPI(MPI_Win_sync(win));
                }
            }
            MPI_Barrier(MPI_COMM_WORLD);
        }
        CHECK_MPI(MPI_Win_unlock_all(win));
        CHECK_MPI(MPI_Win_free(&win));
    }

    /* shared_query on a Win_allocate window: not shared (size 0) or shared
     * (the owner's memory); either is the standard's. */
    struct osc_win w;
    osc_win_make(&w, OSC_ALLOCATE, 4, MPI_COMM_WORLD);
    int t = (me + 1) % n;
    MPI_Aint size = -1;
    int du = 0;
    long long *p = NULL;
    CHECK_MPI(MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN));
    int rc = MPI_Win_shared_query(w.win, t, &size, &du, &p);
#ifdef MPICH_VERSION
    /* MPICH 4.0 keeps MPI-3's rule: shared windows only (an error). */
    if (rc != MPI_SUCCESS)
        size = 0;
#else
    /* corempi allocated this memory: issue 23 item 1 says peers share it. */
    CHECK(rc == MPI_SUCCESS && size > 0, "shared_query on a Win_allocate window: rc %d, size %ld", rc, (long)size);
#endif
    osc_local_begin(&w);
    w.base[2] = 5550 + me;
    osc_local_end(&w);
    MPI_Barrier(MPI_COMM_WORLD);
    if (size > 0) {
        CHECK(size == 4 * (MPI_Aint)sizeof(long long), "shared_query on Win_allocate: size %ld", (long)size);
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, w.win));
        CHECK_MPI(MPI_Win_sync(w.win));
        CHECK(p[2] == 5550 + t, "shared_query on Win_allocate: not rank %d's memory", t);
        CHECK_MPI(MPI_Win_unlock(t, w.win));
    }
    if (me == 0)
        printf("osc_shared: Win_allocate window %s through Win_shared_query\n", size > 0 ? "shared" : "not shared");
    MPI_Barrier(MPI_COMM_WORLD);
    osc_win_free(&w);
    return check_done("osc_shared");
}
