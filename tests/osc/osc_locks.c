/*
 * osc_locks.c -- passive-target locks exclude on the data (MPI-4.1 12.5.3):
 * an MPI_LOCK_EXCLUSIVE holder is alone at its target, MPI_LOCK_SHARED
 * holders (Win_lock or Win_lock_all) only ever share with each other
 * (issue 23 item 5; docs/osc.md "Mutations the tests catch").
 *
 * Every round each rank draws a role and locks one target (rank 0, then the
 * last rank, on a Win_allocate and a Win_create window):
 *   writer  MPI_LOCK_EXCLUSIVE: adds WRITER to the occupancy word and must
 *           fetch 0 (nobody inside); rewrites the 8-word record word by
 *           word with a nap after each word; reads it back whole; takes
 *           WRITER away and must fetch exactly WRITER (nobody came in).
 *   reader  MPI_LOCK_SHARED (or lock_all): adds 1 and must fetch less than
 *           WRITER (no writer inside); reads the record word by word with
 *           naps and must see one writer's value in every word (no torn
 *           record); takes the 1 away, again with no writer inside.
 * The occupancy word is updated with Fetch_and_op, atomic whatever the lock
 * does, so a lock that lets a second holder in is seen by whichever holder
 * comes second, at once and with the counts in the message -- not as a hang
 * later, when the broken lock word no longer lets anybody in.
 * usage: osc_locks [seed [rounds]]
 */
#include "osc_common.h"

#define REC 8                  /* words of the record, after the occupancy word */
#define WRITER (1LL << 20)     /* occupancy added by an exclusive holder; readers add 1 */
#define NAP_US 20              /* between words: time for an intruder to act */

/* Who is inside, for the messages. */
static void who(long long occ, char *buf, size_t len)
{
    snprintf(buf, len, "%lld exclusive and %lld shared holder(s)", occ / WRITER, occ % WRITER);
}

static long long fetch_add(const struct osc_win *w, int t, long long v)
{
    long long old;
    CHECK_MPI(MPI_Fetch_and_op(&v, &old, MPI_LONG_LONG, t, osc_disp(w, t, 0), MPI_SUM, w->win));
    CHECK_MPI(MPI_Win_flush(t, w->win));
    return old;
}

static long long get_word(const struct osc_win *w, int t, int i)
{
    long long v;
    CHECK_MPI(MPI_Get(&v, 1, MPI_LONG_LONG, t, osc_disp(w, t, 1 + i), 1, MPI_LONG_LONG, w->win));
    CHECK_MPI(MPI_Win_flush(t, w->win));
    return v;
}

/* One writer's record: the same value in every word, naming the writer. */
static void check_whole(const long long *rec, const char *when, int t, const char *kind)
{
    for (int i = 1; i < REC; i++)
        CHECK(rec[i] == rec[0], "%s window, target %d, %s: torn record: word 0 holds %lld, word %d holds %lld",
              kind, t, when, rec[0], i, rec[i]);
}

static void writer(const struct osc_win *w, int t, long long value, const char *kind)
{
    char in[96];
    long long rec[REC];
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, w->win));
    long long occ = fetch_add(w, t, WRITER);
    who(occ, in, sizeof in);
    CHECK(occ == 0, "%s window, target %d: MPI_LOCK_EXCLUSIVE granted with %s inside", kind, t, in);
    for (int i = 0; i < REC; i++)
        rec[i] = get_word(w, t, i);
    check_whole(rec, "as the exclusive holder found it", t, kind);
    for (int i = 0; i < REC; i++) {
        CHECK_MPI(MPI_Put(&value, 1, MPI_LONG_LONG, t, osc_disp(w, t, 1 + i), 1, MPI_LONG_LONG, w->win));
        CHECK_MPI(MPI_Win_flush(t, w->win));
        osc_nap(NAP_US);
    }
    for (int i = 0; i < REC; i++) {
        rec[i] = get_word(w, t, i);
        CHECK(rec[i] == value, "%s window, target %d: exclusive holder wrote %lld into word %d, read back %lld",
              kind, t, value, i, rec[i]);
    }
    occ = fetch_add(w, t, -WRITER);
    who(occ - WRITER, in, sizeof in);
    CHECK(occ == WRITER, "%s window, target %d: %s came in during an MPI_LOCK_EXCLUSIVE hold", kind, t, in);
    CHECK_MPI(MPI_Win_unlock(t, w->win));
}

static void reader(const struct osc_win *w, int t, int all, const char *kind)
{
    char in[96];
    long long rec[REC];
    if (all)
        CHECK_MPI(MPI_Win_lock_all(0, w->win));
    else
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, w->win));
    const char *how = all ? "MPI_Win_lock_all" : "MPI_LOCK_SHARED";
    long long occ = fetch_add(w, t, 1);
    who(occ, in, sizeof in);
    CHECK(occ < WRITER, "%s window, target %d: %s granted with %s inside", kind, t, how, in);
    for (int i = 0; i < REC; i++) {
        rec[i] = get_word(w, t, i);
        osc_nap(NAP_US);
    }
    check_whole(rec, how, t, kind);
    occ = fetch_add(w, t, -1);
    who(occ - 1, in, sizeof in);
    CHECK(occ >= 1 && occ < WRITER, "%s window, target %d: %s came in during an %s hold", kind, t, in, how);
    if (all)
        CHECK_MPI(MPI_Win_unlock_all(w->win));
    else
        CHECK_MPI(MPI_Win_unlock(t, w->win));
}

int main(int argc, char **argv)
{
    int me, n;
    unsigned long seed = osc_start(&argc, &argv, "osc_locks", &me, &n);
    int rounds = argc > 2 ? atoi(argv[2]) : 150;
    uint64_t rng = seed + 7919 * (uint64_t)me;
    const int kinds[2] = {OSC_ALLOCATE, OSC_CREATE};
    for (int ki = 0; ki < 2; ki++) {
        const char *kind = osc_kind_name[kinds[ki]];
        struct osc_win w;
        osc_win_make(&w, (enum osc_kind)kinds[ki], 1 + REC, MPI_COMM_WORLD);
        long long writes = 0, reads = 0;
        for (int half = 0; half < 2; half++) {
            int t = half == 0 ? 0 : n - 1;
            for (int r = 0; r < rounds / 2; r++) {
                if (osc_rand_below(&rng, 2)) {
                    /* rank and round in the value: a stale or foreign word shows */
                    writer(&w, t, (long long)(me + 1) * 1000000 + r, kind);
                    writes++;
                } else {
                    reader(&w, t, osc_rand_below(&rng, 4) == 0, kind);
                    reads++;
                }
                if (osc_rand_below(&rng, 8) == 0)
                    osc_nap(50 + osc_rand_below(&rng, 200));
            }
        }
        /* Quiet now: every target's occupancy back to 0, its record whole.
         * The same counts on every rank show every rank took both roles. */
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        int tgts[2] = {0, n - 1};
        for (int k = 0; k < 2; k++) {
            long long rec[REC];
            CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, tgts[k], 0, w.win));
            long long occ = fetch_add(&w, tgts[k], 0);
            for (int i = 0; i < REC; i++)
                rec[i] = get_word(&w, tgts[k], i);
            CHECK_MPI(MPI_Win_unlock(tgts[k], w.win));
            CHECK(occ == 0, "%s window, target %d: occupancy %lld after every hold ended", kind, tgts[k], occ);
            check_whole(rec, "after every hold ended", tgts[k], kind);
        }
        long long tot[2], mine_all[2] = {writes, reads};
        CHECK_MPI(MPI_Allreduce(mine_all, tot, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
        CHECK(tot[0] + tot[1] == (long long)n * (rounds / 2) * 2, "%lld holds counted, expected %lld",
              tot[0] + tot[1], (long long)n * (rounds / 2) * 2);
        CHECK(n == 1 || (tot[0] > 0 && tot[1] > 0), "the draw gave no writer or no reader (%lld, %lld)", tot[0],
              tot[1]);
        if (me == 0)
            printf("osc_locks: %s window: %lld exclusive and %lld shared holds on %d ranks, none overlapped\n", kind,
                   tot[0], tot[1], n);
        osc_win_free(&w);
    }
    MPI_Finalize();
    return 0;
}
