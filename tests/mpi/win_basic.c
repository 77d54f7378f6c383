/*
 * win_basic.c -- windows of every kind with fence and Put/Get (issue 23
 * item 1), and Win_shared_query on the allocating kinds.
 *
 * Each rank puts its rank-stamped values into its right neighbour's window
 * and gets its left neighbour's, through a vector type on the target side
 * for the second round; every value is checked.  Shared windows are also
 * read with plain loads through Win_shared_query (contiguity checked for the
 * default Win_allocate_shared), and written with stores then read by Get.
 */
#include "check.h"

#include <stdint.h>

#define N 64

static int rank, size;

static long val(int r, int i) { return 1000L * r + i + 1; }

static void exercise(MPI_Win win, long *base, const char *kind)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    long out[N], in[N];
    for (int i = 0; i < N; i++) {
        out[i] = val(rank, i);
        base[i] = -1;
    }
    MPI_Win_fence(0, win);
    MPI_Put(out, N, MPI_LONG, right, 0, N, MPI_LONG, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < N; i++)
        CHECK(base[i] == val(left, i), "%s: put: base[%d] = %ld, expected %ld", kind, i, base[i], val(left, i));
    MPI_Get(in, N, MPI_LONG, left, 0, N, MPI_LONG, win);
    MPI_Win_fence(0, win);
    int lleft = (left + size - 1) % size;
    for (int i = 0; i < N; i++)
        CHECK(in[i] == val(lleft, i), "%s: get: in[%d] = %ld, expected %ld", kind, i, in[i], val(lleft, i));
    /* target side strided: every other element, 32 of them, at disp 0 */
    MPI_Datatype vec;
    MPI_Type_vector(N / 2, 1, 2, MPI_LONG, &vec);
    MPI_Type_commit(&vec);
    for (int i = 0; i < N; i++)
        base[i] = 0;
    MPI_Win_fence(0, win);
    MPI_Put(out, N / 2, MPI_LONG, right, 0, 1, vec, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < N; i++) {
        long want = i % 2 ? 0 : val(left, i / 2);
        CHECK(base[i] == want, "%s: vector put: base[%d] = %ld, expected %ld", kind, i, base[i], want);
    }
    MPI_Get(in, N / 2, MPI_LONG, left, 0, 1, vec, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    for (int i = 0; i < N / 2; i++)
        CHECK(in[i] == val(lleft, i), "%s: vector get: in[%d] = %ld", kind, i, in[i]);
    MPI_Type_free(&vec);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* Win_create on the user's memory */
    long *mine = malloc(N * sizeof *mine);
    MPI_Win win;
    MPI_Win_create(mine, N * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    exercise(win, mine, "Win_create");
    int flag, *flavor, *model;
    MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
    CHECK(flag && *flavor == MPI_WIN_FLAVOR_CREATE, "flavor");
    MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag);
    CHECK(flag && *model == MPI_WIN_UNIFIED, "model");
    void *b;
    MPI_Win_get_attr(win, MPI_WIN_BASE, &b, &flag);
    CHECK(flag && b == mine, "base attribute %p, expected %p", b, (void *)mine);
    MPI_Win_free(&win);
    CHECK(win == MPI_WIN_NULL, "Win_free leaves MPI_WIN_NULL");
    free(mine);

    /* Win_allocate */
    long *base;
    MPI_Win_allocate(N * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    exercise(win, base, "Win_allocate");
    MPI_Aint *sz;
    MPI_Win_get_attr(win, MPI_WIN_SIZE, &sz, &flag);
    CHECK(flag && *sz == (MPI_Aint)(N * sizeof(long)), "size attribute");
    MPI_Win_free(&win);

    /* Win_allocate_shared, contiguous then not */
    for (int noncontig = 0; noncontig < 2; noncontig++) {
        MPI_Info info = MPI_INFO_NULL;
        if (noncontig) {
            MPI_Info_create(&info);
            MPI_Info_set(info, "alloc_shared_noncontig", "true");
        }
        MPI_Win_allocate_shared(N * sizeof(long), sizeof(long), info, MPI_COMM_WORLD, &base, &win);
        const char *kind = noncontig ? "Win_allocate_shared noncontig" : "Win_allocate_shared";
        exercise(win, base, kind);
        MPI_Win_fence(0, win);
        for (int i = 0; i < N; i++)
            base[i] = val(rank, i);
        MPI_Win_fence(0, win);
        for (int r = 0; r < size; r++) {
            MPI_Aint qsize;
            int du;
            long *p;
            MPI_Win_shared_query(win, r, &qsize, &du, &p);
            CHECK(qsize == (MPI_Aint)(N * sizeof(long)) && du == (int)sizeof(long), "%s: query %d", kind, r);
            for (int i = 0; i < N; i++)
                CHECK(p[i] == val(r, i), "%s: load from rank %d [%d] = %ld", kind, r, i, p[i]);
            if (!noncontig && r > 0) {
                long *prev;
                MPI_Win_shared_query(win, r - 1, &qsize, &du, &prev);
                CHECK(p == prev + N, "%s: rank %d's part does not follow rank %d's", kind, r, r - 1);
            }
        }
        MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
        MPI_Win_free(&win);
        if (info != MPI_INFO_NULL)
            MPI_Info_free(&info);
    }

    /* Win_shared_query on user memory (MPI-4.1 12.2.3): another rank's
     * memory is not reachable by loads and stores (size 0, NULL), one's own is */
    long x;
    MPI_Win_create(&x, sizeof x, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Aint qs;
    int du;
    void *p;
    CHECK_MPI(MPI_Win_shared_query(win, 0, &qs, &du, &p));
    CHECK(rank == 0 ? qs == sizeof x && p == &x : qs == 0 && p == NULL, "shared_query on Win_create: size %ld, base %p",
          (long)qs, p);
    MPI_Win_free(&win);

    MPI_Finalize();
    if (rank == 0)
        printf("win_basic: %d ranks ok\n", size);
    return 0;
}
