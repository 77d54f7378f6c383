/*
 * mismatch.c -- collectives whose ranks disagree on the arguments (issue 18
 * item 4) never return success with wrong data, and never hang.
 *
 * usage: mismatch [--fatal] [--fresh] [--keep] [--p2p] [--then] [--repeat N] [--all | CASE...]
 *   Without arguments: the cases the default check catches (docs/collectives.md,
 *   "Mismatched arguments"); --all: every case COREMPI_CHECK=1 catches (all
 *   but MM_NOT_CHECK).
 *   --fatal: keep the default error handler (the job must end with the
 *   library's one-line message: tests/coll/mismatch_tests.cmake checks it).
 *   --fresh: no case gets the matched warm-up call (below); without CASEs,
 *   the default cases but those a schedule does not catch (MM_NOT_SCHED).
 *   --repeat N: run each case N times (the stress variant of bcast_root: its
 *   two roots race for one FIFO entry, started at one instant).
 *   --then: follow every case with a matched allreduce on its communicator
 *   (then_matched), as the v-form cases do: a rank that saw the mismatch
 *   first is then in a later sync while the others may still be in the
 *   mismatched one (issue 32: they must not take that for agreement).
 *   --p2p: without CASEs, the cases caught with the point-to-point
 *   algorithms forced (issue 32 item 2: their messages carry the word).
 *   --keep: never free a case's communicator.  With point-to-point
 *   algorithms a rank that disagrees may send more messages (segments) than
 *   the others receive; some may still be on their way when the case ends,
 *   and a freed communicator's context is given to the next case's.
 *
 * Each case runs on a fresh duplicate of MPI_COMM_WORLD with MPI_ERRORS_RETURN
 * (a mismatch may leave that communicator's collectives unusable; WORLD stays
 * clean), after one matched MPI_Barrier unless the case's name ends in
 * _fresh or --fresh is given: then the mismatched call is the
 * communicator's first collective, in which the ranks attach its
 * shared-memory area.  Per case and rank the rule is "must fail" (the rank
 * receives data it cannot receive correctly: its call must return an error
 * whose text names the call) or "may succeed" (it only sends, or it is a
 * root that thinks so: a reduce or gather non-root that succeeds must leave
 * its receive buffer as it was, which is checked).  A hang ends the job through
 * COREMPI_DEADLOCK_TIMEOUT (set by the ctest registration).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIG 100000

static int rank, size, failures, fatal, fresh_all, iter, keep_comms, p2p, then_all;
static const char *other;           /* a different-collectives case: the call the error must name */
static int *sbuf, *rbuf, *keep;

static void fill(int *b, int n, int seed)
{
    for (int i = 0; i < n; i++)
        b[i] = seed * 1000 + i;
}

#define MM_DEFAULT 1
#define MM_P2P 2
/* Not caught when the call runs a point-to-point schedule (a communicator's
 * first nonblocking call, COREMPI_SHM_NBC=0): two roots whose trees let no
 * rank receive from the wrong one.  --fresh leaves it out. */
#define MM_NOT_SCHED 4
/* Followed by matched calls on the same communicator (matched_after). */
#define MM_MATCHED 8
/* Not a mismatch of signatures (equal ones in another layout): COREMPI_CHECK=1
 * lets it pass, so --all leaves it out; only the default check stops it. */
#define MM_NOT_CHECK 16
/* Needs 4+ ranks (two in each group of an intercommunicator): --all leaves
 * it out below that. */
#define MM_FOUR 32

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

/* Ranks 0 and 1 enter the call at one instant of the shared monotonic
 * clock, rank 1 up to 0.5 us early or late by iteration: the two roots'
 * claims of the FIFO entry (coll/direct/fifo.c) overlap in some runs. */
static void roots_together(void)
{
    double t = MPI_Wtime() + 2e-4;
    MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 1)
        t += ((iter * 7) % 11 - 5) * 1e-7;
    while (rank < 2 && MPI_Wtime() < t)
        ;
}

static int c_bcast_root(MPI_Comm comm, int *must_fail, const char **call)
{
    int root = rank == 0 ? 0 : 1;
    fill(rbuf, 10, rank);
    roots_together();
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

/* n MPI_INT at the root (rank 0) against n MPI_FLOAT elsewhere: reduce's
 * word carries the class mixed into its root field (issue 32 item 2; on main
 * 74a26ff it carried none: success, and the root summed floats as ints). */
static int reduce_int_float(MPI_Comm comm, int n, int *must_fail, const char **call)
{
    fill(sbuf, n, rank + 1);
    *must_fail = rank == 0;
    *call = "MPI_Reduce";
    return MPI_Reduce(sbuf, rbuf, n, rank == 0 ? MPI_INT : MPI_FLOAT, MPI_MAX, 0, comm);
}
static int c_reduce_int_float(MPI_Comm comm, int *f, const char **c) { return reduce_int_float(comm, 4, f, c); }
static int c_reduce_int_float_1900(MPI_Comm comm, int *f, const char **c) { return reduce_int_float(comm, 1900, f, c); }
/* The same with the root's MPI_INT against MPI_UNSIGNED (a class one apart:
 * a difference the mix must not fold into a root's). */
static int c_reduce_int_unsigned(MPI_Comm comm, int *must_fail, const char **call)
{
    fill(sbuf, 4, rank + 1);
    *must_fail = rank == 0;
    *call = "MPI_Reduce";
    return MPI_Reduce(sbuf, rbuf, 4, rank == 0 ? MPI_INT : MPI_UNSIGNED, MPI_MAX, 0, comm);
}

/* Signature classes 64 apart (dense indices: MPI_INT against MPI_FLOAT16),
 * 8 bytes each: the point-to-point tags carried 6 of the class field's 8
 * bits, so on main 0f466a0 these returned MPI_SUCCESS with point-to-point
 * algorithms and on schedules (the shared-memory syncs' words hold all 8). */
static int wait_named(MPI_Request *req, int rc);
static MPI_Datatype int_or_f16(void) { return rank == 0 ? MPI_INT : MPI_FLOAT16; }
static int n_int_or_f16(void) { return rank == 0 ? 2 : 4; }
static int c_allreduce_int_f16(MPI_Comm comm, int *must_fail, const char **call)
{
    fill(sbuf, 4, rank + 1);
    *must_fail = 1;
    *call = "MPI_Allreduce";
    return MPI_Allreduce(sbuf, rbuf, n_int_or_f16(), int_or_f16(), MPI_MAX, comm);
}
static int c_reduce_int_f16(MPI_Comm comm, int *must_fail, const char **call)
{
    fill(sbuf, 4, rank + 1);
    *must_fail = rank == 0;
    *call = "MPI_Reduce";
    return MPI_Reduce(sbuf, rbuf, n_int_or_f16(), int_or_f16(), MPI_MAX, 0, comm);
}
static int c_iallreduce_int_f16(MPI_Comm comm, int *must_fail, const char **call)
{
    MPI_Request req;
    fill(sbuf, 4, rank + 1);
    *must_fail = 1;
    *call = "MPI_Iallreduce";
    return wait_named(&req, MPI_Iallreduce(sbuf, rbuf, n_int_or_f16(), int_or_f16(), MPI_MAX, comm, &req));
}
static int c_ireduce_int_f16(MPI_Comm comm, int *must_fail, const char **call)
{
    MPI_Request req;
    fill(sbuf, 4, rank + 1);
    *must_fail = rank == 0;
    *call = "MPI_Ireduce";
    return wait_named(&req, MPI_Ireduce(sbuf, rbuf, n_int_or_f16(), int_or_f16(), MPI_MAX, 0, comm, &req));
}

/* 4 MPI_INT at the root against one vector of 4 strided ints elsewhere:
 * equal signatures, but reduce wants the same count and datatype on every
 * rank (MPI 4.1 section 6.9.1), and the two layouts take different paths
 * (reduce FIFO against point to point).  The error must say so: on main
 * 74a26ff it read "16 bytes here, 16 bytes on rank 1". */
static int c_reduce_layout(MPI_Comm comm, int *must_fail, const char **call)
{
    MPI_Datatype v;
    MPI_Type_vector(4, 1, 2, MPI_INT, &v);
    MPI_Type_commit(&v);
    fill(sbuf, 8, rank + 1);
    *must_fail = rank == 0;
    *call = "MPI_Reduce";
    int rc = rank == 0 ? MPI_Reduce(sbuf, rbuf, 4, MPI_INT, MPI_SUM, 0, comm)
                       : MPI_Reduce(sbuf, rbuf, 1, v, MPI_SUM, 0, comm);
    MPI_Type_free(&v);
    return rc;
}

/* Issue 32 item 2 (a): 4 MPI_INT against 4 MPI_FLOAT (same bytes, other
 * signature) in the collectives other than the reductions.  Rank 0 (the
 * root) uses MPI_INT, the others MPI_FLOAT. */
static MPI_Datatype int_or_float(void) { return rank == 0 ? MPI_INT : MPI_FLOAT; }

static int c_bcast_int_float(MPI_Comm comm, int *must_fail, const char **call)
{
    fill(rbuf, 4, rank + 1);
    *must_fail = rank != 0;
    *call = "MPI_Bcast";
    return MPI_Bcast(rbuf, 4, int_or_float(), 0, comm);
}

static int c_gather_int_float(MPI_Comm comm, int *must_fail, const char **call)
{
    fill(sbuf, 4, rank + 1);
    *must_fail = rank == 0;
    *call = "MPI_Gather";
    return MPI_Gather(sbuf, 4, int_or_float(), rbuf, 4, int_or_float(), 0, comm);
}

static int c_scatter_int_float(MPI_Comm comm, int *must_fail, const char **call)
{
    fill(sbuf, 4 * size, rank + 1);
    *must_fail = rank != 0;
    *call = "MPI_Scatter";
    return MPI_Scatter(sbuf, 4, int_or_float(), rbuf, 4, int_or_float(), 0, comm);
}

static int c_allgather_int_float(MPI_Comm comm, int *must_fail, const char **call)
{
    fill(sbuf, 4, rank + 1);
    *must_fail = 1;
    *call = "MPI_Allgather";
    return MPI_Allgather(sbuf, 4, int_or_float(), rbuf, 4, int_or_float(), comm);
}

static int c_alltoall_int_float(MPI_Comm comm, int *must_fail, const char **call)
{
    fill(sbuf, 4 * size, rank + 1);
    *must_fail = 1;
    *call = "MPI_Alltoall";
    return MPI_Alltoall(sbuf, 4, int_or_float(), rbuf, 4, int_or_float(), comm);
}

/* Issue 32 item 2 (c): the v forms carry the class where all ranks agree. */
static int *v_counts(int each)
{
    static int c[2][64];
    for (int i = 0; i < size && i < 64; i++)
        c[0][i] = each, c[1][i] = each * i;
    return c[0];
}
#define V_DISPLS(c) ((c) + 64)

static int c_gatherv_int_float(MPI_Comm comm, int *must_fail, const char **call)
{
    int *c = v_counts(4);
    fill(sbuf, 4, rank + 1);
    *must_fail = rank == 0;
    *call = "MPI_Gatherv";
    return MPI_Gatherv(sbuf, 4, int_or_float(), rbuf, c, V_DISPLS(c), int_or_float(), 0, comm);
}

static int c_scatterv_int_float(MPI_Comm comm, int *must_fail, const char **call)
{
    int *c = v_counts(4);
    fill(sbuf, 4 * size, rank + 1);
    *must_fail = rank != 0;
    *call = "MPI_Scatterv";
    return MPI_Scatterv(sbuf, c, V_DISPLS(c), int_or_float(), rbuf, 4, int_or_float(), 0, comm);
}

static int c_allgatherv_int_float(MPI_Comm comm, int *must_fail, const char **call)
{
    int *c = v_counts(4);
    fill(sbuf, 4, rank + 1);
    *must_fail = 1;
    *call = "MPI_Allgatherv";
    return MPI_Allgatherv(sbuf, 4, int_or_float(), rbuf, c, V_DISPLS(c), int_or_float(), comm);
}

/* MPI_BYTE matches only MPI_BYTE (MPI 4.1, 3.3.1, example 3.2): 4 MPI_INT
 * at the root against 16 MPI_BYTE elsewhere is erroneous. */
static int c_bcast_int_byte(MPI_Comm comm, int *must_fail, const char **call)
{
    fill(rbuf, 4, rank + 1);
    *must_fail = rank != 0;
    *call = "MPI_Bcast";
    return MPI_Bcast(rbuf, rank == 0 ? 4 : 16, rank == 0 ? MPI_INT : MPI_BYTE, 0, comm);
}

/* Issue 32 item 2 (b): nonblocking and persistent calls carry their word;
 * the mismatch comes out of MPI_Wait, naming the call. */
static int wait_named(MPI_Request *req, int rc)
{
    if (rc != MPI_SUCCESS)
        return rc;
    rc = MPI_Wait(req, MPI_STATUS_IGNORE);
    if (*req != MPI_REQUEST_NULL)
        MPI_Request_free(req);
    return rc;
}

/* Persistent: one start of the plan the _init returned (rc), then free it. */
static int start_once(MPI_Request *req, int rc)
{
    if (rc != MPI_SUCCESS)
        return rc;
    rc = MPI_Start(req);
    if (rc == MPI_SUCCESS)
        rc = MPI_Wait(req, MPI_STATUS_IGNORE);
    MPI_Request_free(req);
    return rc;
}

/* a ints on rank 0, b elsewhere: MPI_Iallreduce, or MPI_Allreduce_init (persistent). */
static int iallreduce_counts(MPI_Comm comm, int a, int b, int persistent, int *must_fail, const char **call)
{
    MPI_Request req;
    int count = rank == 0 ? a : b;
    fill(sbuf, count, rank);
    *must_fail = 1;
    *call = persistent ? "MPI_Allreduce_init" : "MPI_Iallreduce";
    if (persistent)
        return start_once(&req, MPI_Allreduce_init(sbuf, rbuf, count, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &req));
    return wait_named(&req, MPI_Iallreduce(sbuf, rbuf, count, MPI_INT, MPI_SUM, comm, &req));
}
static int c_iallreduce_5_1900(MPI_Comm comm, int *f, const char **c) { return iallreduce_counts(comm, 5, 1900, 0, f, c); }
static int c_iallreduce_1_2(MPI_Comm comm, int *f, const char **c) { return iallreduce_counts(comm, 1, 2, 0, f, c); }
static int c_iallreduce_big(MPI_Comm comm, int *f, const char **c) { return iallreduce_counts(comm, 5000, 9000, 0, f, c); }
static int c_allreduce_init_5_1900(MPI_Comm comm, int *f, const char **c) { return iallreduce_counts(comm, 5, 1900, 1, f, c); }
static int c_allreduce_init_1_2(MPI_Comm comm, int *f, const char **c) { return iallreduce_counts(comm, 1, 2, 1, f, c); }

static int c_iallreduce_int_float(MPI_Comm comm, int *must_fail, const char **call)
{
    MPI_Request req;
    fill(sbuf, 4, rank + 1);
    *must_fail = 1;
    *call = "MPI_Iallreduce";
    return wait_named(&req, MPI_Iallreduce(sbuf, rbuf, 4, int_or_float(), MPI_MAX, comm, &req));
}

static int c_ibcast_root(MPI_Comm comm, int *must_fail, const char **call)
{
    MPI_Request req;
    fill(rbuf, 10, rank);
    *must_fail = 0;             /* ranks 0 and 1 each think they are the root: one must see it */
    *call = "MPI_Ibcast";
    return wait_named(&req, MPI_Ibcast(rbuf, 10, MPI_INT, rank == 0 ? 0 : 1, comm, &req));
}

static int c_ibcast_10_5(MPI_Comm comm, int *must_fail, const char **call)
{
    MPI_Request req;
    fill(rbuf, 10, rank == 0 ? 7 : 9);
    *must_fail = rank != 0;
    *call = "MPI_Ibcast";
    return wait_named(&req, MPI_Ibcast(rbuf, rank == 0 ? 10 : 5, MPI_INT, 0, comm, &req));
}

static int c_ireduce_5_10(MPI_Comm comm, int *must_fail, const char **call)
{
    MPI_Request req;
    int count = rank == 0 ? 5 : 10;
    fill(sbuf, count, rank);
    *must_fail = rank == 0;
    *call = "MPI_Ireduce";
    return wait_named(&req, MPI_Ireduce(sbuf, rbuf, count, MPI_INT, MPI_SUM, 0, comm, &req));
}

static int c_ireduce_int_float(MPI_Comm comm, int *must_fail, const char **call)
{
    MPI_Request req;
    fill(sbuf, 4, rank + 1);
    *must_fail = rank == 0;
    *call = "MPI_Ireduce";
    return wait_named(&req, MPI_Ireduce(sbuf, rbuf, 4, rank == 0 ? MPI_INT : MPI_FLOAT, MPI_MAX, 0, comm, &req));
}

static int c_igather_int_float(MPI_Comm comm, int *must_fail, const char **call)
{
    MPI_Request req;
    fill(sbuf, 4, rank + 1);
    *must_fail = rank == 0;
    *call = "MPI_Igather";
    return wait_named(&req, MPI_Igather(sbuf, 4, int_or_float(), rbuf, 4, int_or_float(), 0, comm, &req));
}

static int c_bcast_init_root(MPI_Comm comm, int *must_fail, const char **call)
{
    MPI_Request req;
    fill(rbuf, 10, rank);
    *must_fail = 0;
    *call = "MPI_Bcast_init";
    return start_once(&req, MPI_Bcast_init(rbuf, 10, MPI_INT, rank == 0 ? 0 : 1, comm, MPI_INFO_NULL, &req));
}

/* Issue 32 item 2: the v and w forms, scan, exscan and reduce_scatter on
 * point-to-point schedules carry their word too (coll/nbc.c): each message's
 * size is compared with what its receiver posted, and the word's collective,
 * root, op and class bits with the receiver's.  Rank 0 passes a, the others
 * b; the root of the rooted ones is the last rank.  run_case follows each
 * (MM_MATCHED) with matched calls on the same communicator. */
/* After a mismatched call on comm, matched ones (nonblocking, then
 * blocking) must still be right: nothing of the mismatched call left behind
 * where they look. */
static void matched_after(MPI_Comm comm, const char *name)
{
    MPI_Request req;
    int n, me, x, sum = 0, sum2 = 0;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    x = me + 1;
    int rc = MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, comm, &req);
    if (rc == MPI_SUCCESS)
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    int rc2 = MPI_Allreduce(&x, &sum2, 1, MPI_INT, MPI_SUM, comm);
    if (rc != MPI_SUCCESS || rc2 != MPI_SUCCESS || sum != n * (n + 1) / 2 || sum2 != sum) {
        printf("rank %d: after %s the next iallreduce gave %d (rc %d), allreduce %d (rc %d)\n", rank, name, sum, rc,
               sum2, rc2);
        failures++;
    }
}

static int igatherv_ab(MPI_Comm comm, int a, int b, int persistent, int *must_fail, const char **call)
{
    MPI_Request req;
    int counts[64], displs[64], root = size - 1;
    for (int i = 0; i < size && i < 64; i++)
        counts[i] = b, displs[i] = b * i;
    fill(sbuf, a > b ? a : b, rank);
    *must_fail = rank == root;
    *call = persistent ? "MPI_Gatherv_init" : "MPI_Igatherv";
    int n = rank == 0 ? a : b;
    if (persistent)
        return start_once(&req, MPI_Gatherv_init(sbuf, n, MPI_INT, rbuf, counts, displs, MPI_INT, root, comm,
                                                 MPI_INFO_NULL, &req));
    return wait_named(&req, MPI_Igatherv(sbuf, n, MPI_INT, rbuf, counts, displs, MPI_INT, root, comm, &req));
}
static int c_igatherv_7_5(MPI_Comm comm, int *f, const char **c) { return igatherv_ab(comm, 7, 5, 0, f, c); }
static int c_igatherv_5_1000(MPI_Comm comm, int *f, const char **c) { return igatherv_ab(comm, 5, 1000, 0, f, c); }
static int c_igatherv_big_5(MPI_Comm comm, int *f, const char **c) { return igatherv_ab(comm, BIG, 5, 0, f, c); }
static int c_gatherv_init_7_5(MPI_Comm comm, int *f, const char **c) { return igatherv_ab(comm, 7, 5, 1, f, c); }

/* The root (rank 0) sends a per rank, the others expect b. */
static int c_iscatterv_5_3(MPI_Comm comm, int *must_fail, const char **call)
{
    MPI_Request req;
    int counts[64], displs[64];
    for (int i = 0; i < size && i < 64; i++)
        counts[i] = 5, displs[i] = 5 * i;
    fill(sbuf, 5 * size, rank);
    *must_fail = rank != 0;
    *call = "MPI_Iscatterv";
    return wait_named(&req, MPI_Iscatterv(sbuf, counts, displs, MPI_INT, rbuf, rank == 0 ? 5 : 3, MPI_INT, 0, comm,
                                          &req));
}

static int c_iallgatherv_3_5(MPI_Comm comm, int *must_fail, const char **call)
{
    MPI_Request req;
    int *c = v_counts(5);
    fill(sbuf, 5, rank);
    *must_fail = rank != 0;     /* rank 0's block is 3 ints, not 5 */
    *call = "MPI_Iallgatherv";
    return wait_named(&req, MPI_Iallgatherv(sbuf, rank == 0 ? 3 : 5, MPI_INT, rbuf, c, V_DISPLS(c), MPI_INT, comm,
                                            &req));
}

/* 6 ints per peer on rank 0, 4 elsewhere, as v (w: the same in bytes). */
static int ialltoallvw(MPI_Comm comm, int w, int *must_fail, const char **call)
{
    MPI_Request req;
    int counts[64], displs[64], bdispls[64];
    MPI_Datatype types[64];
    for (int i = 0; i < size && i < 64; i++)
        counts[i] = rank == 0 ? 6 : 4, displs[i] = 6 * i, bdispls[i] = 24 * i, types[i] = MPI_INT;
    fill(sbuf, 6 * size, rank);
    *must_fail = 1;
    *call = w ? "MPI_Ialltoallw" : "MPI_Ialltoallv";
    if (w)
        return wait_named(&req, MPI_Ialltoallw(sbuf, counts, bdispls, types, rbuf, counts, bdispls, types, comm, &req));
    return wait_named(&req, MPI_Ialltoallv(sbuf, counts, displs, MPI_INT, rbuf, counts, displs, MPI_INT, comm, &req));
}
static int c_ialltoallv_6_4(MPI_Comm comm, int *f, const char **c) { return ialltoallvw(comm, 0, f, c); }
static int c_ialltoallw_6_4(MPI_Comm comm, int *f, const char **c) { return ialltoallvw(comm, 1, f, c); }

/* ex 2: MPI_Scan_init (persistent). */
static int iscan_case(MPI_Comm comm, int ex, int a, int b, MPI_Op op_a, int *must_fail, const char **call)
{
    MPI_Request req;
    int count = rank == 0 ? a : b;
    fill(sbuf, count, rank + 1);
    *must_fail = a != b ? rank > 0 : rank > (ex == 1);
    *call = ex == 2 ? "MPI_Scan_init" : ex ? "MPI_Iexscan" : "MPI_Iscan";
    MPI_Op op = rank == 0 ? op_a : MPI_SUM;
    if (ex == 2)
        return start_once(&req, MPI_Scan_init(sbuf, rbuf, count, MPI_INT, op, comm, MPI_INFO_NULL, &req));
    return wait_named(&req, ex ? MPI_Iexscan(sbuf, rbuf, count, MPI_INT, op, comm, &req)
                               : MPI_Iscan(sbuf, rbuf, count, MPI_INT, op, comm, &req));
}
static int c_iscan_3_5(MPI_Comm comm, int *f, const char **c) { return iscan_case(comm, 0, 3, 5, MPI_SUM, f, c); }
static int c_iscan_op(MPI_Comm comm, int *f, const char **c) { return iscan_case(comm, 0, 4, 4, MPI_MAX, f, c); }
static int c_iexscan_3_5(MPI_Comm comm, int *f, const char **c) { return iscan_case(comm, 1, 3, 5, MPI_SUM, f, c); }
static int c_iexscan_op(MPI_Comm comm, int *f, const char **c) { return iscan_case(comm, 1, 4, 4, MPI_MAX, f, c); }
static int c_scan_init_3_5(MPI_Comm comm, int *f, const char **c) { return iscan_case(comm, 2, 3, 5, MPI_SUM, f, c); }

static int c_ireduce_scatter_3_5(MPI_Comm comm, int *must_fail, const char **call)
{
    MPI_Request req;
    int counts[64], each = rank == 0 ? 3 : 5;
    for (int i = 0; i < size && i < 64; i++)
        counts[i] = each;
    fill(sbuf, size * each, rank + 1);
    *must_fail = 1;
    *call = "MPI_Ireduce_scatter";
    return wait_named(&req, MPI_Ireduce_scatter(sbuf, rbuf, counts, MPI_INT, MPI_SUM, comm, &req));
}

/* Different collectives at the same point: a v form against the regular
 * one (the root, rank 0, in the v form), scan against exscan, and (2 ranks)
 * scan against allreduce.  Every rank that receives sees the other's
 * collective. */
static int c_igatherv_igather(MPI_Comm comm, int *must_fail, const char **call)
{
    MPI_Request req;
    int *c = v_counts(4);
    fill(sbuf, 4, rank);
    *must_fail = rank == 0;
    *call = rank == 0 ? "MPI_Igatherv" : "MPI_Igather";
    other = rank == 0 ? "MPI_Gather " : NULL;   /* the word names the blocking twin */
    if (rank == 0)
        return wait_named(&req, MPI_Igatherv(sbuf, 4, MPI_INT, rbuf, c, V_DISPLS(c), MPI_INT, 0, comm, &req));
    return wait_named(&req, MPI_Igather(sbuf, 4, MPI_INT, rbuf, 4, MPI_INT, 0, comm, &req));
}

static int c_iscatterv_iscatter(MPI_Comm comm, int *must_fail, const char **call)
{
    MPI_Request req;
    int *c = v_counts(4);
    fill(sbuf, 4 * size, rank);
    *must_fail = rank != 0;
    *call = rank == 0 ? "MPI_Iscatterv" : "MPI_Iscatter";
    other = rank == 0 ? NULL : "MPI_Scatterv";
    if (rank == 0)
        return wait_named(&req, MPI_Iscatterv(sbuf, c, V_DISPLS(c), MPI_INT, rbuf, 4, MPI_INT, 0, comm, &req));
    return wait_named(&req, MPI_Iscatter(sbuf, 4, MPI_INT, rbuf, 4, MPI_INT, 0, comm, &req));
}

static int c_ialltoallv_ialltoall(MPI_Comm comm, int *must_fail, const char **call)
{
    MPI_Request req;
    int *c = v_counts(4);
    fill(sbuf, 4 * size, rank);
    *must_fail = 1;
    *call = rank == 0 ? "MPI_Ialltoallv" : "MPI_Ialltoall";
    if (rank == 0)
        return wait_named(&req, MPI_Ialltoallv(sbuf, c, V_DISPLS(c), MPI_INT, rbuf, c, V_DISPLS(c), MPI_INT, comm, &req));
    return wait_named(&req, MPI_Ialltoall(sbuf, 4, MPI_INT, rbuf, 4, MPI_INT, comm, &req));
}

static int c_iallgatherv_iallgather(MPI_Comm comm, int *must_fail, const char **call)
{
    MPI_Request req;
    int *c = v_counts(4);
    fill(sbuf, 4, rank);
    *must_fail = 1;
    *call = rank == 0 ? "MPI_Iallgatherv" : "MPI_Iallgather";
    if (rank == 0)
        return wait_named(&req, MPI_Iallgatherv(sbuf, 4, MPI_INT, rbuf, c, V_DISPLS(c), MPI_INT, comm, &req));
    return wait_named(&req, MPI_Iallgather(sbuf, 4, MPI_INT, rbuf, 4, MPI_INT, comm, &req));
}

static int c_iscan_iexscan(MPI_Comm comm, int *must_fail, const char **call)
{
    MPI_Request req;
    fill(sbuf, 4, rank + 1);
    *must_fail = rank > 0;
    *call = rank == 0 ? "MPI_Iscan" : "MPI_Iexscan";
    if (rank == 0)
        return wait_named(&req, MPI_Iscan(sbuf, rbuf, 4, MPI_INT, MPI_SUM, comm, &req));
    return wait_named(&req, MPI_Iexscan(sbuf, rbuf, 4, MPI_INT, MPI_SUM, comm, &req));
}

/* Rank 0 in Iscan (it sends to rank 1), rank 1 in Iallreduce (it sends to
 * rank 0, then waits for rank 0's broadcast): at 2 ranks rank 1 gets the
 * scan's message.  At 3+ ranks some rank waits for a message no rank
 * sends (docs/collectives.md, "Not caught by default"). */
static int c_iscan_iallreduce(MPI_Comm comm, int *must_fail, const char **call)
{
    MPI_Request req;
    MPI_Comm two;
    int rc = MPI_SUCCESS;
    MPI_Comm_split(comm, rank < 2 ? 0 : MPI_UNDEFINED, rank, &two);
    fill(sbuf, 4, rank + 1);
    *must_fail = rank == 1;
    *call = rank == 0 ? "MPI_Iscan" : "MPI_Iallreduce";
    other = rank == 1 ? "MPI_Scan" : NULL;
    if (two == MPI_COMM_NULL)
        return MPI_SUCCESS;
    MPI_Comm_set_errhandler(two, MPI_ERRORS_RETURN);
    if (rank == 0)
        rc = wait_named(&req, MPI_Iscan(sbuf, rbuf, 4, MPI_INT, MPI_SUM, two, &req));
    else
        rc = wait_named(&req, MPI_Iallreduce(sbuf, rbuf, 4, MPI_INT, MPI_SUM, two, &req));
    matched_after(two, "iscan_iallreduce");
    if (!keep_comms)
        MPI_Comm_free(&two);
    return rc;
}

/* The intercommunicator forms (coll/inter/): rank 0 alone in one group,
 * the others in the other.  Their schedules carry the collective and op,
 * and each message's size is compared.  Then a matched Iallreduce on the
 * same intercommunicator (each group gets the other's sum of ones). */
static int inter_case(MPI_Comm comm, int allreduce, int *must_fail, const char **call)
{
    MPI_Comm local, inter;
    MPI_Request req;
    int rc, x = 1, got = 0;
    MPI_Comm_split(comm, rank == 0, rank, &local);
    MPI_Intercomm_create(local, 0, comm, rank == 0 ? 1 : 0, 77, &inter);
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    fill(sbuf, 10, rank + 1);
    *must_fail = allreduce || rank != 0;
    *call = allreduce ? "MPI_Iallreduce" : "MPI_Ibcast";
    if (allreduce)
        rc = wait_named(&req, MPI_Iallreduce(sbuf, rbuf, rank == 0 ? 5 : 10, MPI_INT, MPI_SUM, inter, &req));
    else
        rc = wait_named(&req, MPI_Ibcast(sbuf, rank == 0 ? 10 : 5, MPI_INT, rank == 0 ? MPI_ROOT : 0, inter, &req));
    int rc2 = MPI_Iallreduce(&x, &got, 1, MPI_INT, MPI_SUM, inter, &req);
    if (rc2 == MPI_SUCCESS)
        rc2 = MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (rc2 != MPI_SUCCESS || got != (rank == 0 ? size - 1 : 1)) {
        printf("rank %d: after the intercommunicator's %s the next iallreduce gave %d (rc %d)\n", rank, *call, got,
               rc2);
        failures++;
    }
    if (!keep_comms)
        MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    return rc;
}
static int c_inter_ibcast_10_5(MPI_Comm comm, int *f, const char **c) { return inter_case(comm, 0, f, c); }
static int c_inter_iallreduce_5_10(MPI_Comm comm, int *f, const char **c) { return inter_case(comm, 1, f, c); }

/* Intercommunicator roots and type classes (issue 32 item 2; on main
 * d9c0950 each returned MPI_SUCCESS everywhere): group A is the ranks below
 * size / 2 (rank 0 at 2 ranks), B the others; A's rank 0 is the root.
 * what: 0 a broadcast where B's rank 1 and up name A's rank 1 as the root
 * (4+ ranks), 1 a gather of MPI_FLOAT from B into MPI_INT at the root, 2 an
 * allgather where B sends MPI_FLOAT that A takes as MPI_INT, 3 a reduce of
 * MPI_FLOAT in B to MPI_INT at the root.  nb: the nonblocking form. */
static int inter_typed(MPI_Comm comm, int what, int nb, int *must_fail, const char **call)
{
    static const char *const names[2][4] = { { "MPI_Bcast", "MPI_Gather", "MPI_Allgather", "MPI_Reduce" },
                                             { "MPI_Ibcast", "MPI_Igather", "MPI_Iallgather", "MPI_Ireduce" } };
    MPI_Comm local, inter;
    MPI_Request req = MPI_REQUEST_NULL;
    int half = size / 2 > 0 ? size / 2 : 1, in_a = rank < half, lr = in_a ? rank : rank - half, rc;
    MPI_Comm_split(comm, in_a, rank, &local);
    MPI_Intercomm_create(local, 0, comm, in_a ? half : 0, 78, &inter);
    if (!fatal)
        MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    int root = in_a ? (lr == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    MPI_Datatype mine = in_a ? MPI_INT : MPI_FLOAT;
    fill(sbuf, 4 * size, rank + 1);
    *call = names[nb][what];
    switch (what) {
    case 0:
        *must_fail = !in_a && lr > 0;
        if (!in_a && lr > 0)
            root = 1;
        rc = nb ? MPI_Ibcast(in_a ? sbuf : rbuf, 4, MPI_INT, root, inter, &req)
                : MPI_Bcast(in_a ? sbuf : rbuf, 4, MPI_INT, root, inter);
        break;
    case 1:
        *must_fail = in_a && lr == 0;
        rc = nb ? MPI_Igather(sbuf, 4, mine, rbuf, 4, mine, root, inter, &req)
                : MPI_Gather(sbuf, 4, mine, rbuf, 4, mine, root, inter);
        break;
    case 2:
        *must_fail = in_a;
        rc = nb ? MPI_Iallgather(sbuf, 4, mine, rbuf, 4, MPI_INT, inter, &req)
                : MPI_Allgather(sbuf, 4, mine, rbuf, 4, MPI_INT, inter);
        break;
    default:
        *must_fail = in_a && lr == 0;
        rc = nb ? MPI_Ireduce(sbuf, rbuf, 4, mine, MPI_SUM, root, inter, &req)
                : MPI_Reduce(sbuf, rbuf, 4, mine, MPI_SUM, root, inter);
        break;
    }
    if (nb)
        rc = wait_named(&req, rc);
    if (!keep_comms)
        MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    return rc;
}
static int c_inter_ibcast_root(MPI_Comm comm, int *f, const char **c) { return inter_typed(comm, 0, 1, f, c); }
static int c_inter_igather_int_float(MPI_Comm comm, int *f, const char **c) { return inter_typed(comm, 1, 1, f, c); }
static int c_inter_iallgather_int_float(MPI_Comm comm, int *f, const char **c) { return inter_typed(comm, 2, 1, f, c); }
static int c_inter_ireduce_int_float(MPI_Comm comm, int *f, const char **c) { return inter_typed(comm, 3, 1, f, c); }
static int c_inter_bcast_root(MPI_Comm comm, int *f, const char **c) { return inter_typed(comm, 0, 0, f, c); }
static int c_inter_gather_int_float(MPI_Comm comm, int *f, const char **c) { return inter_typed(comm, 1, 0, f, c); }
static int c_inter_allgather_int_float(MPI_Comm comm, int *f, const char **c) { return inter_typed(comm, 2, 0, f, c); }
static int c_inter_reduce_int_float(MPI_Comm comm, int *f, const char **c) { return inter_typed(comm, 3, 0, f, c); }

/* Rank 0 in a barrier, the others in a broadcast from rank 1 (or 0). */
static int barrier_bcast(MPI_Comm comm, int root, int *must_fail, const char **call)
{
    fill(rbuf, 10, rank);
    *must_fail = rank == 0 || root == 0;   /* the barrier, and readers of a root in it */
    *call = rank == 0 ? "MPI_Barrier" : "MPI_Bcast";
    other = rank == 0 ? "MPI_Bcast" : "MPI_Barrier";
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

/* After a mismatched call (its rc), a matched call on the same
 * communicator, by every rank, must still be right: nothing of the
 * mismatched one left behind (a message, a FIFO entry, an epoch). */
static int then_matched(MPI_Comm comm, const char *call, int rc)
{
    int x = rank + 1, sum = 0, rc2 = MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, comm);
    if (rc2 != MPI_SUCCESS || sum != size * (size + 1) / 2) {
        printf("rank %d: after %s the next allreduce gave %d (rc %d)\n", rank, call, sum, rc2);
        failures++;
    }
    return rc;
}

/* The same across the gatherv FIFO's two ways (a block in the entry up to
 * its size, point to point above): rank 0 sends a ints, the root expects b
 * from every rank.  The root must neither wait for a block that will not
 * come nor leave one behind (the next case on a kept communicator would
 * take it). */
static int gatherv_ab(MPI_Comm comm, int a, int b, int *must_fail, const char **call)
{
    int counts[64], displs[64], root = size - 1;
    for (int i = 0; i < size && i < 64; i++)
        counts[i] = b, displs[i] = b * i;
    fill(sbuf, a > b ? a : b, rank);
    *must_fail = rank == root;
    *call = "MPI_Gatherv";
    return then_matched(comm, *call,
                        MPI_Gatherv(sbuf, rank == 0 ? a : b, MPI_INT, rbuf, counts, displs, MPI_INT, root, comm));
}
static int c_gatherv_5_1000(MPI_Comm comm, int *f, const char **c) { return gatherv_ab(comm, 5, 1000, f, c); }
static int c_gatherv_1000_5(MPI_Comm comm, int *f, const char **c) { return gatherv_ab(comm, 1000, 5, f, c); }
static int c_gatherv_0_5(MPI_Comm comm, int *f, const char **c) { return gatherv_ab(comm, 0, 5, f, c); }
static int c_gatherv_0_1000(MPI_Comm comm, int *f, const char **c) { return gatherv_ab(comm, 0, 1000, f, c); }

/* Issue 32 item 2: scatterv's counts on the shared-memory engine (the
 * broadcast FIFO's shares up to their size, point to point above).  The
 * root (rank 0) sends b ints to every rank; the last rank expects a. */
static int scatterv_ab(MPI_Comm comm, int a, int b, int *must_fail, const char **call)
{
    int counts[64], displs[64], last = size - 1;
    for (int i = 0; i < size && i < 64; i++)
        counts[i] = b, displs[i] = b * i;
    fill(sbuf, b * size, rank);
    *must_fail = rank == last;
    *call = "MPI_Scatterv";
    return then_matched(comm, *call,
                        MPI_Scatterv(sbuf, counts, displs, MPI_INT, rbuf, rank == last ? a : b, MPI_INT, 0, comm));
}
static int c_scatterv_5_1000(MPI_Comm comm, int *f, const char **c) { return scatterv_ab(comm, 5, 1000, f, c); }
static int c_scatterv_1000_5(MPI_Comm comm, int *f, const char **c) { return scatterv_ab(comm, 1000, 5, f, c); }
static int c_scatterv_7_5(MPI_Comm comm, int *f, const char **c) { return scatterv_ab(comm, 7, 5, f, c); }
static int c_scatterv_0_5(MPI_Comm comm, int *f, const char **c) { return scatterv_ab(comm, 0, 5, f, c); }
static int c_scatterv_5_0(MPI_Comm comm, int *f, const char **c) { return scatterv_ab(comm, 5, 0, f, c); }
static int c_scatterv_0_1000(MPI_Comm comm, int *f, const char **c) { return scatterv_ab(comm, 0, 1000, f, c); }
static int c_scatterv_1000_0(MPI_Comm comm, int *f, const char **c) { return scatterv_ab(comm, 1000, 0, f, c); }

/* Allgatherv: rank 0's recvcounts are all a and it sends a; the others'
 * are all b and they send b, but rank 0's send is `send0` ints (a
 * normally).  Equal counts take the allgather (its syncs compare the word,
 * which holds a hash of the block sizes). */
static int allgatherv_ab(MPI_Comm comm, int a, int b, int send0, int *must_fail, const char **call)
{
    int counts[64], displs[64], each = rank == 0 ? a : b, mx = a > b ? a : b;
    for (int i = 0; i < size && i < 64; i++)
        counts[i] = each, displs[i] = mx * i;
    fill(sbuf, mx > send0 ? mx : send0, rank);
    *must_fail = a != b || rank != 0;   /* rank 0's block is wrong for the others */
    *call = "MPI_Allgatherv";
    return then_matched(comm, *call,
                        MPI_Allgatherv(sbuf, rank == 0 ? send0 : each, MPI_INT, rbuf, counts, displs, MPI_INT, comm));
}
/* Rank 0's counts are equal (the allgather through the area), the
 * others' are not (the last rank's block is 7 ints: the ring, point to
 * point); rank 0 expects 5 ints from the last rank.  Not caught by
 * default: the ring's sendrecv does not look for a source that went into
 * the area, so this ends in the deadlock report (docs/collectives.md). */
static int c_allgatherv_ring(MPI_Comm comm, int *must_fail, const char **call)
{
    int counts[64], displs[64], last = size - 1;
    for (int i = 0; i < size && i < 64; i++)
        counts[i] = 5, displs[i] = 7 * i;
    if (rank != 0)
        counts[last] = 7;
    fill(sbuf, 7, rank);
    *must_fail = rank == 0;
    *call = "MPI_Allgatherv";
    return then_matched(comm, *call,
                        MPI_Allgatherv(sbuf, counts[rank], MPI_INT, rbuf, counts, displs, MPI_INT, comm));
}
static int c_allgatherv_5_7(MPI_Comm comm, int *f, const char **c) { return allgatherv_ab(comm, 5, 7, 5, f, c); }
static int c_allgatherv_send_3_5(MPI_Comm comm, int *f, const char **c) { return allgatherv_ab(comm, 5, 5, 3, f, c); }
static int c_allgatherv_0_5(MPI_Comm comm, int *f, const char **c) { return allgatherv_ab(comm, 0, 5, 0, f, c); }
static int c_allgatherv_5_0(MPI_Comm comm, int *f, const char **c) { return allgatherv_ab(comm, 5, 0, 5, f, c); }
static int c_allgatherv_5_1000(MPI_Comm comm, int *f, const char **c) { return allgatherv_ab(comm, 5, 1000, 5, f, c); }

/* Alltoallv/w: every pair exchanges 4 ints, but the last rank sends b ints
 * to rank 0, which expects a from it (at 2 ranks, rank 1's block to rank 0).
 * Through the shared-memory rounds up to 8 ranks (tuning.def). */
static int alltoallvw_ab(MPI_Comm comm, int w, int a, int b, int *must_fail, const char **call)
{
    int sc[64], rc_[64], sd[64], rd[64], last = size - 1;
    MPI_Datatype ty[64];
    for (int i = 0; i < size && i < 64; i++) {
        sc[i] = rc_[i] = 4;
        ty[i] = MPI_INT;
        sd[i] = rd[i] = w ? 4000 * i * (int)sizeof(int) : 4000 * i;
    }
    if (rank == last)
        sc[0] = b;
    if (rank == 0)
        rc_[last] = a;
    fill(sbuf, 4000 * size, rank);
    *must_fail = rank == 0;
    *call = w ? "MPI_Alltoallw" : "MPI_Alltoallv";
    return then_matched(comm, *call,
                        w ? MPI_Alltoallw(sbuf, sc, sd, ty, rbuf, rc_, rd, ty, comm)
                          : MPI_Alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc_, rd, MPI_INT, comm));
}
static int c_alltoallv_5_1000(MPI_Comm comm, int *f, const char **c) { return alltoallvw_ab(comm, 0, 5, 1000, f, c); }
static int c_alltoallv_1000_5(MPI_Comm comm, int *f, const char **c) { return alltoallvw_ab(comm, 0, 1000, 5, f, c); }
static int c_alltoallv_3_5(MPI_Comm comm, int *f, const char **c) { return alltoallvw_ab(comm, 0, 3, 5, f, c); }
static int c_alltoallv_0_5(MPI_Comm comm, int *f, const char **c) { return alltoallvw_ab(comm, 0, 0, 5, f, c); }
static int c_alltoallv_5_0(MPI_Comm comm, int *f, const char **c) { return alltoallvw_ab(comm, 0, 5, 0, f, c); }
static int c_alltoallv_0_1000(MPI_Comm comm, int *f, const char **c) { return alltoallvw_ab(comm, 0, 0, 1000, f, c); }
static int c_alltoallw_5_1000(MPI_Comm comm, int *f, const char **c) { return alltoallvw_ab(comm, 1, 5, 1000, f, c); }
static int c_alltoallw_1000_5(MPI_Comm comm, int *f, const char **c) { return alltoallvw_ab(comm, 1, 1000, 5, f, c); }
static int c_alltoallw_0_5(MPI_Comm comm, int *f, const char **c) { return alltoallvw_ab(comm, 1, 0, 5, f, c); }

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

/* Issue 32 item 2: classes whose 4-bit hash in the word is the same
 * (MPI_INT and MPI_UINT8_T, 15 apart), at equal byte counts: 4 MPI_INT on
 * rank 0 (the root) against 16 MPI_UINT8_T elsewhere.  The FIFO entries
 * carry the writer's whole class beside the data (coll/direct/direct.h). */
static MPI_Datatype int_or_u8(void) { return rank == 0 ? MPI_INT : MPI_UINT8_T; }
static int int_or_u8_count(int ints) { return rank == 0 ? ints : 4 * ints; }

static int bcast_int_uint8(MPI_Comm comm, int ints, int *must_fail, const char **call)
{
    fill(rbuf, ints, rank + 1);
    *must_fail = rank != 0;
    *call = "MPI_Bcast";
    return then_matched(comm, *call, MPI_Bcast(rbuf, int_or_u8_count(ints), int_or_u8(), 0, comm));
}
static int c_bcast_int_uint8(MPI_Comm comm, int *f, const char **c) { return bcast_int_uint8(comm, 4, f, c); }
static int c_bcast_int_uint8_1000(MPI_Comm comm, int *f, const char **c) { return bcast_int_uint8(comm, 1000, f, c); }

static int gather_int_uint8(MPI_Comm comm, int ints, int *must_fail, const char **call)
{
    fill(sbuf, ints, rank + 1);
    *must_fail = rank == 0;
    *call = "MPI_Gather";
    return then_matched(comm, *call, MPI_Gather(sbuf, int_or_u8_count(ints), int_or_u8(), rbuf,
                                                int_or_u8_count(ints), int_or_u8(), 0, comm));
}
static int c_gather_int_uint8(MPI_Comm comm, int *f, const char **c) { return gather_int_uint8(comm, 4, f, c); }

static int scatter_int_uint8(MPI_Comm comm, int ints, int *must_fail, const char **call)
{
    fill(sbuf, ints * size, rank + 1);
    *must_fail = rank != 0;
    *call = "MPI_Scatter";
    return then_matched(comm, *call, MPI_Scatter(sbuf, int_or_u8_count(ints), int_or_u8(), rbuf,
                                                 int_or_u8_count(ints), int_or_u8(), 0, comm));
}
static int c_scatter_int_uint8(MPI_Comm comm, int *f, const char **c) { return scatter_int_uint8(comm, 4, f, c); }

/* The same where the data goes by no FIFO entry (issue 32 item 2; on main
 * d9c0950 they returned MPI_SUCCESS): a bcast above 4 KiB (8000 bytes), a
 * gather block above 496 bytes (800), a scatter whose blocks exceed 4 KiB
 * together (4000 bytes each), and every point-to-point algorithm (--p2p):
 * their root fields carry the class mixed in (coll/direct/direct.h,
 * CM_DIRECT_CLASS_MIX_ROOTED). */
static int c_bcast_int_uint8_big(MPI_Comm comm, int *f, const char **c) { return bcast_int_uint8(comm, 2000, f, c); }
static int c_gather_int_uint8_big(MPI_Comm comm, int *f, const char **c) { return gather_int_uint8(comm, 200, f, c); }
static int c_scatter_int_uint8_big(MPI_Comm comm, int *f, const char **c) { return scatter_int_uint8(comm, 1000, f, c); }

static int c_gatherv_int_uint8(MPI_Comm comm, int *must_fail, const char **call)
{
    int *c = v_counts(4);
    fill(sbuf, 4, rank + 1);
    *must_fail = rank == 0;
    *call = "MPI_Gatherv";
    return then_matched(comm, *call,
                        MPI_Gatherv(sbuf, int_or_u8_count(4), int_or_u8(), rbuf, c, V_DISPLS(c), MPI_INT, 0, comm));
}

static int c_scatterv_int_uint8(MPI_Comm comm, int *must_fail, const char **call)
{
    int *c = v_counts(4);
    fill(sbuf, 4 * size, rank + 1);
    *must_fail = rank != 0;
    *call = "MPI_Scatterv";
    return then_matched(comm, *call,
                        MPI_Scatterv(sbuf, c, V_DISPLS(c), MPI_INT, rbuf, int_or_u8_count(4), int_or_u8(), 0, comm));
}

/* Alltoallv/w type signatures (their word holds no class): every block is
 * `ints` ints' worth of bytes; alltoallv: rank 0's type is MPI_INT, the
 * others' MPI_FLOAT (every rank receives a block of the other class);
 * alltoallw: only the last rank's block to rank 0 is MPI_FLOAT, which rank
 * 0 receives as MPI_INT.  4 ints: at 2 ranks the tiny pair (flag lines),
 * 1000: the slots' rounds. */
static int alltoallvw_int_float(MPI_Comm comm, int w, int ints, int *must_fail, const char **call)
{
    int cnt[64], dsp[64], last = size - 1, nb = ints < 0;
    MPI_Datatype sty[64], rty[64];
    MPI_Request req;
    ints = nb ? -ints : ints;
    for (int i = 0; i < size && i < 64; i++) {
        cnt[i] = ints;
        sty[i] = rty[i] = MPI_INT;
        dsp[i] = w ? ints * i * (int)sizeof(int) : ints * i;
    }
    if (rank == last)
        sty[0] = MPI_FLOAT;
    fill(sbuf, ints * size, rank);
    *must_fail = w ? rank == 0 : 1;
    *call = nb ? (w ? "MPI_Ialltoallw" : "MPI_Ialltoallv") : w ? "MPI_Alltoallw" : "MPI_Alltoallv";
    if (nb && w)
        return wait_named(&req, MPI_Ialltoallw(sbuf, cnt, dsp, sty, rbuf, cnt, dsp, rty, comm, &req));
    if (nb)
        return wait_named(&req, MPI_Ialltoallv(sbuf, cnt, dsp, int_or_float(), rbuf, cnt, dsp, int_or_float(),
                                               comm, &req));
    return then_matched(comm, *call,
                        w ? MPI_Alltoallw(sbuf, cnt, dsp, sty, rbuf, cnt, dsp, rty, comm)
                          : MPI_Alltoallv(sbuf, cnt, dsp, int_or_float(), rbuf, cnt, dsp, int_or_float(), comm));
}
static int c_alltoallv_int_float(MPI_Comm comm, int *f, const char **c) { return alltoallvw_int_float(comm, 0, 4, f, c); }
static int c_alltoallv_int_float_1000(MPI_Comm comm, int *f, const char **c)
{
    return alltoallvw_int_float(comm, 0, 1000, f, c);
}
static int c_alltoallw_int_float(MPI_Comm comm, int *f, const char **c) { return alltoallvw_int_float(comm, 1, 4, f, c); }
static int c_alltoallw_int_float_1000(MPI_Comm comm, int *f, const char **c)
{
    return alltoallvw_int_float(comm, 1, 1000, f, c);
}
/* The same as nonblocking calls (ints < 0; issue 32 item 2: their
 * schedules' messages carry each block's class in the tag; on main d9c0950
 * they returned MPI_SUCCESS with the other type's bits). */
static int c_ialltoallv_int_float(MPI_Comm comm, int *f, const char **c) { return alltoallvw_int_float(comm, 0, -4, f, c); }
static int c_ialltoallw_int_float(MPI_Comm comm, int *f, const char **c) { return alltoallvw_int_float(comm, 1, -4, f, c); }
/* Issue 32 item 2: a count of 0 on some ranks only (rank 0, or the root
 * rank 0, against 5 ints elsewhere, or the other way round), each followed
 * by a matched allreduce on the same communicator.  On main 793b128 the
 * ranks with 0 returned at once: success everywhere, or the others waiting
 * for them until the deadlock report. */
static int zero_case(MPI_Comm comm, int coll, int a, int b, int *f, const char **c)
{
    int rc = 0;
    switch (coll) {
    case 0: rc = bcast_counts(comm, a, b, 0, f, c); break;
    case 1: rc = reduce_counts(comm, a, b, f, c); break;
    case 2: rc = allreduce_counts(comm, a, b, f, c); break;
    case 3: rc = gather_counts(comm, a, b, f, c); break;
    case 4: rc = scatter_counts(comm, a, b, f, c); break;
    case 5: rc = allgather_counts(comm, a, b, f, c); break;
    case 6: rc = alltoall_counts(comm, a, b, f, c); break;
    case 7: rc = rsb(comm, a, b, MPI_SUM, f, c); break;
    case 8: rc = scan_case(comm, 0, a, b, MPI_SUM, f, c); break;
    case 9: rc = scan_case(comm, 1, a, b, MPI_SUM, f, c); break;
    default: {
        int counts[64], each = rank == 0 ? a : b;
        for (int i = 0; i < size && i < 64; i++)
            counts[i] = each;
        fill(sbuf, size * each, rank + 1);
        *f = 1;
        *c = "MPI_Reduce_scatter";
        rc = MPI_Reduce_scatter(sbuf, rbuf, counts, MPI_INT, MPI_SUM, comm);
    }
    }
    return then_matched(comm, *c, rc);
}
#define ZERO_CASES(X) X(bcast, 0) X(reduce, 1) X(allreduce, 2) X(gather, 3) X(scatter, 4) X(allgather, 5) \
    X(alltoall, 6) X(rsb, 7) X(scan, 8) X(exscan, 9) X(reduce_scatter, 10)
#define ZERO_FNS(name, k) \
    static int c_##name##_0_5(MPI_Comm comm, int *f, const char **c) { return zero_case(comm, k, 0, 5, f, c); } \
    static int c_##name##_5_0(MPI_Comm comm, int *f, const char **c) { return zero_case(comm, k, 5, 0, f, c); }
ZERO_CASES(ZERO_FNS)
#define ZERO_ROWS(name, k) { #name "_0_5", MM_DEFAULT | MM_P2P, c_##name##_0_5 }, \
    { #name "_5_0", MM_DEFAULT | MM_P2P, c_##name##_5_0 }, { #name "_0_5_fresh", MM_DEFAULT, c_##name##_0_5 },

/* Issue 32 item 2: the same in the nonblocking forms (on the shared-memory
 * engine after the warm-up barrier, on point-to-point schedules as a fresh
 * communicator's first call or with COREMPI_SHM_NBC=0) and the persistent
 * ones (persistent: 1).  On main d9c0950 the ranks with 0 completed at once
 * (Ireduce_scatter_block, and the schedules of Ibcast and Ireduce): success
 * everywhere, or the others waiting until the deadlock report. */
static int izero_case(MPI_Comm comm, int coll, int a, int b, int persistent, int *f, const char **c)
{
    static const char *const names[11][2] = {
        { "MPI_Ibcast", "MPI_Bcast_init" }, { "MPI_Ireduce", "MPI_Reduce_init" },
        { "MPI_Iallreduce", "MPI_Allreduce_init" }, { "MPI_Igather", "MPI_Gather_init" },
        { "MPI_Iscatter", "MPI_Scatter_init" }, { "MPI_Iallgather", "MPI_Allgather_init" },
        { "MPI_Ialltoall", "MPI_Alltoall_init" }, { "MPI_Ireduce_scatter_block", "MPI_Reduce_scatter_block_init" },
        { "MPI_Iscan", "MPI_Scan_init" }, { "MPI_Iexscan", "MPI_Exscan_init" },
        { "MPI_Ireduce_scatter", "MPI_Reduce_scatter_init" },
    };
    MPI_Request req;
    MPI_Info ni = MPI_INFO_NULL;
    int n = rank == 0 ? a : b, counts[64], rc = MPI_SUCCESS;
    for (int i = 0; i < size && i < 64; i++)
        counts[i] = n;
    fill(sbuf, size * (a > b ? a : b), rank + 1);
    *c = names[coll][persistent];
    *f = 1;
#define NB(ifn, initfn, ...) \
    (persistent ? start_once(&req, initfn(__VA_ARGS__, ni, &req)) : wait_named(&req, ifn(__VA_ARGS__, &req)))
    switch (coll) {
    case 0:
        *f = rank != 0;
        rc = NB(MPI_Ibcast, MPI_Bcast_init, rbuf, n, MPI_INT, 0, comm);
        break;
    case 1:
        *f = rank == 0;
        rc = NB(MPI_Ireduce, MPI_Reduce_init, sbuf, rbuf, n, MPI_INT, MPI_SUM, 0, comm);
        break;
    case 2: rc = NB(MPI_Iallreduce, MPI_Allreduce_init, sbuf, rbuf, n, MPI_INT, MPI_SUM, comm); break;
    case 3:
        *f = rank == 0;
        rc = NB(MPI_Igather, MPI_Gather_init, sbuf, n, MPI_INT, rbuf, n, MPI_INT, 0, comm);
        break;
    case 4:
        *f = rank != 0;
        rc = NB(MPI_Iscatter, MPI_Scatter_init, sbuf, n, MPI_INT, rbuf, n, MPI_INT, 0, comm);
        break;
    case 5: rc = NB(MPI_Iallgather, MPI_Allgather_init, sbuf, n, MPI_INT, rbuf, n, MPI_INT, comm); break;
    case 6: rc = NB(MPI_Ialltoall, MPI_Alltoall_init, sbuf, n, MPI_INT, rbuf, n, MPI_INT, comm); break;
    case 7:
        rc = NB(MPI_Ireduce_scatter_block, MPI_Reduce_scatter_block_init, sbuf, rbuf, n, MPI_INT, MPI_SUM, comm);
        break;
    case 8:
        *f = rank > 0;
        rc = NB(MPI_Iscan, MPI_Scan_init, sbuf, rbuf, n, MPI_INT, MPI_SUM, comm);
        break;
    case 9:
        *f = rank > 0;
        rc = NB(MPI_Iexscan, MPI_Exscan_init, sbuf, rbuf, n, MPI_INT, MPI_SUM, comm);
        break;
    default: rc = NB(MPI_Ireduce_scatter, MPI_Reduce_scatter_init, sbuf, rbuf, counts, MPI_INT, MPI_SUM, comm);
    }
#undef NB
    return then_matched(comm, *c, rc);
}
#define IZERO_FNS(name, k) \
    static int c_i##name##_0_5(MPI_Comm comm, int *f, const char **c) { return izero_case(comm, k, 0, 5, 0, f, c); } \
    static int c_i##name##_5_0(MPI_Comm comm, int *f, const char **c) { return izero_case(comm, k, 5, 0, 0, f, c); } \
    static int c_##name##_init_0_5(MPI_Comm comm, int *f, const char **c) { return izero_case(comm, k, 0, 5, 1, f, c); }
ZERO_CASES(IZERO_FNS)
#define IZERO_ROWS(name, k) { "i" #name "_0_5", MM_DEFAULT, c_i##name##_0_5 }, \
    { "i" #name "_5_0", MM_DEFAULT, c_i##name##_5_0 }, { "i" #name "_0_5_fresh", MM_DEFAULT, c_i##name##_0_5 }, \
    { #name "_init_0_5", MM_DEFAULT, c_##name##_init_0_5 },

/* Issue 32 item 2: a nonblocking call against the blocking call of the same
 * collective (MPI 4.1 section 6.12: they do not match).  Rank 0 makes the
 * nonblocking one (blocking_root: rank 0 the blocking one, the others the
 * nonblocking one), n ints.  On the shared-memory engine on main d9c0950
 * every rank returned MPI_SUCCESS with the right data.  Every rank must
 * fail but a broadcast's root (it only sends). */
static int nb_blocking(MPI_Comm comm, int bcast, int n, int blocking_root, int *must_fail, const char **call)
{
    MPI_Request req;
    int nb = (rank == 0) != blocking_root;
    fill(sbuf, n, rank + 1);
    fill(rbuf, n, rank == 0 ? 7 : 9);
    *must_fail = bcast ? rank != 0 : 1;
    *call = bcast ? (nb ? "MPI_Ibcast" : "MPI_Bcast") : (nb ? "MPI_Iallreduce" : "MPI_Allreduce");
    if (bcast)
        return nb ? wait_named(&req, MPI_Ibcast(rbuf, n, MPI_INT, 0, comm, &req)) : MPI_Bcast(rbuf, n, MPI_INT, 0, comm);
    if (nb)
        return wait_named(&req, MPI_Iallreduce(sbuf, rbuf, n, MPI_INT, MPI_SUM, comm, &req));
    return MPI_Allreduce(sbuf, rbuf, n, MPI_INT, MPI_SUM, comm);
}
#define NB_BLOCKING(X) X(iallreduce_allreduce, 0, 0) X(allreduce_iallreduce, 0, 1) X(ibcast_bcast, 1, 0) \
    X(bcast_ibcast, 1, 1)
#define NB_BLOCKING_FNS(name, bc, br) \
    static int c_##name##_1(MPI_Comm m, int *f, const char **c) { return nb_blocking(m, bc, 1, br, f, c); } \
    static int c_##name##_100(MPI_Comm m, int *f, const char **c) { return nb_blocking(m, bc, 100, br, f, c); } \
    static int c_##name##_4096(MPI_Comm m, int *f, const char **c) { return nb_blocking(m, bc, 4096, br, f, c); }
NB_BLOCKING(NB_BLOCKING_FNS)
/* MM_NOT_SCHED: a nonblocking call on a schedule (a fresh communicator)
 * against a blocking one waits for the deadlock report (other base tags);
 * so does COREMPI_CHECK=1 (the blocking ranks wait in the check's exchange,
 * which a nonblocking call does not join): --all leaves them out. */
#define NB_BL MM_DEFAULT | MM_NOT_SCHED | MM_NOT_CHECK
#define NB_BLOCKING_ROWS(name, bc, br) { #name "_1", NB_BL, c_##name##_1 }, { #name "_100", NB_BL, c_##name##_100 }, \
    { #name "_4096", NB_BL, c_##name##_4096 },

/* Issue 32 item 2: Iscan on rank 0 against Iallreduce elsewhere on the whole
 * communicator (3+ ranks: on main d9c0950 rank 2 waited for a broadcast no
 * rank sends, until the deadlock report), and a regular nonblocking form on
 * the shared-memory engine against its v form (always a point-to-point
 * schedule) after the warm-up barrier: the deadlock report on d9c0950. */
static int c_iscan_iallreduce_all(MPI_Comm comm, int *must_fail, const char **call)
{
    MPI_Request req;
    fill(sbuf, 4, rank + 1);
    *must_fail = rank == 1;
    *call = rank == 0 ? "MPI_Iscan" : "MPI_Iallreduce";
    if (rank == 0)
        return wait_named(&req, MPI_Iscan(sbuf, rbuf, 4, MPI_INT, MPI_SUM, comm, &req));
    return wait_named(&req, MPI_Iallreduce(sbuf, rbuf, 4, MPI_INT, MPI_SUM, comm, &req));
}

/* Issue 32 item 2, issue 33 item 7: the same broadcasts as a fresh
 * communicator's first collective.  At 3+ ranks 20 bytes take the FIFO
 * (attaching the shared-memory area, an exchange of its own) where 7600
 * take the flat point-to-point bcast (tuning.def): the set-up's message
 * must never pass for the broadcast's data, nor the other way round. */
static const struct mm_case cases[] = {
    { "bcast_5_1900_fresh", MM_DEFAULT, c_bcast_5_1900 },
    { "bcast_1900_5_fresh", MM_DEFAULT, c_bcast_1900_5 },
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
    { "reduce_int_float", MM_DEFAULT | MM_P2P, c_reduce_int_float },
    { "reduce_int_float_1900", MM_DEFAULT | MM_P2P, c_reduce_int_float_1900 },
    { "reduce_int_unsigned", MM_DEFAULT | MM_P2P, c_reduce_int_unsigned },
    { "allreduce_int_f16", MM_DEFAULT | MM_P2P, c_allreduce_int_f16 },
    { "reduce_int_f16", MM_DEFAULT | MM_P2P, c_reduce_int_f16 },
    { "iallreduce_int_f16", MM_DEFAULT, c_iallreduce_int_f16 },
    { "ireduce_int_f16", MM_DEFAULT, c_ireduce_int_f16 },
    { "reduce_int_float_fresh", MM_DEFAULT, c_reduce_int_float },
    { "reduce_layout", MM_DEFAULT | MM_NOT_CHECK, c_reduce_layout },
    { "bcast_int_float", MM_DEFAULT, c_bcast_int_float },
    { "gather_int_float", MM_DEFAULT, c_gather_int_float },
    { "scatter_int_float", MM_DEFAULT, c_scatter_int_float },
    { "allgather_int_float", MM_DEFAULT, c_allgather_int_float },
    { "alltoall_int_float", MM_DEFAULT, c_alltoall_int_float },
    { "bcast_int_byte", MM_DEFAULT, c_bcast_int_byte },
    { "gatherv_int_float", MM_DEFAULT, c_gatherv_int_float },
    { "scatterv_int_float", MM_DEFAULT, c_scatterv_int_float },
    { "allgatherv_int_float", MM_DEFAULT, c_allgatherv_int_float },
    { "bcast_int_uint8", MM_DEFAULT | MM_MATCHED, c_bcast_int_uint8 },
    { "bcast_int_uint8_1000", MM_DEFAULT | MM_MATCHED, c_bcast_int_uint8_1000 },
    { "gather_int_uint8", MM_DEFAULT | MM_MATCHED, c_gather_int_uint8 },
    { "bcast_int_uint8_big", MM_DEFAULT | MM_MATCHED | MM_P2P, c_bcast_int_uint8_big },
    { "gather_int_uint8_big", MM_DEFAULT | MM_MATCHED | MM_P2P, c_gather_int_uint8_big },
    { "scatter_int_uint8_big", MM_DEFAULT | MM_MATCHED | MM_P2P, c_scatter_int_uint8_big },
    { "scatter_int_uint8", MM_DEFAULT | MM_MATCHED, c_scatter_int_uint8 },
    { "gatherv_int_uint8", MM_DEFAULT | MM_MATCHED, c_gatherv_int_uint8 },
    { "scatterv_int_uint8", MM_DEFAULT | MM_MATCHED, c_scatterv_int_uint8 },
    { "alltoallv_int_float", MM_DEFAULT | MM_MATCHED, c_alltoallv_int_float },
    { "alltoallv_int_float_1000", MM_DEFAULT | MM_MATCHED, c_alltoallv_int_float_1000 },
    { "alltoallw_int_float", MM_DEFAULT | MM_MATCHED, c_alltoallw_int_float },
    { "alltoallw_int_float_1000", MM_DEFAULT | MM_MATCHED, c_alltoallw_int_float_1000 },
    { "iallreduce_5_1900", MM_DEFAULT, c_iallreduce_5_1900 },
    { "iallreduce_1_2", MM_DEFAULT, c_iallreduce_1_2 },
    { "iallreduce_big", MM_DEFAULT, c_iallreduce_big },
    { "iallreduce_int_float", MM_DEFAULT, c_iallreduce_int_float },
    { "ibcast_root", MM_DEFAULT | MM_NOT_SCHED, c_ibcast_root },
    { "ibcast_10_5", MM_DEFAULT, c_ibcast_10_5 },
    { "ireduce_5_10", MM_DEFAULT, c_ireduce_5_10 },
    { "igather_int_float", MM_DEFAULT, c_igather_int_float },
    { "ireduce_int_float", MM_DEFAULT, c_ireduce_int_float },
    { "ireduce_int_float_fresh", MM_DEFAULT, c_ireduce_int_float },
    /* As a communicator's first collective the nonblocking calls run
     * point-to-point schedules (no area yet), whose receives compare what
     * they get (coll/nbc.c). */
    { "iallreduce_5_1900_fresh", MM_DEFAULT, c_iallreduce_5_1900 },
    { "ibcast_10_5_fresh", MM_DEFAULT, c_ibcast_10_5 },
    { "ireduce_5_10_fresh", MM_DEFAULT, c_ireduce_5_10 },
    { "igather_int_float_fresh", MM_DEFAULT, c_igather_int_float },
    { "allreduce_init_5_1900", MM_DEFAULT, c_allreduce_init_5_1900 },
    { "allreduce_init_1_2", MM_DEFAULT, c_allreduce_init_1_2 },
    { "bcast_init_root", MM_DEFAULT, c_bcast_init_root },
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
    { "scan_3_5", MM_DEFAULT | MM_P2P, c_scan_3_5 },
    { "scan_op", MM_DEFAULT | MM_P2P, c_scan_op },
    { "exscan_3_5", MM_DEFAULT | MM_P2P, c_exscan_3_5 },
    { "exscan_op", MM_DEFAULT | MM_P2P, c_exscan_op },
    { "gatherv_counts", MM_DEFAULT | MM_P2P, c_gatherv_counts },
    { "gatherv_5_1000", MM_DEFAULT, c_gatherv_5_1000 },
    { "gatherv_1000_5", MM_DEFAULT, c_gatherv_1000_5 },
    { "gatherv_0_5", MM_DEFAULT, c_gatherv_0_5 },
    { "gatherv_0_1000", MM_DEFAULT, c_gatherv_0_1000 },
    { "alltoallv_counts", MM_P2P, c_alltoallv_counts },
    /* Issue 32 item 2: the schedules of the v and w forms, scan, exscan and
     * reduce_scatter carry their word (always point-to-point schedules);
     * different collectives as a fresh communicator's first call (both
     * ranks then run schedules). */
    { "igatherv_7_5", MM_DEFAULT | MM_MATCHED, c_igatherv_7_5 },
    { "igatherv_5_1000", MM_DEFAULT | MM_MATCHED, c_igatherv_5_1000 },
    { "igatherv_big_5", MM_DEFAULT | MM_MATCHED, c_igatherv_big_5 },
    { "gatherv_init_7_5", MM_DEFAULT | MM_MATCHED, c_gatherv_init_7_5 },
    { "iscatterv_5_3", MM_DEFAULT | MM_MATCHED, c_iscatterv_5_3 },
    { "iallgatherv_3_5", MM_DEFAULT | MM_MATCHED, c_iallgatherv_3_5 },
    { "ialltoallv_6_4", MM_DEFAULT | MM_MATCHED, c_ialltoallv_6_4 },
    { "ialltoallw_6_4", MM_DEFAULT | MM_MATCHED, c_ialltoallw_6_4 },
    { "iscan_3_5", MM_DEFAULT | MM_MATCHED, c_iscan_3_5 },
    { "iscan_op", MM_DEFAULT | MM_MATCHED, c_iscan_op },
    { "iexscan_3_5", MM_DEFAULT | MM_MATCHED, c_iexscan_3_5 },
    { "iexscan_op", MM_DEFAULT | MM_MATCHED, c_iexscan_op },
    { "scan_init_3_5", MM_DEFAULT | MM_MATCHED, c_scan_init_3_5 },
    { "ireduce_scatter_3_5", MM_DEFAULT | MM_MATCHED, c_ireduce_scatter_3_5 },
    { "igatherv_igather_fresh", MM_DEFAULT | MM_MATCHED, c_igatherv_igather },
    { "iscatterv_iscatter_fresh", MM_DEFAULT | MM_MATCHED, c_iscatterv_iscatter },
    { "ialltoallv_ialltoall_fresh", MM_DEFAULT | MM_MATCHED, c_ialltoallv_ialltoall },
    { "iallgatherv_iallgather_fresh", MM_DEFAULT | MM_MATCHED, c_iallgatherv_iallgather },
    { "iscan_iexscan_fresh", MM_DEFAULT | MM_MATCHED, c_iscan_iexscan },
    { "iscan_iallreduce", MM_DEFAULT, c_iscan_iallreduce },
    { "inter_ibcast_10_5", MM_DEFAULT, c_inter_ibcast_10_5 },
    { "inter_iallreduce_5_10", MM_DEFAULT, c_inter_iallreduce_5_10 },
    { "inter_igather_int_float", MM_DEFAULT, c_inter_igather_int_float },
    { "inter_iallgather_int_float", MM_DEFAULT, c_inter_iallgather_int_float },
    { "inter_ireduce_int_float", MM_DEFAULT, c_inter_ireduce_int_float },
    { "inter_ibcast_root", MM_FOUR, c_inter_ibcast_root },
    { "inter_gather_int_float", MM_DEFAULT, c_inter_gather_int_float },
    { "inter_allgather_int_float", MM_DEFAULT, c_inter_allgather_int_float },
    { "inter_reduce_int_float", MM_DEFAULT, c_inter_reduce_int_float },
    { "inter_bcast_root", MM_FOUR, c_inter_bcast_root },
    { "ialltoallv_int_float", MM_DEFAULT | MM_MATCHED, c_ialltoallv_int_float },
    { "ialltoallw_int_float", MM_DEFAULT | MM_MATCHED, c_ialltoallw_int_float },
    { "scatterv_5_1000", MM_DEFAULT, c_scatterv_5_1000 },
    { "scatterv_1000_5", MM_DEFAULT, c_scatterv_1000_5 },
    { "scatterv_7_5", MM_DEFAULT, c_scatterv_7_5 },
    { "scatterv_0_5", MM_DEFAULT, c_scatterv_0_5 },
    { "scatterv_5_0", MM_DEFAULT, c_scatterv_5_0 },
    { "scatterv_0_1000", MM_DEFAULT, c_scatterv_0_1000 },
    { "scatterv_1000_0", MM_DEFAULT, c_scatterv_1000_0 },
    { "allgatherv_5_7", MM_DEFAULT, c_allgatherv_5_7 },
    { "allgatherv_send_3_5", MM_DEFAULT, c_allgatherv_send_3_5 },
    { "allgatherv_0_5", MM_DEFAULT, c_allgatherv_0_5 },
    { "allgatherv_5_0", MM_DEFAULT, c_allgatherv_5_0 },
    { "allgatherv_5_1000", MM_DEFAULT, c_allgatherv_5_1000 },
    { "allgatherv_ring", 0, c_allgatherv_ring },
    { "alltoallv_5_1000", MM_DEFAULT, c_alltoallv_5_1000 },
    { "alltoallv_1000_5", MM_DEFAULT, c_alltoallv_1000_5 },
    { "alltoallv_3_5", MM_DEFAULT, c_alltoallv_3_5 },
    { "alltoallv_0_5", MM_DEFAULT, c_alltoallv_0_5 },
    { "alltoallv_5_0", MM_DEFAULT, c_alltoallv_5_0 },
    { "alltoallv_0_1000", MM_DEFAULT, c_alltoallv_0_1000 },
    { "alltoallw_5_1000", MM_DEFAULT, c_alltoallw_5_1000 },
    { "alltoallw_1000_5", MM_DEFAULT, c_alltoallw_1000_5 },
    { "alltoallw_0_5", MM_DEFAULT, c_alltoallw_0_5 },
    ZERO_CASES(ZERO_ROWS)
    ZERO_CASES(IZERO_ROWS)
    NB_BLOCKING(NB_BLOCKING_ROWS)
    /* Not caught yet (docs/collectives.md, "Not caught by default"): they
     * end in the deadlock report.  Run only when named. */
    { "iscan_iallreduce_all", MM_NOT_CHECK, c_iscan_iallreduce_all },
    { "igatherv_igather", MM_NOT_CHECK | MM_MATCHED, c_igatherv_igather },
    { "iscatterv_iscatter", MM_NOT_CHECK | MM_MATCHED, c_iscatterv_iscatter },
    { "iallgatherv_iallgather", MM_NOT_CHECK | MM_MATCHED, c_iallgatherv_iallgather },
    { "ialltoallv_ialltoall", MM_NOT_CHECK | MM_MATCHED, c_ialltoallv_ialltoall },
};

static void run_case(const struct mm_case *c)
{
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    if (!fatal)
        MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    /* A matched call first (unless the case is about the first call): the
     * communicator's first collective attaches its shared-memory area. */
    size_t len = strlen(c->name);
    if (!fresh_all && !(len > 6 && !strcmp(c->name + len - 6, "_fresh")))
        MPI_Barrier(comm);
    int must_fail = 0;
    const char *call = "?";
    other = NULL;
    memset(rbuf, 0x5a, sizeof(int) * (size_t)size * BIG);
    memcpy(keep, rbuf, sizeof(int) * (size_t)size * BIG);
    int rc = c->run(comm, &must_fail, &call);
    if (c->by & MM_MATCHED)
        matched_after(comm, c->name);
    else if (then_all)
        then_matched(comm, c->name, rc);
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
        /* The rank that went elsewhere left its word where this one saw it
         * (a FIFO entry, a sync it joined): the text names its call. */
        if (other && !strstr(text, other)) {
            printf("rank %d: %s: the error text does not name the other rank's %s: %s\n", rank, c->name, other,
                   text);
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
    int first = 1, repeat = 1;
    for (; first < argc && !strncmp(argv[first], "--", 2) && strcmp(argv[first], "--all"); first++) {
        if (!strcmp(argv[first], "--fatal"))
            fatal = 1;
        else if (!strcmp(argv[first], "--fresh"))
            fresh_all = 1;
        else if (!strcmp(argv[first], "--keep"))
            keep_comms = 1;
        else if (!strcmp(argv[first], "--p2p"))
            p2p = 1;
        else if (!strcmp(argv[first], "--then"))
            then_all = 1;
        else if (!strcmp(argv[first], "--repeat") && first + 1 < argc)
            repeat = atoi(argv[++first]);
        else {
            if (rank == 0)
                fprintf(stderr, "mismatch: unknown option %s\n", argv[first]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    int all = argc > first && !strcmp(argv[first], "--all"), named = argc > first && !all, ran = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int pick = all ? !(cases[i].by & MM_NOT_CHECK) && !((cases[i].by & MM_FOUR) && size < 4) : (!named && (cases[i].by & (p2p ? MM_P2P : MM_DEFAULT)) &&
                           !(fresh_all && (cases[i].by & MM_NOT_SCHED)));
        for (int a = first; named && a < argc; a++)
            pick |= !strcmp(argv[a], cases[i].name);
        if (!pick)
            continue;
        if (rank == 0 && getenv("MISMATCH_VERBOSE"))
            printf("case %s\n", cases[i].name);
        fflush(stdout);
        for (iter = 0; iter < repeat; iter++)
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
