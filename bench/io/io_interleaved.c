/*
 * io_interleaved.c -- issue 37's I/O bar: every rank owns interleaved
 * BLOCK-byte blocks of a TOTAL-byte file through a vector view; times
 * collective write_all + sync and read_all (the best of REPS), and a
 * contiguous write_at_all of the same size per rank against plain pwrite.
 * Standard MPI only: builds with corempi's, Open MPI's or MPICH's mpicc
 * (bench/io/io_run.sh runs them side by side in `make bench`).
 * Usage: io_interleaved [total_MiB [block_KiB [reps]]]   (defaults 128 64 3)
 */
#include <mpi.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long long total = (argc > 1 ? atoll(argv[1]) : 128) << 20;
    long long block = (argc > 2 ? atoll(argv[2]) : 64) << 10;
    int reps = argc > 3 ? atoi(argv[3]) : 3;
    long long mine = total / size, nblk = mine / block;
    char dir[64] = "/tmp/cm_io_benchXXXXXX", path[128];
    if (rank == 0 && !mkdtemp(dir))
        MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
    snprintf(path, sizeof path, "%s/f", dir);
    char *buf = malloc(mine);
    memset(buf, 'a' + rank, mine);

    MPI_Datatype vec, ft;
    MPI_Type_vector((int)nblk, (int)block, (int)(block * size), MPI_BYTE, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)(block * size * nblk), &ft);
    MPI_Type_commit(&ft);
    double tw = 1e30, tr = 1e30, tc = 1e30, tp = 1e30;
    for (int r = 0; r < reps; r++) {
        MPI_File fh;
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
        MPI_File_set_view(fh, rank * block, MPI_BYTE, ft, "native", MPI_INFO_NULL);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        MPI_File_write_all(fh, buf, (int)mine, MPI_BYTE, MPI_STATUS_IGNORE);
        MPI_File_sync(fh);
        MPI_Barrier(MPI_COMM_WORLD);
        double t1 = MPI_Wtime();
        MPI_File_seek(fh, 0, MPI_SEEK_SET);
        MPI_File_read_all(fh, buf, (int)mine, MPI_BYTE, MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
        double t2 = MPI_Wtime();
        MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
        MPI_Barrier(MPI_COMM_WORLD);
        double t3 = MPI_Wtime();
        MPI_File_write_at_all(fh, rank * mine, buf, (int)mine, MPI_BYTE, MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
        double t4 = MPI_Wtime();
        MPI_File_close(&fh);
        int fd = open(path, O_WRONLY);
        MPI_Barrier(MPI_COMM_WORLD);
        double t5 = MPI_Wtime();
        for (long long k = 0; k < mine;) {
            ssize_t n = pwrite(fd, buf + k, mine - k, rank * mine + k);
            if (n <= 0)
                break;
            k += n;
        }
        MPI_Barrier(MPI_COMM_WORLD);
        double t6 = MPI_Wtime();
        close(fd);
        if (t1 - t0 < tw) tw = t1 - t0;
        if (t2 - t1 < tr) tr = t2 - t1;
        if (t4 - t3 < tc) tc = t4 - t3;
        if (t6 - t5 < tp) tp = t6 - t5;
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0)
            unlink(path);
    }
    if (rank == 0) {
        printf("ranks %d, file %lld MiB, blocks %lld KiB, best of %d\n", size, total >> 20, block >> 10, reps);
        printf("vector view: write_all+sync %.3f s, read_all %.3f s\n", tw, tr);
        printf("contiguous: write_at_all %.3f s (%.0f MiB/s), pwrite %.3f s (%.0f MiB/s), ratio %.2f\n", tc,
               total / tc / 1048576, tp, total / tp / 1048576, tp / tc);
        /* For bench/io/io_run.sh (make bench): "<prog> <metric> <bytes> <seconds>". */
        printf("io_interleaved write_all_sync %lld %.6f\n", total, tw);
        printf("io_interleaved read_all %lld %.6f\n", total, tr);
        rmdir(dir);
    }
    MPI_Type_free(&vec);
    MPI_Type_free(&ft);
    free(buf);
    MPI_Finalize();
    return 0;
}
