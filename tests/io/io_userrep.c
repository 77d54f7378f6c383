/*
 * io_userrep.c -- user data representations (MPI_Register_datarep,
 * MPI-4.1 14.5.3) at work, checked byte for byte through POSIX:
 *
 *   "swap"  ints byte-swapped in the file (same extents): the callbacks get
 *           the standard's arguments (the user's datatype, count in data
 *           items, position advancing by the previous count when the data
 *           comes in pieces), the file holds big-endian ints where the view
 *           puts them, native reads see them swapped, reads through "swap"
 *           give the data back;
 *   "wide"  ints stored as 8-byte big-endian integers: the extent callback
 *           lays the view out (a vector filetype's stride scales to 8-byte
 *           items, an hvector's byte stride does not), get_type_extent
 *           answers in file bytes, a read past the end converts the whole
 *           items it found;
 *   "plain" MPI_CONVERSION_FN_NULL both ways: native bytes in the file;
 *           "plainwide" (no conversion, 8-byte extents) is MPI_ERR_CONVERSION;
 *   errors: a conversion or extent callback that fails makes the call fail
 *           with MPI_ERR_CONVERSION; an unknown name is
 *           MPI_ERR_UNSUPPORTED_DATAREP; a second registration is
 *           MPI_ERR_DUP_DATAREP.
 *
 * Each rank owns every size-th int of the file (a vector view displaced by
 * its rank), so the ranks' accesses interleave.
 */
#include "io_test.h"

#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

static int nranks;

/* ---- the callbacks: MPI_INT data in a contiguous memory type ------------ */

struct calls {
    int n;                      /* calls so far */
    MPI_Offset next_pos;        /* what the next call's position must be */
    long long items;            /* items converted */
    int bad;                    /* a call whose arguments were wrong */
    MPI_Datatype expect;        /* the datatype the user passed */
} wr, rd;

static void note(struct calls *c, MPI_Datatype dt, long long count, MPI_Offset pos)
{
    if (dt != c->expect || pos != c->next_pos || count <= 0)
        c->bad++;
    c->n++;
    c->next_pos = pos + count;
    c->items += count;
}

static uint32_t bswap32(uint32_t x) { return __builtin_bswap32(x); }

static int swap_write(void *userbuf, MPI_Datatype dt, int count, void *filebuf, MPI_Offset pos, void *extra)
{
    note(&wr, dt, count, pos);
    const uint32_t *u = (const uint32_t *)userbuf + pos;
    uint32_t *f = filebuf;
    for (int i = 0; i < count; i++)
        f[i] = bswap32(u[i]);
    return *(int *)extra;       /* the error to return: MPI_SUCCESS unless a test asks */
}

static int swap_read(void *userbuf, MPI_Datatype dt, int count, void *filebuf, MPI_Offset pos, void *extra)
{
    note(&rd, dt, count, pos);
    uint32_t *u = (uint32_t *)userbuf + pos;
    const uint32_t *f = filebuf;
    for (int i = 0; i < count; i++)
        u[i] = bswap32(f[i]);
    return *(int *)extra;
}

static int wide_write(void *userbuf, MPI_Datatype dt, MPI_Count count, void *filebuf, MPI_Offset pos, void *extra)
{
    (void)extra;
    note(&wr, dt, count, pos);
    const int32_t *u = (const int32_t *)userbuf + pos;
    uint64_t *f = filebuf;
    for (MPI_Count i = 0; i < count; i++)
        f[i] = __builtin_bswap64((uint64_t)(int64_t)u[i]);
    return MPI_SUCCESS;
}

static int wide_read(void *userbuf, MPI_Datatype dt, MPI_Count count, void *filebuf, MPI_Offset pos, void *extra)
{
    (void)extra;
    note(&rd, dt, count, pos);
    int32_t *u = (int32_t *)userbuf + pos;
    const uint64_t *f = filebuf;
    for (MPI_Count i = 0; i < count; i++)
        u[i] = (int32_t)(int64_t)__builtin_bswap64(f[i]);
    return MPI_SUCCESS;
}

static int asked_int, asked_other;

static int extent_native(MPI_Datatype dt, MPI_Aint *extent, void *extra)
{
    (void)extra;
    MPI_Aint lb;
    if (dt == MPI_INT)
        asked_int++;
    else
        asked_other++;
    return MPI_Type_get_extent(dt, &lb, extent);
}

static int extent_wide(MPI_Datatype dt, MPI_Aint *extent, void *extra)
{
    (void)extra;
    *extent = dt == MPI_INT ? 8 : 0;
    return dt == MPI_INT ? MPI_SUCCESS : MPI_ERR_TYPE;
}

static int extent_fails(MPI_Datatype dt, MPI_Aint *extent, void *extra)
{
    (void)dt, (void)extent, (void)extra;
    return 42;
}

/* ---- helpers ------------------------------------------------------------ */

static char path[256];

/* The open's hints: MPI_INFO_NULL, or two-phase forced for the collective
 * calls (a user representation must convert there too). */
static MPI_Info open_hints = MPI_INFO_NULL;

static MPI_File open_view(const char *rep, MPI_Datatype filetype, MPI_Offset disp, int *rc)
{
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, open_hints, &fh);
    *rc = MPI_File_set_view(fh, disp, MPI_INT, filetype, rep, MPI_INFO_NULL);
    return fh;
}

static int err_class(int rc)
{
    int c;
    MPI_Error_class(rc, &c);
    return c;
}

static void pread_all(void *buf, size_t len, off_t off)
{
    int fd = open(path, O_RDONLY);
    ssize_t n = fd < 0 ? -1 : pread(fd, buf, len, off);
    CHECK(n == (ssize_t)len, "pread of %zu bytes at %lld gave %zd", len, (long long)off, n);
    if (fd >= 0)
        close(fd);
}

static void fresh_file(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void reset_calls(void)
{
    memset(&wr, 0, sizeof wr);
    memset(&rd, 0, sizeof rd);
    wr.expect = rd.expect = MPI_INT;
}

/* ---- the cases ---------------------------------------------------------- */

/* "swap": n ints per rank in blocks of `block`, the ranks' blocks
 * interleaved (n a multiple of block). */
static void swap_case(int n, int block)
{
    fresh_file();
    reset_calls();
    MPI_Datatype ft;
    MPI_Type_vector(n / block, block, block * nranks, MPI_INT, &ft);
    MPI_Type_commit(&ft);
    int rc;
    MPI_File fh = open_view("swap", ft, (MPI_Offset)rank * 4 * block, &rc);
    CHECK(rc == MPI_SUCCESS, "set_view swap: %d", rc);
    CHECK(asked_int >= 1 && asked_other == 0, "extent callback asked for MPI_INT %d times (cached after the first), others %d", asked_int,
          asked_other);
    int32_t *v = malloc(sizeof *v * (size_t)n), *back = calloc((size_t)n, sizeof *back);
    for (int i = 0; i < n; i++)
        v[i] = (int32_t)(0x01020304u * (uint32_t)(i + 1) + (uint32_t)rank);
    MPI_Status st;
    rc = MPI_File_write_all(fh, v, n, MPI_INT, &st);
    int cnt;
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(rc == MPI_SUCCESS && cnt == n, "write_all: rc %d, count %d of %d", rc, cnt, n);
    CHECK(!wr.bad && wr.items == n, "write conversion: %d calls, %lld items, %d with wrong arguments", wr.n,
          wr.items, wr.bad);
    if (n > (4 << 20) / 4)
        CHECK(wr.n > 1, "%d ints converted in %d call: the pieces are not tested", n, wr.n);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    /* POSIX: big-endian ints in this rank's blocks. */
    uint32_t *raw = malloc(4 * (size_t)n * (size_t)nranks);
    pread_all(raw, 4 * (size_t)n * (size_t)nranks, 0);
    int wrong = 0;
    for (int i = 0; i < n; i++)
        wrong += raw[((size_t)(i / block) * (size_t)nranks + (size_t)rank) * (size_t)block + (size_t)(i % block)] !=
                 bswap32((uint32_t)v[i]);
    CHECK(!wrong, "%d of %d ints are not big-endian where the view puts them", wrong, n);
    MPI_File_seek(fh, 0, MPI_SEEK_SET);
    rc = MPI_File_read_all(fh, back, n, MPI_INT, &st);
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(rc == MPI_SUCCESS && cnt == n && !memcmp(back, v, 4 * (size_t)n), "read_all through swap: rc %d, "
          "count %d, data %s", rc, cnt, memcmp(back, v, 4 * (size_t)n) ? "differs" : "same");
    CHECK(!rd.bad && rd.items == n, "read conversion: %d calls, %lld items, %d with wrong arguments", rd.n, rd.items,
          rd.bad);
    /* The same bytes through a native view: swapped. */
    MPI_File_set_view(fh, (MPI_Offset)rank * 4 * block, MPI_INT, ft, "native", MPI_INFO_NULL);
    MPI_File_read_at(fh, 0, back, n, MPI_INT, &st);
    wrong = 0;
    for (int i = 0; i < n; i++)
        wrong += (uint32_t)back[i] != bswap32((uint32_t)v[i]);
    CHECK(!wrong, "a native view reads %d of %d ints unswapped", wrong, n);
    MPI_File_close(&fh);
    MPI_Type_free(&ft);
    free(v), free(back), free(raw);
}

/* "wide": 8 bytes per int in the file. */
static void wide_case(void)
{
    enum { N = 50 };
    fresh_file();
    reset_calls();
    MPI_Datatype vec, hvec;
    MPI_Type_vector(N, 1, nranks, MPI_INT, &vec);         /* stride in ints: scales to 8 * nranks */
    MPI_Type_create_hvector(N, 1, 24 * nranks, MPI_INT, &hvec);   /* in bytes: kept */
    MPI_Type_commit(&vec);
    MPI_Type_commit(&hvec);
    int rc;
    MPI_File fh = open_view("wide", vec, (MPI_Offset)rank * 8, &rc);
    CHECK(rc == MPI_SUCCESS, "set_view wide: %d", rc);
    MPI_Aint ext;
    MPI_File_get_type_extent(fh, MPI_INT, &ext);
    CHECK(ext == 8, "get_type_extent(MPI_INT) in wide: %ld", (long)ext);
    MPI_File_get_type_extent(fh, vec, &ext);
    CHECK(ext == 8 * ((N - 1) * nranks + 1), "get_type_extent(vector) in wide: %ld", (long)ext);
    MPI_File_get_type_extent(fh, hvec, &ext);
    CHECK(ext == 24 * nranks * (N - 1) + 8, "get_type_extent(hvector) in wide: %ld", (long)ext);
    int32_t v[N], back[2 * N];
    for (int i = 0; i < N; i++)
        v[i] = (i % 2 ? -1 : 1) * (1000 * i + rank);
    MPI_Status st;
    rc = MPI_File_write_at_all(fh, 0, v, N, MPI_INT, &st);
    int cnt;
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(rc == MPI_SUCCESS && cnt == N, "write_at_all wide: rc %d count %d", rc, cnt);
    MPI_Offset pos, byte;
    MPI_File_get_byte_offset(fh, 3, &byte);
    CHECK(byte == (MPI_Offset)rank * 8 + 3 * 8 * nranks, "get_byte_offset(3) in wide: %lld", (long long)byte);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    uint64_t raw[N];
    int wrong = 0;
    for (int i = 0; i < N; i++) {
        pread_all(&raw[i], 8, (off_t)(8 * ((size_t)i * (size_t)nranks + (size_t)rank)));
        wrong += (int64_t)__builtin_bswap64(raw[i]) != v[i];
    }
    CHECK(!wrong, "%d of %d ints are not 8-byte big-endian at stride %d", wrong, N, 8 * nranks);
    /* A read past the end (rank nranks-1 owns the file's last int): whole items. */
    MPI_File_seek(fh, 0, MPI_SEEK_SET);
    rc = MPI_File_read(fh, back, N, MPI_INT, &st);
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(rc == MPI_SUCCESS && cnt == N && !memcmp(back, v, sizeof v), "read wide: rc %d count %d", rc, cnt);
    MPI_File_get_position(fh, &pos);
    CHECK(pos == N, "position after reading %d etypes: %lld", N, (long long)pos);
    MPI_File_seek(fh, N - 5, MPI_SEEK_SET);
    rc = MPI_File_read(fh, back, 20, MPI_INT, &st);
    MPI_Get_count(&st, MPI_INT, &cnt);
    /* The last rank's next tile starts at the end of the file; the others'
     * overlap the last rank's last int (a vector's extent ends at its last
     * block), so they read one more. */
    CHECK(rc == MPI_SUCCESS && cnt == (rank == nranks - 1 ? 5 : 6) && !memcmp(back, v + N - 5, 5 * 4),
          "read past the end in wide: rc %d, count %d", rc, cnt);
    /* The hvector view: 24 * nranks bytes between items, not scaled. */
    MPI_Barrier(MPI_COMM_WORLD);        /* every rank has read the file */
    MPI_File_set_size(fh, 0);
    MPI_File_set_view(fh, (MPI_Offset)rank * 8, MPI_INT, hvec, "wide", MPI_INFO_NULL);
    MPI_File_write_at_all(fh, 0, v, N, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    wrong = 0;
    for (int i = 0; i < N; i++) {
        pread_all(&raw[i], 8, (off_t)(24 * (size_t)nranks * (size_t)i + 8 * (size_t)rank));
        wrong += (int64_t)__builtin_bswap64(raw[i]) != v[i];
    }
    CHECK(!wrong, "hvector view in wide: %d of %d ints not at byte stride %d", wrong, N, 24 * nranks);
    MPI_File_close(&fh);
    MPI_Type_free(&vec);
    MPI_Type_free(&hvec);
}

/* MPI_CONVERSION_FN_NULL: native bytes; with other extents, an error. */
static void null_case(void)
{
    fresh_file();
    int32_t v[8] = {1, 2, 3, 4, 5, 6, 7, 0x11223344}, back[8] = {0};
    int rc;
    MPI_File fh = open_view("plain", MPI_INT, 0, &rc);
    CHECK(rc == MPI_SUCCESS, "set_view plain: %d", rc);
    if (rank == 0)
        MPI_File_write_at(fh, 0, v, 8, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    pread_all(back, sizeof back, 0);
    CHECK(!memcmp(back, v, sizeof v), "MPI_CONVERSION_FN_NULL did not write native bytes");
    memset(back, 0, sizeof back);
    MPI_File_read_at(fh, 0, back, 8, MPI_INT, MPI_STATUS_IGNORE);
    CHECK(!memcmp(back, v, sizeof v), "MPI_CONVERSION_FN_NULL did not read native bytes");
    MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "plainwide", MPI_INFO_NULL);
    rc = MPI_File_write_at(fh, 0, v, 8, MPI_INT, MPI_STATUS_IGNORE);
    CHECK(err_class(rc) == MPI_ERR_CONVERSION, "no conversion with 8-byte extents: class %d, not "
          "MPI_ERR_CONVERSION", err_class(rc));
    MPI_File_close(&fh);
}

static int fail_code = MPI_SUCCESS;

static void error_case(void)
{
    fresh_file();
    int32_t v[4] = {1, 2, 3, 4};
    int rc;
    MPI_File fh = open_view("swapfail", MPI_INT, 0, &rc);
    CHECK(rc == MPI_SUCCESS, "set_view swapfail: %d", rc);
    MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
    reset_calls();
    fail_code = MPI_ERR_OTHER;
    rc = MPI_File_write_at(fh, 0, v, 4, MPI_INT, MPI_STATUS_IGNORE);
    CHECK(err_class(rc) == MPI_ERR_CONVERSION, "a failing write conversion: class %d", err_class(rc));
    fail_code = MPI_SUCCESS;
    rc = MPI_File_write_at(fh, 0, v, 4, MPI_INT, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS, "write conversion that succeeds: %d", rc);
    fail_code = 77;
    rc = MPI_File_read_at(fh, 0, v, 4, MPI_INT, MPI_STATUS_IGNORE);
    CHECK(err_class(rc) == MPI_ERR_CONVERSION, "a failing read conversion: class %d", err_class(rc));
    fail_code = MPI_SUCCESS;
    rc = MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "badextent", MPI_INFO_NULL);
    CHECK(err_class(rc) == MPI_ERR_CONVERSION, "a failing extent function at set_view: class %d", err_class(rc));
    rc = MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "nosuchrep", MPI_INFO_NULL);
    CHECK(err_class(rc) == MPI_ERR_UNSUPPORTED_DATAREP, "an unknown representation: class %d", err_class(rc));
    MPI_File_close(&fh);
    rc = MPI_Register_datarep("swap", swap_read, swap_write, extent_native, &fail_code);
    CHECK(err_class(rc) == MPI_ERR_DUP_DATAREP, "registering swap twice: class %d", err_class(rc));
}

/* Derived datatypes alive now (MPI_T objects_datatypes_live): the layouts
 * a user representation builds must go with their view. */
static long long live_types(void)
{
    static MPI_T_pvar_session ps;
    static MPI_T_pvar_handle ph;
    static int ready;
    if (!ready) {
        int provided, idx, n;
        MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
        if (MPI_T_pvar_get_index("objects_datatypes_live", MPI_T_PVAR_CLASS_LEVEL, &idx) ||
            MPI_T_pvar_session_create(&ps) || MPI_T_pvar_handle_alloc(ps, idx, NULL, &ph, &n))
            return -1;
        ready = 1;
    }
    unsigned long long v = 0;
    MPI_T_pvar_read(ps, ph, &v);
    return (long long)v;
}

int main(int argc, char **argv)
{
    char dir[] = "/tmp/cm_io_userrep.XXXXXX";
    io_test_init(&argc, &argv, dir, sizeof dir);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    snprintf(path, sizeof path, "%s/f", dir);
    static int ok = MPI_SUCCESS;
    MPI_Register_datarep("swap", swap_read, swap_write, extent_native, &ok);
    MPI_Register_datarep("swapfail", swap_read, swap_write, extent_native, &fail_code);
    MPI_Register_datarep_c("wide", wide_read, wide_write, extent_wide, NULL);
    MPI_Register_datarep("plain", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, extent_native, NULL);
    MPI_Register_datarep_c("plainwide", MPI_CONVERSION_FN_NULL_C, MPI_CONVERSION_FN_NULL_C, extent_wide, NULL);
    MPI_Register_datarep("badextent", swap_read, swap_write, extent_fails, NULL);

    long long types_before = live_types();
    swap_case(1000, 1);
    swap_case(3 << 20, 1 << 16);  /* 12 MiB per rank: more than one conversion call */
    MPI_Info_create(&open_hints);
    MPI_Info_set(open_hints, "romio_cb_write", "enable");
    MPI_Info_set(open_hints, "romio_cb_read", "enable");
    swap_case(1000, 1);           /* the same through two-phase, when it is forced */
    MPI_Info_free(&open_hints);
    open_hints = MPI_INFO_NULL;
    wide_case();
    null_case();
    error_case();
    CHECK(live_types() == types_before, "%lld derived datatypes alive after the cases, %lld before: a view's "
          "layout leaked", live_types(), types_before);

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        unlink(path);
        CHECK(rmdir(dir) == 0, "files left in %s", dir);
    }
    int all = io_test_verdict("io_userrep");
    MPI_Finalize();
    return all != 0;
}
