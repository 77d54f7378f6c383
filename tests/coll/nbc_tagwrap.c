/*
 * nbc_tagwrap.c -- more nonblocking schedules outstanding on one
 * communicator than there are schedule tags (coll/coll.h, CM_NBC_TAGS).
 *
 * Schedule k takes tag base + (k mod CM_NBC_TAGS).  With more than that
 * outstanding, two schedules share a tag; a later one's round may send to
 * a peer before the earlier one's next round does, and the peer's earlier
 * receive would take it (coll/nbc.c guards the start against this).  Every
 * call here has its own data and every result is checked.  Rounds complete
 * out of order: a rank (chosen by the seed) sleeps before and now and then
 * while starting (the others' schedules all stay outstanding meanwhile, and
 * they then sleep before waiting, so that much is ready at their first poll), requests are tested at random, and the last rank waits on the
 * oldest requests last.  Run with COREMPI_SHM_NBC=0 (schedules only).
 *
 * Usage: nbc_tagwrap [calls [seed]]  (or NBC_TAGWRAP_SEED); prints the seed.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define CNT 4   /* ints per rank and call */

static unsigned long long rng;
static unsigned next_rand(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)(rng >> 33);
}

static int value(int call, int rank, int j) { return call * 131 + rank * 17 + j + 1; }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = argc > 1 ? atoi(argv[1]) : 10000;
    unsigned seed = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 0)
                    : getenv("NBC_TAGWRAP_SEED") ? (unsigned)strtoul(getenv("NBC_TAGWRAP_SEED"), NULL, 0)
                    : (unsigned)MPI_Wtime() ^ 0x5eedu;
    MPI_Bcast(&seed, 1, MPI_UNSIGNED, 0, MPI_COMM_WORLD);
    rng = seed;
    int sleeper = (int)(next_rand() % (unsigned)size);
    if (rank == 0)
        printf("nbc_tagwrap: %d calls at %d ranks, rank %d sleeps, seed %u (rerun: NBC_TAGWRAP_SEED=%u)\n", n,
               size, sleeper, seed, seed);
    rng = seed ^ (0x9e3779b9u * (unsigned)(rank + 1));   /* each rank its own tests and sleeps */

    MPI_Request *req = malloc(sizeof(*req) * (size_t)n);
    int *sbuf = malloc(sizeof(int) * (size_t)n * CNT);
    int *rbuf = malloc(sizeof(int) * (size_t)n * CNT * (size_t)size);
    int *counts = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size);
    for (int r = 0; r < size; r++) {
        counts[r] = CNT;
        displs[r] = r * CNT;
    }
    if (rank == sleeper)   /* the others start all theirs meanwhile: none can complete */
        usleep(50000);
    for (int i = 0; i < n; i++) {
        int *s = sbuf + (size_t)i * CNT, *r = rbuf + (size_t)i * CNT * (size_t)size;
        for (int j = 0; j < CNT; j++)
            s[j] = value(i, rank, j);
        /* Two kinds, both schedules of several rounds between one pair of
         * ranks: allreduce (reduce to 0, then bcast) and allgatherv. */
        if (i % 2 == 0)
            MPI_Iallreduce(s, r, CNT, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[i]);
        else
            MPI_Iallgatherv(s, CNT, MPI_INT, r, counts, displs, MPI_INT, MPI_COMM_WORLD, &req[i]);
        if (rank == sleeper && next_rand() % 512 == 0)
            usleep(2000);
        if (next_rand() % 8 == 0) {
            int flag;
            MPI_Test(&req[next_rand() % (unsigned)(i + 1)], &flag, MPI_STATUS_IGNORE);
        }
    }
    /* The others poll nothing until the sleeper's messages have all come:
     * their first progress pass then finds many schedules ready at once. */
    if (rank != sleeper)
        usleep(200000);
    if (rank == size - 1)   /* the oldest last */
        for (int i = n - 1; i >= 0; i--)
            MPI_Wait(&req[i], MPI_STATUS_IGNORE);
    else
        MPI_Waitall(n, req, MPI_STATUSES_IGNORE);

    int bad = 0;
    for (int i = 0; i < n; i++) {
        const int *r = rbuf + (size_t)i * CNT * (size_t)size;
        for (int j = 0; j < (i % 2 == 0 ? CNT : CNT * size); j++) {
            int want = 0;
            if (i % 2 == 0)
                for (int q = 0; q < size; q++)
                    want += value(i, q, j);
            else
                want = value(i, j / CNT, j % CNT);
            if (r[j] != want && bad++ < 5)
                fprintf(stderr, "nbc_tagwrap: rank %d call %d (%s) element %d: %d, want %d (seed %u)\n", rank, i,
                        i % 2 == 0 ? "MPI_Iallreduce" : "MPI_Iallgatherv", j, r[j], want, seed);
        }
    }
    int allbad = 0;
    MPI_Allreduce(&bad, &allbad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(allbad ? "nbc_tagwrap: %d wrong elements\n" : "nbc_tagwrap ok\n", allbad);
    free(req);
    free(sbuf);
    free(rbuf);
    free(counts);
    free(displs);
    MPI_Finalize();
    return allbad != 0;
}
