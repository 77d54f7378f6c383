/*
 * io_datarep.c -- the "external32" representation (issue 37): each rank
 * writes ints, doubles and a struct {short, int, double} type through an
 * external32 view into its own block of the file; the bytes read back
 * through POSIX are the big-endian forms, read back through the view they
 * are the values written, and through a "native" view they are swapped.
 * MPI_Register_datarep then refuses a name it has already.
 */
#include "io_test.h"

#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#define N 6

struct rec {
    short s;
    int i;
    double d;
};

/* value's bytes, most significant first */
static void be(const void *value, int width, unsigned char *out)
{
    const unsigned char *p = value;
    for (int k = 0; k < width; k++)
        out[k] = p[width - 1 - k];  /* the machine is little-endian (x86-64, aarch64 LE) */
}

static int extent_fn(MPI_Datatype dt, MPI_Aint *extent, void *extra)
{
    (void)extra;
    MPI_Aint lb;
    return MPI_Type_get_extent(dt, &lb, extent);
}

int main(int argc, char **argv)
{
    char dir[64] = "/tmp/cm_io_datarepXXXXXX", path[128];
    io_test_init(&argc, &argv, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/f", dir);

    /* Each rank's block: N ints, N doubles, N records (2+4+8 packed bytes). */
    const MPI_Offset block = N * 4 + N * 8 + N * 14;
    int ints[N];
    double dbls[N];
    struct rec recs[N];
    for (int k = 0; k < N; k++) {
        ints[k] = 0x01020304 * (rank + 1) + k;
        dbls[k] = 1.5 * k - rank;
        recs[k] = (struct rec){ (short)(0x0102 + k), 0x0a0b0c0d + rank, 2.25 * k };
    }
    MPI_Datatype rt;
    int bl[3] = { 1, 1, 1 };
    MPI_Aint disp[3] = { offsetof(struct rec, s), offsetof(struct rec, i), offsetof(struct rec, d) };
    MPI_Datatype ts[3] = { MPI_SHORT, MPI_INT, MPI_DOUBLE };
    MPI_Type_create_struct(3, bl, disp, ts, &rt);
    MPI_Type_commit(&rt);

    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh) == 0, "open");
    CHECK(MPI_File_set_view(fh, rank * block, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL) == 0, "view");
    char rep[MPI_MAX_DATAREP_STRING];
    MPI_Offset d;
    MPI_Datatype e, ft;
    MPI_File_get_view(fh, &d, &e, &ft, rep);
    CHECK(!strcmp(rep, "external32"), "get_view datarep %s", rep);
    MPI_Status st;
    CHECK(MPI_File_write_at(fh, 0, ints, N, MPI_INT, &st) == 0, "write ints");
    CHECK(MPI_File_write_at(fh, N * 4, dbls, N, MPI_DOUBLE, &st) == 0, "write doubles");
    CHECK(MPI_File_write_at_all(fh, N * 12, recs, N, rt, &st) == 0, "write records");
    int n;
    MPI_Get_count(&st, rt, &n);
    CHECK(n == N, "record count %d", n);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);

    /* The file's bytes, through POSIX. */
    unsigned char file[N * 26], want[N * 26];
    int fd = open(path, O_RDONLY);
    CHECK(pread(fd, file, sizeof file, rank * block) == (ssize_t)sizeof file, "short file");
    close(fd);
    unsigned char *w = want;
    for (int k = 0; k < N; k++, w += 4)
        be(&ints[k], 4, w);
    for (int k = 0; k < N; k++, w += 8)
        be(&dbls[k], 8, w);
    for (int k = 0; k < N; k++, w += 14) {
        be(&recs[k].s, 2, w);
        be(&recs[k].i, 4, w + 2);
        be(&recs[k].d, 8, w + 6);
    }
    CHECK(!memcmp(file, want, sizeof file), "the file does not hold the big-endian forms");

    /* Back through the view, and through a native one. */
    int ib[N];
    double db[N];
    struct rec rb[N];
    memset(rb, 0, sizeof rb);
    MPI_File_read_at(fh, 0, ib, N, MPI_INT, &st);
    MPI_File_read_at(fh, N * 4, db, N, MPI_DOUBLE, &st);
    MPI_File_read_at_all(fh, N * 12, rb, N, rt, &st);
    for (int k = 0; k < N; k++)
        CHECK(ib[k] == ints[k] && db[k] == dbls[k] && rb[k].s == recs[k].s && rb[k].i == recs[k].i &&
                  rb[k].d == recs[k].d, "element %d read back differs", k);
    MPI_File_set_view(fh, rank * block, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    MPI_File_read_at(fh, 0, ib, 1, MPI_INT, &st);
    CHECK(ib[0] == (int)__builtin_bswap32((uint32_t)ints[0]), "native read of external32 data: %x", ib[0]);
    MPI_File_close(&fh);

    int rc = MPI_Register_datarep("external32", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, extent_fn, NULL);
    int cls;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_DUP_DATAREP, "register external32: class %d", cls);
    MPI_Type_free(&rt);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        unlink(path);
        CHECK(rmdir(dir) == 0, "files left in %s", dir);
    }
    int all = io_test_verdict("io_datarep");
    MPI_Finalize();
    return all != 0;
}
