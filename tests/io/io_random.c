/*
 * io_random.c -- randomized differential test of MPI-IO views (issue 37).
 *
 * Every round, each rank picks a random view (displacement, etype, a
 * filetype of random shape: contiguous, vector, indexed, struct with holes,
 * resized), and its data goes through one of the access forms (explicit
 * offset, individual pointer, collective, nonblocking, split collective)
 * with a random memory datatype, under random hints (two-phase and data
 * sieving forced on or off, cb_nodes, buffer sizes).  The filetypes of the ranks interleave:
 * rank r's tiles are placed at displacement r * tile_extent of a group-wide
 * stride, so no two ranks write the same byte.  Each rank computes, with a
 * model written here (the typemap expanded by hand, no MPI), which file
 * bytes its data lands on; rank 0 gathers the models, reads the file back
 * through POSIX and compares byte for byte, and every rank reads its data
 * back through its view and compares.
 *
 * Seed: argument 1 or COREMPI_TEST_SEED; printed.  Files live in a mkdtemp
 * directory under /tmp that the test removes.
 */
#include "io_test.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 40
#define MAXBLK 8

static unsigned long long rng;
static unsigned rnd(unsigned n)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)((rng >> 33) % n);
}


/* A filetype's model: blocks (offset, len) in bytes of one tile of the
 * group (this rank's part), in stream order, and the tile's extent. */
struct model {
    int n;
    long off[MAXBLK], len[MAXBLK];
    long extent;    /* of the group's tile: stride between tiles */
};

/* Build a filetype of etype units; its model is in bytes.  slot: this
 * rank's place in the group tile of nranks slots of slot_bytes each. */
static MPI_Datatype make_filetype(int esz, MPI_Datatype etype, int rank, int nranks, struct model *m)
{
    int kind = rnd(4);
    int nb = 1 + rnd(4);
    int blen[MAXBLK];
    long disp[MAXBLK];
    long at = rnd(3) * esz;    /* a leading hole */
    for (int i = 0; i < nb; i++) {
        blen[i] = 1 + rnd(5);
        disp[i] = at;
        at += (long)blen[i] * esz + (kind == 0 ? 0 : rnd(3) * esz);
    }
    long slot = 32L * esz;   /* one rank's slot: at <= 30 etypes (above) */
    (void)at;
    MPI_Datatype t, r;
    if (kind == 0) {
        int total = 0;
        for (int i = 0; i < nb; i++)
            total += blen[i];
        MPI_Type_contiguous(total, etype, &t);
        nb = 1;
        blen[0] = total;
    } else if (kind == 1) {
        MPI_Aint d[MAXBLK];
        for (int i = 0; i < nb; i++)
            d[i] = disp[i];
        MPI_Type_create_hindexed(nb, blen, d, etype, &t);
    } else if (kind == 2) {
        int d[MAXBLK];
        for (int i = 0; i < nb; i++)
            d[i] = (int)(disp[i] / esz);
        MPI_Type_indexed(nb, blen, d, etype, &t);
    } else {
        MPI_Aint d[MAXBLK];
        MPI_Datatype ts[MAXBLK];
        for (int i = 0; i < nb; i++) {
            d[i] = disp[i];
            ts[i] = etype;
        }
        MPI_Type_create_struct(nb, blen, d, ts, &t);
    }
    /* Shift into this rank's slot and give the group's tile extent. */
    long shift = (long)rank * slot + (kind == 0 ? disp[0] : 0);
    MPI_Aint one = shift;
    int bl = 1;
    MPI_Datatype s;
    MPI_Type_create_hindexed(1, &bl, &one, t, &s);
    MPI_Type_create_resized(s, 0, (MPI_Aint)slot * nranks, &r);
    MPI_Type_free(&t);
    MPI_Type_free(&s);
    MPI_Type_commit(&r);
    m->n = nb;
    m->extent = slot * nranks;
    for (int i = 0; i < nb; i++) {
        m->off[i] = (long)rank * slot + disp[i];
        m->len[i] = (long)blen[i] * esz;
    }
    return r;
}

/* File offset of data-stream byte v under the model (view disp d). */
static long model_map(const struct model *m, long d, long v)
{
    long tsize = 0;
    for (int i = 0; i < m->n; i++)
        tsize += m->len[i];
    long tile = v / tsize, q = v % tsize;
    for (int i = 0; i < m->n; i++) {
        if (q < m->len[i])
            return d + tile * m->extent + m->off[i] + q;
        q -= m->len[i];
    }
    return -1;
}

/* One access of buf through the view, writing or reading, in form form:
 * 0 X_at, 1 X_at_all, 2 seek + X, 3 seek + X_all, 4 iX_at + wait,
 * 5 seek + iX_all + wait, 6 (and above) the split X_at_all_begin/_end. */
static int access_form(MPI_File fh, int write, int form, long start, void *buf, int count, MPI_Datatype t,
                       MPI_Status *st)
{
    MPI_Request req;
    int rc;
    if (form == 2 || form == 3 || form == 5)
        MPI_File_seek(fh, start, MPI_SEEK_SET);
    switch (form) {
    case 0:
        return write ? MPI_File_write_at(fh, start, buf, count, t, st) : MPI_File_read_at(fh, start, buf, count, t, st);
    case 1:
        return write ? MPI_File_write_at_all(fh, start, buf, count, t, st)
                     : MPI_File_read_at_all(fh, start, buf, count, t, st);
    case 2: return write ? MPI_File_write(fh, buf, count, t, st) : MPI_File_read(fh, buf, count, t, st);
    case 3: return write ? MPI_File_write_all(fh, buf, count, t, st) : MPI_File_read_all(fh, buf, count, t, st);
    case 4:
        rc = write ? MPI_File_iwrite_at(fh, start, buf, count, t, &req)
                   : MPI_File_iread_at(fh, start, buf, count, t, &req);
        break;
    case 5:
        rc = write ? MPI_File_iwrite_all(fh, buf, count, t, &req) : MPI_File_iread_all(fh, buf, count, t, &req);
        break;
    default:
        rc = write ? MPI_File_write_at_all_begin(fh, start, buf, count, t)
                   : MPI_File_read_at_all_begin(fh, start, buf, count, t);
        if (!rc)
            rc = write ? MPI_File_write_at_all_end(fh, buf, st) : MPI_File_read_at_all_end(fh, buf, st);
        return rc;
    }
    MPI_Wait(&req, st);
    return rc;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned long long seed = argc > 1 ? strtoull(argv[1], NULL, 0)
                              : getenv("COREMPI_TEST_SEED") ? strtoull(getenv("COREMPI_TEST_SEED"), NULL, 0)
                                                            : (unsigned long long)time(NULL);
    MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("io_random: seed %llu (rerun: io_random %llu or COREMPI_TEST_SEED=%llu)\n", seed, seed, seed);

    char dir[64] = "/tmp/cm_io_randomXXXXXX", path[128];
    io_test_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/f", dir);

    for (int round = 0; round < ROUNDS; round++) {
        /* Every rank draws the same shared choices first, then its own. */
        rng = seed * 1000003ULL + (unsigned long long)round;
        int esz_pick = rnd(3);
        MPI_Datatype etype = esz_pick == 0 ? MPI_BYTE : esz_pick == 1 ? MPI_INT : MPI_DOUBLE;
        int esz = esz_pick == 0 ? 1 : esz_pick == 1 ? 4 : 8;
        long d = (long)rnd(64);
        int form = rnd(7), rform = rnd(4);
        /* Hints, the same on every rank: two-phase and sieving forced on,
         * off or left automatic, few aggregators and small buffers so
         * that a collective takes several rounds. */
        static const char *const modes[] = { "automatic", "enable", "disable" };
        MPI_Info info;
        char v[16];
        MPI_Info_create(&info);
        MPI_Info_set(info, "romio_cb_write", modes[rnd(3)]);
        MPI_Info_set(info, "romio_cb_read", modes[rnd(3)]);
        MPI_Info_set(info, "romio_ds_write", modes[rnd(3)]);
        MPI_Info_set(info, "romio_ds_read", modes[rnd(3)]);
        snprintf(v, sizeof v, "%u", 1 + rnd((unsigned)size));
        MPI_Info_set(info, "cb_nodes", v);
        snprintf(v, sizeof v, "%u", 16 + rnd(2000));
        MPI_Info_set(info, "cb_buffer_size", v);
        snprintf(v, sizeof v, "%u", 1 + rnd(256));
        MPI_Info_set(info, "striping_unit", v);
        snprintf(v, sizeof v, "%u", 8 + rnd(500));
        MPI_Info_set(info, "ind_wr_buffer_size", v);
        MPI_Info_set(info, "ind_rd_buffer_size", v);
        rng += (unsigned long long)rank * 7919ULL;
        struct model m;
        MPI_Datatype ft = make_filetype(esz, etype, rank, size, &m);

        /* Memory: count elements of a vector of etypes with gaps, or contiguous. */
        int blocklen = 1 + rnd(3), count = 1 + rnd(20), stride = blocklen + rnd(2);
        MPI_Datatype mt;
        MPI_Type_vector(1, blocklen, stride, etype, &mt);
        MPI_Datatype mtr;
        MPI_Type_create_resized(mt, 0, (MPI_Aint)stride * esz, &mtr);
        MPI_Type_free(&mt);
        MPI_Type_commit(&mtr);
        long nbytes = (long)count * blocklen * esz;
        size_t memlen = (size_t)count * stride * esz;
        unsigned char *mem = malloc(memlen), *back = calloc(1, memlen), *packed = malloc(nbytes);
        for (size_t i = 0; i < memlen; i++)
            mem[i] = (unsigned char)(rnd(255) + 1);
        for (int c = 0, k = 0; c < count; c++)
            for (int j = 0; j < blocklen * esz; j++)
                packed[k++] = mem[(size_t)c * stride * esz + j];

        MPI_File fh;
        int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                               info, &fh);
        MPI_Info_free(&info);
        CHECK(rc == MPI_SUCCESS, "round %d: open rc %d", round, rc);
        rc = MPI_File_set_view(fh, d, etype, ft, "native", MPI_INFO_NULL);
        CHECK(rc == MPI_SUCCESS, "round %d: set_view rc %d", round, rc);
        long start = rnd(4);        /* etypes into the view */
        MPI_Status st;
        rc = access_form(fh, 1, form, start, mem, count, mtr, &st);
        CHECK(rc == MPI_SUCCESS, "round %d form %d: write rc %d", round, form, rc);
        int got = -1;
        MPI_Get_count(&st, mtr, &got);
        CHECK(got == count, "round %d form %d: write count %d, expected %d", round, form, got, count);
        if (form == 2 || form == 3 || form == 5) {
            MPI_Offset pos;
            MPI_File_get_position(fh, &pos);
            CHECK(pos == start + nbytes / esz, "round %d: position %lld, expected %ld", round, (long long)pos,
                  start + nbytes / esz);
        }
        MPI_Offset b0;
        MPI_File_get_byte_offset(fh, start, &b0);
        CHECK(b0 == model_map(&m, d, start * esz), "round %d: byte offset %lld, model %ld", round, (long long)b0,
              model_map(&m, d, start * esz));
        MPI_File_sync(fh);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_File_sync(fh);

        /* POSIX check: every rank checks its own bytes. */
        int fd = open(path, O_RDONLY);
        CHECK(fd >= 0, "round %d: open for the check", round);
        long bad = 0;
        for (long v = 0; v < nbytes && fd >= 0; v++) {
            unsigned char c = 0;
            long off = model_map(&m, d, start * esz + v);
            if (pread(fd, &c, 1, off) != 1 || c != packed[v])
                bad++;
        }
        if (fd >= 0)
            close(fd);
        CHECK(bad == 0, "round %d form %d: %ld of %ld bytes differ from the model (esz %d, d %ld)", round, form, bad,
              nbytes, esz, d);

        /* Read back through the view, another form (the same on every
         * rank: a collective one must be called by all). */
        rc = access_form(fh, 0, rform == 3 ? 4 : rform, start, back, count, mtr, &st);
        CHECK(rc == MPI_SUCCESS, "round %d: read rc %d", round, rc);
        MPI_Get_count(&st, mtr, &got);
        CHECK(got == count, "round %d: read count %d, expected %d", round, got, count);
        for (int c = 0; c < count; c++)
            CHECK(!memcmp(back + (size_t)c * stride * esz, mem + (size_t)c * stride * esz, (size_t)blocklen * esz),
                  "round %d read form %d: element %d differs", round, rform, c);
        rc = MPI_File_close(&fh);
        CHECK(rc == MPI_SUCCESS, "round %d: close rc %d", round, rc);
        CHECK(access(path, F_OK) != 0, "round %d: DELETE_ON_CLOSE left the file", round);
        MPI_Type_free(&ft);
        MPI_Type_free(&mtr);
        free(mem);
        free(back);
        free(packed);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        rmdir(dir);
    int all = io_test_verdict("io_random");
    MPI_Finalize();
    return all != 0;
}
