/*
 * leftover.c -- a blocking collective's message that no call received is
 * reported when its receiver frees the communicator or finalizes
 * (coll/leftover.c, issue 32 item 2), and correct programs see nothing.
 *
 * usage: leftover free | ifree | finalize | clean
 *   free:     a broadcast whose ranks 0 and 1 each name themselves the root,
 *             on a duplicate with MPI_ERRORS_RETURN: run with a point-to-point
 *             bcast (COREMPI_BCAST=binomial_ordered), where every rank returns
 *             success and the other root's messages are left over.  Some
 *             rank's MPI_Comm_free must return MPI_ERR_ARG naming
 *             MPI_Comm_free, MPI_Bcast and the sender.  On main 74a26ff every
 *             call returned MPI_SUCCESS.
 *   ifree:    the same with MPI_Ibcast + MPI_Wait, run on the point-to-point
 *             schedules (COREMPI_SHM_NBC=0), where no rank need receive from
 *             the wrong root; on main d9c0950 every call returned MPI_SUCCESS.
 *   finalize: the same on a communicator never freed: MPI_Finalize prints
 *             the line (the ctest registration looks for it) and returns an
 *             error (the communicator's handler returns).
 *   clean:    every blocking collective, and nonblocking ones freed right
 *             after completing locally, on a duplicate that is then freed:
 *             MPI_Comm_free and MPI_Finalize must return MPI_SUCCESS.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static MPI_Comm dup_returning(void)
{
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    MPI_Barrier(c);
    return c;
}

static int two_roots(MPI_Comm c, int nonblocking)
{
    int buf[10];
    for (int i = 0; i < 10; i++)
        buf[i] = rank;
    if (!nonblocking)
        return MPI_Bcast(buf, 10, MPI_INT, rank == 0 ? 0 : 1, c);
    MPI_Request r;
    int rc = MPI_Ibcast(buf, 10, MPI_INT, rank == 0 ? 0 : 1, c, &r);
    return rc != MPI_SUCCESS ? rc : MPI_Wait(&r, MPI_STATUS_IGNORE);
}

/* 0 when the error rc is the report this test wants. */
static int check_report(int rc, const char *call)
{
    char text[MPI_MAX_ERROR_STRING];
    int len, cls;
    MPI_Error_class(rc, &cls);
    MPI_Error_string(rc, text, &len);
    if (cls != MPI_ERR_ARG || !strstr(text, call) || !strstr(text, "MPI_Bcast") || !strstr(text, "a message rank")) {
        printf("rank %d: unexpected error from %s: %s\n", rank, call, text);
        return 1;
    }
    return 0;
}

static int all_any(int x)
{
    int any;
    MPI_Allreduce(&x, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return any;
}

static int clean(void)
{
    int bad = 0, n = 64, *a = malloc(sizeof(int) * (size_t)n * size), *b = malloc(sizeof(int) * (size_t)n * size);
    MPI_Comm c = dup_returning();
    for (int i = 0; i < n * size; i++)
        a[i] = rank + i;
    for (int root = 0; root < size; root++) {
        bad |= MPI_Bcast(a, n, MPI_INT, root, c) != MPI_SUCCESS;
        bad |= MPI_Reduce(a, b, n, MPI_INT, MPI_SUM, root, c) != MPI_SUCCESS;
        bad |= MPI_Gather(a, n, MPI_INT, b, n, MPI_INT, root, c) != MPI_SUCCESS;
        bad |= MPI_Scatter(a, n, MPI_INT, b, n, MPI_INT, root, c) != MPI_SUCCESS;
    }
    bad |= MPI_Allreduce(a, b, n, MPI_INT, MPI_SUM, c) != MPI_SUCCESS;
    bad |= MPI_Allgather(a, n, MPI_INT, b, n, MPI_INT, c) != MPI_SUCCESS;
    bad |= MPI_Alltoall(a, n, MPI_INT, b, n, MPI_INT, c) != MPI_SUCCESS;
    bad |= MPI_Scan(a, b, n, MPI_INT, MPI_SUM, c) != MPI_SUCCESS;
    bad |= MPI_Barrier(c) != MPI_SUCCESS;
    MPI_Request r[2];
    bad |= MPI_Ibcast(a, n, MPI_INT, size - 1, c, &r[0]) != MPI_SUCCESS;
    bad |= MPI_Iallreduce(a, b, n, MPI_INT, MPI_SUM, c, &r[1]) != MPI_SUCCESS;
    bad |= MPI_Waitall(2, r, MPI_STATUSES_IGNORE) != MPI_SUCCESS;
    if (bad)
        printf("rank %d: a matched collective failed\n", rank);
    int rc = MPI_Comm_free(&c);
    if (rc != MPI_SUCCESS)
        printf("rank %d: MPI_Comm_free after matched collectives returned %d\n", rank, rc);
    free(a);
    free(b);
    return bad || rc != MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "clean";
    int failures = 0;
    if (!strcmp(mode, "free") || !strcmp(mode, "ifree")) {
        MPI_Comm c = dup_returning();
        int rc = two_roots(c, mode[0] == 'i');
        if (rc != MPI_SUCCESS)
            printf("rank %d: the bcast itself failed (the test needs a point-to-point bcast)\n", rank);
        failures += rc != MPI_SUCCESS;
        /* The check sees what has arrived: a late segment of the other
         * root's would reach the next communicator given this context (the
         * barrier's messages follow it through each pair's ring). */
        MPI_Barrier(MPI_COMM_WORLD);
        rc = MPI_Comm_free(&c);
        if (rc != MPI_SUCCESS)
            failures += check_report(rc, "MPI_Comm_free");
        if (c != MPI_COMM_NULL) {
            printf("rank %d: MPI_Comm_free left the handle\n", rank);
            failures++;
        }
        if (!all_any(rc != MPI_SUCCESS) && rank == 0) {
            printf("free: every MPI_Comm_free returned MPI_SUCCESS\n");
            failures++;
        }
        failures += clean();    /* the context given again: nothing left on it */
    } else if (!strcmp(mode, "finalize")) {
        MPI_Comm c = dup_returning();
        failures += two_roots(c, 0) != MPI_SUCCESS;
    } else {
        failures += clean();
    }
    int total = all_any(failures);
    if (rank == 0)
        printf(total ? "leftover FAILED\n" : "leftover ok\n");
    fflush(stdout);
    int rc = MPI_Finalize();
    if (strcmp(mode, "finalize") && rc != MPI_SUCCESS)
        printf("rank %d: MPI_Finalize returned %d\n", rank, rc);
    return 0;
}
