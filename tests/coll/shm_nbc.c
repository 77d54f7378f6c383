/*
 * shm_nbc -- nonblocking collectives on the shared area (src/coll/direct/nbc.c)
 * mixed with blocking ones on the same communicator.
 *
 * Each round starts a random batch of 1..6 Ibarrier / Ibcast / Ireduce /
 * Iallreduce / Igather / Iscatter / Iallgather / Ialltoall /
 * Ireduce_scatter_block calls (roots, sizes and in-place chosen from the
 * seed, the same on every rank), puts a blocking collective on the same
 * communicator in the middle now and then (it must finish the pending ones
 * first, in order), lets ranks sleep, and completes the batch in a
 * rank-dependent order with Wait, Test loops, Waitall or Waitany.  Some
 * batches spread over three communicators, started in a rank-dependent
 * interleaving (the same order per communicator, as MPI requires, but not
 * across them).  Run with a small COREMPI_SHM_SLOT, the data-moving calls
 * take many rounds through the slots (direct/nbc_pieces.c); some reductions
 * are large enough (32-48 KiB) to fold split.  Every result is checked
 * against values each rank computes itself; reductions use a
 * non-commutative user op too (composition of affine maps) so that the
 * rank order of the fold shows.  Loops of the same shape run long enough for
 * the FIFOs (64 and 128 entries) to wrap.  Usage: shm_nbc [seed]; prints the
 * seed, and "shm_nbc ok" on rank 0.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "affine_op.h"

#define ROUNDS 400
#define BATCH 6
#define MAXN 40    /* ints; 160 B: inline, the FIFO entries' data and the slots */
#define MAXBLK 160  /* ints; the data-moving kinds' blocks: 640 B, past the reduce FIFO's entry */
#define MAXRANKS 16
#define BIGN 12288  /* ints; 48 KiB: reductions this large fold split (direct/nbc_pieces.c) */

static int rank, size, bad;
static int me;   /* rank in the call's communicator (set before start and verify) */

static uint64_t rng_state;
static unsigned rnd(unsigned n)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)(rng_state >> 33) % n;
}

static int value(int round, int op, int r, int i) { return (round * 31 + op * 7 + r * 1009 + i * 13) % 100003; }

enum kind { K_BARRIER, K_BCAST, K_REDUCE, K_ALLREDUCE, K_COMPOSE, K_GATHER, K_SCATTER, K_ALLGATHER, K_ALLTOALL,
            K_RSB, KINDS };

struct call {
    enum kind kind;
    int root, n, inplace;
    MPI_Comm comm;
    int csize, crank;   /* size of comm and this rank in it */
    int sbuf[BIGN], rbuf[BIGN];
    MPI_Request req;
};

/* Block value of the all-to-all kinds: what rank `from` sends to rank `to`. */
static int value2(int round, int op, int from, int to, int i) { return value(round, op, from * 64 + to, i); }

static void check(const char *what, int round, int j, int got, int want)
{
    if (got != want && bad++ < 10)
        fprintf(stderr, "shm_nbc: rank %d round %d call %d %s: got %d want %d\n", rank, round, j, what, got, want);
}

static void start(struct call *c, int round, int j, MPI_Comm comm, MPI_Op compose_op, MPI_Datatype pair)
{
    for (int i = 0; i < c->n; i++)
        c->sbuf[i] = value(round, j, me, i);
    switch (c->kind) {
    case K_BARRIER:
        MPI_Ibarrier(comm, &c->req);
        break;
    case K_BCAST:
        for (int i = 0; i < c->n; i++)
            c->rbuf[i] = me == c->root ? value(round, j, c->root, i) : -1;
        MPI_Ibcast(c->rbuf, c->n, MPI_INT, c->root, comm, &c->req);
        break;
    case K_REDUCE:
        if (c->inplace && me == c->root) {
            memcpy(c->rbuf, c->sbuf, sizeof(int) * (size_t)c->n);
            MPI_Ireduce(MPI_IN_PLACE, c->rbuf, c->n, MPI_INT, MPI_SUM, c->root, comm, &c->req);
        } else {
            MPI_Ireduce(c->sbuf, c->rbuf, c->n, MPI_INT, MPI_SUM, c->root, comm, &c->req);
        }
        break;
    case K_ALLREDUCE:
        if (c->inplace) {
            memcpy(c->rbuf, c->sbuf, sizeof(int) * (size_t)c->n);
            MPI_Iallreduce(MPI_IN_PLACE, c->rbuf, c->n, MPI_INT, MPI_SUM, comm, &c->req);
        } else {
            MPI_Iallreduce(c->sbuf, c->rbuf, c->n, MPI_INT, MPI_SUM, comm, &c->req);
        }
        break;
    case K_COMPOSE:
        for (int i = 0; i < c->n; i++) {
            c->sbuf[2 * i] = 2 * value(round, j, me, i) + 1;
            c->sbuf[2 * i + 1] = value(round, j + 1, me, i);
        }
        if (c->root < 0)
            MPI_Iallreduce(c->sbuf, c->rbuf, c->n, pair, compose_op, comm, &c->req);
        else
            MPI_Ireduce(c->sbuf, c->rbuf, c->n, pair, compose_op, c->root, comm, &c->req);
        break;
    case K_GATHER:
        for (int i = 0; i < c->n * c->csize; i++)
            c->rbuf[i] = -1;
        if (c->inplace && me == c->root) {
            memcpy(c->rbuf + me * c->n, c->sbuf, sizeof(int) * (size_t)c->n);
            MPI_Igather(MPI_IN_PLACE, c->n, MPI_INT, c->rbuf, c->n, MPI_INT, c->root, comm, &c->req);
        } else {
            MPI_Igather(c->sbuf, c->n, MPI_INT, c->rbuf, c->n, MPI_INT, c->root, comm, &c->req);
        }
        break;
    case K_ALLGATHER:
        for (int i = 0; i < c->n * c->csize; i++)
            c->rbuf[i] = -1;
        if (c->inplace) {
            memcpy(c->rbuf + me * c->n, c->sbuf, sizeof(int) * (size_t)c->n);
            MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, c->rbuf, c->n, MPI_INT, comm, &c->req);
        } else {
            MPI_Iallgather(c->sbuf, c->n, MPI_INT, c->rbuf, c->n, MPI_INT, comm, &c->req);
        }
        break;
    case K_SCATTER:
        for (int d = 0; d < c->csize; d++)
            for (int i = 0; i < c->n; i++)
                c->sbuf[d * c->n + i] = value2(round, j, me, d, i);
        for (int i = 0; i < c->n; i++)
            c->rbuf[i] = -1;
        if (c->inplace && me == c->root)
            MPI_Iscatter(c->sbuf, c->n, MPI_INT, MPI_IN_PLACE, c->n, MPI_INT, c->root, comm, &c->req);
        else
            MPI_Iscatter(c->sbuf, c->n, MPI_INT, c->rbuf, c->n, MPI_INT, c->root, comm, &c->req);
        break;
    case K_ALLTOALL:
    case K_RSB:
        for (int d = 0; d < c->csize; d++)
            for (int i = 0; i < c->n; i++)
                c->sbuf[d * c->n + i] = value2(round, j, me, d, i);
        if (c->inplace)
            memcpy(c->rbuf, c->sbuf, sizeof(int) * (size_t)(c->n * c->csize));
        if (c->kind == K_ALLTOALL)
            MPI_Ialltoall(c->inplace ? MPI_IN_PLACE : (void *)c->sbuf, c->n, MPI_INT, c->rbuf, c->n, MPI_INT, comm,
                          &c->req);
        else
            MPI_Ireduce_scatter_block(c->inplace ? MPI_IN_PLACE : (void *)c->sbuf, c->rbuf, c->n, MPI_INT, MPI_SUM,
                                      comm, &c->req);
        break;
    case KINDS:
        break;
    }
}

static void verify(struct call *c, int round, int j, int n)
{
    switch (c->kind) {
    case K_BARRIER:
        break;
    case K_BCAST:
        for (int i = 0; i < c->n; i++)
            check("Ibcast", round, j, c->rbuf[i], value(round, j, c->root, i));
        break;
    case K_REDUCE:
    case K_ALLREDUCE:
        if (c->kind == K_REDUCE && me != c->root)
            break;
        for (int i = 0; i < c->n; i++) {
            int want = 0;
            for (int r = 0; r < n; r++)
                want += value(round, j, r, i);
            check(c->kind == K_REDUCE ? "Ireduce" : "Iallreduce", round, j, c->rbuf[i], want);
        }
        break;
    case K_COMPOSE:
        if (c->root >= 0 && me != c->root)
            break;
        for (int i = 0; i < c->n; i++) {
            unsigned a = 1, b = 0;   /* x0 o x1 o ... o x(n-1), rank order */
            for (int r = n - 1; r >= 0; r--) {
                unsigned ra = 2u * (unsigned)value(round, j, r, i) + 1u, rb = (unsigned)value(round, j + 1, r, i);
                unsigned na = ra * a, nb = ra * b + rb;
                a = na;
                b = nb;
            }
            check("compose a", round, j, c->rbuf[2 * i], (int)a);
            check("compose b", round, j, c->rbuf[2 * i + 1], (int)b);
        }
        break;
    case K_GATHER:
    case K_ALLGATHER:
        if (c->kind == K_GATHER && me != c->root)
            break;
        for (int r = 0; r < n; r++)
            for (int i = 0; i < c->n; i++)
                check(c->kind == K_GATHER ? "Igather" : "Iallgather", round, j, c->rbuf[r * c->n + i],
                      value(round, j, r, i));
        break;
    case K_SCATTER:
        if (c->inplace && me == c->root)
            break;
        for (int i = 0; i < c->n; i++)
            check("Iscatter", round, j, c->rbuf[i], value2(round, j, c->root, me, i));
        break;
    case K_ALLTOALL:
        for (int r = 0; r < n; r++)
            for (int i = 0; i < c->n; i++)
                check("Ialltoall", round, j, c->rbuf[r * c->n + i], value2(round, j, r, me, i));
        break;
    case K_RSB:
        for (int i = 0; i < c->n; i++) {
            int want = 0;
            for (int r = 0; r < n; r++)
                want += value2(round, j, r, me, i);
            check("Ireduce_scatter_block", round, j, c->rbuf[i], want);
        }
        break;
    case KINDS:
        break;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > MAXRANKS) {
        if (rank == 0)
            printf("shm_nbc: at most %d ranks\n", MAXRANKS);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    unsigned long seed = argc > 1 ? strtoul(argv[1], NULL, 10) : 12345;
    if (rank == 0)
        printf("shm_nbc: seed %lu (rerun: shm_nbc %lu)\n", seed, seed);
    MPI_Op compose_op;
    MPI_Op_create(compose, 0, &compose_op);
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_UNSIGNED, &pair);
    MPI_Type_commit(&pair);
    MPI_Comm dup, split;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &split);
    MPI_Barrier(dup);     /* areas attach in blocking calls only */
    MPI_Barrier(split);
    MPI_Barrier(MPI_COMM_WORLD);
    rng_state = seed;
    static struct call calls[BATCH];
    MPI_Comm comms[3] = { MPI_COMM_WORLD, dup, split };
    for (int round = 0; round < ROUNDS; round++) {
        /* Same draws on every rank for the calls; the split's draws too. */
        int which = (int)rnd(3);
        /* Long runs of one shape now and then, so the FIFOs wrap. */
        int shape_loop = round % 50 < 10;
        int mixed = !shape_loop && rnd(4) == 0;     /* calls over all three communicators */
        int nb = shape_loop ? BATCH : 1 + (int)rnd(BATCH);
        int blocking_at = mixed ? nb : (int)rnd(nb + 3);   /* >= nb: none */
        int lagger = (int)rnd((unsigned)size + 2), lag_us = (int)rnd(2000);
        enum kind fixed = (enum kind)rnd(KINDS);
        for (int j = 0; j < nb; j++) {
            struct call *c = &calls[j];
            c->comm = comms[mixed ? (int)rnd(3) : which];
            MPI_Comm_size(c->comm, &c->csize);
            MPI_Comm_rank(c->comm, &c->crank);
            c->kind = shape_loop ? fixed : (enum kind)rnd(KINDS);
            c->root = (int)rnd((unsigned)c->csize);
            if (c->kind == K_COMPOSE && rnd(2))
                c->root = -1;
            c->n = 1 + (int)rnd(c->kind >= K_GATHER && rnd(2) ? MAXBLK : MAXN);
            if ((c->kind == K_REDUCE || c->kind == K_ALLREDUCE) && rnd(8) == 0)
                c->n = BIGN / 2 + (int)rnd(BIGN / 2);
            c->inplace = (int)rnd(2);
        }
        unsigned order_seed = (unsigned)rnd(1000);
        if (rank == lagger)
            usleep((useconds_t)lag_us);
        /* Start order: batch order, or (mixed batches, odd ranks) the
         * communicators in reverse, each one's calls in batch order. */
        int order[BATCH], no = 0;
        if (mixed && rank % 2) {
            for (int k = 2; k >= 0; k--)
                for (int j = 0; j < nb; j++)
                    if (calls[j].comm == comms[k])
                        order[no++] = j;
        } else {
            for (int j = 0; j < nb; j++)
                order[no++] = j;
        }
        for (int q = 0; q < nb; q++) {
            int j = order[q];
            me = calls[j].crank;
            start(&calls[j], round, j, calls[j].comm, compose_op, pair);
            if (j == blocking_at) {
                int v = round, w = 0;
                MPI_Allreduce(&v, &w, 1, MPI_INT, MPI_MAX, calls[j].comm);
                check("Allreduce between", round, j, w, round);
            }
        }
        /* Complete in a rank-dependent way. */
        MPI_Request reqs[BATCH];
        for (int j = 0; j < nb; j++)
            reqs[j] = calls[j].req;
        switch ((order_seed + (unsigned)rank) % 4) {
        case 0:
            for (int j = nb - 1; j >= 0; j--)
                MPI_Wait(&reqs[j], MPI_STATUS_IGNORE);
            break;
        case 1:
            MPI_Waitall(nb, reqs, MPI_STATUSES_IGNORE);
            break;
        case 2:
            for (int left = nb; left > 0; left--) {
                int idx;
                MPI_Waitany(nb, reqs, &idx, MPI_STATUS_IGNORE);
            }
            break;
        default:
            for (int j = 0; j < nb; j++) {
                int flag = 0;
                while (!flag)
                    MPI_Test(&reqs[j], &flag, MPI_STATUS_IGNORE);
            }
        }
        for (int j = 0; j < nb; j++) {
            me = calls[j].crank;
            verify(&calls[j], round, j, calls[j].csize);
        }
    }
    int all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_free(&split);
    MPI_Comm_free(&dup);
    MPI_Type_free(&pair);
    MPI_Op_free(&compose_op);
    if (rank == 0)
        printf(all ? "shm_nbc FAILED (seed %lu)\n" : "shm_nbc ok\n", seed);
    MPI_Finalize();
    return all != 0;
}
