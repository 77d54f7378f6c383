/* The communication skeleton of miniAMR's stages (Mantevo/miniAMR), whose
 * own timer read 1.16x Open MPI at 2 ranks in issue 38.
 *
 * The ranks form a non-periodic 3-D grid (MPI_Dims_create; at 2 ranks 2x1x1),
 * each owning BLOCKS blocks of 10^3 cells and VARS variables.  One stage:
 * for each axis x, y, z in turn (miniAMR's comm()), MPI_Irecv from each
 * neighbour on that axis, pack the faces of the blocks that border it into
 * one message (BLOCKS/2 faces of 10x10xVARS doubles: 128 KB at the
 * defaults), MPI_Isend, MPI_Waitall, unpack; the on-rank faces are copied
 * (work); then the 7-point stencil over every block (work).  Every
 * CHECKSUM_FREQ stages, MPI_Allreduce of VARS doubles (the checksum); every
 * REFINE_FREQ stages, refinement's bookkeeping: MPI_Allreduce of 1 int three
 * times (blocks to refine, to coarsen, the total) and MPI_Allreduce of
 * 3 ints with MPI_MAX.  Messages carry stamps of (stage, sender, axis,
 * side) in their first and last word, checked.
 * Prints: miniamr ranks=N us_per_stage=X */
#include "pattern_bench.h"

enum { BLOCKS = 8, VARS = 40, FACE = 10 * 10, CHECKSUM_FREQ = 5, REFINE_FREQ = 20, STENCIL_UNITS = 2500 };

struct amr {
    int nb[3][2];
    double *sbuf[2], *rbuf[2];
    int n; /* doubles per message */
};

static void stage(void *ctx, long round)
{
    struct amr *a = ctx;
    for (int axis = 0; axis < 3; axis++) {
        MPI_Request req[4];
        int nreq = 0;
        for (int side = 0; side < 2; side++)
            if (a->nb[axis][side] >= 0)
                MPI_Irecv(a->rbuf[side], a->n, MPI_DOUBLE, a->nb[axis][side], axis * 2 + !side, MPI_COMM_WORLD,
                          &req[nreq++]);
        for (int side = 0; side < 2; side++) {
            if (a->nb[axis][side] < 0) {
                pat_work(a->n / 64); /* a boundary face: set from the block itself */
                continue;
            }
            pat_work(a->n / 128); /* packing */
            double s = pat_stamp((uint64_t)round, (uint64_t)pat_rank, (uint64_t)axis, (uint64_t)side);
            a->sbuf[side][0] = a->sbuf[side][a->n - 1] = s;
            MPI_Isend(a->sbuf[side], a->n, MPI_DOUBLE, a->nb[axis][side], axis * 2 + side, MPI_COMM_WORLD,
                      &req[nreq++]);
        }
        pat_work(BLOCKS * FACE * VARS / 256); /* faces between blocks of this rank */
        MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
        for (int side = 0; side < 2; side++) {
            if (a->nb[axis][side] < 0)
                continue;
            long want = pat_stamp((uint64_t)round, (uint64_t)a->nb[axis][side], (uint64_t)axis, (uint64_t)!side);
            pat_expect((long)a->rbuf[side][0], want, "miniamr: first word of a face message");
            pat_expect((long)a->rbuf[side][a->n - 1], want, "miniamr: last word of a face message");
            pat_work(a->n / 128); /* unpacking */
        }
    }
    pat_work(STENCIL_UNITS);
    if (round % CHECKSUM_FREQ == 0) {
        double sums[VARS], all[VARS];
        for (int v = 0; v < VARS; v++)
            sums[v] = v;
        MPI_Allreduce(sums, all, VARS, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        pat_expect((long)all[VARS - 1], (long)(VARS - 1) * pat_size, "miniamr: checksum");
    }
    if (round % REFINE_FREQ == 0) {
        for (int i = 0; i < 3; i++) {
            int mine = BLOCKS + i, total;
            MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            pat_expect(total, mine * pat_size, "miniamr: refinement count");
        }
        int lv[3] = {pat_rank, 1, 2}, mx[3];
        MPI_Allreduce(lv, mx, 3, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        pat_expect(mx[0], pat_size - 1, "miniamr: max level");
    }
}

int main(int argc, char **argv)
{
    struct pat_opts o = pat_init(&argc, &argv, "miniamr");
    int dims[3];
    struct amr a;
    pat_grid3(0, dims, a.nb);
    a.n = BLOCKS / 2 * FACE * VARS;
    for (int side = 0; side < 2; side++) {
        a.sbuf[side] = calloc((size_t)a.n, sizeof(double));
        a.rbuf[side] = calloc((size_t)a.n, sizeof(double));
        if (!a.sbuf[side] || !a.rbuf[side])
            MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (pat_rank == 0)
        printf("# miniamr grid %dx%dx%d, %d blocks of 10^3 cells, %d variables, %d B per face message\n", dims[0],
               dims[1], dims[2], BLOCKS, VARS, a.n * 8);
    if (pat_wanted(&o, "stage")) {
        double t = pat_measure(stage, &a, &o);
        if (pat_rank == 0)
            printf("miniamr ranks=%d us_per_stage=%.1f\n", pat_size, t * 1e6);
    }
    for (int side = 0; side < 2; side++)
        free(a.sbuf[side]), free(a.rbuf[side]);
    MPI_Finalize();
    return 0;
}
