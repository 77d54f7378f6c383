/*
 * part_shapes.c -- the send side and the receive side cut one message into
 * different numbers of partitions (MPI-4.1 chapter 4: only the total type
 * signature must match), as MPICH's start_pready -spart=S -rpart=R does.
 *
 * Ring: every rank sends `total` doubles to the right in S partitions and
 * receives from the left in R partitions; -iters rounds of Startall, Pready
 * of every send partition in a random order (Pready, Pready_range and
 * Pready_list mixed), Parrived polled on every receive partition (its data
 * checked as soon as it says arrived), Waitall, then the whole buffer.
 * Arguments: -spart=S -rpart=R -total=N (a multiple of both) -iters=I -seed=X.
 * On main 913623a, S > R gave zeros with no error and S < R hung.
 */
#include "part_common.h"

static double value(int rank, int iter, long k) { return (double)(rank + 1) * 1e9 + iter * 1e7 + (double)k; }

int main(int argc, char **argv)
{
    int rank, size;
    unsigned long seed = part_start(&argc, &argv, "part_shapes", &rank, &size);
    int spart = (int)part_arg(argc, argv, "spart", 4096), rpart = (int)part_arg(argc, argv, "rpart", 512);
    long total = part_arg(argc, argv, "total", 4096L * 64);
    int iters = (int)part_arg(argc, argv, "iters", 4);
    CHECK(total % spart == 0 && total % rpart == 0, "total %ld must be a multiple of %d and %d", total, spart, rpart);
    int scount = (int)(total / spart), rcount = (int)(total / rpart);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    double *out = malloc(sizeof(double) * (size_t)total), *in = malloc(sizeof(double) * (size_t)total);
    int *order = malloc(sizeof(int) * (size_t)spart), *seen = malloc(sizeof(int) * (size_t)rpart);
    CHECK(out && in && order && seen, "out of memory");
    MPI_Request rq[2];
    CHECK_MPI(MPI_Psend_init(out, spart, scount, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[0]));
    CHECK_MPI(MPI_Precv_init(in, rpart, rcount, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[1]));
    unsigned long s = seed;
    long wrong = 0;
    for (int it = 0; it < iters; it++) {
        for (long k = 0; k < total; k++) {
            out[k] = value(rank, it, k);
            in[k] = 0.0;
        }
        CHECK_MPI(MPI_Startall(2, rq));
        part_shuffle(order, spart, &s);
        part_ready_mixed(rq[0], order, spart, &s);
        memset(seen, 0, sizeof(int) * (size_t)rpart);
        for (int arrived = 0; arrived < rpart;)
            for (int j = 0; j < rpart; j++) {
                int flag = 0;
                if (seen[j])
                    continue;
                CHECK_MPI(MPI_Parrived(rq[1], j, &flag));
                if (!flag)
                    continue;
                seen[j] = 1;
                arrived++;
                for (long k = (long)j * rcount; k < (long)(j + 1) * rcount; k++)
                    PCHECK(in[k] == value(left, it, k), "iter %d: receive partition %d said arrived, element %ld is %.1f, "
                           "expected %.1f", it, j, k, in[k], value(left, it, k));
            }
        CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
        for (long k = 0; k < total; k++)
            wrong += in[k] != value(left, it, k);
        PCHECK(wrong == 0, "iter %d: %ld wrong elements (spart %d rpart %d)", it, wrong, spart, rpart);
    }
    CHECK_MPI(MPI_Request_free(&rq[0]));
    CHECK_MPI(MPI_Request_free(&rq[1]));
    free(out);
    free(in);
    free(order);
    free(seen);
    CHECK_MPI(MPI_Finalize());
    return 0;
}
