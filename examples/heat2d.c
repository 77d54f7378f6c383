/*
 * heat2d.c -- the corempi demo: a 2-D heat equation (Jacobi iteration on the
 * five-point stencil) on an N x N grid, split into horizontal strips, one per
 * rank, with halo rows exchanged every step and the global residual reduced
 * every few steps.
 *
 *   mpirun -n 4 ./heat2d [N] [max_steps] [tolerance]
 *
 * The boundary is held at 0 except the top edge at 100.  The run checks
 * itself: after the iteration, rank 0 recomputes the same problem serially
 * on a small grid and compares when N <= 256, and every run verifies that the
 * global heat balance matches a direct sum.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IDX(i, j) ((size_t)(i) * (size_t)(n) + (size_t)(j))

static void set_boundary(double *g, int rows, int n, int first_row, int nglobal)
{
    for (int i = 0; i < rows + 2; i++) {
        int gi = first_row + i - 1;
        if (gi < 0 || gi >= nglobal)
            continue;
        g[IDX(i, 0)] = 0.0;
        g[IDX(i, n - 1)] = 0.0;
        if (gi == 0)
            for (int j = 0; j < n; j++)
                g[IDX(i, j)] = 100.0;
        if (gi == nglobal - 1)
            for (int j = 0; j < n; j++)
                g[IDX(i, j)] = 0.0;
    }
}

/* One Jacobi sweep over rows 1..rows of the strip; returns the local sum of squared updates. */
static double sweep(const double *restrict old, double *restrict new, int rows, int n, int first_row, int nglobal)
{
    double res = 0.0;
    for (int i = 1; i <= rows; i++) {
        int gi = first_row + i - 1;
        if (gi == 0 || gi == nglobal - 1)
            continue;
        for (int j = 1; j < n - 1; j++) {
            double v = 0.25 * (old[IDX(i - 1, j)] + old[IDX(i + 1, j)] + old[IDX(i, j - 1)] + old[IDX(i, j + 1)]);
            double d = v - old[IDX(i, j)];
            res += d * d;
            new[IDX(i, j)] = v;
        }
    }
    return res;
}

/* The same problem on one process, for the self-check. */
static double serial_reference(int n, int steps, double *center)
{
    double *a = calloc((size_t)n * n, sizeof *a), *b = calloc((size_t)n * n, sizeof *b);
    set_boundary(a, n - 2, n, 1, n);
    for (int j = 0; j < n; j++) {
        a[IDX(0, j)] = 100.0;
        a[IDX(n - 1, j)] = 0.0;
    }
    memcpy(b, a, (size_t)n * n * sizeof *a);
    double res = 0.0;
    for (int s = 0; s < steps; s++) {
        res = 0.0;
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++) {
                double v = 0.25 * (a[IDX(i - 1, j)] + a[IDX(i + 1, j)] + a[IDX(i, j - 1)] + a[IDX(i, j + 1)]);
                res += (v - a[IDX(i, j)]) * (v - a[IDX(i, j)]);
                b[IDX(i, j)] = v;
            }
        double *t = a; a = b; b = t;
    }
    *center = a[IDX(n / 2, n / 2)];
    free(a);
    free(b);
    return sqrt(res);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = argc > 1 ? atoi(argv[1]) : 256;
    int max_steps = argc > 2 ? atoi(argv[2]) : 2000;
    double tol = argc > 3 ? atof(argv[3]) : 1e-3;
    if (n < size + 2) {
        if (rank == 0)
            fprintf(stderr, "heat2d: grid %d too small for %d ranks\n", n, size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    /* Rows 1..n-2 are interior; strips include the two boundary rows at the ends. */
    int base = n / size, extra = n % size;
    int rows = base + (rank < extra), first_row = rank * base + (rank < extra ? rank : extra);
    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    double *a = calloc((size_t)(rows + 2) * n, sizeof *a), *b = calloc((size_t)(rows + 2) * n, sizeof *b);
    set_boundary(a, rows, n, first_row, n);
    memcpy(b, a, (size_t)(rows + 2) * n * sizeof *a);

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime(), halo_time = 0.0, reduce_time = 0.0;
    double residual = 0.0;
    int step;
    for (step = 1; step <= max_steps; step++) {
        double th = MPI_Wtime();
        MPI_Request req[4];
        MPI_Irecv(&a[IDX(0, 0)], n, MPI_DOUBLE, up, 1, MPI_COMM_WORLD, &req[0]);
        MPI_Irecv(&a[IDX(rows + 1, 0)], n, MPI_DOUBLE, down, 0, MPI_COMM_WORLD, &req[1]);
        MPI_Isend(&a[IDX(1, 0)], n, MPI_DOUBLE, up, 0, MPI_COMM_WORLD, &req[2]);
        MPI_Isend(&a[IDX(rows, 0)], n, MPI_DOUBLE, down, 1, MPI_COMM_WORLD, &req[3]);
        MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
        halo_time += MPI_Wtime() - th;

        double local = sweep(a, b, rows, n, first_row, n);
        double *t = a; a = b; b = t;
        if (step % 10 == 0 || step == max_steps) {
            double tr = MPI_Wtime(), global;
            MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            reduce_time += MPI_Wtime() - tr;
            residual = sqrt(global);
            if (residual < tol)
                break;
        }
    }
    if (step > max_steps)
        step = max_steps;
    double elapsed = MPI_Wtime() - t0;

    /* Heat balance: the sum of all interior values, reduced to rank 0, must
     * match the sum of the per-rank sums gathered one by one. */
    double mine = 0.0;
    for (int i = 1; i <= rows; i++)
        for (int j = 0; j < n; j++)
            mine += a[IDX(i, j)];
    double total = 0.0;
    MPI_Reduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    double *parts = rank == 0 ? malloc((size_t)size * sizeof *parts) : NULL;
    MPI_Gather(&mine, 1, MPI_DOUBLE, parts, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);

    /* The value at the grid centre, from the rank that owns it. */
    int centre_row = n / 2, owner = 0, ok = 1;
    for (int r = 0; r < size; r++) {
        int rr = base + (r < extra), fr = r * base + (r < extra ? r : extra);
        if (centre_row >= fr && centre_row < fr + rr)
            owner = r;
    }
    double centre = 0.0;
    if (rank == owner)
        centre = a[IDX(centre_row - first_row + 1, n / 2)];
    MPI_Bcast(&centre, 1, MPI_DOUBLE, owner, MPI_COMM_WORLD);

    if (rank == 0) {
        double check = 0.0;
        for (int r = 0; r < size; r++)
            check += parts[r];
        if (fabs(check - total) > 1e-9 * fabs(total))
            ok = 0;
        printf("heat2d: %d x %d grid on %d ranks, %d steps, residual %.3e, centre %.6f\n", n, n, size, step, residual, centre);
        printf("heat2d: %.3f s (%.1f us/step: halo %.1f us, allreduce %.1f us per call)\n", elapsed,
               1e6 * elapsed / step, 1e6 * halo_time / step, 1e6 * reduce_time / (step / 10 ? step / 10 : 1));
        if (n <= 256) {
            double ref_centre, ref_res = serial_reference(n, step, &ref_centre);
            int match = fabs(ref_centre - centre) < 1e-9 && fabs(ref_res - residual) < 1e-9 * (1 + ref_res);
            printf("heat2d: serial reference: centre %.6f, residual %.3e -> %s\n", ref_centre, ref_res,
                   match ? "match" : "MISMATCH");
            ok &= match;
        }
        printf("heat2d: heat balance %.6f (sum of parts %.6f) -> %s\n", total, check, ok ? "OK" : "FAILED");
        free(parts);
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(a);
    free(b);
    MPI_Finalize();
    return ok ? 0 : 1;
}
