/*
 * win_sync.c -- post/start/complete/wait, exclusive locks, dynamic windows,
 * request-based operations and the errors of one-sided calls (issue 23
 * items 4-5).
 *
 * PSCW: each rank exposes its window to its left neighbour and accesses its
 * right one, many rounds, with Win_test for half of them.  Exclusive lock:
 * every rank increments rank 0's counter by Get, +1, Put inside an exclusive
 * epoch -- a lost update means two holders.  Dynamic: attach, lock, Rput,
 * Rget, detach.  Errors (MPI_ERRORS_RETURN): out-of-window displacement,
 * Put outside an epoch, unlock without lock, attach on a non-dynamic window
 * -- each returns its class, and the window still works afterwards.
 */
#include "check.h"

#include <stdint.h>

#define ROUNDS 50

static int rank, size;

static void expect(int err, int cls, const char *what)
{
    int c;
    MPI_Error_class(err, &c);
    CHECK(c == cls, "%s: error class %d, expected %d", what, c, cls);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Group world, gl, gr;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &left, &gl);
    MPI_Group_incl(world, 1, &right, &gr);

    long *base;
    MPI_Win win;
    MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    *base = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = 0; k < ROUNDS; k++) {
        MPI_Win_post(gl, 0, win);
        MPI_Win_start(gr, 0, win);
        long v = 1000L * k + rank;
        MPI_Put(&v, 1, MPI_LONG, right, 0, 1, MPI_LONG, win);
        MPI_Win_complete(win);
        if (k % 2) {
            int flag = 0;
            while (!flag)
                MPI_Win_test(win, &flag);
        } else {
            MPI_Win_wait(win);
        }
        CHECK(*base == 1000L * k + left, "pscw round %d: %ld", k, *base);
    }
    MPI_Win_free(&win);

    /* exclusive lock: read-modify-write must never lose an update */
    MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    *base = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = 0; k < ROUNDS; k++) {
        long v;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Get(&v, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win);
        MPI_Win_flush(0, win);
        v++;
        MPI_Put(&v, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        CHECK(*base == (long)ROUNDS * size, "exclusive counter %ld, expected %ld", *base, (long)ROUNDS * size);

    /* errors, then the window still works */
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    long v = 5;
    expect(MPI_Put(&v, 1, MPI_LONG, right, 0, 1, MPI_LONG, win), MPI_ERR_RMA_SYNC, "put outside an epoch");
    expect(MPI_Win_unlock(right, win), MPI_ERR_RMA_SYNC, "unlock without lock");
    expect(MPI_Win_attach(win, &v, sizeof v), MPI_ERR_RMA_FLAVOR, "attach on Win_allocate");
    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
    expect(MPI_Put(&v, 1, MPI_LONG, right, 1, 1, MPI_LONG, win), MPI_ERR_RMA_RANGE, "displacement past the end");
    /* corempi says RMA_RANGE; Open MPI says DISP, also fair */
    int err = MPI_Put(&v, 1, MPI_LONG, right, -1, 1, MPI_LONG, win), cls;
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_RMA_RANGE || cls == MPI_ERR_DISP, "negative displacement: class %d", cls);
    expect(MPI_Accumulate(&v, 2, MPI_LONG, right, 0, 2, MPI_LONG, MPI_SUM, win), MPI_ERR_RMA_RANGE, "accumulate past the end");
    expect(MPI_Put(&v, 1, MPI_LONG, size, 0, 1, MPI_LONG, win), MPI_ERR_RANK, "target rank out of range");
    MPI_Win_unlock(right, win);
    MPI_Win_free(&win);

    /* dynamic window: attach, R* operations, detach */
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    long *mem = calloc(16, sizeof *mem);
    MPI_Win_attach(win, mem, 16 * sizeof *mem);
    MPI_Aint mine, theirs;
    MPI_Get_address(mem, &mine);
    MPI_Sendrecv(&mine, 1, MPI_AINT, left, 0, &theirs, 1, MPI_AINT, right, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Win_lock_all(0, win);
    long out[16], in[16];
    for (int i = 0; i < 16; i++)
        out[i] = 100L * rank + i;
    MPI_Request rq;
    MPI_Rput(out, 16, MPI_LONG, right, theirs, 16, MPI_LONG, win, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Win_flush(right, win);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < 16; i++)
        CHECK(mem[i] == 100L * left + i, "dynamic put [%d] = %ld", i, mem[i]);
    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
    MPI_Rget(in, 16, MPI_LONG, right, theirs, 16, MPI_LONG, win, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
#ifndef OPEN_MPI /* Open MPI 4.1 does not check accesses to dynamic windows */
    expect(MPI_Get(in, 1, MPI_LONG, right, theirs + 16 * (MPI_Aint)sizeof(long), 1, MPI_LONG, win), MPI_ERR_RMA_RANGE,
           "dynamic: outside the attached region");
#endif
    MPI_Win_unlock(right, win);
    for (int i = 0; i < 16; i++)
        CHECK(in[i] == 100L * rank + i, "dynamic get [%d] = %ld", i, in[i]);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_detach(win, mem);
#ifdef OPEN_MPI /* Open MPI 4.1 says MPI_ERR_UNKNOWN */
    CHECK(MPI_Win_detach(win, mem) != MPI_SUCCESS, "detach twice succeeded");
#else
    expect(MPI_Win_detach(win, mem), MPI_ERR_RMA_ATTACH, "detach twice");
#endif
    MPI_Win_free(&win);
    free(mem);

    MPI_Group_free(&gl);
    MPI_Group_free(&gr);
    MPI_Group_free(&world);
    MPI_Finalize();
    if (rank == 0)
        printf("win_sync: %d ranks ok\n", size);
    return 0;
}
