/* Test-polling halo exchange: the loop of a stencil code that overlaps its
 * interior work with the halo transfer and polls for completion.
 *
 * The ranks form a 2-D grid (MPI_Dims_create, not periodic: a rank on an edge
 * has fewer neighbours; at 2 ranks the grid is 2x1, a 1-D halo).  One
 * iteration: Irecv from every neighbour, Isend to every neighbour, then
 *   loop { one chunk of interior work, while any is left; MPI_Testall }
 * until the transfers are done and the work too: a library that needs the
 * poll to move data, or that keeps the core while its peer needs it, shows.
 * Prints, per message size (8 B and 16 KiB):
 *   halo ranks=N bytes=B us_per_iter=X
 * Every message carries stamps of (iteration, sender, direction) in its first
 * and last word, checked on arrival. */
#include "pattern_bench.h"

enum { DIRS = 4, WORK_CHUNKS = 16, CHUNK_UNITS = 4 };

struct halo {
    int nb[DIRS]; /* the neighbour in direction d, or -1 */
    int ints;
    int *sbuf[DIRS], *rbuf[DIRS];
    MPI_Request req[2 * DIRS];
};

static void halo_iteration(void *ctx, long round)
{
    struct halo *h = ctx;
    int nreq = 0, flag = 0, chunks = WORK_CHUNKS;
    /* A message sent towards direction d arrives from direction d ^ 1. */
    for (int e = 0; e < DIRS; e++)
        if (h->nb[e] >= 0)
            MPI_Irecv(h->rbuf[e], h->ints, MPI_INT, h->nb[e], e ^ 1, MPI_COMM_WORLD, &h->req[nreq++]);
    for (int d = 0; d < DIRS; d++) {
        if (h->nb[d] < 0)
            continue;
        int s = pat_stamp((uint64_t)round, (uint64_t)pat_rank, (uint64_t)d, 1);
        h->sbuf[d][0] = s;
        h->sbuf[d][h->ints - 1] = s ^ 0x155;
        MPI_Isend(h->sbuf[d], h->ints, MPI_INT, h->nb[d], d, MPI_COMM_WORLD, &h->req[nreq++]);
    }
    while (!flag || chunks) {
        if (chunks) {
            pat_work(CHUNK_UNITS);
            chunks--;
        }
        if (!flag)
            MPI_Testall(nreq, h->req, &flag, MPI_STATUSES_IGNORE);
    }
    for (int e = 0; e < DIRS; e++) {
        if (h->nb[e] < 0)
            continue;
        int s = pat_stamp((uint64_t)round, (uint64_t)h->nb[e], (uint64_t)(e ^ 1), 1);
        pat_expect(h->rbuf[e][0], s, "halo: first word of a neighbour's message");
        pat_expect(h->rbuf[e][h->ints - 1], s ^ 0x155, "halo: last word of a neighbour's message");
    }
}

int main(int argc, char **argv)
{
    struct pat_opts o = pat_init(&argc, &argv, "halo");
    static const int sizes[] = {8, 16384};
    int dims[2] = {0, 0};
    MPI_Dims_create(pat_size, 2, dims);
    int cx = pat_rank / dims[1], cy = pat_rank % dims[1];
    struct halo h;
    h.nb[0] = cx > 0 ? pat_rank - dims[1] : -1;
    h.nb[1] = cx < dims[0] - 1 ? pat_rank + dims[1] : -1;
    h.nb[2] = cy > 0 ? pat_rank - 1 : -1;
    h.nb[3] = cy < dims[1] - 1 ? pat_rank + 1 : -1;
    if (pat_rank == 0)
        printf("# halo grid %dx%d, %d chunks of work between polls\n", dims[0], dims[1], WORK_CHUNKS);

    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        h.ints = sizes[i] / (int)sizeof(int);
        for (int d = 0; d < DIRS; d++) {
            h.sbuf[d] = calloc((size_t)h.ints, sizeof(int));
            h.rbuf[d] = calloc((size_t)h.ints, sizeof(int));
            if (!h.sbuf[d] || !h.rbuf[d])
                MPI_Abort(MPI_COMM_WORLD, 2);
        }
        double t = pat_measure(halo_iteration, &h, &o);
        if (pat_rank == 0) {
            printf("halo ranks=%d bytes=%d us_per_iter=%.3f\n", pat_size, sizes[i], t * 1e6);
            fflush(stdout);
        }
        for (int d = 0; d < DIRS; d++) {
            free(h.sbuf[d]);
            free(h.rbuf[d]);
        }
    }
    MPI_Finalize();
    return 0;
}
