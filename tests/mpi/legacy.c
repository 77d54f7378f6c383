/*
 * legacy.c -- the old names of mpi_legacy.h (opt-in with
 * COREMPI_LEGACY_NAMES) behave as their replacements: attributes through
 * MPI_Attr_* and keyvals with MPI_DUP_FN / MPI_NULL_COPY_FN survive or not a
 * Comm_dup, MPI_Type_struct/hvector/hindexed build the same layouts as the
 * create_ calls (data sent through them arrives where it should), extent,
 * lb and ub agree with Type_get_extent, MPI_Address with Get_address, and
 * an error handler made with Errhandler_create is the one called.
 */
#ifndef COREMPI_LEGACY_NAMES /* tools.legacy_mpicc passes it with -D */
#define COREMPI_LEGACY_NAMES
#endif
#include <mpi.h>
#include "check.h"

static int handler_calls;
static void count_errors(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
    handler_calls++;
}

static void attributes(void)
{
    int dup_key, null_key, flag = 0, value = 42, *got = NULL;
    CHECK_MPI(MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &dup_key, NULL));
    CHECK_MPI(MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &null_key, NULL));
    MPI_Comm c, d;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CHECK_MPI(MPI_Attr_put(c, dup_key, &value));
    CHECK_MPI(MPI_Attr_put(c, null_key, &value));
    CHECK_MPI(MPI_Attr_get(c, dup_key, &got, &flag));
    CHECK(flag && got == &value, "Attr_get after Attr_put: flag %d", flag);
    CHECK_MPI(MPI_Comm_dup(c, &d));
    CHECK_MPI(MPI_Attr_get(d, dup_key, &got, &flag));
    CHECK(flag && got == &value, "MPI_DUP_FN did not copy the attribute (flag %d)", flag);
    CHECK_MPI(MPI_Attr_get(d, null_key, &got, &flag));
    CHECK(!flag, "MPI_NULL_COPY_FN copied the attribute");
    CHECK_MPI(MPI_Attr_delete(c, dup_key));
    CHECK_MPI(MPI_Attr_get(c, dup_key, &got, &flag));
    CHECK(!flag, "attribute still there after Attr_delete");
    int *ub = NULL;
    CHECK_MPI(MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag));
    CHECK(flag && *ub >= 32767, "MPI_TAG_UB through Attr_get: flag %d", flag);
    CHECK_MPI(MPI_Comm_free(&d));
    CHECK_MPI(MPI_Comm_free(&c));
    CHECK_MPI(MPI_Keyval_free(&dup_key));
    CHECK_MPI(MPI_Keyval_free(&null_key));
    CHECK(dup_key == MPI_KEYVAL_INVALID, "Keyval_free left key %d", dup_key);
}

struct pair { int i; double d; };

static void datatypes(int rank, int size)
{
    struct pair p[3];
    MPI_Aint base, at_d, want;
    CHECK_MPI(MPI_Address(&p[0], &base));
    CHECK_MPI(MPI_Get_address(&p[0], &want));
    CHECK(base == want, "MPI_Address %ld vs Get_address %ld", (long)base, (long)want);
    CHECK_MPI(MPI_Address(&p[0].d, &at_d));
    int lens[2] = { 1, 1 };
    MPI_Aint displs[2] = { 0, at_d - base };
    MPI_Datatype types[2] = { MPI_INT, MPI_DOUBLE }, st, hv, hi;
    CHECK_MPI(MPI_Type_struct(2, lens, displs, types, &st));
    CHECK_MPI(MPI_Type_commit(&st));
    MPI_Aint ext, lb, ub, glb, gext;
    CHECK_MPI(MPI_Type_extent(st, &ext));
    CHECK_MPI(MPI_Type_lb(st, &lb));
    CHECK_MPI(MPI_Type_ub(st, &ub));
    CHECK_MPI(MPI_Type_get_extent(st, &glb, &gext));
    CHECK(ext == gext && lb == glb && ub == glb + gext, "extent/lb/ub %ld/%ld/%ld vs %ld/%ld", (long)ext,
          (long)lb, (long)ub, (long)glb, (long)gext);
    CHECK(ext == (MPI_Aint)sizeof(struct pair), "struct extent %ld, want %zu", (long)ext, sizeof(struct pair));
    /* A resized type: lb -8, extent 32, so ub 24. */
    MPI_Datatype rs;
    CHECK_MPI(MPI_Type_create_resized(MPI_INT, -8, 32, &rs));
    CHECK_MPI(MPI_Type_lb(rs, &lb));
    CHECK_MPI(MPI_Type_ub(rs, &ub));
    CHECK(lb == -8 && ub == 24, "resized lb %ld ub %ld, want -8 24", (long)lb, (long)ub);
    CHECK_MPI(MPI_Type_free(&rs));

    /* Every other int of 8 (hvector), ints 1, 4, 6 (hindexed), and the
     * struct array, from rank 0 to each other rank. */
    CHECK_MPI(MPI_Type_hvector(4, 1, 2 * sizeof(int), MPI_INT, &hv));
    CHECK_MPI(MPI_Type_commit(&hv));
    int hlens[3] = { 1, 1, 1 };
    MPI_Aint hdispl[3] = { 1 * sizeof(int), 4 * sizeof(int), 6 * sizeof(int) };
    CHECK_MPI(MPI_Type_hindexed(3, hlens, hdispl, MPI_INT, &hi));
    CHECK_MPI(MPI_Type_commit(&hi));
    for (int peer = 1; peer < size; peer++) {
        int v[8], w[8];
        if (rank == 0) {
            for (int k = 0; k < 8; k++)
                v[k] = 100 * peer + k;
            for (int k = 0; k < 3; k++)
                p[k] = (struct pair){ peer + k, 0.5 * (peer + k) };
            CHECK_MPI(MPI_Send(v, 1, hv, peer, 1, MPI_COMM_WORLD));
            CHECK_MPI(MPI_Send(v, 1, hi, peer, 2, MPI_COMM_WORLD));
            CHECK_MPI(MPI_Send(p, 3, st, peer, 3, MPI_COMM_WORLD));
        } else if (rank == peer) {
            CHECK_MPI(MPI_Recv(w, 4, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            for (int k = 0; k < 4; k++)
                CHECK(w[k] == 100 * peer + 2 * k, "hvector element %d: %d", k, w[k]);
            CHECK_MPI(MPI_Recv(w, 3, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(w[0] == 100 * peer + 1 && w[1] == 100 * peer + 4 && w[2] == 100 * peer + 6,
                  "hindexed: %d %d %d", w[0], w[1], w[2]);
            struct pair q[3] = { { 0, 0 } };
            CHECK_MPI(MPI_Recv(q, 3, st, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            for (int k = 0; k < 3; k++)
                CHECK(q[k].i == peer + k && q[k].d == 0.5 * (peer + k), "struct element %d: %d %g", k, q[k].i,
                      q[k].d);
        }
    }
    CHECK_MPI(MPI_Type_free(&st));
    CHECK_MPI(MPI_Type_free(&hv));
    CHECK_MPI(MPI_Type_free(&hi));
}

static void errhandlers(int size)
{
    MPI_Errhandler eh, got;
    MPI_Comm c;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CHECK_MPI(MPI_Errhandler_create(count_errors, &eh));
    CHECK_MPI(MPI_Errhandler_set(c, eh));
    CHECK_MPI(MPI_Errhandler_get(c, &got));
    CHECK(got == eh, "Errhandler_get returned another handler");
    int x = 0;
    int rc = MPI_Send(&x, 1, MPI_INT, size, 0, c);     /* rank out of range */
    CHECK(rc != MPI_SUCCESS && handler_calls == 1, "bad rank: rc %d, handler called %d times", rc,
          handler_calls);
    CHECK_MPI(MPI_Errhandler_free(&got));
    CHECK_MPI(MPI_Errhandler_free(&eh));
    CHECK_MPI(MPI_Comm_free(&c));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    attributes();
    datatypes(rank, size);
    errhandlers(size);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("legacy: ok at %d ranks\n", size);
    MPI_Finalize();
    return 0;
}
