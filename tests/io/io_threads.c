/*
 * io_threads.c -- one file used by two threads of each rank at once under
 * MPI_THREAD_MULTIPLE (docs/io.md, "Threads"):
 *
 *   1. explicit offsets: both threads write their own interleaved blocks
 *      with write_at and iwrite_at, then read the other thread's blocks,
 *      at the same time; rank 0 checks the whole file through POSIX;
 *   2. the individual file pointer (a file of MPI_COMM_SELF per rank): both
 *      threads append ROUNDS records with MPI_File_write at once; the
 *      pointer must hand every record its own slot (no record lost or
 *      overwritten, the file exactly 2 * ROUNDS records long), and reading
 *      it back with MPI_File_read from both threads at once must give every
 *      record to exactly one thread;
 *   3. the file table: both threads open and close files of MPI_COMM_SELF
 *      in a loop while the other works.
 *
 * usage: io_threads [ROUNDS]   (default 2000)
 */
#include "io_test.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { B = 512, K = 64, REC = 64 };

static int nranks, rounds = 2000;
static char dir[] = "/tmp/cm_io_threads.XXXXXX", shared_path[256], own_path[256];
static MPI_File fh_shared, fh_own;

static unsigned char byte_of(int r, int t, int k, int i)
{
    return (unsigned char)(r * 31 + t * 17 + k * 7 + i);
}

static MPI_Offset block_off(int r, int t, int k)
{
    return ((MPI_Offset)(k * nranks + r) * 2 + t) * B;
}

/* ---- 1: explicit offsets ------------------------------------------------- */

static void *explicit_io(void *arg)
{
    int t = (int)(intptr_t)arg;
    unsigned char buf[B];
    for (int k = 0; k < K; k++) {
        for (int i = 0; i < B; i++)
            buf[i] = byte_of(rank, t, k, i);
        int rc;
        if (k % 2) {
            MPI_Request rq;
            rc = MPI_File_iwrite_at(fh_shared, block_off(rank, t, k), buf, B, MPI_BYTE, &rq);
            if (!rc)
                rc = MPI_Wait(&rq, MPI_STATUS_IGNORE);
        } else {
            rc = MPI_File_write_at(fh_shared, block_off(rank, t, k), buf, B, MPI_BYTE, MPI_STATUS_IGNORE);
        }
        CHECK(rc == MPI_SUCCESS, "thread %d: write of block %d: %d", t, k, rc);
    }
    return NULL;
}

static void *explicit_read(void *arg)
{
    int t = (int)(intptr_t)arg, other = 1 - t, wrong = 0;
    unsigned char buf[B];
    for (int k = 0; k < K; k++) {
        MPI_Status st;
        int n, rc = MPI_File_read_at(fh_shared, block_off(rank, other, k), buf, B, MPI_BYTE, &st);
        MPI_Get_count(&st, MPI_BYTE, &n);
        CHECK(rc == MPI_SUCCESS && n == B, "thread %d: read of block %d: rc %d, %d bytes", t, k, rc, n);
        for (int i = 0; i < B; i++)
            wrong += buf[i] != byte_of(rank, other, k, i);
    }
    CHECK(!wrong, "thread %d read %d wrong bytes of thread %d's blocks", t, wrong, other);
    return NULL;
}

/* ---- 2: the individual file pointer ---------------------------------- */

struct rec {
    int32_t rank, thread, seq, check;
    char pad[REC - 16];
};

static void *append(void *arg)
{
    int t = (int)(intptr_t)arg;
    for (int s = 0; s < rounds; s++) {
        struct rec r = { rank, t, s, rank * 1000003 + t * 7919 + s, {0} };
        memset(r.pad, 'a' + t, sizeof r.pad);
        int rc = MPI_File_write(fh_own, &r, REC, MPI_BYTE, MPI_STATUS_IGNORE);
        CHECK(rc == MPI_SUCCESS, "thread %d: MPI_File_write %d: %d", t, s, rc);
    }
    return NULL;
}

static char *seen;                     /* [thread * rounds + seq]: times read */

static void *read_back(void *arg)
{
    int t = (int)(intptr_t)arg, bad = 0;
    for (;;) {
        struct rec r;
        MPI_Status st;
        int n, rc = MPI_File_read(fh_own, &r, REC, MPI_BYTE, &st);
        MPI_Get_count(&st, MPI_BYTE, &n);
        if (rc != MPI_SUCCESS || n == 0)
            break;
        if (n != REC || r.thread < 0 || r.thread > 1 || r.seq < 0 || r.seq >= rounds ||
            r.check != rank * 1000003 + r.thread * 7919 + r.seq || r.pad[0] != 'a' + r.thread ||
            r.pad[REC - 17] != 'a' + r.thread) {
            bad++;
            continue;
        }
        __atomic_fetch_add(&seen[r.thread * rounds + r.seq], 1, __ATOMIC_RELAXED);
    }
    CHECK(!bad, "thread %d read %d torn or foreign records", t, bad);
    return NULL;
}

/* ---- 3: the file table ------------------------------------------------ */

static void *open_close(void *arg)
{
    int t = (int)(intptr_t)arg;
    char p[300];
    snprintf(p, sizeof p, "%s/t%d_%d", dir, rank, t);
    for (int i = 0; i < rounds / 20; i++) {
        MPI_File f;
        int rc = MPI_File_open(MPI_COMM_SELF, p, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                               MPI_INFO_NULL, &f);
        CHECK(rc == MPI_SUCCESS, "thread %d: open %d: %d", t, i, rc);
        if (rc)
            break;
        rc = MPI_File_write_at(f, 0, &i, 1, MPI_INT, MPI_STATUS_IGNORE);
        CHECK(rc == MPI_SUCCESS, "thread %d: write to its own file: %d", t, rc);
        MPI_File_close(&f);
    }
    return NULL;
}

static void two_threads(void *(*a)(void *), void *(*b)(void *))
{
    pthread_t th[2];
    pthread_create(&th[0], NULL, a, (void *)(intptr_t)0);
    pthread_create(&th[1], NULL, b, (void *)(intptr_t)1);
    pthread_join(th[0], NULL);
    pthread_join(th[1], NULL);
}

static void *append_and_table(void *arg)
{
    open_close(arg);
    return append(arg);
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc > 1)
        rounds = atoi(argv[1]);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0)
            printf("io_threads: MPI_THREAD_MULTIPLE not provided (%d): set COREMPI_THREAD_MULTIPLE=1\n", provided);
        MPI_Finalize();
        return 1;
    }
    io_test_dir(dir, sizeof dir);
    snprintf(shared_path, sizeof shared_path, "%s/shared", dir);
    snprintf(own_path, sizeof own_path, "%s/own%d", dir, rank);

    /* 1. */
    MPI_File_open(MPI_COMM_WORLD, shared_path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh_shared);
    two_threads(explicit_io, explicit_io);
    MPI_File_sync(fh_shared);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh_shared);
    two_threads(explicit_read, explicit_read);
    if (rank == 0) {
        size_t len = (size_t)K * (size_t)nranks * 2 * B;
        unsigned char *all = malloc(len);
        int fd = open(shared_path, O_RDONLY), wrong = 0;
        CHECK(fd >= 0 && pread(fd, all, len, 0) == (ssize_t)len, "pread of the whole shared file");
        for (int r = 0; r < nranks; r++)
            for (int t = 0; t < 2; t++)
                for (int k = 0; k < K; k++)
                    for (int i = 0; i < B; i++)
                        wrong += all[block_off(r, t, k) + i] != byte_of(r, t, k, i);
        CHECK(!wrong, "the shared file has %d wrong bytes", wrong);
        close(fd);
        free(all);
    }
    MPI_File_close(&fh_shared);

    /* 2 and 3. */
    MPI_File_open(MPI_COMM_SELF, own_path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh_own);
    two_threads(append_and_table, append);
    MPI_Offset pos, size;
    MPI_File_get_position(fh_own, &pos);
    MPI_File_get_size(fh_own, &size);
    CHECK(pos == 2 * (MPI_Offset)rounds * REC && size == pos, "after %d appends per thread: position %lld, size "
          "%lld, not %lld", rounds, (long long)pos, (long long)size, 2 * (long long)rounds * REC);
    seen = calloc(2 * (size_t)rounds, 1);
    MPI_File_seek(fh_own, 0, MPI_SEEK_SET);
    two_threads(read_back, read_back);
    int missing = 0, twice = 0;
    for (int i = 0; i < 2 * rounds; i++) {
        missing += seen[i] == 0;
        twice += seen[i] > 1;
    }
    CHECK(!missing && !twice, "records read back: %d missing, %d read twice (of %d)", missing, twice, 2 * rounds);
    free(seen);
    MPI_File_close(&fh_own);

    MPI_Barrier(MPI_COMM_WORLD);
    unlink(own_path);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        unlink(shared_path);
        CHECK(rmdir(dir) == 0, "files left in %s", dir);
    }
    int all = io_test_verdict("io_threads");
    MPI_Finalize();
    return all != 0;
}
