/*
 * osc_epochs.c -- a fence starts an access epoch only when RMA calls follow
 * it before the next fence (MPI-4.1 section 12.5), so these are correct and
 * must run, on every window kind:
 *   fence; lock/put/unlock; fence       fence; lock_all/put/unlock_all; fence
 *   fence(NOSUCCEED); lock/put/unlock   fence; post/start/put/complete/wait; fence
 *   fence; lock/unlock; put; fence      (the put falls to the fence epoch)
 * and these are erroneous and must return MPI_ERR_RMA_SYNC on the window
 * (MPI_ERRORS_RETURN), the job going on:
 *   fence; put; lock | lock_all | start  (two access epochs would overlap)
 *   fence; put; Win_free                 (Win_free needs every epoch complete,
 *   lock; put; Win_free                   the fence epoch as the lock epoch)
 * Every Put's value is checked at its target after the closing fence.
 */
#include "osc_common.h"

static int me, n;

static void expect_sync_error(int rc, const char *what)
{
    int cls = -1;
    CHECK(rc != MPI_SUCCESS, "%s: returned MPI_SUCCESS, expected MPI_ERR_RMA_SYNC", what);
    CHECK_MPI(MPI_Error_class(rc, &cls));
    CHECK(cls == MPI_ERR_RMA_SYNC, "%s: error class %d, expected MPI_ERR_RMA_SYNC", what, cls);
}

/* Put v into element i of the right neighbour. */
static int put_right(struct osc_win *w, int i, long long v)
{
    int t = (me + 1) % n;
    return MPI_Put(&v, 1, MPI_LONG_LONG, t, osc_disp(w, t, i), 1, MPI_LONG_LONG, w->win);
}

/* After a closing fence: element i holds what the left neighbour put. */
static void check_left(struct osc_win *w, int i, long long v, const char *what)
{
    long long got = w->base[i];
    CHECK(got == v, "%s: element %d is %lld, expected %lld", what, i, got, v);
}

static void correct(struct osc_win *w, const char *k)
{
    int t = (me + 1) % n, left = (me + n - 1) % n;
    char what[128];
    MPI_Group g, pg;
    MPI_Win_get_group(w->win, &g);

    snprintf(what, sizeof what, "%s: fence; lock/put/unlock; fence", k);
    CHECK_MPI(MPI_Win_fence(0, w->win));
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, w->win));
    CHECK_MPI(put_right(w, 0, 100 + me));
    CHECK_MPI(MPI_Win_unlock(t, w->win));
    CHECK_MPI(MPI_Win_fence(0, w->win));
    check_left(w, 0, 100 + left, what);

    snprintf(what, sizeof what, "%s: fence; lock_all/put/unlock_all; fence", k);
    CHECK_MPI(MPI_Win_lock_all(0, w->win));
    CHECK_MPI(put_right(w, 1, 200 + me));
    CHECK_MPI(MPI_Win_unlock_all(w->win));
    CHECK_MPI(MPI_Win_fence(0, w->win));
    check_left(w, 1, 200 + left, what);

    snprintf(what, sizeof what, "%s: fence; lock/unlock; put; fence", k);
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, w->win));
    CHECK_MPI(MPI_Win_unlock(t, w->win));
    CHECK_MPI(put_right(w, 2, 300 + me));
    CHECK_MPI(MPI_Win_fence(0, w->win));
    check_left(w, 2, 300 + left, what);

    snprintf(what, sizeof what, "%s: fence; post/start/put/complete/wait; fence", k);
    int tr[1] = {t}, lr[1] = {left};
    MPI_Group_incl(g, 1, lr, &pg);
    CHECK_MPI(MPI_Win_post(pg, 0, w->win));
    MPI_Group_free(&pg);
    MPI_Group_incl(g, 1, tr, &pg);
    CHECK_MPI(MPI_Win_start(pg, 0, w->win));
    MPI_Group_free(&pg);
    CHECK_MPI(put_right(w, 3, 400 + me));
    CHECK_MPI(MPI_Win_complete(w->win));
    CHECK_MPI(MPI_Win_wait(w->win));
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, w->win));
    check_left(w, 3, 400 + left, what);

    snprintf(what, sizeof what, "%s: fence(NOSUCCEED); lock/put/unlock", k);
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, w->win));
    CHECK_MPI(put_right(w, 4, 500 + me));
    CHECK_MPI(MPI_Win_unlock(t, w->win));
    MPI_Barrier(MPI_COMM_WORLD);
    osc_local_begin(w);
    check_left(w, 4, 500 + left, what);
    osc_local_end(w);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Group_free(&g);
}

static void erroneous(struct osc_win *w, const char *k)
{
    int t = (me + 1) % n;
    char what[128];
    MPI_Group g;
    MPI_Win_get_group(w->win, &g);
    CHECK_MPI(MPI_Win_set_errhandler(w->win, MPI_ERRORS_RETURN));

    CHECK_MPI(MPI_Win_fence(0, w->win));
    CHECK_MPI(put_right(w, 5, 600 + me));
    snprintf(what, sizeof what, "%s: fence; put; lock", k);
    expect_sync_error(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, w->win), what);
    snprintf(what, sizeof what, "%s: fence; put; lock_all", k);
    expect_sync_error(MPI_Win_lock_all(0, w->win), what);
    snprintf(what, sizeof what, "%s: fence; put; start", k);
    expect_sync_error(MPI_Win_start(g, MPI_MODE_NOCHECK, w->win), what);
    snprintf(what, sizeof what, "%s: fence; put; Win_free", k);
    MPI_Win copy = w->win;
    expect_sync_error(MPI_Win_free(&copy), what);
    CHECK(copy == w->win, "%s: the refused Win_free changed the handle", what);
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, w->win));
    check_left(w, 5, 600 + (me + n - 1) % n, "after the refused calls");

    snprintf(what, sizeof what, "%s: lock; put; Win_free", k);
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, w->win));
    CHECK_MPI(put_right(w, 6, 700 + me));
    copy = w->win;
    expect_sync_error(MPI_Win_free(&copy), what);
    CHECK_MPI(MPI_Win_unlock(t, w->win));
    MPI_Group_free(&g);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    osc_start(&argc, &argv, "osc_epochs", &me, &n);
    for (int k = 0; k < OSC_NKINDS; k++) {
        struct osc_win w;
        osc_win_make(&w, (enum osc_kind)k, 8, MPI_COMM_WORLD);
        correct(&w, osc_kind_name[k]);
        erroneous(&w, osc_kind_name[k]);
        osc_win_free(&w);
    }
    if (me == 0)
        printf("osc_epochs: ok\n");
    MPI_Finalize();
    return 0;
}
