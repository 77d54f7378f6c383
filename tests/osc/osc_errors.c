/*
 * osc_errors.c -- bad one-sided calls return an error, and the job goes on
 * (issue 23 item 5).  With MPI_ERRORS_RETURN on the window:
 *   - Put/Get/Accumulate past the end of the target's window (an error at
 *     the call, or at the latest when the epoch that holds it ends);
 *   - Put and Win_flush outside any epoch;
 *   - Win_unlock without Win_lock; Win_complete without Win_start;
 *   - Win_shared_query on a Win_create window (an error, or size 0 / a
 *     pointer to exactly the target's memory: MPI-4.1 allows both);
 *   - Win_lock of a rank that is not in the window's group;
 *   - Win_start and Win_post with a group that holds a process outside the
 *     window's group (a window of MPI_COMM_SELF, the group of the world).
 * After each, a valid operation on the same window must still work, and the
 * program ends (ctest's timeout catches a hang).
 */
#include "osc_common.h"

static int me, n;

/* MPICH (the peer the tests are checked with) leaves some of these checks
 * out, which the standard allows (MPI-4.1 9.4: erroneous calls need not be
 * detected); corempi must detect them all.  Under MPICH an undetected one is
 * printed, not failed, so the rest of the test still checks MPICH. */
#ifdef MPICH_VERSION
#define OSC_MAY_MISS 1
#else
#define OSC_MAY_MISS 0
#endif

/* rc is an error of class want (MPI_ERR_RMA_SYNC ...) whose message names
 * the call (house rule: a clear error naming the call and the argument). */
static void expect_error(int rc, int want, const char *call, const char *what)
{
    if (rc == MPI_SUCCESS && OSC_MAY_MISS) {
        if (me == 0)
            printf("osc_errors: %s: not detected by this MPI\n", what);
        return;
    }
    CHECK(rc != MPI_SUCCESS, "%s: returned MPI_SUCCESS, expected an error", what);
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0, cls = -1;
    CHECK_MPI(MPI_Error_class(rc, &cls));
    CHECK_MPI(MPI_Error_string(rc, msg, &len));
    CHECK(cls == want, "%s: error class %d, expected %d (%s)", what, cls, want, msg);
    CHECK(len > 0 && strstr(msg, call + 4), "%s: the message does not name %s: \"%s\"", what, call, msg);
    if (me == 0) {
        char *nl = strchr(msg, '\n');
        if (nl)
            *nl = 0;
        printf("osc_errors: %s -> class %d: %s\n", what, cls, msg);
        fflush(stdout);
    }
}

/* The window still works: a Put to the right neighbour and back. */
static void still_works(struct osc_win *w, const char *after)
{
    int t = (me + 1) % n;
    long long v = 4242 + me, got = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, w->win));
    CHECK_MPI(MPI_Put(&v, 1, MPI_LONG_LONG, t, osc_disp(w, t, 0), 1, MPI_LONG_LONG, w->win));
    CHECK_MPI(MPI_Win_flush(t, w->win));
    CHECK_MPI(MPI_Get(&got, 1, MPI_LONG_LONG, t, osc_disp(w, t, 0), 1, MPI_LONG_LONG, w->win));
    CHECK_MPI(MPI_Win_unlock(t, w->win));
    CHECK(got == v, "after %s: the window no longer works (read %lld, wrote %lld)", after, got, v);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    osc_start(&argc, &argv, "osc_errors", &me, &n);
    const int N = 8;
    long long buf[16] = {0};
    for (int kind = OSC_CREATE; kind <= OSC_SHARED; kind++) {
        struct osc_win w;
        osc_win_make(&w, (enum osc_kind)kind, N, MPI_COMM_WORLD);
        CHECK_MPI(MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN));
        int t = (me + 1) % n;
        char what[160];

        /* Out of the window: the element after the last, and far away. */
        static const char *const opn[3] = {"MPI_Put", "MPI_Get", "MPI_Accumulate"};
        /* An MPI that does not check ranges would write past the window
         * (MPICH does: a segfault in the target): not tried there. */
        for (int op = 0; op < 3 && !OSC_MAY_MISS; op++)
            for (int far = 0; far < 2; far++) {
                MPI_Aint d = far ? 1000000 : N - 1; /* N-1 + 2 elements: one past */
                int rc, rc2;
                CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, w.win));
                if (op == 0)
                    rc = MPI_Put(buf, 2, MPI_LONG_LONG, t, d, 2, MPI_LONG_LONG, w.win);
                else if (op == 1)
                    rc = MPI_Get(buf, 2, MPI_LONG_LONG, t, d, 2, MPI_LONG_LONG, w.win);
                else
                    rc = MPI_Accumulate(buf, 2, MPI_LONG_LONG, t, d, 2, MPI_LONG_LONG, MPI_SUM, w.win);
                rc2 = MPI_Win_unlock(t, w.win);
                snprintf(what, sizeof what, "%s window: %s of 2 elements at displacement %ld of a %d-element window",
                         osc_kind_name[kind], opn[op], (long)d, N);
                expect_error(rc != MPI_SUCCESS ? rc : rc2, MPI_ERR_RMA_RANGE, rc != MPI_SUCCESS ? opn[op] : "MPI_Win_unlock", what);
                still_works(&w, what);
            }

        /* Outside any epoch. */
        snprintf(what, sizeof what, "%s window: MPI_Put outside any epoch", osc_kind_name[kind]);
        expect_error(MPI_Put(buf, 1, MPI_LONG_LONG, t, 0, 1, MPI_LONG_LONG, w.win), MPI_ERR_RMA_SYNC, "MPI_Put", what);
        still_works(&w, what);
        snprintf(what, sizeof what, "%s window: MPI_Win_flush outside any epoch", osc_kind_name[kind]);
        expect_error(MPI_Win_flush(t, w.win), MPI_ERR_RMA_SYNC, "MPI_Win_flush", what);
        snprintf(what, sizeof what, "%s window: MPI_Win_unlock without MPI_Win_lock", osc_kind_name[kind]);
        expect_error(MPI_Win_unlock(t, w.win), MPI_ERR_RMA_SYNC, "MPI_Win_unlock", what);
        still_works(&w, what);
        snprintf(what, sizeof what, "%s window: MPI_Win_unlock_all without MPI_Win_lock_all", osc_kind_name[kind]);
        expect_error(MPI_Win_unlock_all(w.win), MPI_ERR_RMA_SYNC, "MPI_Win_unlock_all", what);
        snprintf(what, sizeof what, "%s window: MPI_Win_complete without MPI_Win_start", osc_kind_name[kind]);
        expect_error(MPI_Win_complete(w.win), MPI_ERR_RMA_SYNC, "MPI_Win_complete", what);
        snprintf(what, sizeof what, "%s window: MPI_Win_lock of rank %d in a window of %d", osc_kind_name[kind], n, n);
        expect_error(MPI_Win_lock(MPI_LOCK_SHARED, n, 0, w.win), MPI_ERR_RANK, "MPI_Win_lock", what);
        still_works(&w, what);

        if (kind == OSC_CREATE) {
            MPI_Aint size = -1;
            int du = -1;
            long long *p = NULL;
            int rc = MPI_Win_shared_query(w.win, t, &size, &du, &p);
            if (rc != MPI_SUCCESS) {
                expect_error(rc, MPI_ERR_RMA_FLAVOR, "MPI_Win_shared_query", "MPI_Win_shared_query on a Win_create window");
            } else if (size > 0) {
                /* Shared after all: it must be the target's memory. */
                CHECK(size == N * (MPI_Aint)sizeof(long long) && p != NULL,
                      "MPI_Win_shared_query on a Win_create window: size %ld", (long)size);
                MPI_Barrier(MPI_COMM_WORLD);
                osc_local_begin(&w);
                w.base[3] = 777000 + me;
                osc_local_end(&w);
                MPI_Barrier(MPI_COMM_WORLD);
                CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, w.win));
                CHECK_MPI(MPI_Win_sync(w.win));
                CHECK(p[3] == 777000 + t, "MPI_Win_shared_query on a Win_create window: wrong memory");
                CHECK_MPI(MPI_Win_unlock(t, w.win));
            } else if (me == 0) {
                printf("osc_errors: MPI_Win_shared_query on a Win_create window: size 0 (not shared)\n");
            }
            MPI_Barrier(MPI_COMM_WORLD);
        }
        osc_win_free(&w);
    }
    if (n > 1) {
        MPI_Win self;
        long long *base, buf = 0;
        MPI_Group world;
        CHECK_MPI(MPI_Win_allocate(8, 8, MPI_INFO_NULL, MPI_COMM_SELF, &base, &self));
        CHECK_MPI(MPI_Win_set_errhandler(self, MPI_ERRORS_RETURN));
        CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
        expect_error(MPI_Win_start(world, 0, self), MPI_ERR_GROUP, "MPI_Win_start",
                     "MPI_Win_start with a group of processes outside the window");
        expect_error(MPI_Win_post(world, 0, self), MPI_ERR_GROUP, "MPI_Win_post",
                     "MPI_Win_post with a group of processes outside the window");
        CHECK_MPI(MPI_Win_fence(0, self));
        CHECK_MPI(MPI_Put(&buf, 1, MPI_LONG_LONG, 0, 0, 1, MPI_LONG_LONG, self));
        CHECK_MPI(MPI_Win_fence(0, self));
        CHECK_MPI(MPI_Group_free(&world));
        CHECK_MPI(MPI_Win_free(&self));
    }
    return check_done("osc_errors");
}
