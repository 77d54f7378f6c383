/*
 * nbc_lane -- the 2-rank lane of MPI_Iallreduce, MPI_Ibarrier and MPI_Iallgather
 * (src/coll/direct/nbc_meet.c) against what MPI asks of nonblocking
 * collectives: results in rank order, start order kept with other
 * nonblocking calls pending on the communicator, a start that never waits
 * for the other rank, and MPI_Test that completes the call.
 *
 * Cases (every value checked): 1. immediate Wait, one rank late now and
 * then (the late one completes at start, the other waits); 2. three
 * Iallreduces (and an Ibarrier) started on one rank while the other sleeps,
 * waited in reverse order (the lane must not be taken with calls pending:
 * the third would reuse the first's parity of the meeting line); 3. a start
 * while the other rank sleeps returns at once, and a Test loop completes
 * it; 4. MPI_IN_PLACE and a non-commutative-looking op (MPI_MAX / MINLOC
 * pairs) of two counts; 5-7. Iallgather (the lane's blocks of up to 8
 * bytes, see below).  Usage: nbc_lane [seed]; prints "nbc_lane ok".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int rank, bad;

static void expect(const char *what, int i, double got, double want)
{
    if (got != want && bad++ < 10)
        fprintf(stderr, "nbc_lane: rank %d: %s, call %d: got %g, want %g\n", rank, what, i, got, want);
}

/* Value of element e of rank r's block in call i, as a small integer that
 * every type in the test holds. */
static int value(int i, int r, int e) { return (i * 7 + r * 3 + e) % 100; }

static void put(MPI_Datatype t, void *buf, int idx, int v)
{
    if (t == MPI_DOUBLE)
        ((double *)buf)[idx] = v;
    else if (t == MPI_INT)
        ((int *)buf)[idx] = v;
    else
        ((char *)buf)[idx] = (char)v;
}
static int get(MPI_Datatype t, const void *buf, int idx)
{
    return t == MPI_DOUBLE ? (int)((const double *)buf)[idx] : t == MPI_INT ? ((const int *)buf)[idx] : ((const char *)buf)[idx];
}

/* nreq Iallgathers of count elements of t started together, waited in
 * reverse order, every element checked. */
static void gather_check(MPI_Comm comm, int size, MPI_Datatype t, int count, int inplace, int i, int nreq)
{
    static double sb[3][1001], rb[3][9 * 1001];   /* doubles: room and alignment for every type */
    MPI_Request r[3];
    for (int j = 0; j < nreq; j++) {
        for (int e = 0; e < count * size; e++)
            put(t, rb[j], e, -1);
        for (int e = 0; e < count; e++)
            put(t, inplace ? rb[j] : sb[j], (inplace ? rank * count : 0) + e, value(i + j, rank, e));
        MPI_Iallgather(inplace ? MPI_IN_PLACE : sb[j], count, t, rb[j], count, t, comm, &r[j]);
    }
    for (int j = nreq - 1; j >= 0; j--)
        MPI_Wait(&r[j], MPI_STATUS_IGNORE);
    for (int j = 0; j < nreq; j++)
        for (int q = 0; q < size; q++)
            for (int e = 0; e < count; e++)
                expect(inplace ? "iallgather in place" : "iallgather", i * 3 + j, get(t, rb[j], q * count + e),
                       value(i + j, q, e));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned seed = argc > 1 ? (unsigned)atoi(argv[1]) : 12345u;
    if (rank == 0)
        printf("nbc_lane: seed %u (rerun: nbc_lane %u)\n", seed, seed);
    srand(seed);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Barrier(comm);      /* attaches the area */
    double x, y, v[3], w[3];
    MPI_Request r[4];

    /* 1. Immediate wait; a rank late now and then. */
    for (int i = 0; i < 3000; i++) {
        int late = rand() % 16;
        if (late == rank + 1)
            usleep(200);
        x = i * 10 + rank;
        MPI_Iallreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, comm, &r[0]);
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        expect("immediate wait", i, y, (double)(i * 10) * size + size * (size - 1) / 2);
        if (i % 7 == 0) {
            MPI_Ibarrier(comm, &r[0]);
            MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        }
    }

    /* 2. Calls pending when the next starts: rank 1 starts them all while
     * rank 0 sleeps, then waits in reverse order. */
    for (int i = 0; i < 40; i++) {
        if (rank == 0)
            usleep(2000);
        for (int j = 0; j < 3; j++) {
            v[j] = 1000.0 * i + 100.0 * j + rank;
            MPI_Iallreduce(&v[j], &w[j], 1, MPI_DOUBLE, MPI_SUM, comm, &r[j]);
        }
        MPI_Ibarrier(comm, &r[3]);
        for (int j = 3; j >= 0; j--)
            MPI_Wait(&r[j], MPI_STATUS_IGNORE);
        for (int j = 0; j < 3; j++)
            expect("pending calls, reverse waits", i * 3 + j, w[j], (1000.0 * i + 100.0 * j) * size + size * (size - 1) / 2);
    }

    /* 3. The start does not wait for a sleeping peer; Test completes it. */
    for (int i = 0; i < 20; i++) {
        int sleeper = i & 1;
        if (rank == sleeper)
            usleep(20000);
        double t0 = MPI_Wtime();
        x = i + rank;
        MPI_Iallreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, comm, &r[0]);
        double dt = MPI_Wtime() - t0;
        if (rank != sleeper && dt > 0.015 && bad++ < 10)
            fprintf(stderr, "nbc_lane: rank %d: MPI_Iallreduce waited %.1f ms for the other rank\n", rank, dt * 1e3);
        int flag = 0;
        while (!flag)
            MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE);
        expect("Test loop", i, y, (double)i * size + size * (size - 1) / 2);
    }

    /* 4. In place, another op and count (a shape of its own). */
    for (int i = 0; i < 500; i++) {
        double z[2] = { i * (rank + 1.0), -i * (rank + 1.0) };
        MPI_Iallreduce(MPI_IN_PLACE, z, 2, MPI_DOUBLE, MPI_MAX, comm, &r[0]);
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        expect("in place max, first", i, z[0], i * (double)size);
        expect("in place max, second", i, z[1], -(double)i);
    }

    /* 5-7. Iallgather (its lane takes blocks of up to 8 bytes): immediate
     * waits with a late rank, in place or not, three types; calls pending
     * on one rank while the other sleeps (one rank takes the lane, the
     * other the engine's rounds, which must put the block where the lane
     * reads it); counts 0 and large (the engine). */
    const MPI_Datatype types[3] = { MPI_DOUBLE, MPI_INT, MPI_CHAR };
    const int counts[3] = { 1, 2, 3 };
    for (int i = 0; i < 1500; i++) {
        int late = rand() % 16, t = (i / 100) % 3, inplace = (i / 50) & 1;
        if (late == rank + 1)
            usleep(200);
        gather_check(comm, size, types[t], counts[t], inplace, i, 1);
    }
    for (int i = 0; i < 40; i++) {
        if (rank == 0)
            usleep(2000);
        gather_check(comm, size, MPI_DOUBLE, 1, i & 1, i, 3);
    }
    for (int i = 0; i < 20; i++) {
        gather_check(comm, size, MPI_DOUBLE, 0, 0, i, 1);
        gather_check(comm, size, MPI_INT, 1001, i & 1, i, 2);
        gather_check(comm, size, MPI_DOUBLE, 1, 0, i, 1);
    }

    MPI_Comm_free(&comm);
    int all;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(all ? "nbc_lane FAILED\n" : "nbc_lane ok\n");
    MPI_Finalize();
    return all != 0;
}
