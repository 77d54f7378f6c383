/*
 * io_basic.c -- MPI-IO calls one by one (issue 37), contents checked
 * through POSIX: size, set_size, preallocate, amode, group, info, views
 * returned by get_view, seek (SET/CUR/END) and get_position, the shared
 * file pointer under contention (every rank appends records with
 * write_shared; each record must appear exactly once), ordered access,
 * seek_shared, atomicity, nonblocking reads completed by MPI_Test, the
 * split collectives, MPI_MODE_APPEND, and File_c2f/f2c.
 */
#include "io_test.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int size;
#define OK(call) CHECK((call) == MPI_SUCCESS, "%s failed", #call)

#define NREC 50

static long long posix_size(const char *p)
{
    struct stat sb;
    return stat(p, &sb) ? -1 : (long long)sb.st_size;
}

int main(int argc, char **argv)
{
    char dir[64] = "/tmp/cm_io_basicXXXXXX", path[128];
    io_test_init(&argc, &argv, dir, sizeof dir);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    snprintf(path, sizeof path, "%s/f", dir);

    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_buffer_size", "1048576");
    MPI_Info_set(info, "no_such_hint", "x");
    MPI_File fh;
    OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    MPI_Info_free(&info);

    /* Handle conversions. */
    CHECK(MPI_File_f2c(MPI_File_c2f(fh)) == fh, "c2f/f2c round trip");
    CHECK(MPI_File_c2f(MPI_FILE_NULL) == MPI_File_toint(MPI_FILE_NULL), "c2f of MPI_FILE_NULL");

    int amode;
    OK(MPI_File_get_amode(fh, &amode));
    CHECK(amode == (MPI_MODE_CREATE | MPI_MODE_RDWR), "amode %d", amode);
    MPI_Group g, wg;
    int cmp;
    OK(MPI_File_get_group(fh, &g));
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_compare(g, wg, &cmp);
    CHECK(cmp == MPI_IDENT, "group compare %d", cmp);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    MPI_Info used;
    OK(MPI_File_get_info(fh, &used));
    char val[64];
    int flag = 0, len = sizeof val;
    MPI_Info_get_string(used, "cb_buffer_size", &len, val, &flag);
    CHECK(flag && !strcmp(val, "1048576"), "cb_buffer_size hint not kept");
    MPI_Info_free(&used);

    /* Sizes.  A collective call need not synchronize: the barrier keeps
     * rank 0's next change from landing before the others look. */
    MPI_Offset sz;
    static const struct { int grow; MPI_Offset to, expect; } steps[] = {
        { 0, 1000, 1000 }, { 1, 500, 1000 }, { 1, 4096, 4096 }, { 0, 0, 0 } };
    for (int i = 0; i < 4; i++) {
        OK(steps[i].grow ? MPI_File_preallocate(fh, steps[i].to) : MPI_File_set_size(fh, steps[i].to));
        OK(MPI_File_get_size(fh, &sz));
        CHECK(sz == steps[i].expect && posix_size(path) == sz, "%s %lld: size %lld, expected %lld",
              steps[i].grow ? "preallocate" : "set_size", (long long)steps[i].to, (long long)sz,
              (long long)steps[i].expect);
        MPI_Barrier(MPI_COMM_WORLD);
    }

    /* The shared pointer under contention: NREC records of (rank, i) per rank. */
    for (int i = 0; i < NREC; i++) {
        int rec[2] = { rank, i };
        MPI_Status st;
        OK(MPI_File_write_shared(fh, rec, 2, MPI_INT, &st));
    }
    MPI_Offset shpos;
    OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    OK(MPI_File_get_position_shared(fh, &shpos));
    CHECK(shpos == (MPI_Offset)size * NREC * 8, "shared position %lld", (long long)shpos);
    if (rank == 0) {
        int *all = malloc((size_t)size * NREC * 8), *seen = calloc((size_t)size * NREC, sizeof *seen);
        int fd = open(path, O_RDONLY);
        CHECK(read(fd, all, (size_t)size * NREC * 8) == size * NREC * 8, "short file");
        close(fd);
        for (int k = 0; k < size * NREC; k++) {
            int r = all[2 * k], i = all[2 * k + 1];
            CHECK(r >= 0 && r < size && i >= 0 && i < NREC && !seen[r * NREC + i]++, "record %d is (%d, %d)", k, r, i);
        }
        free(all);
        free(seen);
    }

    /* Ordered: after the records, rank r writes r+1 ints of value r. */
    int vals[8];
    for (int i = 0; i <= rank; i++)
        vals[i] = 100 + rank;
    MPI_Status st;
    OK(MPI_File_write_ordered(fh, vals, rank + 1, MPI_INT, &st));
    int n = -1;
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == rank + 1, "write_ordered count %d", n);
    OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        int fd = open(path, O_RDONLY), v;
        long at = (long)size * NREC * 8;
        for (int r = 0; r < size; r++)
            for (int i = 0; i <= r; i++, at += 4)
                CHECK(pread(fd, &v, 4, at) == 4 && v == 100 + r, "ordered data at %ld: %d", at, v);
        close(fd);
    }
    /* Read the ordered part back, ordered, after a seek_shared. */
    OK(MPI_File_seek_shared(fh, (MPI_Offset)size * NREC * 8, MPI_SEEK_SET));
    int back[8] = { 0 };
    OK(MPI_File_read_ordered(fh, back, rank + 1, MPI_INT, &st));
    for (int i = 0; i <= rank; i++)
        CHECK(back[i] == 100 + rank, "read_ordered %d: %d", i, back[i]);

    /* A view of ints: seek END and get_view. */
    MPI_Datatype vec;
    MPI_Type_vector(2, 1, size, MPI_INT, &vec);
    MPI_Datatype ft;
    MPI_Type_create_resized(vec, 0, 2 * size * 4, &ft);
    MPI_Type_commit(&ft);
    MPI_Type_free(&vec);
    OK(MPI_File_set_view(fh, 4 * rank, MPI_INT, ft, "native", MPI_INFO_NULL));
    MPI_Offset disp, pos;
    MPI_Datatype et, ft2;
    char rep[MPI_MAX_DATAREP_STRING];
    OK(MPI_File_get_view(fh, &disp, &et, &ft2, rep));
    CHECK(disp == 4 * rank && et == MPI_INT && !strcmp(rep, "native"), "get_view");
    int comb, ni, na, nt;
    MPI_Type_get_envelope(ft2, &ni, &na, &nt, &comb);
    CHECK(comb != MPI_COMBINER_NAMED, "get_view's filetype is not a new derived type");
    MPI_Type_free(&ft2);
    OK(MPI_File_get_position(fh, &pos));
    CHECK(pos == 0, "set_view did not reset the pointer: %lld", (long long)pos);
    OK(MPI_File_seek(fh, 0, MPI_SEEK_END));
    OK(MPI_File_get_position(fh, &pos));
    OK(MPI_File_get_size(fh, &sz));
    /* The file holds sz bytes; this rank owns every size-th int of it. */
    long long ints = sz / 4, mine = 0;
    for (long long k = 0; k < ints; k++)
        mine += k % size == rank;
    CHECK(pos == mine, "seek END: position %lld, expected %lld (size %lld)", (long long)pos, mine, (long long)sz);
    OK(MPI_File_seek(fh, -1, MPI_SEEK_CUR));
    OK(MPI_File_get_position(fh, &pos));
    CHECK(pos == mine - 1, "seek CUR: %lld", (long long)pos);
    MPI_Offset byte;
    OK(MPI_File_get_byte_offset(fh, 3, &byte));
    CHECK(byte == 4 * rank + 2 * size * 4 + size * 4, "byte offset of etype 3: %lld", (long long)byte);

    /* Atomicity. */
    OK(MPI_File_set_atomicity(fh, 1));
    OK(MPI_File_get_atomicity(fh, &flag));
    CHECK(flag == 1, "atomicity %d", flag);
    int one = rank;
    OK(MPI_File_write_at(fh, 0, &one, 1, MPI_INT, &st));
    OK(MPI_File_set_atomicity(fh, 0));

    /* Nonblocking read completed by MPI_Test, in the view. */
    MPI_Request req;
    int got = -1, done = 0;
    OK(MPI_File_iread_at(fh, 0, &got, 1, MPI_INT, &req));
    while (!done)
        MPI_Test(&req, &done, &st);
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(got == rank && n == 1, "iread_at: %d (count %d)", got, n);
    /* A read at the end of the file reads nothing. */
    OK(MPI_File_read_at(fh, mine + 10, &got, 1, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == 0, "read past the end: count %d", n);
    /* Split collectives with the individual pointer. */
    OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    OK(MPI_File_read_all_begin(fh, &got, 1, MPI_INT));
    OK(MPI_File_read_all_end(fh, &got, &st));
    CHECK(got == rank, "read_all split: %d", got);
    OK(MPI_File_get_position(fh, &pos));
    CHECK(pos == 1, "position after read_all_begin/end: %lld", (long long)pos);
    MPI_Type_free(&ft);
    OK(MPI_File_close(&fh));
    CHECK(fh == MPI_FILE_NULL, "close did not set MPI_FILE_NULL");

    /* Nonblocking shared-pointer writes mixed with point-to-point in one
     * Waitall, then a split ordered write: all land, nothing lost. */
    OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    OK(MPI_File_set_size(fh, 0));
    MPI_Request reqs[4];
    int w[2] = { 1000 + rank, 2000 + rank }, token = rank, from = -1;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Irecv(&from, 1, MPI_INT, left, 7, MPI_COMM_WORLD, &reqs[0]);
    OK(MPI_File_iwrite_shared(fh, &w[0], 1, MPI_INT, &reqs[1]));
    MPI_Isend(&token, 1, MPI_INT, right, 7, MPI_COMM_WORLD, &reqs[2]);
    OK(MPI_File_iwrite_shared(fh, &w[1], 1, MPI_INT, &reqs[3]));
    MPI_Status sts[4];
    OK(MPI_Waitall(4, reqs, sts));
    MPI_Get_count(&sts[3], MPI_INT, &n);
    CHECK(from == left && n == 1, "Waitall: from %d, count %d", from, n);
    int ow = 3000 + rank;
    OK(MPI_File_write_ordered_begin(fh, &ow, 1, MPI_INT));
    OK(MPI_File_write_ordered_end(fh, &ow, &st));
    OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        int *all = calloc((size_t)size * 3, sizeof *all), fd = open(path, O_RDONLY);
        CHECK(pread(fd, all, (size_t)size * 12, 0) == size * 12, "short file after iwrite_shared");
        close(fd);
        long long sum = 0;
        for (int k = 0; k < 2 * size; k++)
            sum += all[k];
        CHECK(sum == (long long)size * 3000 + (long long)size * (size - 1), "iwrite_shared records sum %lld", sum);
        for (int r = 0; r < size; r++)
            CHECK(all[2 * size + r] == 3000 + r, "write_ordered_begin: slot %d holds %d", r, all[2 * size + r]);
        free(all);
    }
    OK(MPI_File_close(&fh));

    /* APPEND: the pointers start at the end. */
    MPI_Barrier(MPI_COMM_WORLD);
    long long before = posix_size(path);
    OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY | MPI_MODE_APPEND, MPI_INFO_NULL, &fh));
    OK(MPI_File_get_position(fh, &pos));
    CHECK(pos == before, "APPEND position %lld, size %lld", (long long)pos, before);
    OK(MPI_File_get_position_shared(fh, &pos));
    CHECK(pos == before, "APPEND shared position %lld, size %lld", (long long)pos, before);
    OK(MPI_File_close(&fh));

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        OK(MPI_File_delete(path, MPI_INFO_NULL));
        CHECK(rmdir(dir) == 0, "files left in %s", dir);
    }
    int all = io_test_verdict("io_basic");
    MPI_Finalize();
    return all != 0;
}
