/*
 * io_observe.c -- MPI-IO is observable (issue 37 item 3): the MPI_T
 * performance variables io_bytes_read, io_bytes_written and io_time_ns
 * count exactly what this rank's data access calls moved, and the same
 * counts show in `coreprof report` (io_observe_report.sh runs this program
 * under mpirun --profile and compares the report with the lines printed
 * here).
 *
 * Each rank writes and reads known byte counts that differ by rank, through
 * blocking, collective, nonblocking, shared-pointer and split collective
 * calls, and one read that runs past the end of the file (its status counts
 * fewer bytes than asked; the counters must too).  I/O done while the
 * handles are stopped must not count.
 */
#include "io_test.h"

#include <string.h>
#include <unistd.h>

static int pvar(const char *name)
{
    int i = -1;
    if (MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &i) != MPI_SUCCESS)
        MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_TIMER, &i);
    return i;
}

static long long got(const MPI_Status *st)
{
    MPI_Count n = 0;
    MPI_Get_count_c(st, MPI_BYTE, &n);
    return (long long)n;
}

int main(int argc, char **argv)
{
    char dir[] = "/tmp/cm_io_observe.XXXXXX", path[256];
    io_test_init(&argc, &argv, dir, sizeof dir);
    int size, provided;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    snprintf(path, sizeof path, "%s/f", dir);

    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_T_pvar_session ses;
    MPI_T_pvar_handle h[3];
    const char *names[3] = {"io_bytes_read", "io_bytes_written", "io_time_ns"};
    int ok = MPI_T_pvar_session_create(&ses) == MPI_SUCCESS;
    for (int k = 0; k < 3 && ok; k++) {
        int idx = pvar(names[k]), n;
        CHECK(idx >= 0, "no performance variable %s", names[k]);
        ok = idx >= 0 && MPI_T_pvar_handle_alloc(ses, idx, NULL, &h[k], &n) == MPI_SUCCESS && n == 1;
        CHECK(ok, "cannot allocate a handle for %s", names[k]);
    }
    if (!ok)
        MPI_Abort(MPI_COMM_WORLD, 2);

    enum { SLOT = 8192 };
    static char buf[SLOT], back[SLOT];
    for (int i = 0; i < SLOT; i++)
        buf[i] = (char)(i * 7 + rank);
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);

    /* Not counted: before the start. */
    MPI_File_write_at(fh, (MPI_Offset)rank * SLOT, buf, 5, MPI_BYTE, MPI_STATUS_IGNORE);
    for (int k = 0; k < 3; k++)
        MPI_T_pvar_start(ses, h[k]);
    double t0 = MPI_Wtime();

    long long want_w = 0, want_r = 0;
    MPI_Status st;
    MPI_Request rq;
    MPI_Offset base = (MPI_Offset)rank * SLOT;
    int a = 1000 + 10 * rank, b = 64 + rank;       /* bytes; ints */
    MPI_File_write_at(fh, base, buf, a, MPI_BYTE, &st);
    want_w += got(&st);
    MPI_File_write_at_all(fh, base + 2000, buf, b, MPI_INT, &st);
    want_w += got(&st);
    MPI_File_iwrite_at(fh, base + 3000, buf, 300, MPI_BYTE, &rq);
    MPI_Wait(&rq, &st);
    want_w += got(&st);
    MPI_File_write_at_all_begin(fh, base + 4000, buf, 100 + rank, MPI_BYTE);
    MPI_File_write_at_all_end(fh, buf, &st);
    want_w += got(&st);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_read_at(fh, base, back, a, MPI_BYTE, &st);
    want_r += got(&st);
    CHECK(!memcmp(back, buf, (size_t)a), "read_at did not read back what write_at wrote");
    MPI_File_read_at_all(fh, base + 2000, back, b, MPI_INT, &st);
    want_r += got(&st);
    MPI_File_iread_at(fh, base + 3000, back, 300, MPI_BYTE, &rq);
    MPI_Wait(&rq, &st);
    want_r += got(&st);
    /* Past the end: the file ends at (size-1)*SLOT + 4100 + size-1 bytes. */
    MPI_Offset fsize;
    MPI_File_get_size(fh, &fsize);
    MPI_File_read_at(fh, fsize - 40 - rank, back, 4000, MPI_BYTE, &st);
    CHECK(got(&st) == 40 + rank, "a read past the end counted %lld bytes, not %d", got(&st), 40 + rank);
    want_r += got(&st);
    CHECK(want_w == 1000 + 10 * rank + 4 * b + 300 + 100 + rank, "the statuses counted %lld bytes written", want_w);
    CHECK(want_r == 1000 + 10 * rank + 4 * b + 300 + 40 + rank, "the statuses counted %lld bytes read", want_r);
    double t1 = MPI_Wtime();

    unsigned long long v[3];
    for (int k = 0; k < 3; k++) {
        MPI_T_pvar_stop(ses, h[k]);
        MPI_T_pvar_read(ses, h[k], &v[k]);
    }
    CHECK(v[0] == (unsigned long long)want_r, "io_bytes_read %llu, the statuses %lld", v[0], want_r);
    CHECK(v[1] == (unsigned long long)want_w, "io_bytes_written %llu, the statuses %lld", v[1], want_w);
    CHECK(v[2] > 0 && v[2] <= (unsigned long long)((t1 - t0) * 1e9) + 1000000,
          "io_time_ns %llu outside (0, %.0f ns]", v[2], (t1 - t0) * 1e9);

    /* Stopped: no more counting. */
    MPI_File_write_at(fh, base, buf, 10, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_read_at(fh, base, back, 10, MPI_BYTE, MPI_STATUS_IGNORE);
    unsigned long long w2;
    MPI_T_pvar_read(ses, h[1], &w2);
    CHECK(w2 == v[1], "io_bytes_written moved from %llu to %llu while stopped", v[1], w2);
    /* Reset: back to zero. */
    MPI_T_pvar_reset(ses, h[0]);
    MPI_T_pvar_read(ses, h[0], &w2);
    CHECK(w2 == 0, "io_bytes_read reads %llu after a reset", w2);

    for (int k = 0; k < 3; k++)
        MPI_T_pvar_handle_free(ses, &h[k]);
    MPI_T_pvar_session_free(&ses);
    MPI_T_finalize();
    MPI_File_close(&fh);
    /* What coreprof must report: every data access call, the uncounted ones too. */
    printf("io_observe: rank %d read %lld written %lld\n", rank, want_r + 10, want_w + 5 + 10);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_File_delete(path, MPI_INFO_NULL);
        CHECK(rmdir(dir) == 0, "files left in %s", dir);
    }
    int all = io_test_verdict("io_observe");
    MPI_Finalize();
    return all != 0;
}
