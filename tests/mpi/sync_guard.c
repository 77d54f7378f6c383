/*
 * sync_guard.c -- every member of a communicator must choose the same kind of
 * shared-memory sync and the same slot size (docs/spawn.md); a member that
 * differs must end the job with a line naming the call, the rank and both
 * choices, never hang (before the guard, flags against counter hung in the
 * first shared-memory collective: the flag ranks left, the counted one
 * waited for a release nobody gave).
 *
 * mpirun sets no per-rank environment, so the program sets it for itself
 * before MPI_Init from COREMPI_RANK (the launcher's rank variable): the last
 * rank takes argv[1]=sync: COREMPI_SHM_SYNC=counter against flags on the
 * others; slot: a 64 KiB slot against the default.  With argv[1]=same every
 * rank sets the same values and the job must pass (the guard does not fire
 * on agreement).
 */
#include "check.h"

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "same";
    const char *r = getenv("COREMPI_RANK"), *n = getenv("COREMPI_SIZE");
    int rank = r ? atoi(r) : 0, last = strcmp(mode, "same") != 0 && rank == (n ? atoi(n) : 1) - 1;
    if (strcmp(mode, "slot") == 0) {
        if (last)
            setenv("COREMPI_SHM_SLOT", "65536", 1);
    } else {
        setenv("COREMPI_SHM_SYNC", last ? "counter" : "flags", 1);
    }
    CHECK_MPI(MPI_Init(&argc, &argv));
    int size, me;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    CHECK(me == rank, "COREMPI_RANK is %d but the rank is %d", rank, me);
    long x = me + 1, sum = 0;
    for (int k = 0; k < 100; k++) {
        CHECK_MPI(MPI_Allreduce(&x, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
        CHECK(sum == (long)size * (size + 1) / 2, "Allreduce gave %ld", sum);
    }
    CHECK(strcmp(mode, "same") == 0 || size == 1, "the %s mismatch was not caught", mode);
    if (me == 0)
        printf("sync_guard: ok (%s, %d ranks)\n", mode, size);
    CHECK_MPI(MPI_Finalize());
    return 0;
}
