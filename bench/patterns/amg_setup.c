/* The communication skeleton of hypre BoomerAMG's setup phase (LLNL/AMG),
 * the phase that read 2.4-3x Open MPI's time at 2 ranks in issue 38.
 *
 * One round is one setup of LEVELS levels.  Level l holds POINTS >> 2l
 * points per rank and a boundary of BOUNDARY >> l entries towards each
 * neighbour (a 1-D chain of ranks: at 2 ranks, one neighbour).  A level is:
 *  - the matvec communication package of its matrix (hypre's assumed
 *    partition, hypre_DataExchangeList): an Isend of a contact message to
 *    every neighbour, then a loop of MPI_Iprobe(ANY_SOURCE) + MPI_Recv of
 *    contacts and an Isend of each response, until every response of ours
 *    is in (MPI_Testall); then MPI_Waitall of the responses sent;
 *  - coarsening (PMIS): COARSEN_ITERS times { work on the rank's points;
 *    a hypre_ParCSRCommHandle exchange of measures (Irecv, Isend, Waitall,
 *    BOUNDARY >> l doubles); MPI_Allreduce of the points left (1 int) };
 *  - interpolation and the Galerkin product (hypre_ParCSRMatrixExtractBExt,
 *    twice): an exchange of row lengths (ints), then of the rows themselves
 *    (column indices as 8-byte ints and values as doubles, ROW_NNZ per
 *    row, two messages per neighbour), Waitall, then work; MPI_Allreduce
 *    of the coarse size (a 64-bit int) and MPI_Allgather of the partition.
 * The work is uneven: one rank works IMBALANCE_PCT % more than the other,
 * alternately by level, as coarse levels of AMG are, so the faster rank
 * waits in Waitall and Allreduce while its peer computes (the waits of up
 * to 16 ms that the profile showed).  Every message carries stamps of
 * (round, level, sender, kind) in its first and last word, checked.
 * Prints: amg_setup ranks=N us_per_setup=X */
#include "pattern_bench.h"

enum { LEVELS = 8, POINTS = 4096, BOUNDARY = 2048, COARSEN_ITERS = 4, ROW_NNZ = 9, IMBALANCE_PCT = 60 };
enum { KIND_MEASURE, KIND_LEN, KIND_COLS, KIND_VALS, KIND_CONTACT, KIND_RESPONSE, KINDS };

struct amg {
    int nb[2], nnb; /* neighbours in the chain */
    long long *sbig[2], *rbig[2];
    double *sdbl[2], *rdbl[2];
    int *sint[2], *rint[2];
};

static int stamp(long round, int level, int sender, int kind)
{
    return pat_stamp((uint64_t)round, (uint64_t)level, (uint64_t)sender, (uint64_t)kind);
}

static void work(int level, long units)
{
    int heavy = (level & 1) == (pat_rank & 1);
    long u = heavy ? units * (100 + IMBALANCE_PCT) / 100 : units;
    pat_work((int)(u > 0 ? u : 1));
}

/* One hypre_ParCSRCommHandle-style exchange of n words of one type with
 * every neighbour; the buffers are stamped and checked here. */
static void exchange(struct amg *a, long round, int level, int kind, int n, MPI_Datatype t, void **sb, void **rb)
{
    MPI_Request req[4];
    int nreq = 0;
    size_t w = t == MPI_INT ? sizeof(int) : 8;
    for (int i = 0; i < a->nnb; i++)
        MPI_Irecv(rb[i], n, t, a->nb[i], kind, MPI_COMM_WORLD, &req[nreq++]);
    for (int i = 0; i < a->nnb; i++) {
        int s = stamp(round, level, pat_rank, kind);
        memcpy(sb[i], &s, sizeof s);
        memcpy((char *)sb[i] + (size_t)(n - 1) * w, &s, sizeof s);
        MPI_Isend(sb[i], n, t, a->nb[i], kind, MPI_COMM_WORLD, &req[nreq++]);
    }
    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
    for (int i = 0; i < a->nnb; i++) {
        int s = stamp(round, level, a->nb[i], kind), first, last;
        memcpy(&first, rb[i], sizeof first);
        memcpy(&last, (char *)rb[i] + (size_t)(n - 1) * w, sizeof last);
        pat_expect(first, s, "amg_setup: first word of an exchange");
        pat_expect(last, s, "amg_setup: last word of an exchange");
    }
}

/* hypre_DataExchangeList: contacts to neighbours, answered as they are
 * probed; ends when our responses are in and every neighbour's contact was
 * answered. */
static void contact_exchange(struct amg *a, long round, int level, int n)
{
    MPI_Request req[8];
    int nreq = 0, answered = 0, done = 0;
    for (int i = 0; i < a->nnb; i++)
        MPI_Irecv(a->rint[i], n, MPI_INT, a->nb[i], KIND_RESPONSE, MPI_COMM_WORLD, &req[nreq++]);
    for (int i = 0; i < a->nnb; i++) {
        a->sint[i][0] = stamp(round, level, pat_rank, KIND_CONTACT);
        MPI_Isend(a->sint[i], n, MPI_INT, a->nb[i], KIND_CONTACT, MPI_COMM_WORLD, &req[nreq++]);
    }
    static int contact[BOUNDARY], reply[2][BOUNDARY];
    while (!done || answered < a->nnb) {
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, KIND_CONTACT, MPI_COMM_WORLD, &flag, &st);
        if (flag) {
            int count;
            MPI_Get_count(&st, MPI_INT, &count);
            pat_expect(count, n, "amg_setup: probed contact size");
            MPI_Recv(contact, count, MPI_INT, st.MPI_SOURCE, KIND_CONTACT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            pat_expect(contact[0], stamp(round, level, st.MPI_SOURCE, KIND_CONTACT), "amg_setup: contact stamp");
            reply[answered][0] = stamp(round, level, pat_rank, KIND_RESPONSE);
            MPI_Isend(reply[answered], n, MPI_INT, st.MPI_SOURCE, KIND_RESPONSE, MPI_COMM_WORLD, &req[nreq++]);
            answered++;
        }
        if (!done)
            MPI_Testall(2 * a->nnb, req, &done, MPI_STATUSES_IGNORE);
    }
    MPI_Waitall(nreq - 2 * a->nnb, req + 2 * a->nnb, MPI_STATUSES_IGNORE);
    for (int i = 0; i < a->nnb; i++)
        pat_expect(a->rint[i][0], stamp(round, level, a->nb[i], KIND_RESPONSE), "amg_setup: response stamp");
}

static void setup(void *ctx, long round)
{
    struct amg *a = ctx;
    for (int l = 0; l < LEVELS; l++) {
        long points = POINTS >> (2 * l);
        int b = BOUNDARY >> l;
        if (b < 4)
            b = 4;
        contact_exchange(a, round, l, b / 8 > 2 ? b / 8 : 2);
        for (int it = 0; it < COARSEN_ITERS; it++) {
            work(l, points / 4);
            exchange(a, round, l, KIND_MEASURE, b, MPI_DOUBLE, (void **)a->sdbl, (void **)a->rdbl);
            int left = (int)points >> it, total;
            MPI_Allreduce(&left, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            pat_expect(total, left * pat_size, "amg_setup: points left");
        }
        for (int pass = 0; pass < 2; pass++) { /* interpolation, then RAP */
            exchange(a, round, l, KIND_LEN, b, MPI_INT, (void **)a->sint, (void **)a->rint);
            exchange(a, round, l, KIND_COLS, b * ROW_NNZ, MPI_LONG_LONG, (void **)a->sbig, (void **)a->rbig);
            exchange(a, round, l, KIND_VALS, b * ROW_NNZ, MPI_DOUBLE, (void **)a->sdbl, (void **)a->rdbl);
            work(l, points * (pass + 1));
            long long coarse = points / 4, sum;
            MPI_Allreduce(&coarse, &sum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
            pat_expect((long)sum, (long)coarse * pat_size, "amg_setup: coarse size");
        }
        long long part[2] = {points * pat_rank, points * (pat_rank + 1)}, all[2 * 64];
        if (pat_size <= 64) {
            MPI_Allgather(part, 2, MPI_LONG_LONG, all, 2, MPI_LONG_LONG, MPI_COMM_WORLD);
            pat_expect((long)all[2 * (pat_size - 1)], points * (pat_size - 1), "amg_setup: partition");
        }
    }
}

int main(int argc, char **argv)
{
    struct pat_opts o = pat_init(&argc, &argv, "amg_setup");
    struct amg a = {.nnb = 0};
    if (pat_rank > 0)
        a.nb[a.nnb++] = pat_rank - 1;
    if (pat_rank < pat_size - 1)
        a.nb[a.nnb++] = pat_rank + 1;
    for (int i = 0; i < 2; i++) {
        a.sbig[i] = calloc(BOUNDARY * ROW_NNZ, 8);
        a.rbig[i] = calloc(BOUNDARY * ROW_NNZ, 8);
        a.sdbl[i] = calloc(BOUNDARY * ROW_NNZ, 8);
        a.rdbl[i] = calloc(BOUNDARY * ROW_NNZ, 8);
        a.sint[i] = calloc(BOUNDARY, sizeof(int));
        a.rint[i] = calloc(BOUNDARY, sizeof(int));
        if (!a.sbig[i] || !a.rbig[i] || !a.sdbl[i] || !a.rdbl[i] || !a.sint[i] || !a.rint[i])
            MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (pat_rank == 0)
        printf("# amg_setup: %d levels, %d points and %d boundary rows per rank at the finest, %d%% imbalance\n", LEVELS,
               POINTS, BOUNDARY, IMBALANCE_PCT);
    if (pat_wanted(&o, "setup")) {
        double t = pat_measure(setup, &a, &o);
        if (pat_rank == 0)
            printf("amg_setup ranks=%d us_per_setup=%.1f\n", pat_size, t * 1e6);
    }
    for (int i = 0; i < 2; i++) {
        free(a.sbig[i]), free(a.rbig[i]), free(a.sdbl[i]), free(a.rdbl[i]), free(a.sint[i]), free(a.rint[i]);
    }
    MPI_Finalize();
    return 0;
}
