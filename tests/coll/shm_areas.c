/*
 * shm_areas.c -- life cycle of the shared-memory collective areas.
 *
 *   shm_areas churn N   create, use and free N communicators in turn (dups
 *                       and splits): areas must be recycled, so with
 *                       COREMPI_VERBOSE=coll no "no free shared-memory"
 *                       note may appear (checked by shm_check.sh)
 *   shm_areas hold N    keep N communicators alive at once, each running
 *                       collectives: the region runs out, the late ones fall
 *                       back to point-to-point and must still be right; then
 *                       free them all, print a marker, and check that new
 *                       communicators work (no note after the marker)
 *
 * Run with COREMPI_<COLL>=shm so that the shared-memory algorithms are used
 * wherever an area exists.  Results are checked on every rank.
 */
#include "../mpi/check.h"

static int rank, size;

/* Collectives on c whose results are known; salt varies the data per call. */
static void exercise(MPI_Comm c, int salt)
{
    int r, n;
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &n);
    MPI_Barrier(c);

    long long v = r + salt, sum = -1;
    MPI_Allreduce(&v, &sum, 1, MPI_LONG_LONG, MPI_SUM, c);
    long long want = (long long)n * (n - 1) / 2 + (long long)n * salt;
    CHECK(sum == want, "allreduce: got %lld want %lld (n %d salt %d)", sum, want, n, salt);

    enum { BIG = 5000 };      /* past the slot: the single-copy path */
    static int big[BIG], out[BIG];
    for (int i = 0; i < BIG; i++)
        big[i] = i + r * 3 + salt;
    MPI_Allreduce(big, out, BIG, MPI_INT, MPI_MAX, c);
    for (int i = 0; i < BIG; i++)
        CHECK(out[i] == i + (n - 1) * 3 + salt, "big allreduce [%d]: %d", i, out[i]);

    int root = salt % n;
    int b[3] = {r == root ? salt : -1, r == root ? 7 : -1, r == root ? -salt : -1};
    MPI_Bcast(b, 3, MPI_INT, root, c);
    CHECK(b[0] == salt && b[1] == 7 && b[2] == -salt, "bcast from %d: %d %d %d", root, b[0], b[1], b[2]);

    int *all = malloc(sizeof(int) * (size_t)n);
    CHECK(all, "out of memory");
    MPI_Allgather(&r, 1, MPI_INT, all, 1, MPI_INT, c);
    for (int i = 0; i < n; i++)
        CHECK(all[i] == i, "allgather [%d] = %d", i, all[i]);
    free(all);
}

static void churn(int count)
{
    for (int i = 0; i < count; i++) {
        MPI_Comm c;
        if (i % 2)
            MPI_Comm_dup(MPI_COMM_WORLD, &c);
        else
            MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &c);   /* reversed order */
        exercise(c, i);
        MPI_Comm_free(&c);
    }
}

static void hold(int count)
{
    MPI_Comm *cs = malloc(sizeof(MPI_Comm) * (size_t)count);
    CHECK(cs, "out of memory");
    for (int i = 0; i < count; i++) {
        MPI_Comm_dup(MPI_COMM_WORLD, &cs[i]);
        exercise(cs[i], i);
    }
    for (int round = 0; round < 3; round++)      /* all alive: old areas still right */
        for (int i = 0; i < count; i++)
            exercise(cs[i], round * 7 + i);
    for (int i = 0; i < count; i++)
        MPI_Comm_free(&cs[i]);
    free(cs);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        fprintf(stderr, "shm_areas: all communicators freed\n");
        fflush(stderr);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    churn(8);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "churn";
    int count = argc > 2 ? atoi(argv[2]) : 100;
    if (strcmp(mode, "hold") == 0)
        hold(count);
    else
        churn(count);
    exercise(MPI_COMM_WORLD, 3);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("shm_areas %s %d: ok at %d ranks\n", mode, count, size);
    MPI_Finalize();
    return 0;
}
