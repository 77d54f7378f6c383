/*
 * io_atomic.c -- atomic mode (MPI-4.1 14.6.1) under contention: the ranks
 * write the same non-contiguous region at once (each access is many
 * pwrites: 512-byte blocks every 1 KiB, sieving off), each with its own
 * byte; rank n-1 (from 3 ranks) reads the region meanwhile.  Every access
 * must be seen whole: after each round the region holds one writer's byte
 * throughout, and every read saw one value throughout.  Files live in a
 * mkdtemp directory under /tmp that the test removes.
 */
#include "io_test.h"

#include <string.h>
#include <unistd.h>

#define BLOCKS 256
#define BLK 512
#define ROUNDS 20

int main(int argc, char **argv)
{
    char dir[64] = "/tmp/cm_io_atomicXXXXXX", path[128];
    io_test_init(&argc, &argv, dir, sizeof dir);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    snprintf(path, sizeof path, "%s/f", dir);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_ds_write", "disable");
    MPI_Info_set(info, "romio_ds_read", "disable");
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, info, &fh);
    MPI_Info_free(&info);
    CHECK(rc == MPI_SUCCESS, "open rc %d", rc);
    MPI_Datatype ft;
    MPI_Type_vector(BLOCKS, BLK, 2 * BLK, MPI_BYTE, &ft);
    MPI_Type_commit(&ft);
    MPI_File_set_view(fh, 0, MPI_BYTE, ft, "native", MPI_INFO_NULL);
    MPI_File_set_atomicity(fh, 1);
    static unsigned char buf[BLOCKS * BLK], back[BLOCKS * BLK];
    int reader = size >= 3 && rank == size - 1;
    for (int r = 0; r < ROUNDS; r++) {
        memset(buf, 1 + rank + r * size, sizeof buf);
        MPI_Barrier(MPI_COMM_WORLD);
        for (int k = 0; k < 4; k++) {
            MPI_Status st;
            if (reader) {
                rc = MPI_File_read_at(fh, 0, back, sizeof back, MPI_BYTE, &st);
                int got = 0;
                MPI_Get_count(&st, MPI_BYTE, &got);
                long mixed = 0;
                for (int i = 1; i < got; i++)
                    mixed += back[i] != back[0];
                CHECK(rc == MPI_SUCCESS && mixed == 0, "round %d: a read saw %ld bytes of other writes", r, mixed);
            } else {
                rc = MPI_File_write_at(fh, 0, buf, sizeof buf, MPI_BYTE, &st);
                CHECK(rc == MPI_SUCCESS, "round %d: write rc %d", r, rc);
            }
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            MPI_Status st;
            MPI_File_read_at(fh, 0, back, sizeof back, MPI_BYTE, &st);
            long mixed = 0;
            for (int i = 1; i < BLOCKS * BLK; i++)
                mixed += back[i] != back[0];
            CHECK(mixed == 0, "round %d: %ld bytes differ from the first: the writes interleaved", r, mixed);
        }
    }
    MPI_File_close(&fh);
    MPI_Type_free(&ft);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        rmdir(dir);
    int all = io_test_verdict("io_atomic");
    MPI_Finalize();
    return all != 0;
}
