/*
 * coll_no_false.c -- correct programs that the default collective mismatch
 * check (coll/direct/diverge.c: waits that last look for the peer on another
 * path) must leave alone: each case must end with every call returning
 * MPI_SUCCESS and the right data.
 *
 *   idup_bcast  MPI_Comm_idup still running under a blocking MPI_Bcast whose
 *               root comes late: the idup's internal messages (negative tags
 *               on the collective context) wait unexpected at the reader,
 *               which must not take them for the root's collective message.
 *   pair_mix    MPI_Allreduce (a user op) of one struct {MPI_2INT, MPI_INT}
 *               on rank 0 against 3 MPI_INT elsewhere: the same type
 *               signature (int, int, int), so the same signature class
 *               (core/datatype.h's invariant) and no MPI_ERR_TYPE, as n
 *               MPI_2INT against 2n MPI_INT.  (The standard asks reductions
 *               for the same count and datatype on every rank; the check
 *               reads that as the same signature, and so does this case.)
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../test_end.h"

static int fatal;

#define SOFT_CHECK_NAME "coll_no_false"
#define SOFT_CHECK_RANK rank
#include "../soft_check.h"

static void idup_bcast(int rank, int size)
{
    MPI_Comm comm, dup;
    MPI_Request req;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    if (!fatal)   /* -fatal: the default handler prints what it saw */
        MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Barrier(comm);   /* the area is attached: the bcast below goes through it */
    MPI_Comm_idup(comm, &dup, &req);
    if (rank == 0) {
        /* Move the idup on (its next round's messages go out), then come late. */
        for (int i = 0; i < 200; i++) {
            int flag;
            MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
            if (flag)
                break;
            usleep(1000);
        }
        usleep(300000);
    }
    int v = rank == 0 ? 42 : -1;
    int rc = MPI_Bcast(&v, 1, MPI_INT, 0, comm);
    CHECK(rc == MPI_SUCCESS, "idup_bcast: MPI_Bcast returned %d", rc);
    CHECK(v == 42, "idup_bcast: got %d, not 42", v);
    rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS, "idup_bcast: MPI_Wait on the idup returned %d", rc);
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, dup);
    CHECK(sum == size * (size - 1) / 2, "idup_bcast: allreduce on the dup gave %d", sum);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&comm);
}

static MPI_Datatype pair_int;   /* struct {MPI_2INT, MPI_INT}: three ints */

static void int_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int n = *len * (*dt == pair_int ? 3 : 1);
    for (int i = 0; i < n; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

static void pair_mix(int rank, int size)
{
    int bl[2] = { 1, 1 };
    MPI_Aint disp[2] = { 0, 2 * sizeof(int) };
    MPI_Datatype types[2] = { MPI_2INT, MPI_INT };
    MPI_Type_create_struct(2, bl, disp, types, &pair_int);
    MPI_Type_commit(&pair_int);
    MPI_Op op;
    MPI_Op_create(int_sum, 1, &op);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    if (!fatal)
        MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int in[3] = { rank, 2 * rank, 3 * rank }, out[3] = { -1, -1, -1 };
    int rc = rank == 0 ? MPI_Allreduce(in, out, 1, pair_int, op, comm) : MPI_Allreduce(in, out, 3, MPI_INT, op, comm);
    int t = size * (size - 1) / 2;
    CHECK(rc == MPI_SUCCESS, "pair_mix: MPI_Allreduce returned %d", rc);
    CHECK(out[0] == t && out[1] == 2 * t && out[2] == 3 * t, "pair_mix: got %d %d %d", out[0], out[1], out[2]);
    MPI_Comm_free(&comm);
    MPI_Op_free(&op);
    MPI_Type_free(&pair_int);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *which = argc > 1 ? argv[1] : "all";
    fatal = argc > 2 && !strcmp(argv[2], "-fatal");
    for (int i = 0; i < 8; i++)   /* the timing varies: a few tries */
        if (!strcmp(which, "all") || !strcmp(which, "idup_bcast"))
            idup_bcast(rank, size);
    if (!strcmp(which, "all") || !strcmp(which, "pair_mix"))
        pair_mix(rank, size);
    return test_end("coll_no_false", failures);
}
