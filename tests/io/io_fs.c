/*
 * io_fs.c -- the file system misbehaving under MPI-IO (issue 37):
 * - full: a 64 KiB tmpfs mounted by the test (root only; skipped with a
 *   message otherwise): writing past it is MPI_ERR_NO_SPACE, naming the
 *   call and the file, and the file can still be closed;
 * - deleted while open: another rank unlinks the file; the open handle
 *   goes on reading and writing (POSIX keeps the inode), close succeeds,
 *   and MPI_File_delete then reports MPI_ERR_NO_SUCH_FILE.
 */
#include "io_test.h"

#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

static void expect_class(int rc, int want, const char *what, const char *text)
{
    int cls = rc;
    MPI_Error_class(rc, &cls);
    CHECK(cls == want, "%s: class %d, expected %d", what, cls, want);
    if (rc && text) {
        char s[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(rc, s, &len);
        CHECK(strstr(s, text) != NULL, "%s: \"%s\" lacks \"%s\"", what, s, text);
    }
}

int main(int argc, char **argv)
{
    char dir[64] = "/tmp/cm_io_fsXXXXXX", path[128];
    io_test_init(&argc, &argv, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/f", dir);
    static char big[128 << 10];
    memset(big, 'x', sizeof big);
    MPI_File fh;
    MPI_Status st;

    /* Deleted while open. */
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    expect_class(rc, MPI_SUCCESS, "open", NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
    int v = 7 + rank, back = -1;
    expect_class(MPI_File_write_at(fh, rank * 4, &v, 1, MPI_INT, &st), MPI_SUCCESS, "write after unlink", NULL);
    expect_class(MPI_File_read_at(fh, rank * 4, &back, 1, MPI_INT, &st), MPI_SUCCESS, "read after unlink", NULL);
    CHECK(back == v, "read after unlink: %d", back);
    expect_class(MPI_File_close(&fh), MPI_SUCCESS, "close after unlink", NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        expect_class(MPI_File_delete(path, MPI_INFO_NULL), MPI_ERR_NO_SUCH_FILE, "delete after unlink", path);

    /* A full file system. */
    int mounted = rank == 0 && mount("tmpfs", dir, "tmpfs", 0, "size=64k") == 0;
    MPI_Bcast(&mounted, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!mounted) {
        if (rank == 0)
            printf("io_fs: no tmpfs mount (needs root): the full file system case is skipped\n");
    } else {
        rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
        expect_class(rc, MPI_SUCCESS, "open on the small tmpfs", NULL);
        rc = MPI_File_write_at_all(fh, (MPI_Offset)rank * sizeof big, big, sizeof big, MPI_BYTE, &st);
        expect_class(rc, MPI_ERR_NO_SPACE, "write past a full file system", "MPI_File_write_at_all");
        rc = MPI_File_close(&fh);
        expect_class(rc, MPI_SUCCESS, "close on a full file system", NULL);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            unlink(path);
            CHECK(umount(dir) == 0, "umount %s", dir);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        CHECK(rmdir(dir) == 0, "files left in %s", dir);
    int all = io_test_verdict("io_fs");
    MPI_Finalize();
    return all != 0;
}
