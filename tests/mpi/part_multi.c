/*
 * part_multi.c -- several partitioned pairs open at once between the same
 * ranks, as MPICH's part/multipart: each Precv_init must meet the right
 * Psend_init by (source, tag, comm) in init order and keep it for every
 * round.
 *
 * Ring: every rank makes NREQ sends to the right (tags 5,5,7,9,5,7 and one
 * with tag 5 on a duplicate of the world) and the NREQ receives from the
 * left in another order that keeps the order among equal (tag, comm) -- so
 * the k-th receive with a tag is the k-th send with it.  Shapes differ per
 * pair and between the sides.  Three rounds: the sides start their requests
 * in different random orders, Pready goes round the requests at random,
 * Waitall; every element names its pair.  On main 913623a the pairs with
 * equal tags exchanged data.
 */
#include "part_common.h"

#define NREQ 7

static const int tags[NREQ] = {5, 5, 7, 9, 5, 7, 5};
static const int on_dup[NREQ] = {0, 0, 0, 0, 0, 0, 1};
static const int spart[NREQ] = {8, 3, 16, 1, 64, 5, 4};
static const int rpart[NREQ] = {2, 12, 16, 7, 1, 5, 8};
static const int total[NREQ] = {4800, 4800, 96, 700, 7680, 6000, 4800}; /* doubles; equal totals on purpose */
static const int recv_order[NREQ] = {6, 3, 2, 0, 5, 1, 4};              /* keeps 0,1,4 and 2,5 in order */

static double value(int rank, int pair, int round, int k) { return rank * 1e8 + pair * 1e6 + round * 1e5 + k; }

int main(int argc, char **argv)
{
    int rank, size;
    unsigned long s = part_start(&argc, &argv, "part_multi", &rank, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Comm dup;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    double *out[NREQ], *in[NREQ];
    MPI_Request sreq[NREQ], rreq[NREQ];
    for (int j = 0; j < NREQ; j++) {
        out[j] = malloc(sizeof(double) * (size_t)total[j]);
        in[j] = malloc(sizeof(double) * (size_t)total[j]);
        CHECK(out[j] && in[j], "out of memory");
        CHECK_MPI(MPI_Psend_init(out[j], spart[j], total[j] / spart[j], MPI_DOUBLE, right, tags[j],
                                 on_dup[j] ? dup : MPI_COMM_WORLD, MPI_INFO_NULL, &sreq[j]));
    }
    for (int m = 0; m < NREQ; m++) {
        int j = recv_order[m];
        CHECK_MPI(MPI_Precv_init(in[j], rpart[j], total[j] / rpart[j], MPI_DOUBLE, left, tags[j],
                                 on_dup[j] ? dup : MPI_COMM_WORLD, MPI_INFO_NULL, &rreq[j]));
    }
    for (int round = 0; round < 3; round++) {
        int order[NREQ], left_to_ready[NREQ], parts_order[NREQ][64], next[NREQ];
        for (int j = 0; j < NREQ; j++) {
            for (int k = 0; k < total[j]; k++) {
                out[j][k] = value(rank, j, round, k);
                in[j][k] = -1;
            }
            part_shuffle(parts_order[j], spart[j], &s);
            left_to_ready[j] = spart[j];
            next[j] = 0;
        }
        part_shuffle(order, NREQ, &s);
        for (int m = 0; m < NREQ; m++)
            CHECK_MPI(MPI_Start(&rreq[order[m]]));
        part_shuffle(order, NREQ, &s);
        for (int m = 0; m < NREQ; m++)
            CHECK_MPI(MPI_Start(&sreq[order[m]]));
        for (int pending = NREQ; pending > 0;) {
            int j = part_pick(&s, NREQ);
            if (!left_to_ready[j])
                continue;
            CHECK_MPI(MPI_Pready(parts_order[j][next[j]++], sreq[j]));
            if (--left_to_ready[j] == 0)
                pending--;
        }
        CHECK_MPI(MPI_Waitall(NREQ, rreq, MPI_STATUSES_IGNORE));
        CHECK_MPI(MPI_Waitall(NREQ, sreq, MPI_STATUSES_IGNORE));
        for (int j = 0; j < NREQ; j++)
            for (int k = 0; k < total[j]; k++)
                PCHECK(in[j][k] == value(left, j, round, k), "round %d pair %d (tag %d%s) element %d: %.0f, expected %.0f "
                       "(pair %d's data?)", round, j, tags[j], on_dup[j] ? " on the dup" : "", k, in[j][k],
                       value(left, j, round, k), (int)((in[j][k] - left * 1e8) / 1e6));
    }
    for (int j = 0; j < NREQ; j++) {
        CHECK_MPI(MPI_Request_free(&sreq[j]));
        CHECK_MPI(MPI_Request_free(&rreq[j]));
        free(out[j]);
        free(in[j]);
    }
    CHECK_MPI(MPI_Comm_free(&dup));
    CHECK_MPI(MPI_Finalize());
    return 0;
}
