/*
 * io_twophase.c -- collective buffering and data sieving (issue 37 item 2),
 * checked byte for byte through POSIX.
 *
 * Two-phase: for each filetype (vector, subarray, darray, indexed, struct,
 * every one leaving holes between the ranks' parts) and each aggregator
 * count cb_nodes = 1..n (forced with romio_cb_write/read = enable, a small
 * cb_buffer_size and striping_unit so that there are several rounds and
 * every aggregator has a domain), the file is prefilled through POSIX, the
 * ranks write_all, and rank 0 compares every byte with the model: the
 * ranks' data where their filetypes put it (placed by MPI_Unpack with the
 * filetype, the datatype engine and not src/io), the prefill in the holes.
 * Then read_all brings the data back.  get_info must report the hints.
 *
 * A read_all past the end of the file counts only the bytes there.  A
 * write-only file is written around its holes (nothing can be read).
 * direct_io moves large aligned runs through O_DIRECT.
 *
 * Sieving: every rank writes, at the same time and independently, small
 * interleaved blocks with romio_ds_write = enable, so that the ranks'
 * sieve extents overlap: the byte-range locks must keep every rank's data
 * and the holes' prefill; romio_ds_read = enable reads it back.
 */
#include "io_test.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#define R 12
#define C 40                    /* ints of the 2-D array, row major */
#define FILEBYTES (R * C * 4 + 256)

static int size;

static unsigned char prefill(long off)
{
    return (unsigned char)(off * 7 + 3);
}

/* Filetype kind k of this rank; *count: ints of one access. */
static MPI_Datatype filetype(int k, int *count)
{
    MPI_Datatype t, r;
    int n = size;
    switch (k) {
    case 0: /* vector: 3 of each rank's 4-int slot, rows of n slots */
    {
        MPI_Datatype v;
        MPI_Type_vector(R * C / (4 * n), 3, 4 * n, MPI_INT, &v);
        MPI_Aint d = (MPI_Aint)rank * 16;
        int one = 1;
        MPI_Type_create_hindexed(1, &one, &d, v, &t);
        MPI_Type_free(&v);
        *count = R * C / (4 * n) * 3;
        break;
    }
    case 1: /* subarray: a band of columns, its last column left out */
    {
        int g[2] = { R, C }, w = C / n, sub[2] = { R, w - 1 }, st[2] = { 0, rank * w };
        MPI_Type_create_subarray(2, g, sub, st, MPI_ORDER_C, MPI_INT, &t);
        *count = R * (w - 1);
        break;
    }
    case 2: /* darray: cyclic(3) columns over n processes, rows block */
    {
        int g[2] = { R, C }, dist[2] = { MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_CYCLIC },
            darg[2] = { MPI_DISTRIBUTE_DFLT_DARG, 3 }, p[2] = { 1, n };
        MPI_Type_create_darray(n, rank, 2, g, dist, darg, p, MPI_ORDER_C, MPI_INT, &t);
        int sz;
        MPI_Type_size(t, &sz);
        *count = sz / 4;
        break;
    }
    case 3: /* indexed: blocks of 1..4 of each rank's 5-int slot */
    {
        int nb = R * C / (5 * n), bl[R * C], d[R * C], total = 0;
        for (int i = 0; i < nb; i++) {
            bl[i] = 1 + (i + rank) % 4;
            d[i] = (i * n + rank) * 5;
            total += bl[i];
        }
        MPI_Type_indexed(nb, bl, d, MPI_INT, &t);
        *count = total;
        break;
    }
    default: /* struct: 2 ints and 1 int of each rank's 5-int slot, tiled */
    {
        int bl[2] = { 2, 1 };
        MPI_Aint d[2] = { (MPI_Aint)rank * 20, (MPI_Aint)rank * 20 + 12 };
        MPI_Datatype ts[2] = { MPI_INT, MPI_INT }, s;
        MPI_Type_create_struct(2, bl, d, ts, &s);
        MPI_Type_create_resized(s, 0, (MPI_Aint)n * 20, &t);
        MPI_Type_free(&s);
        *count = R * C / (5 * n) * 3;
        break;
    }
    }
    MPI_Type_dup(t, &r);
    MPI_Type_free(&t);
    MPI_Type_commit(&r);
    return r;
}

static const char *const kinds[] = { "vector", "subarray", "darray", "indexed", "struct" };

static void posix_prefill(const char *path)
{
    if (rank == 0) {
        unsigned char b[FILEBYTES];
        for (long i = 0; i < FILEBYTES; i++)
            b[i] = prefill(i);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        CHECK(fd >= 0 && pwrite(fd, b, FILEBYTES, 0) == FILEBYTES, "prefill");
        if (fd >= 0)
            close(fd);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* The expected file: this rank's stream (count ints of data) placed at
 * disp by the filetype, gathered over the ranks; the prefill elsewhere.
 * Rank 0 compares it with the file through POSIX.  Returns the bytes
 * that differ. */
static long posix_check(const char *path, MPI_Datatype ft, int tiles, const void *data, int bytes, long disp,
                        const char *what)
{
    static unsigned char img[FILEBYTES], msk[FILEBYTES], all_img[FILEBYTES], all_msk[FILEBYTES];
    memset(img, 0, sizeof img);
    memset(msk, 0, sizeof msk);
    unsigned char ones[R * C * 4];
    memset(ones, 0xff, sizeof ones);
    int pos = 0;
    MPI_Unpack(data, bytes, &pos, img + disp, tiles, ft, MPI_COMM_SELF);
    pos = 0;
    MPI_Unpack(ones, bytes, &pos, msk + disp, tiles, ft, MPI_COMM_SELF);
    MPI_Reduce(img, all_img, FILEBYTES, MPI_BYTE, MPI_BOR, 0, MPI_COMM_WORLD);
    MPI_Reduce(msk, all_msk, FILEBYTES, MPI_BYTE, MPI_BOR, 0, MPI_COMM_WORLD);
    long bad = 0;
    if (rank == 0) {
        unsigned char b[FILEBYTES];
        int fd = open(path, O_RDONLY);
        CHECK(fd >= 0 && pread(fd, b, FILEBYTES, 0) == FILEBYTES, "%s: POSIX read", what);
        if (fd >= 0)
            close(fd);
        for (long i = 0; i < FILEBYTES; i++)
            if (b[i] != (all_msk[i] ? all_img[i] : prefill(i)) && bad++ < 3)
                printf("%s: byte %ld is %d, expected %d (%s)\n", what, i, b[i], all_msk[i] ? all_img[i] : prefill(i),
                       all_msk[i] ? "data" : "hole");
        CHECK(bad == 0, "%s: %ld bytes differ", what, bad);
    }
    MPI_Bcast(&bad, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    return bad;
}

static MPI_Info hints(const char *cbmode, int nodes, const char *dsmode)
{
    MPI_Info info;
    char v[16];
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_cb_write", cbmode);
    MPI_Info_set(info, "romio_cb_read", cbmode);
    snprintf(v, sizeof v, "%d", nodes);
    MPI_Info_set(info, "cb_nodes", v);
    MPI_Info_set(info, "cb_buffer_size", "1000");
    MPI_Info_set(info, "striping_unit", "64");
    MPI_Info_set(info, "romio_ds_write", dsmode);
    MPI_Info_set(info, "romio_ds_read", dsmode);
    MPI_Info_set(info, "ind_wr_buffer_size", "300");
    MPI_Info_set(info, "ind_rd_buffer_size", "300");
    MPI_Info_set(info, "no_such_hint", "ignored");
    return info;
}

static void expect_hint(MPI_File fh, const char *key, const char *want, const char *what)
{
    MPI_Info used;
    char val[MPI_MAX_INFO_VAL + 1] = "";
    int len = MPI_MAX_INFO_VAL, flag = 0;
    MPI_File_get_info(fh, &used);
    MPI_Info_get_string(used, key, &len, val, &flag);
    MPI_Info_free(&used);
    CHECK(flag && !strcmp(val, want), "%s: get_info %s = \"%s\", expected \"%s\"", what, key, flag ? val : "(none)",
          want);
}

/* write_all then read_all of filetype k with nodes aggregators. */
static void collective(const char *path, int k, const char *mode, int nodes)
{
    char what[96];
    snprintf(what, sizeof what, "%s, %s, cb_nodes %d, %d ranks", kinds[k], mode, nodes, size);
    int count;
    MPI_Datatype ft = filetype(k, &count);
    int *data = malloc((size_t)count * 4), *back = calloc((size_t)count, 4);
    for (int i = 0; i < count; i++)
        data[i] = (rank + 1) * 1000003 + i * 17 + k * 31 + nodes;
    posix_prefill(path);
    MPI_Info info = hints(mode, nodes, "disable");
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh);
    MPI_Info_free(&info);
    CHECK(rc == MPI_SUCCESS, "%s: open rc %d", what, rc);
    char want[16];
    snprintf(want, sizeof want, "%d", nodes);
    expect_hint(fh, "cb_nodes", want, what);
    expect_hint(fh, "romio_cb_write", mode, what);
    expect_hint(fh, "cb_buffer_size", "1000", what);
    long disp = 40;
    MPI_File_set_view(fh, disp, MPI_INT, ft, "native", MPI_INFO_NULL);
    MPI_Status st;
    /* The struct kind: a memory vector (every other int), so that the
     * two-phase copies pack and unpack. */
    MPI_Datatype mt = MPI_INT;
    int *mem = data, mcount = count;
    if (k == 4) {
        mem = calloc((size_t)count * 2, 4);
        for (int i = 0; i < count; i++)
            mem[2 * i] = data[i];
        MPI_Type_vector(count, 1, 2, MPI_INT, &mt);
        MPI_Type_commit(&mt);
        mcount = 1;
    }
    rc = MPI_File_write_all(fh, mem, mcount, mt, &st);
    int got = -1;
    MPI_Get_count(&st, MPI_INT, &got);
    CHECK(rc == MPI_SUCCESS && got == count, "%s: write_all rc %d count %d", what, rc, got);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    int tiles = k == 4 ? count / 3 : 1;
    posix_check(path, ft, tiles, data, count * 4, disp, what);
    MPI_File_seek(fh, 0, MPI_SEEK_SET);
    if (k == 4)
        memset(mem, 0, (size_t)count * 8);
    rc = MPI_File_read_all(fh, k == 4 ? (void *)mem : (void *)back, mcount, mt, &st);
    CHECK(rc == MPI_SUCCESS, "%s: read_all rc %d", what, rc);
    if (k == 4)
        for (int i = 0; i < count; i++)
            back[i] = mem[2 * i];
    long bad = 0;
    for (int i = 0; i < count; i++)
        bad += back[i] != data[i];
    CHECK(bad == 0, "%s: read_all: %ld of %d ints differ", what, bad, count);
    MPI_File_close(&fh);
    if (k == 4) {
        free(mem);
        MPI_Type_free(&mt);
    }
    MPI_Type_free(&ft);
    free(data);
    free(back);
}

/* A write-only file: neither the holes of two-phase nor sieving can be
 * read first; both forced, through the vector filetype. */
static void write_only(const char *path)
{
    int count;
    MPI_Datatype ft = filetype(0, &count);
    int *data = malloc((size_t)count * 4);
    for (int i = 0; i < count; i++)
        data[i] = (rank + 7) * 1000 + i;
    for (int coll = 0; coll < 2; coll++) {
        posix_prefill(path);
        MPI_Info info = hints(coll ? "enable" : "disable", size, "enable");
        MPI_File fh;
        int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY, info, &fh);
        MPI_Info_free(&info);
        MPI_File_set_view(fh, 0, MPI_INT, ft, "native", MPI_INFO_NULL);
        if (!rc)
            rc = coll ? MPI_File_write_all(fh, data, count, MPI_INT, MPI_STATUS_IGNORE)
                      : MPI_File_write(fh, data, count, MPI_INT, MPI_STATUS_IGNORE);
        CHECK(rc == MPI_SUCCESS, "write-only %s: rc %d", coll ? "write_all" : "write", rc);
        MPI_File_close(&fh);
        MPI_Barrier(MPI_COMM_WORLD);
        posix_check(path, ft, 1, data, count * 4, 0, coll ? "write-only write_all" : "write-only write");
    }
    MPI_Type_free(&ft);
    free(data);
}

/* direct_io: 2 MiB per rank, page-aligned in memory and in the file, so
 * that it takes the O_DIRECT descriptor where the file system has one
 * (get_info says "true"; tmpfs says "false"), and a tail of 100 bytes
 * that cannot; checked through POSIX and read back through MPI. */
static void direct(const char *path)
{
    const long n = 2L << 20;
    unsigned char *buf, *back;
    if (posix_memalign((void **)&buf, 4096, (size_t)n + 100) || posix_memalign((void **)&back, 4096, (size_t)n + 100)) {
        CHECK(0, "direct: no memory");
        return;
    }
    for (long i = 0; i < n + 100; i++)
        buf[i] = (unsigned char)(i * 13 + rank * 101);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "direct_io", "true");
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh);
    MPI_Info_free(&info);
    CHECK(rc == MPI_SUCCESS, "direct: open rc %d", rc);
    MPI_Info used;
    char val[MPI_MAX_INFO_VAL + 1] = "";
    int len = MPI_MAX_INFO_VAL, flag = 0;
    MPI_File_get_info(fh, &used);
    MPI_Info_get_string(used, "direct_io", &len, val, &flag);
    MPI_Info_free(&used);
    CHECK(flag && (!strcmp(val, "true") || !strcmp(val, "false")), "direct: get_info direct_io \"%s\"", val);
    MPI_Offset at = (MPI_Offset)rank * (n + 4096);
    rc = MPI_File_write_at_all(fh, at, buf, (int)n + 100, MPI_BYTE, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS, "direct: write rc %d", rc);
    rc = MPI_File_read_at(fh, at, back, (int)n + 100, MPI_BYTE, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS && !memcmp(back, buf, (size_t)n + 100), "direct (%s): read back differs", val);
    MPI_File_close(&fh);
    int fd = open(path, O_RDONLY);
    memset(back, 0, (size_t)n + 100);
    CHECK(fd >= 0 && pread(fd, back, (size_t)n + 100, at) == n + 100 && !memcmp(back, buf, (size_t)n + 100),
          "direct (%s): POSIX read differs", val);
    if (fd >= 0)
        close(fd);
    free(buf);
    free(back);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* set_view with hints on rank 0 only: the hints are collective, rank
 * 0's are taken everywhere (and nothing waits for the other ranks). */
static void hints_rank0(const char *path)
{
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
    MPI_Info info = MPI_INFO_NULL;
    if (rank == 0) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "cb_nodes", "1");
        MPI_Info_set(info, "cb_buffer_size", "4096");
    }
    int rc = MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", info);
    CHECK(rc == MPI_SUCCESS, "set_view with rank 0's hints: rc %d", rc);
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    expect_hint(fh, "cb_nodes", "1", "rank 0's hints");
    expect_hint(fh, "cb_buffer_size", "4096", "rank 0's hints");
    MPI_File_close(&fh);
}

/* read_at_all across the end of a 1000-byte file: 300 bytes from r * 250. */
static void past_eof(const char *path)
{
    posix_prefill(path);
    if (rank == 0)
        CHECK(truncate(path, 1000) == 0, "truncate");
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Info info = hints("enable", size, "disable");
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, info, &fh);
    MPI_Info_free(&info);
    unsigned char b[300];
    MPI_Status st;
    long at = (long)rank * 250;
    int rc = MPI_File_read_at_all(fh, at, b, 300, MPI_BYTE, &st), got = -1;
    MPI_Get_count(&st, MPI_BYTE, &got);
    long want = at >= 1000 ? 0 : 1000 - at < 300 ? 1000 - at : 300;
    CHECK(rc == MPI_SUCCESS && got == want, "past eof: rc %d count %d, expected %ld", rc, got, want);
    for (int i = 0; i < got; i++)
        CHECK(b[i] == prefill(at + i), "past eof: byte %d", i);
    MPI_File_close(&fh);
}

/* Independent sieving writes of interleaved blocks, all ranks at once. */
static void sieving(const char *path, int iter)
{
    char what[64];
    snprintf(what, sizeof what, "sieving round %d, %d ranks", iter, size);
    posix_prefill(path);
    MPI_Info info = hints("disable", 1, "enable");
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh);
    MPI_Info_free(&info);
    expect_hint(fh, "romio_ds_write", "enable", what);
    /* 3 bytes of each rank's 4-byte slot. */
    MPI_Datatype v, ft;
    int nb = (R * C * 4) / (4 * size), count = nb * 3;
    MPI_Type_vector(nb, 3, 4 * size, MPI_BYTE, &v);
    MPI_Aint d = (MPI_Aint)rank * 4;
    int one = 1;
    MPI_Type_create_hindexed(1, &one, &d, v, &ft);
    MPI_Type_free(&v);
    MPI_Type_commit(&ft);
    unsigned char *data = malloc((size_t)count), *back = calloc((size_t)count, 1);
    for (int i = 0; i < count; i++)
        data[i] = (unsigned char)(rank * 37 + i * 5 + iter);
    MPI_File_set_view(fh, 0, MPI_BYTE, ft, "native", MPI_INFO_NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Status st;
    int rc = MPI_File_write(fh, data, count, MPI_BYTE, &st);
    CHECK(rc == MPI_SUCCESS, "%s: write rc %d", what, rc);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    posix_check(path, ft, 1, data, count, 0, what);
    rc = MPI_File_read_at(fh, 0, back, count, MPI_BYTE, &st);
    int got = -1;
    MPI_Get_count(&st, MPI_BYTE, &got);
    CHECK(rc == MPI_SUCCESS && got == count && !memcmp(back, data, (size_t)count), "%s: sieved read back (count %d)",
          what, got);
    MPI_File_close(&fh);
    MPI_Type_free(&ft);
    free(data);
    free(back);
}

int main(int argc, char **argv)
{
    char dir[64] = "/tmp/cm_io_twophaseXXXXXX", path[128];
    io_test_init(&argc, &argv, dir, sizeof dir);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    snprintf(path, sizeof path, "%s/f", dir);
    for (int k = 0; k < 5; k++) {
        for (int nodes = 1; nodes <= size; nodes++)
            collective(path, k, "enable", nodes);
        collective(path, k, "automatic", size);
        collective(path, k, "disable", 1);
    }
    past_eof(path);
    hints_rank0(path);
    write_only(path);
    direct(path);
    for (int i = 0; i < 8; i++)
        sieving(path, i);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        unlink(path);
        rmdir(dir);
    }
    int all = io_test_verdict("io_twophase");
    MPI_Finalize();
    return all != 0;
}
