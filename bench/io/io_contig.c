/*
 * io_contig.c -- issue 37's second I/O bar: a contiguous collective write
 * of TOTAL bytes by all ranks (each its own 1/size, MPI_File_write_at_all)
 * against the same ranks calling pwrite directly on the same layout.  Each
 * repetition writes a new file both ways, in alternating order (so neither
 * always meets the page cache the other left); no sync on either side.
 * Standard MPI only: builds with corempi's, Open MPI's or MPICH's mpicc
 * (bench/io/io_run.sh, `BENCH_PARTS=io bash bench/run.sh`).
 *
 * Usage: io_contig [total_MiB [reps]]   (defaults 1024 3)
 * Prints the median over reps as "io_contig <metric> <bytes> <value>":
 * write_at_all and pwrite in seconds, and ratio = the MPI call's rate over
 * pwrite's (the issue asks at least 0.8).
 */
#include <mpi.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char path[128];

static double median(double *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* A new file: rank 0 removes the last one, everyone waits. */
static void fresh(int rank)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
}

static double with_mpi(int rank, const char *buf, long long mine)
{
    MPI_File fh;
    fresh(rank);
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    MPI_File_write_at_all(fh, rank * mine, buf, (int)mine, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime() - t0;
    MPI_File_close(&fh);
    return t;
}

static double with_pwrite(int rank, const char *buf, long long mine)
{
    fresh(rank);
    int fd = open(path, O_WRONLY | O_CREAT, 0644);
    if (fd < 0)
        MPI_Abort(MPI_COMM_WORLD, 3);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long long k = 0; k < mine;) {
        ssize_t n = pwrite(fd, buf + k, (size_t)(mine - k), rank * mine + k);
        if (n <= 0)
            MPI_Abort(MPI_COMM_WORLD, 4);
        k += n;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime() - t0;
    close(fd);
    return t;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long long total = (argc > 1 ? atoll(argv[1]) : 1024) << 20;
    int reps = argc > 2 ? atoi(argv[2]) : 3;
    if (reps < 1 || reps > 64)
        reps = 3;
    long long mine = total / size;
    if (mine > 0x7fffffff) {     /* int counts: Open MPI 4 has no _c forms */
        if (rank == 0)
            fprintf(stderr, "io_contig: %lld bytes per rank is beyond an int count: use more ranks\n", mine);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char dir[64] = "/tmp/cm_io_contigXXXXXX";
    if (rank == 0 && !mkdtemp(dir))
        MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
    snprintf(path, sizeof path, "%s/f", dir);
    char *buf = malloc((size_t)mine);
    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 1);
    memset(buf, 'a' + rank, (size_t)mine);

    double tm[64], tp[64];
    for (int r = 0; r < reps; r++) {
        if (r % 2) {
            tp[r] = with_pwrite(rank, buf, mine);
            tm[r] = with_mpi(rank, buf, mine);
        } else {
            tm[r] = with_mpi(rank, buf, mine);
            tp[r] = with_pwrite(rank, buf, mine);
        }
    }
    fresh(rank);
    if (rank == 0) {
        double m = median(tm, reps), p = median(tp, reps);
        printf("io_contig write_at_all %lld %.6f\n", total, m);
        printf("io_contig pwrite %lld %.6f\n", total, p);
        printf("io_contig ratio %lld %.4f\n", total, p / m);
        rmdir(dir);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
