/*
 * mismatch.c -- collectives whose ranks disagree on the arguments (issue 18
 * item 4) never return success with wrong data, and never hang.
 *
 * usage: mismatch [--fatal] [--keep] [--p2p] [--all | CASE...]
 *   Without arguments: the cases the default check catches (docs/collectives.md,
 *   "Mismatched arguments"); --all: every case (COREMPI_CHECK=1 catches all).
 *   --fatal: keep the default error handler (the job must end with the
 *   library's one-line message: tests/coll/mismatch_tests.cmake checks it).
 *   --p2p: without CASEs, the cases caught with the point-to-point
 *   algorithms forced (issue 32 item 2: their messages carry the word).
 *   --keep: never free a case's communicator.  With point-to-point
 *   algorithms a rank that disagrees may send more messages (segments) than
 *   the others receive; some may still be on their way when the case ends,
 *   and a freed communicator's context is given to the next case's.
 *
 * Each case runs on a fresh duplicate of MPI_COMM_WORLD with MPI_ERRORS_RETURN
 * (a mismatch may leave that communicator's collectives unusable; WORLD stays
 * clean).  Per case and rank the rule is "must fail" (the rank receives data
 * it cannot receive correctly: its call must return an error whose text names
 * the call) or "may succeed" (it only sends, or it is a root that thinks so:
 * a reduce or gather non-root that succeeds must leave its receive buffer as
 * it was, which is checked).  A hang ends the job through
 * COREMPI_DEADLOCK_TIMEOUT (set by the ctest registration).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIG 100000

static int rank, size, failures, fatal, keep_comms, p2p;
static int *sbuf, *rbuf, *keep;

static void fill(int *b, int n, int seed)
{
    for (int i = 0; i < n; i++)
        b[i] = seed * 1000 + i;
}

#define MM_DEFAULT 1
#define MM_P2P 2

/* One case: run on comm, say whether this rank must fail. */
struct mm_case {
    const char *name;
    int by;                         /* caught without COREMPI_CHECK: MM_DEFAULT by the tuned
                                     * selection, MM_P2P with any point-to-point algorithm */
    int (*run)(MPI_Comm comm, int *must_fail, const char **call);
};

static int allreduce_counts(MPI_Comm comm, int a, int b, int *must_fail, const char **call)
{
    int count = rank == 0 ? a : b;
    fill(sbuf, count, rank);
    *must_fail = 1;             /* every rank receives the sum */
    *call = "MPI_Allreduce";
    return MPI_Allreduce(sbuf, rbuf, count, MPI_INT, MPI_SUM, comm);
}
static int c_allreduce_5_1900(MPI_Comm comm, int *f, const char **c) { return allreduce_counts(comm, 5, 1900, f, c); }
static int c_allreduce_1900_5(MPI_Comm comm, int *f, const char **c) { return allreduce_counts(comm, 1900, 5, f, c); }
static int c_allreduce_big(MPI_Comm comm, int *f, const char **c) { return allreduce_counts(comm, 70000, BIG, f, c); }

/* 4 vs 8 bytes after matched calls of both shapes: the 2-rank shortcut. */
static int c_allreduce_tiny(MPI_Comm comm, int *must_fail, const char **call)
{
    for (int i = 0; i < 3; i++)
        for (int count = 1; count <= 2; count++)
            if (MPI_Allreduce(sbuf, rbuf, count, MPI_INT, MPI_SUM, comm) != MPI_SUCCESS) {
                printf("rank %d: allreduce_tiny: a matched warm-up call failed\n", rank);
                failures++;
            }
    return allreduce_counts(comm, 1, 2, must_fail, call);
}

static int c_allreduce_op(MPI_Comm comm, int *must_fail, const char **call)
{
    fill(sbuf, 5, rank + 1);
    *must_fail = 1;
    *call = "MPI_Allreduce";
    return MPI_Allreduce(sbuf, rbuf, 5, MPI_INT, rank == 0 ? MPI_SUM : MPI_MAX, comm);
}

/* Same bytes, other type signature: only COREMPI_CHECK=1 sees it. */
static int c_allreduce_type(MPI_Comm comm, int *must_fail, const char **call)
{
    fill(sbuf, 4, rank + 1);
    *must_fail = 1;
    *call = "MPI_Allreduce";
    return MPI_Allreduce(sbuf, rbuf, rank == 0 ? 4 : 2, rank == 0 ? MPI_INT : MPI_LONG_LONG, MPI_MAX, comm);
}

static int bcast_counts(MPI_Comm comm, int at_root, int others, int root, int *must_fail, const char **call)
{
    int count = rank == root ? at_root : others;
    fill(rbuf, count, rank == root ? 7 : 9);
    *must_fail = rank != root;
    *call = "MPI_Bcast";
    return MPI_Bcast(rbuf, count, MPI_INT, root, comm);
}
static int c_bcast_10_5(MPI_Comm comm, int *f, const char **c) { return bcast_counts(comm, 10, 5, 0, f, c); }
static int c_bcast_5_10(MPI_Comm comm, int *f, const char **c) { return bcast_counts(comm, 5, 10, size - 1, f, c); }
static int c_bcast_big(MPI_Comm comm, int *f, const char **c) { return bcast_counts(comm, 10, BIG, 0, f, c); }
static int c_bcast_big_root(MPI_Comm comm, int *f, const char **c) { return bcast_counts(comm, BIG, 10, 0, f, c); }
static int c_bcast_mid(MPI_Comm comm, int *f, const char **c) { return bcast_counts(comm, 3000, 2000, 0, f, c); }

static int c_bcast_root(MPI_Comm comm, int *must_fail, const char **call)
{
    int root = rank == 0 ? 0 : 1;
    fill(rbuf, 10, rank);
    *must_fail = 0;             /* ranks 0 and 1 each think they are the root: one must see it */
    *call = "MPI_Bcast";
    return MPI_Bcast(rbuf, 10, MPI_INT, root, comm);
}

static int reduce_counts(MPI_Comm comm, int at_root, int others, int *must_fail, const char **call)
{
    int count = rank == 0 ? at_root : others;
    fill(sbuf, count, rank);
    *must_fail = rank == 0;
    *call = "MPI_Reduce";
    return MPI_Reduce(sbuf, rbuf, count, MPI_INT, MPI_SUM, 0, comm);
}
static int c_reduce_small(MPI_Comm comm, int *f, const char **c) { return reduce_counts(comm, 10, 5, f, c); }
static int c_reduce_big(MPI_Comm comm, int *f, const char **c) { return reduce_counts(comm, BIG, 10, f, c); }
static int c_reduce_big_sender(MPI_Comm comm, int *f, const char **c) { return reduce_counts(comm, 10, BIG, f, c); }

static int c_reduce_root(MPI_Comm comm, int *must_fail, const char **call)
{
    int root = rank == 0 ? 0 : 1;
    fill(sbuf, 10, rank);
    *must_fail = 1;             /* a root that misses contributions, or more than one root */
    *call = "MPI_Reduce";
    return MPI_Reduce(sbuf, rbuf, 10, MPI_INT, MPI_SUM, root, comm);
}

static int gather_counts(MPI_Comm comm, int at_root, int others, int *must_fail, const char **call)
{
    fill(sbuf, at_root > others ? at_root : others, rank);
    *must_fail = rank == 0;
    *call = "MPI_Gather";
    if (rank == 0)
        return MPI_Gather(sbuf, at_root, MPI_INT, rbuf, at_root, MPI_INT, 0, comm);
    return MPI_Gather(sbuf, others, MPI_INT, NULL, 0, MPI_INT, 0, comm);
}
static int c_gather_small(MPI_Comm comm, int *f, const char **c) { return gather_counts(comm, 10, 5, f, c); }
static int c_gather_big(MPI_Comm comm, int *f, const char **c) { return gather_counts(comm, BIG / 8, 10, f, c); }
static int c_gather_big_sender(MPI_Comm comm, int *f, const char **c) { return gather_counts(comm, 10, BIG / 8, f, c); }

static int scatter_counts(MPI_Comm comm, int at_root, int others, int *must_fail, const char **call)
{
    fill(sbuf, size * at_root, rank);
    *must_fail = rank != 0;
    *call = "MPI_Scatter";
    if (rank == 0)
        return MPI_Scatter(sbuf, at_root, MPI_INT, rbuf, at_root, MPI_INT, 0, comm);
    return MPI_Scatter(NULL, 0, MPI_INT, rbuf, others, MPI_INT, 0, comm);
}
static int c_scatter_small(MPI_Comm comm, int *f, const char **c) { return scatter_counts(comm, 4, 2, f, c); }
static int c_scatter_big(MPI_Comm comm, int *f, const char **c) { return scatter_counts(comm, 10, BIG / 8, f, c); }
static int c_scatter_big_root(MPI_Comm comm, int *f, const char **c) { return scatter_counts(comm, BIG / 8, 10, f, c); }

/* Issue 32 item 2: the ranks take different shared-memory paths (FIFO
 * against slots) or different collectives; with the defaults these passed
 * silently or hung before. */
static int c_reduce_5_10(MPI_Comm comm, int *f, const char **c) { return reduce_counts(comm, 5, 10, f, c); }
static int c_reduce_5_1900(MPI_Comm comm, int *f, const char **c) { return reduce_counts(comm, 5, 1900, f, c); }
static int c_reduce_1900_5(MPI_Comm comm, int *f, const char **c) { return reduce_counts(comm, 1900, 5, f, c); }
static int c_bcast_1900_5(MPI_Comm comm, int *f, const char **c) { return bcast_counts(comm, 1900, 5, 0, f, c); }
static int c_bcast_5_1900(MPI_Comm comm, int *f, const char **c) { return bcast_counts(comm, 5, 1900, 0, f, c); }
static int c_scatter_1900_5(MPI_Comm comm, int *f, const char **c) { return scatter_counts(comm, 1900, 5, f, c); }
static int c_scatter_5_1900(MPI_Comm comm, int *f, const char **c) { return scatter_counts(comm, 5, 1900, f, c); }
static int c_gather_1000_10(MPI_Comm comm, int *f, const char **c) { return gather_counts(comm, 1000, 10, f, c); }
static int c_gather_10_1000(MPI_Comm comm, int *f, const char **c) { return gather_counts(comm, 10, 1000, f, c); }

/* 4 MPI_INT against 4 MPI_FLOAT: same bytes, other signature. */
static int c_allreduce_int_float(MPI_Comm comm, int *must_fail, const char **call)
{
    fill(sbuf, 4, rank + 1);
    *must_fail = 1;
    *call = "MPI_Allreduce";
    return MPI_Allreduce(sbuf, rbuf, 4, rank == 0 ? MPI_INT : MPI_FLOAT, MPI_MAX, comm);
}

/* Rank 0 in a barrier, the others in a broadcast from rank 1 (or 0). */
static int barrier_bcast(MPI_Comm comm, int root, int *must_fail, const char **call)
{
    fill(rbuf, 10, rank);
    *must_fail = rank == 0 || root == 0;   /* the barrier, and readers of a root in it */
    *call = rank == 0 ? "MPI_Barrier" : "MPI_Bcast";
    return rank == 0 ? MPI_Barrier(comm) : MPI_Bcast(rbuf, 10, MPI_INT, root, comm);
}
static int c_barrier_bcast(MPI_Comm comm, int *f, const char **c) { return barrier_bcast(comm, 1, f, c); }
static int c_barrier_bcast0(MPI_Comm comm, int *f, const char **c) { return barrier_bcast(comm, 0, f, c); }

/* Issue 32 item 2: the point-to-point algorithms' messages carry the
 * argument word too (docs/collectives.md, "Mismatched arguments").  Rank 0
 * passes a, the others b. */
static int c_reduce_op(MPI_Comm comm, int *must_fail, const char **call)
{
    fill(sbuf, 5, rank + 1);
    *must_fail = rank == 0;
    *call = "MPI_Reduce";
    return MPI_Reduce(sbuf, rbuf, 5, MPI_INT, rank == 0 ? MPI_SUM : MPI_MAX, 0, comm);
}

static int allgather_counts(MPI_Comm comm, int a, int b, int *must_fail, const char **call)
{
    int count = rank == 0 ? a : b;
    fill(sbuf, count, rank);
    *must_fail = 1;             /* every rank receives rank 0's block, rank 0 the others' */
    *call = "MPI_Allgather";
    return MPI_Allgather(sbuf, count, MPI_INT, rbuf, count, MPI_INT, comm);
}
static int c_allgather_3_5(MPI_Comm comm, int *f, const char **c) { return allgather_counts(comm, 3, 5, f, c); }
static int c_allgather_5000_3(MPI_Comm comm, int *f, const char **c) { return allgather_counts(comm, 5000, 3, f, c); }

static int alltoall_counts(MPI_Comm comm, int a, int b, int *must_fail, const char **call)
{
    int count = rank == 0 ? a : b;
    fill(sbuf, size * count, rank);
    *must_fail = 1;
    *call = "MPI_Alltoall";
    return MPI_Alltoall(sbuf, count, MPI_INT, rbuf, count, MPI_INT, comm);
}
static int c_alltoall_3_5(MPI_Comm comm, int *f, const char **c) { return alltoall_counts(comm, 3, 5, f, c); }
static int c_alltoall_3_5000(MPI_Comm comm, int *f, const char **c) { return alltoall_counts(comm, 3, 5000, f, c); }

static int rsb(MPI_Comm comm, int a, int b, MPI_Op op_a, int *must_fail, const char **call)
{
    int count = rank == 0 ? a : b;
    fill(sbuf, size * count, rank + 1);
    *must_fail = 1;             /* every block has rank 0's contribution */
    *call = "MPI_Reduce_scatter_block";
    return MPI_Reduce_scatter_block(sbuf, rbuf, count, MPI_INT, rank == 0 ? op_a : MPI_SUM, comm);
}
static int c_rsb_3_5(MPI_Comm comm, int *f, const char **c) { return rsb(comm, 3, 5, MPI_SUM, f, c); }
static int c_rsb_op(MPI_Comm comm, int *f, const char **c) { return rsb(comm, 4, 4, MPI_MAX, f, c); }

static int c_reduce_scatter_counts(MPI_Comm comm, int *must_fail, const char **call)
{
    int counts[64], each = rank == 0 ? 3 : 5;
    for (int i = 0; i < size && i < 64; i++)
        counts[i] = each;
    fill(sbuf, size * each, rank + 1);
    *must_fail = 1;
    *call = "MPI_Reduce_scatter";
    return MPI_Reduce_scatter(sbuf, rbuf, counts, MPI_INT, MPI_SUM, comm);
}

/* Scan: rank i combines ranks 0..i, so rank 0 may succeed; Exscan: rank 1
 * gets rank 0's data alone (no op applied), so only ranks from 2 on must
 * fail an op mismatch. */
static int scan_case(MPI_Comm comm, int ex, int a, int b, MPI_Op op_a, int *must_fail, const char **call)
{
    int count = rank == 0 ? a : b;
    fill(sbuf, count, rank + 1);
    *must_fail = a != b ? rank > 0 : rank > ex;
    *call = ex ? "MPI_Exscan" : "MPI_Scan";
    MPI_Op op = rank == 0 ? op_a : MPI_SUM;
    return ex ? MPI_Exscan(sbuf, rbuf, count, MPI_INT, op, comm) : MPI_Scan(sbuf, rbuf, count, MPI_INT, op, comm);
}
static int c_scan_3_5(MPI_Comm comm, int *f, const char **c) { return scan_case(comm, 0, 3, 5, MPI_SUM, f, c); }
static int c_scan_op(MPI_Comm comm, int *f, const char **c) { return scan_case(comm, 0, 4, 4, MPI_MAX, f, c); }
static int c_exscan_3_5(MPI_Comm comm, int *f, const char **c) { return scan_case(comm, 1, 3, 5, MPI_SUM, f, c); }
static int c_exscan_op(MPI_Comm comm, int *f, const char **c) { return scan_case(comm, 1, 4, 4, MPI_MAX, f, c); }

/* Rank 0 sends a to the root (the last rank), which expects b from everyone. */
static int c_gatherv_counts(MPI_Comm comm, int *must_fail, const char **call)
{
    int counts[64], displs[64], root = size - 1;
    for (int i = 0; i < size && i < 64; i++)
        counts[i] = 5, displs[i] = 5 * i;
    fill(sbuf, 7, rank);
    *must_fail = rank == root;
    *call = "MPI_Gatherv";
    return MPI_Gatherv(sbuf, rank == 0 ? 7 : 5, MPI_INT, rbuf, counts, displs, MPI_INT, root, comm);
}

static int c_alltoallv_counts(MPI_Comm comm, int *must_fail, const char **call)
{
    int counts[64], displs[64];
    for (int i = 0; i < size && i < 64; i++)
        counts[i] = rank == 0 ? 6 : 4, displs[i] = 6 * i;
    fill(sbuf, 6 * size, rank);
    *must_fail = 1;             /* rank 0 gets 4 for 6, the others 6 for 4 */
    *call = "MPI_Alltoallv";
    return MPI_Alltoallv(sbuf, counts, displs, MPI_INT, rbuf, counts, displs, MPI_INT, comm);
}

static const struct mm_case cases[] = {
    { "reduce_5_10", MM_DEFAULT | MM_P2P, c_reduce_5_10 },
    { "reduce_5_1900", MM_DEFAULT | MM_P2P, c_reduce_5_1900 },
    { "reduce_1900_5", MM_DEFAULT | MM_P2P, c_reduce_1900_5 },
    { "bcast_1900_5", MM_DEFAULT, c_bcast_1900_5 },
    { "bcast_5_1900", MM_DEFAULT, c_bcast_5_1900 },
    { "scatter_1900_5", MM_DEFAULT | MM_P2P, c_scatter_1900_5 },
    { "scatter_5_1900", MM_DEFAULT | MM_P2P, c_scatter_5_1900 },
    { "gather_1000_10", MM_DEFAULT | MM_P2P, c_gather_1000_10 },
    { "gather_10_1000", MM_DEFAULT | MM_P2P, c_gather_10_1000 },
    { "barrier_bcast", MM_DEFAULT, c_barrier_bcast },
    { "barrier_bcast0", MM_DEFAULT, c_barrier_bcast0 },
    { "allreduce_int_float", MM_DEFAULT | MM_P2P, c_allreduce_int_float },
    { "allreduce_5_1900", MM_DEFAULT | MM_P2P, c_allreduce_5_1900 },
    { "allreduce_1900_5", MM_DEFAULT | MM_P2P, c_allreduce_1900_5 },
    { "allreduce_big", MM_DEFAULT | MM_P2P, c_allreduce_big },
    { "allreduce_tiny", MM_DEFAULT | MM_P2P, c_allreduce_tiny },
    { "allreduce_op", MM_DEFAULT | MM_P2P, c_allreduce_op },
    { "allreduce_type", MM_DEFAULT | MM_P2P, c_allreduce_type },
    { "bcast_10_5", MM_DEFAULT | MM_P2P, c_bcast_10_5 },
    { "bcast_5_10", MM_DEFAULT | MM_P2P, c_bcast_5_10 },
    { "bcast_mid", MM_P2P, c_bcast_mid },
    { "bcast_big", MM_P2P, c_bcast_big },
    { "bcast_big_root", 0, c_bcast_big_root },
    { "bcast_root", MM_DEFAULT, c_bcast_root },
    { "reduce_small", MM_P2P, c_reduce_small },
    { "reduce_big", MM_P2P, c_reduce_big },
    { "reduce_big_sender", MM_P2P, c_reduce_big_sender },
    { "reduce_root", 0, c_reduce_root },
    { "gather_small", MM_P2P, c_gather_small },
    { "gather_big", MM_P2P, c_gather_big },
    { "gather_big_sender", MM_P2P, c_gather_big_sender },
    { "scatter_small", MM_DEFAULT | MM_P2P, c_scatter_small },
    { "scatter_big", MM_P2P, c_scatter_big },
    { "scatter_big_root", MM_P2P, c_scatter_big_root },
    { "reduce_op", MM_P2P, c_reduce_op },
    { "allgather_3_5", MM_P2P, c_allgather_3_5 },
    { "allgather_5000_3", MM_P2P, c_allgather_5000_3 },
    { "alltoall_3_5", MM_P2P, c_alltoall_3_5 },
    { "alltoall_3_5000", MM_P2P, c_alltoall_3_5000 },
    { "rsb_3_5", MM_P2P, c_rsb_3_5 },
    { "rsb_op", MM_P2P, c_rsb_op },
    { "reduce_scatter_counts", MM_P2P, c_reduce_scatter_counts },
    { "scan_3_5", MM_P2P, c_scan_3_5 },
    { "scan_op", MM_P2P, c_scan_op },
    { "exscan_3_5", MM_P2P, c_exscan_3_5 },
    { "exscan_op", MM_P2P, c_exscan_op },
    { "gatherv_counts", MM_P2P, c_gatherv_counts },
    { "alltoallv_counts", MM_P2P, c_alltoallv_counts },
};

static void run_case(const struct mm_case *c)
{
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    if (!fatal)
        MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    /* A matched call first: the communicator's first collective may attach
     * its shared-memory area, an exchange of its own (docs/collectives.md). */
    MPI_Barrier(comm);
    int must_fail = 0;
    const char *call = "?";
    memset(rbuf, 0x5a, sizeof(int) * (size_t)size * BIG);
    memcpy(keep, rbuf, sizeof(int) * (size_t)size * BIG);
    int rc = c->run(comm, &must_fail, &call);
    if (rc == MPI_SUCCESS && must_fail) {
        printf("rank %d: %s: %s returned MPI_SUCCESS where it cannot be right\n", rank, c->name, call);
        failures++;
    } else if (rc != MPI_SUCCESS) {
        char text[MPI_MAX_ERROR_STRING];
        int len, cls;
        MPI_Error_string(rc, text, &len);
        MPI_Error_class(rc, &cls);
        if (!strstr(text, call)) {
            printf("rank %d: %s: the error text does not name %s: %s\n", rank, c->name, call, text);
            failures++;
        }
        if (cls != MPI_ERR_TRUNCATE && cls != MPI_ERR_ARG && cls != MPI_ERR_ROOT && cls != MPI_ERR_OP &&
            cls != MPI_ERR_TYPE) {
            printf("rank %d: %s: unexpected error class %d: %s\n", rank, c->name, cls, text);
            failures++;
        }
        if (getenv("MISMATCH_VERBOSE"))
            printf("rank %d: %s: %s\n", rank, c->name, text);
    } else if (!must_fail && (!strcmp(call, "MPI_Reduce") || !strcmp(call, "MPI_Gather")) &&
               memcmp(rbuf, keep, sizeof(int) * (size_t)size * BIG)) {
        printf("rank %d: %s: %s succeeded on a sending rank but wrote into its receive buffer\n", rank, c->name,
               call);
        failures++;
    }
    /* Never silent: every case is a mismatch, so some rank must say so. */
    int failed = rc != MPI_SUCCESS, any;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!any && rank == 0) {
        printf("%s: every rank returned MPI_SUCCESS\n", c->name);
        failures++;
    }
    if (!keep_comms)
        MPI_Comm_free(&comm);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    size_t n = sizeof(int) * (size_t)size * BIG;
    sbuf = malloc(n), rbuf = malloc(n), keep = malloc(n);
    if (!sbuf || !rbuf || !keep)
        MPI_Abort(MPI_COMM_WORLD, 2);
    int first = 1;
    for (; first < argc && argv[first][0] == '-' && argv[first][1] == '-' && strcmp(argv[first], "--all"); first++) {
        if (!strcmp(argv[first], "--fatal"))
            fatal = 1;
        else if (!strcmp(argv[first], "--keep"))
            keep_comms = 1;
        else if (!strcmp(argv[first], "--p2p"))
            p2p = 1;
    }
    int all = argc > first && !strcmp(argv[first], "--all"), named = argc > first && !all, ran = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int pick = all || (!named && (cases[i].by & (p2p ? MM_P2P : MM_DEFAULT)));
        for (int a = first; named && a < argc; a++)
            pick |= !strcmp(argv[a], cases[i].name);
        if (!pick)
            continue;
        if (rank == 0 && getenv("MISMATCH_VERBOSE"))
            printf("case %s\n", cases[i].name);
        fflush(stdout);
        run_case(&cases[i]);
        ran++;
    }
    int total;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(total || !ran ? "mismatch FAILED (%d failures, %d cases)\n" : "mismatch ok (%d failures, %d cases)\n",
               total, ran);
    free(sbuf), free(rbuf), free(keep);
    MPI_Finalize();
    return total != 0 || !ran;
}
