/*
 * io_errors.c -- MPI-IO errors (issue 37): each bad call returns the
 * standard's class (MPI_ERRORS_RETURN is the default file handler), names
 * the call, the rank and the file in its text, and leaves no file behind.
 * Also the file error handlers: MPI_FILE_NULL's handler is the default and
 * a new file takes it; File_create/set/get/call_errhandler.
 */
#include "io_test.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


static int class_of(int rc)
{
    int cls = rc;
    MPI_Error_class(rc, &cls);
    return cls;
}

/* The call returned errclass, and the text names want1 and want2. */
static void expect(int rc, int errclass, const char *what, const char *want1, const char *want2)
{
    CHECK(class_of(rc) == errclass, "%s: class %d, expected %d", what, class_of(rc), errclass);
    if (rc == MPI_SUCCESS)
        return;
    char text[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(rc, text, &len);
    CHECK(!want1 || strstr(text, want1), "%s: text \"%s\" lacks \"%s\"", what, text, want1);
    CHECK(!want2 || strstr(text, want2), "%s: text \"%s\" lacks \"%s\"", what, text, want2);
}

static int extent_fn(MPI_Datatype dt, MPI_Aint *extent, void *extra)
{
    (void)extra;
    MPI_Aint lb;
    return MPI_Type_get_extent(dt, &lb, extent);
}

static int handler_calls, handler_class;
static MPI_File handler_file;
static void on_error(MPI_File *fh, int *code, ...)
{
    handler_calls++;
    handler_class = class_of(*code);
    handler_file = *fh;
}

int main(int argc, char **argv)
{
    char dir[64] = "/tmp/cm_io_errorsXXXXXX", path[128], missing[128], ro[128];
    io_test_init(&argc, &argv, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/data", dir);
    snprintf(missing, sizeof missing, "%s/missing", dir);
    snprintf(ro, sizeof ro, "%s/readonly", dir);
    char where[32];
    snprintf(where, sizeof where, "on rank %d", rank);

    /* The default file handler is MPI_ERRORS_RETURN. */
    MPI_Errhandler e;
    MPI_File_get_errhandler(MPI_FILE_NULL, &e);
    CHECK(e == MPI_ERRORS_RETURN, "MPI_FILE_NULL's handler is not MPI_ERRORS_RETURN");
    MPI_Errhandler_free(&e);

    MPI_File fh = (MPI_File)0x1234;
    int rc = MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    expect(rc, MPI_ERR_NO_SUCH_FILE, "open of a missing file", "MPI_File_open", missing);
    CHECK(fh == MPI_FILE_NULL, "a failed open left fh %p", (void *)fh);

    static const int bad_modes[] = { 0, MPI_MODE_RDONLY | MPI_MODE_RDWR, MPI_MODE_RDONLY | MPI_MODE_WRONLY,
                                     MPI_MODE_RDONLY | MPI_MODE_CREATE, MPI_MODE_RDONLY | MPI_MODE_EXCL,
                                     MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL, MPI_MODE_RDWR | (1 << 20) };
    for (size_t i = 0; i < sizeof bad_modes / sizeof *bad_modes; i++) {
        rc = MPI_File_open(MPI_COMM_WORLD, path, bad_modes[i], MPI_INFO_NULL, &fh);
        expect(rc, MPI_ERR_AMODE, "bad amode", "MPI_File_open", where);
    }
    CHECK(access(path, F_OK) != 0, "a refused open created the file");

    /* Different amodes on different ranks (with 2 ranks or more). */
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 1) {
        rc = MPI_File_open(MPI_COMM_WORLD, path,
                           MPI_MODE_CREATE | (rank ? MPI_MODE_RDWR : MPI_MODE_WRONLY), MPI_INFO_NULL, &fh);
        expect(rc, MPI_ERR_AMODE, "mismatched amodes", "MPI_File_open", NULL);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0)
            unlink(path);
    }

    /* EXCL on an existing file. */
    rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    expect(rc, MPI_SUCCESS, "create", NULL, NULL);
    MPI_File_close(&fh);
    rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    expect(rc, MPI_ERR_FILE_EXISTS, "EXCL on an existing file", "MPI_File_open", path);

    /* Writing a read-only handle, reading a write-only one. */
    int x = 42;
    MPI_Status st;
    rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    expect(rc, MPI_SUCCESS, "open read-only", NULL, NULL);
    rc = MPI_File_write_at(fh, 0, &x, 1, MPI_INT, &st);
    expect(rc, MPI_ERR_READ_ONLY, "write on MPI_MODE_RDONLY", "MPI_File_write_at", path);
    rc = MPI_File_set_size(fh, 10);
    expect(rc, MPI_ERR_READ_ONLY, "set_size on MPI_MODE_RDONLY", "MPI_File_set_size", where);
    rc = MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "no-such-rep", MPI_INFO_NULL);
    expect(rc, MPI_ERR_UNSUPPORTED_DATAREP, "unknown datarep", "MPI_File_set_view", "no-such-rep");
    rc = MPI_File_set_view(fh, 0, MPI_INT, MPI_BYTE, "native", MPI_INFO_NULL);
    expect(rc, MPI_ERR_TYPE, "filetype not made of etypes", "MPI_File_set_view", NULL);
    rc = MPI_File_seek(fh, 0, 12345);
    expect(rc, MPI_ERR_ARG, "bad whence", "MPI_File_seek", NULL);
    rc = MPI_File_seek(fh, -1, MPI_SEEK_SET);
    expect(rc, MPI_ERR_ARG, "negative position", "MPI_File_seek", NULL);
    rc = MPI_File_read_all_end(fh, &x, &st);
    expect(rc, MPI_ERR_OTHER, "_end without _begin", "MPI_File_read_all_end", NULL);
    rc = MPI_File_read_at_all_begin(fh, 0, &x, 1, MPI_INT);
    expect(rc, MPI_SUCCESS, "read_at_all_begin", NULL, NULL);
    rc = MPI_File_read_all_begin(fh, &x, 1, MPI_INT);
    expect(rc, MPI_ERR_OTHER, "two split collectives", "MPI_File_read_all_begin", "pending");
    rc = MPI_File_read_at_all_end(fh, &x, &st);
    expect(rc, MPI_SUCCESS, "read_at_all_end", NULL, NULL);

    /* A user handler on the file, and MPI_File_call_errhandler. */
    MPI_Errhandler mine;
    MPI_File_create_errhandler(on_error, &mine);
    MPI_File_set_errhandler(fh, mine);
    rc = MPI_File_write_at(fh, 0, &x, 1, MPI_INT, &st);
    CHECK(handler_calls == 1 && handler_class == MPI_ERR_READ_ONLY && handler_file == fh,
          "user handler: %d calls, class %d", handler_calls, handler_class);
    MPI_File_call_errhandler(fh, MPI_ERR_IO);
    CHECK(handler_calls == 2 && handler_class == MPI_ERR_IO, "call_errhandler: %d calls, class %d", handler_calls,
          handler_class);
    MPI_File_get_errhandler(fh, &e);
    CHECK(e == mine, "get_errhandler returned another handler");
    MPI_Errhandler_free(&e);
    rc = MPI_File_close(&fh);
    expect(rc, MPI_SUCCESS, "close", NULL, NULL);

    /* MPI_FILE_NULL's handler: open errors go there, and a new file takes it. */
    MPI_File_set_errhandler(MPI_FILE_NULL, mine);
    rc = MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    CHECK(handler_calls == 3 && handler_class == MPI_ERR_NO_SUCH_FILE && handler_file == MPI_FILE_NULL,
          "open error on MPI_FILE_NULL's handler: %d calls, class %d", handler_calls, handler_class);
    rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    MPI_File_get_errhandler(fh, &e);
    CHECK(e == mine, "a new file did not take MPI_FILE_NULL's handler");
    MPI_Errhandler_free(&e);
    MPI_File_close(&fh);
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&mine);

    /* Reading a write-only handle. */
    rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    rc = MPI_File_read_at(fh, 0, &x, 1, MPI_INT, &st);
    expect(rc, MPI_ERR_ACCESS, "read on MPI_MODE_WRONLY", "MPI_File_read_at", path);
    MPI_File_close(&fh);

    /* A sequential file has no explicit offsets. */
    rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY | MPI_MODE_SEQUENTIAL, MPI_INFO_NULL, &fh);
    expect(rc, MPI_SUCCESS, "open sequential", NULL, NULL);
    rc = MPI_File_write_at(fh, 0, &x, 1, MPI_INT, &st);
    expect(rc, MPI_ERR_UNSUPPORTED_OPERATION, "write_at on a sequential file", "MPI_File_write_at", NULL);
    MPI_File_close(&fh);

    /* A file without write permission (root may write anyway: skipped). */
    if (geteuid() != 0) {
        if (rank == 0) {
            int fd = open(ro, O_CREAT | O_WRONLY, 0444);
            close(fd);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        rc = MPI_File_open(MPI_COMM_WORLD, ro, MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
        expect(rc, MPI_ERR_ACCESS, "open of a read-only file for writing", "MPI_File_open", ro);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0)
            unlink(ro);
    }

    /* Handles that are no files. */
    MPI_Offset sz;
    rc = MPI_File_get_size(MPI_FILE_NULL, &sz);
    expect(rc, MPI_ERR_FILE, "get_size(MPI_FILE_NULL)", "MPI_File_get_size", NULL);

    /* Delete: a missing file, then the real one. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        rc = MPI_File_delete(missing, MPI_INFO_NULL);
        expect(rc, MPI_ERR_NO_SUCH_FILE, "delete of a missing file", "MPI_File_delete", missing);
        rc = MPI_File_delete(path, MPI_INFO_NULL);
        expect(rc, MPI_SUCCESS, "delete", NULL, NULL);
        rc = MPI_Register_datarep("native", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL,
                                  extent_fn, NULL);
        expect(rc, MPI_ERR_DUP_DATAREP, "register \"native\"", "MPI_Register_datarep", NULL);
        CHECK(rmdir(dir) == 0, "the test left files in %s", dir);
    }
    int all = io_test_verdict("io_errors");
    MPI_Finalize();
    return all != 0;
}
