/*
 * persist_first.c -- persistent collectives made before any other collective
 * on their communicator still run on the shared-memory engine.
 *
 * A program that builds its plans right after MPI_Init (or on a fresh dup)
 * used to get point-to-point schedules for good, because a nonblocking
 * front end may not set up the communicator's shared area (that takes a
 * collective agreement) and nothing else had yet: an 8-byte
 * Allreduce_init + Start + Wait cost 0.83 us instead of 0.28.  The _init
 * may synchronize (MPI-4.1 §6.13), so it now sets the area up.
 *
 * What shows the path: the engine sends no point-to-point message, a
 * schedule sends at least one per start on every rank.  So each plan, made
 * first on a fresh dup, is started STARTS times with fresh data (checked
 * after each Wait), and corempi's message counters (MPI_T pvars
 * p2p_msgs_same_level + p2p_msgs_across_level, standard MPI_T calls; another
 * MPI lacks them and skips that check) must not move across the starts.
 * With COREMPI_SHM_NBC=0 (no engine for nonblocking and persistent
 * collectives) the counters must move instead: the check itself can fail.
 * Prints "persist_first ok".
 */
#include "../mpi/check.h"

#define STARTS 50

static int rank, size;
static int engine_expected;   /* corempi, the engine on, more than one rank */

/* Messages this process sent so far, or -1 when the pvars are missing. */
static long long msgs_sent(void)
{
    static int ready, missing;
    static MPI_T_pvar_session s;
    static MPI_T_pvar_handle h[2];
    static const char *const names[2] = { "p2p_msgs_same_level", "p2p_msgs_across_level" };
    if (!ready) {
        ready = 1;
        CHECK_MPI(MPI_T_pvar_session_create(&s));
        for (int i = 0; i < 2; i++) {
            int idx, count;
            if (MPI_T_pvar_get_index(names[i], MPI_T_PVAR_CLASS_COUNTER, &idx) != MPI_SUCCESS) {
                missing = 1;
                return -1;
            }
            CHECK_MPI(MPI_T_pvar_handle_alloc(s, idx, NULL, &h[i], &count));
        }
    }
    if (missing)
        return -1;
    long long total = 0;
    for (int i = 0; i < 2; i++) {
        unsigned long long v = 0;
        CHECK_MPI(MPI_T_pvar_read(s, h[i], &v));
        total += (long long)v;
    }
    return total;
}

/* The counters across a plan's starts, summed over the ranks (a leaf of a
 * broadcast tree sends nothing either way): unchanged on the engine, moved
 * on point-to-point schedules.  The sum is taken after the window. */
static void check_path(const char *what, long long before)
{
    long long after = msgs_sent(), mine = after - before, all = 0;
    int have = before >= 0, everyone = 0;
    MPI_Allreduce(&have, &everyone, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (!everyone || size == 1)
        return;
    if (engine_expected)
        CHECK(all == 0, "%s made first on a fresh communicator: %lld point-to-point messages in %d starts "
              "(a schedule, not the shared-memory engine)", what, all, STARTS);
    else
        CHECK(all > 0, "%s with COREMPI_SHM_NBC=0: no point-to-point message in %d starts", what, STARTS);
}

static void allreduce_first(MPI_Datatype dt)
{
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    double in = 0, out = -1;
    MPI_Request q;
    CHECK_MPI(MPI_Allreduce_init(&in, &out, 1, dt, MPI_SUM, c, MPI_INFO_NULL, &q));
    long long before = msgs_sent();
    for (int k = 0; k < STARTS; k++) {
        in = rank + k;
        CHECK_MPI(MPI_Start(&q));
        CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
        double want = (double)size * (size - 1) / 2 + (double)size * k;
        CHECK(out == want, "allreduce start %d: got %g want %g", k, out, want);
    }
    check_path("MPI_Allreduce_init", before);
    MPI_Request_free(&q);
    MPI_Comm_free(&c);
}

static void bcast_first(void)
{
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    int v[3];
    MPI_Request q;
    int root = size - 1;
    CHECK_MPI(MPI_Bcast_init(v, 3, MPI_INT, root, c, MPI_INFO_NULL, &q));
    long long before = msgs_sent();
    for (int k = 0; k < STARTS; k++) {
        for (int i = 0; i < 3; i++)
            v[i] = rank == root ? k * 10 + i : -1;
        CHECK_MPI(MPI_Start(&q));
        CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
        for (int i = 0; i < 3; i++)
            CHECK(v[i] == k * 10 + i, "bcast start %d: v[%d] = %d", k, i, v[i]);
    }
    check_path("MPI_Bcast_init", before);
    MPI_Request_free(&q);
    MPI_Comm_free(&c);
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *nbc = getenv("COREMPI_SHM_NBC");
    engine_expected = size > 1 && !(nbc && !strcmp(nbc, "0"));
    /* The very first collective of the job: a plan on MPI_COMM_WORLD. */
    {
        double in = rank, out = -1;
        MPI_Request q;
        CHECK_MPI(MPI_Allreduce_init(&in, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD, MPI_INFO_NULL, &q));
        long long before = msgs_sent();
        for (int k = 0; k < STARTS; k++) {
            in = rank * 2 + k;
            CHECK_MPI(MPI_Start(&q));
            CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
            CHECK(out == (size - 1) * 2 + k, "world allreduce start %d: got %g", k, out);
        }
        check_path("MPI_Allreduce_init on MPI_COMM_WORLD", before);
        MPI_Request_free(&q);
    }
    allreduce_first(MPI_DOUBLE);
    bcast_first();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("persist_first ok\n");
    MPI_T_finalize();
    MPI_Finalize();
    return 0;
}
