/*
 * poll_idle.c -- a loop of empty polls gives the cores away when ranks
 * outnumber them (DESIGN.md §6; src/shm/wait.h, "Polling").
 *
 * Every rank polls with one non-blocking call after another (Iprobe,
 * Improbe, Test, Testany, Testall, Testsome, Request_get_status) for a
 * while each, with nothing ever arriving.  A library that keeps polling (or
 * only yields) keeps every rank runnable all the time: on a CPU or waiting
 * for one.  One that naps leaves the run queue most of the time.  The check
 * (/proc/self/schedstat: time on a CPU and waiting for one): the ranks
 * slept at least 30% of the wall time on average -- a busy poller sleeps
 * about 0%, a napping one 65% on a machine loaded 10 times over, 90% and
 * more on a quiet one.  CPU time alone would not tell on a loaded machine
 * (busy pollers then get little CPU too); without schedstat the check
 * falls back to it: all ranks together under half a core.  A resource
 * check, not a speed check.
 *
 * Last, 30 us of work between two polls: that rank is busy and must not
 * be put to sleep (at most 10% of the time asleep; it sleeps ~0%).
 *
 * Then the pollers, deep in their naps, must still see what arrives: each
 * rank sends to its left neighbour, which receives it by polling (MPI_Test
 * on the receive posted at the start) -- a lost wake-up would leave it
 * napping until the end of its timeout, a hang would end in CHECK.
 *
 * With a core per rank (sched_getaffinity) the library rightly keeps
 * polling: the test exits 77 (skipped).  ctest runs it under
 * `taskset -c 0,1` where available, so it runs on bigger machines too.
 *
 * Usage: poll_idle [SECONDS_FOR_IPROBE]  (the other calls get a quarter)
 */
#define _GNU_SOURCE
#include <sched.h>
#include <time.h>
#include "check.h"
#include "schedstat.h"

#define TAG_NEVER 78
#define TAG_LAST 77
#define MIN_ASLEEP 0.3   /* of the wall time, on average over the ranks */
#define MAX_CORES 0.5    /* CPU time of all ranks over the wall time */
#define MAX_ASLEEP_WORKING 0.1   /* the same, for WORK_IPROBE */

/* WORK_IPROBE: 30 us of work between two Iprobes -- a program that drives
 * progress while it computes; it must not be put to sleep. */
enum poll_kind { IPROBE, IMPROBE, TEST, TESTANY, TESTALL, TESTSOME, GET_STATUS, WORK_IPROBE, NKINDS };
static const char *kind_name[NKINDS] = { "MPI_Iprobe", "MPI_Improbe", "MPI_Test", "MPI_Testany",
                                         "MPI_Testall", "MPI_Testsome", "MPI_Request_get_status",
                                         "work + MPI_Iprobe" };

/* One empty poll of the given kind; returns its flag (must stay 0). */
static int poll_once(enum poll_kind k, MPI_Request *pending)
{
    int flag = 0, index, outcount, indices[1];
    MPI_Message msg;
    switch (k) {
    case WORK_IPROBE:
        for (double t0 = MPI_Wtime(); MPI_Wtime() - t0 < 30e-6;)
            ;
        /* fall through */
    case IPROBE:
        CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, TAG_NEVER, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        break;
    case IMPROBE:
        CHECK_MPI(MPI_Improbe(MPI_ANY_SOURCE, TAG_NEVER, MPI_COMM_WORLD, &flag, &msg, MPI_STATUS_IGNORE));
        break;
    case TEST:
        CHECK_MPI(MPI_Test(pending, &flag, MPI_STATUS_IGNORE));
        break;
    case TESTANY:
        CHECK_MPI(MPI_Testany(1, pending, &index, &flag, MPI_STATUS_IGNORE));
        break;
    case TESTALL:
        CHECK_MPI(MPI_Testall(1, pending, &flag, MPI_STATUSES_IGNORE));
        break;
    case TESTSOME:
        CHECK_MPI(MPI_Testsome(1, pending, &outcount, indices, MPI_STATUSES_IGNORE));
        flag = outcount != 0;
        break;
    case GET_STATUS:
        CHECK_MPI(MPI_Request_get_status(*pending, &flag, MPI_STATUS_IGNORE));
        break;
    default:
        break;
    }
    return flag;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double long_window = argc > 1 ? atof(argv[1]) : 1.0;

    cpu_set_t cpus;
    CHECK(sched_getaffinity(0, sizeof cpus, &cpus) == 0, "sched_getaffinity failed");
    int ncpus = CPU_COUNT(&cpus);
    if (size <= ncpus) {
        if (rank == 0)
            printf("poll_idle: %d ranks on %d CPUs: not oversubscribed, skipped\n", size, ncpus);
        MPI_Finalize();
        return 77;
    }

    int left = (rank + size - 1) % size, right = (rank + 1) % size, token = -1;
    MPI_Request pending;
    CHECK_MPI(MPI_Irecv(&token, 1, MPI_INT, right, TAG_LAST, MPI_COMM_WORLD, &pending));

    int failed = 0, have_schedstat = runnable_seconds() >= 0;
    for (int k = 0; k < NKINDS; k++) {
        double window = k == IPROBE ? long_window : long_window / 4;
        long polls = 0;
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        double t0 = MPI_Wtime(), c0 = cpu_seconds(), r0 = runnable_seconds(), t;
        while ((t = MPI_Wtime()) - t0 < window) {
            CHECK(!poll_once((enum poll_kind)k, &pending), "%s found something, but nothing was sent",
                  kind_name[k]);
            polls++;
        }
        /* CPU time, time asleep (neither running nor waiting for a CPU), wall. */
        double mine[3] = { cpu_seconds() - c0, (t - t0) - (runnable_seconds() - r0), t - t0 }, sum[3];
        CHECK_MPI(MPI_Reduce(mine, sum, 3, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD));
        if (rank == 0) {
            double cores = sum[0] / (sum[2] / size), asleep = sum[1] / sum[2];
            int ok = k == WORK_IPROBE ? !have_schedstat || asleep <= MAX_ASLEEP_WORKING
                     : have_schedstat ? asleep >= MIN_ASLEEP : cores < MAX_CORES;
            printf("%-24s %d ranks on %d CPUs, %.2f s: the ranks used %.0f%% of one core, slept %.0f%% of the "
                   "time (rank 0 polled %ld times) %s\n",
                   kind_name[k], size, ncpus, sum[2] / size, 100 * cores,
                   have_schedstat ? (asleep > 0 ? 100 * asleep : 0.0) : -1.0, polls, ok ? "ok" : k == WORK_IPROBE ? "SLEPT WHILE WORKING" : "KEPT THE CORES");
            failed |= !ok;
        }
    }

    /* Wake the nappers: each receive posted at the start completes now
     * (after everyone's last window, in which nothing may arrive). */
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Send(&rank, 1, MPI_INT, left, TAG_LAST, MPI_COMM_WORLD));
    int done = 0;
    double t0 = MPI_Wtime();
    while (!done) {
        CHECK_MPI(MPI_Test(&pending, &done, MPI_STATUS_IGNORE));
        CHECK(MPI_Wtime() - t0 < 30, "MPI_Test did not see the message from rank %d in 30 s", right);
    }
    CHECK(token == right, "received %d, expected %d", token, right);

    CHECK_MPI(MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD));
    CHECK(!failed, "empty polls kept the cores busy, or a working rank slept (see the lines above)");
    MPI_Finalize();
    return 0;
}
