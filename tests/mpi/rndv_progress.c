/*
 * rndv_progress -- a rendezvous send progresses while its sender waits in a
 * shared-memory collective (MPI-4.1 §3.7.4: a blocking call must not
 * prevent the completion of a matching send or receive).
 *
 * Each case has one sender (rotating over the ranks) that sends a message
 * above the eager size to every other rank (MPI_Isend or MPI_Bsend), then
 * enters a collective (Barrier, Bcast rooted at it, or Allreduce), then
 * waits for its sends.  The receivers post their receive
 *   before  as a blocking MPI_Recv before the collective: it needs the sender
 *           to stream (CTS) or write its part (split copy) while the sender
 *           is inside the collective;
 *   around  as MPI_Irecv before the collective, MPI_Wait after;
 *   after   after the collective.
 * And the mirror case: the sender waits for its MPI_Isend before the
 * collective while the receivers sit in it with their MPI_Irecv pending (the
 * receiver must drain its ring while it waits in the collective).
 * Messages: 20 KB and 1 MB contiguous (streamed through the ring with a core
 * per rank, split copy from the second message of a pair on with more ranks
 * than cores), 4 MB (split copy from the second message of a pair on: the
 * receiver's WCTS needs the sender to write its half) and a strided vector
 * of 64 KB of ints (a non-contiguous sender always streams).  Every byte is
 * checked.
 * Before 2026-11-29 the senders' collective waits ran no point-to-point
 * progress when nothing was posted: "before" hung at every size.
 * Prints "rndv_progress ok"; -v names each case as it starts, -k K runs the
 * messages of kind K (0-3, in the order above) only.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ISEND, BSEND };
enum { BARRIER, BCAST, ALLREDUCE };
enum { BEFORE, AROUND, AFTER, SENDER_FIRST };

static const char *const mode_name[] = { "Isend", "Bsend" };
static const char *const coll_name[] = { "Barrier", "Bcast", "Allreduce" };
static const char *const order_name[] = { "before", "around", "after", "sender-waits-first" };

#define VEC_INTS 16384          /* non-contiguous message: 64 KB of ints, stride 2 */

struct kind {
    const char *name;
    int count;                  /* elements of type */
    MPI_Datatype type;
    size_t span;                /* ints the buffer spans */
};

static int rank, size, verbose, bad;

static int value(int round, int dst, size_t i)
{
    return (int)(round * 7919 + dst * 104729 + (int)i * 31 + 1);
}

/* Is int i of the buffer part of the message? */
static int in_message(const struct kind *k, size_t i)
{
    return k->type == MPI_INT || i % 2 == 0;
}

static void collective(int coll, int root, int round)
{
    if (coll == BARRIER) {
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (coll == BCAST) {
        int v[8];
        for (int i = 0; i < 8; i++)
            v[i] = rank == root ? round + i : -1;
        MPI_Bcast(v, 8, MPI_INT, root, MPI_COMM_WORLD);
        for (int i = 0; i < 8; i++)
            if (v[i] != round + i && bad++ < 10)
                fprintf(stderr, "rndv_progress: rank %d: round %d: Bcast word %d is %d\n", rank, round, i, v[i]);
    } else {
        int in = rank + round, out = -1;
        MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (out != size * (size - 1) / 2 + size * round && bad++ < 10)
            fprintf(stderr, "rndv_progress: rank %d: round %d: Allreduce gave %d\n", rank, round, out);
    }
}

static void run_case(const struct kind *k, int mode, int coll, int order, int round, int *sbuf[], int *rbuf)
{
    int sender = round % size;
    if (verbose && rank == 0) {
        printf("rndv_progress: round %d: %s %s from rank %d, receivers %s, %s\n", round, k->name,
               mode_name[mode], sender, order_name[order], coll_name[coll]);
        fflush(stdout);
    }
    if (rank == sender) {
        MPI_Request q[64];
        int n = 0;
        for (int d = 0; d < size; d++) {
            if (d == sender)
                continue;
            for (size_t i = 0; i < k->span; i++)
                sbuf[d][i] = value(round, d, i);
            if (mode == BSEND)
                MPI_Bsend(sbuf[d], k->count, k->type, d, round, MPI_COMM_WORLD);
            else
                MPI_Isend(sbuf[d], k->count, k->type, d, round, MPI_COMM_WORLD, &q[n++]);
        }
        if (order == SENDER_FIRST) {
            MPI_Waitall(n, q, MPI_STATUSES_IGNORE);
            collective(coll, sender, round);
        } else {
            collective(coll, sender, round);
            MPI_Waitall(n, q, MPI_STATUSES_IGNORE);
        }
        if (mode == BSEND)
            MPI_Buffer_flush();
    } else {
        for (size_t i = 0; i < k->span; i++)
            rbuf[i] = -7;
        MPI_Request q = MPI_REQUEST_NULL;
        if (order == BEFORE)
            MPI_Recv(rbuf, k->count, k->type, sender, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else if (order != AFTER)
            MPI_Irecv(rbuf, k->count, k->type, sender, round, MPI_COMM_WORLD, &q);
        collective(coll, sender, round);
        if (order == AFTER)
            MPI_Recv(rbuf, k->count, k->type, sender, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else
            MPI_Wait(&q, MPI_STATUS_IGNORE);
        for (size_t i = 0; i < k->span; i++) {
            int want = in_message(k, i) ? value(round, rank, i) : -7;
            if (rbuf[i] != want && bad++ < 10)
                fprintf(stderr, "rndv_progress: rank %d: round %d (%s %s, %s, %s): int %zu is %d, not %d\n",
                        rank, round, k->name, mode_name[mode], order_name[order], coll_name[coll], i, rbuf[i],
                        want);
        }
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int only = -1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-v"))
            verbose = 1;
        else if (!strcmp(argv[i], "-k") && i + 1 < argc)
            only = atoi(argv[++i]);
    }
    if (size < 2 || size > 64) {
        if (rank == 0)
            printf("rndv_progress: needs 2-64 ranks\n");
        MPI_Finalize();
        return 0;
    }
    MPI_Datatype vec;
    MPI_Type_vector(VEC_INTS, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    const struct kind kinds[] = {
        { "20 KB", 20 * 1024 / 4, MPI_INT, 20 * 1024 / 4 },
        { "1 MB", 1024 * 1024 / 4, MPI_INT, 1024 * 1024 / 4 },
        { "4 MB", 4096 * 1024 / 4, MPI_INT, 4096 * 1024 / 4 },
        { "vector 64 KB", 1, vec, 2 * VEC_INTS - 1 },
    };
    const int nkinds = (int)(sizeof kinds / sizeof kinds[0]);
    size_t most = 0;
    for (int k = 0; k < nkinds; k++)
        if (kinds[k].span > most)
            most = kinds[k].span;
    int **sbuf = malloc((size_t)size * sizeof *sbuf);
    for (int d = 0; d < size; d++)
        sbuf[d] = malloc(most * sizeof(int));
    int *rbuf = malloc(most * sizeof(int));
    int bsize = (size - 1) * (int)(most * sizeof(int) + MPI_BSEND_OVERHEAD);
    char *bspace = malloc((size_t)bsize);
    MPI_Buffer_attach(bspace, bsize);
    /* Every collective's shared area exists before the first case: making
     * one runs point-to-point, which would hide the bug. */
    for (int c = BARRIER; c <= ALLREDUCE; c++)
        collective(c, 0, 0);

    int round = 0;
    for (int k = 0; k < nkinds; k++)
        for (int mode = ISEND; mode <= BSEND; mode++)
            for (int coll = BARRIER; coll <= ALLREDUCE; coll++)
                for (int order = BEFORE; order <= SENDER_FIRST; order++) {
                    if ((order == SENDER_FIRST && mode == BSEND) || (only >= 0 && k != only))
                        continue;   /* a Bsend has nothing to wait for */
                    run_case(&kinds[k], mode, coll, order, ++round, sbuf, rbuf);
                }

    void *b;
    int bs;
    MPI_Buffer_detach(&b, &bs);
    int all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(all ? "rndv_progress FAILED\n" : "rndv_progress ok: %d cases\n", round);
    for (int d = 0; d < size; d++)
        free(sbuf[d]);
    free(sbuf);
    free(rbuf);
    free(bspace);
    MPI_Type_free(&vec);
    MPI_Finalize();
    return all != 0;
}
