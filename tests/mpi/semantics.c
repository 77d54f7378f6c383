/*
 * semantics.c -- corners of the standard that real clients hit (issue 22
 * item 9), each checked against what MPI-4.1 says:
 *  - MPI_BOTTOM (NULL) with a datatype of absolute addresses, in
 *    point-to-point (blocking, nonblocking, Sendrecv), collectives and
 *    Pack/Unpack; NULL with a relative type is a clear MPI_ERR_BUFFER;
 *  - MPI_Get_elements counts a pair type (MPI_DOUBLE_INT) as two basic
 *    elements, a lone value as one; Status_set_elements is its inverse;
 *  - an empty transfer with MPI_DATATYPE_NULL to or from MPI_PROC_NULL;
 *  - MPI_SUM and MPI_MAX on MPI_CHAR, logical ops on MPI_COUNT (extensions
 *    that Open MPI and MPICH make, docs/ops.md);
 *  - Comm_split_type: SHARED keeps everyone, HW_GUIDED with an unknown
 *    resource gives MPI_COMM_NULL, HW_UNGUIDED sets mpi_hw_resource_type;
 *  - nonblocking Comm_idup of two communicators started in opposite orders
 *    on different ranks (legal: they are different communicators), and
 *    three idups of one parent outstanding together; each pair of results
 *    must have distinct contexts (a message on one never matches a receive
 *    on the other).
 * Runs at any size.
 */
#include "check.h"

#include <stdint.h>

static int rank, size;

/* A struct type whose displacements are the absolute addresses of an int and
 * a double: usable only at MPI_BOTTOM. */
static MPI_Datatype absolute_type(int *i, double *d)
{
    MPI_Aint disp[2];
    MPI_Get_address(i, &disp[0]);
    MPI_Get_address(d, &disp[1]);
    int len[2] = { 1, 1 };
    MPI_Datatype types[2] = { MPI_INT, MPI_DOUBLE }, t;
    CHECK_MPI(MPI_Type_create_struct(2, len, disp, types, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    return t;
}

static void bottom_point_to_point(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int si = 1000 + rank, ri = -1;
    double sd = rank + 0.5, rd = -1;
    MPI_Datatype st = absolute_type(&si, &sd), rt = absolute_type(&ri, &rd);
    CHECK_MPI(MPI_Sendrecv(MPI_BOTTOM, 1, st, right, 1, MPI_BOTTOM, 1, rt, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(ri == 1000 + left && rd == left + 0.5, "Sendrecv at MPI_BOTTOM: got %d %g from %d", ri, rd, left);
    ri = -1, rd = -1;
    MPI_Request r[2];
    CHECK_MPI(MPI_Irecv(MPI_BOTTOM, 1, rt, left, 2, MPI_COMM_WORLD, &r[0]));
    CHECK_MPI(MPI_Isend(MPI_BOTTOM, 1, st, right, 2, MPI_COMM_WORLD, &r[1]));
    CHECK_MPI(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    CHECK(ri == 1000 + left && rd == left + 0.5, "Isend/Irecv at MPI_BOTTOM: got %d %g", ri, rd);
    if (size > 1) {
        ri = -1, rd = -1;
        if (rank == 0)
            CHECK_MPI(MPI_Send(MPI_BOTTOM, 1, st, 1, 3, MPI_COMM_WORLD));
        if (rank == 1) {
            CHECK_MPI(MPI_Recv(MPI_BOTTOM, 1, rt, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(ri == 1000 && rd == 0.5, "Send/Recv at MPI_BOTTOM: got %d %g", ri, rd);
        }
    }
    /* Pack from and unpack to MPI_BOTTOM */
    char packed[64];
    int pos = 0;
    CHECK_MPI(MPI_Pack(MPI_BOTTOM, 1, st, packed, sizeof packed, &pos, MPI_COMM_WORLD));
    ri = -1, rd = -1, pos = 0;
    CHECK_MPI(MPI_Unpack(packed, sizeof packed, &pos, MPI_BOTTOM, 1, rt, MPI_COMM_WORLD));
    CHECK(ri == si && rd == sd, "Pack/Unpack at MPI_BOTTOM: got %d %g", ri, rd);
    /* a collective: everyone's absolute type, root's values */
    ri = rank == 0 ? 77 : -1, rd = rank == 0 ? 7.5 : -1;
    CHECK_MPI(MPI_Bcast(MPI_BOTTOM, 1, rt, 0, MPI_COMM_WORLD));
    CHECK(ri == 77 && rd == 7.5, "Bcast at MPI_BOTTOM: got %d %g", ri, rd);
    MPI_Type_free(&st);
    MPI_Type_free(&rt);

    /* NULL with a relative type names MPI_BOTTOM and the call */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Send(NULL, 10, MPI_INT, rank, 4, MPI_COMM_WORLD), cls = -1, len;
    char msg[MPI_MAX_ERROR_STRING];
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_BUFFER, "MPI_Send(NULL, 10, MPI_INT): class %d, want MPI_ERR_BUFFER", cls);
    MPI_Error_string(rc, msg, &len);
#ifdef COREMPI
    CHECK(strstr(msg, "MPI_Send") && strstr(msg, "MPI_BOTTOM"), "error text names neither call nor MPI_BOTTOM: %s", msg);
#endif
    /* a collective names MPI_BOTTOM as the point-to-point calls do; a relative
     * derived type at NULL is refused too (it was let through and crashed) */
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Datatype bad[2] = { MPI_INT, pair };
    for (int i = 0; i < 2; i++) {
        rc = MPI_Bcast(NULL, 4, bad[i], 0, MPI_COMM_WORLD);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_BUFFER, "MPI_Bcast(NULL, 4, type %d): class %d, want MPI_ERR_BUFFER", i, cls);
        MPI_Error_string(rc, msg, &len);
#ifdef COREMPI
        CHECK(strstr(msg, "MPI_Bcast") && strstr(msg, "MPI_BOTTOM"), "Bcast error text names neither call nor MPI_BOTTOM: %s",
              msg);
#endif
    }
    MPI_Type_free(&pair);
    pos = 0;
    rc = MPI_Pack(NULL, 3, MPI_INT, packed, sizeof packed, &pos, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_BUFFER, "MPI_Pack(NULL, 3, MPI_INT): class %d", cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void pair_elements(void)
{
    if (size < 2)
        return;
    struct { double d; int i; } p[2] = { { 1, 2 }, { 3, 4 } };
    if (rank == 0) {
        CHECK_MPI(MPI_Send(p, 2, MPI_DOUBLE_INT, 1, 5, MPI_COMM_WORLD));
        /* a pair and a lone double */
        int len[3] = { 1, 1, 1 };
        MPI_Aint disp[3] = { 0, 8, 16 };
        MPI_Datatype types[3] = { MPI_DOUBLE, MPI_INT, MPI_DOUBLE }, t;
        CHECK_MPI(MPI_Type_create_struct(3, len, disp, types, &t));
        CHECK_MPI(MPI_Type_commit(&t));
        CHECK_MPI(MPI_Send(p, 1, t, 1, 6, MPI_COMM_WORLD));
        MPI_Type_free(&t);
    } else if (rank == 1) {
        MPI_Status st;
        int n, e;
        CHECK_MPI(MPI_Recv(p, 2, MPI_DOUBLE_INT, 0, 5, MPI_COMM_WORLD, &st));
        MPI_Get_count(&st, MPI_DOUBLE_INT, &n);
        MPI_Get_elements(&st, MPI_DOUBLE_INT, &e);
        CHECK(n == 2 && e == 4, "2 MPI_DOUBLE_INT: count %d elements %d, want 2 and 4", n, e);
        CHECK_MPI(MPI_Recv(p, 2, MPI_DOUBLE_INT, 0, 6, MPI_COMM_WORLD, &st));
        MPI_Get_count(&st, MPI_DOUBLE_INT, &n);
        MPI_Get_elements(&st, MPI_DOUBLE_INT, &e);
        CHECK(n == MPI_UNDEFINED && e == 3, "pair + double: count %d elements %d, want undefined and 3", n, e);
        MPI_Status made;
        CHECK_MPI(MPI_Status_set_elements(&made, MPI_DOUBLE_INT, 3));
        MPI_Get_elements(&made, MPI_DOUBLE_INT, &e);
        CHECK(e == 3, "Status_set_elements(3 of MPI_DOUBLE_INT) reads back %d", e);
    }
}

static void proc_null_datatype_null(void)
{
    MPI_Status st;
    MPI_Request r[2];
    CHECK_MPI(MPI_Recv(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG, "Recv from MPI_PROC_NULL: status %d %d",
          st.MPI_SOURCE, st.MPI_TAG);
    CHECK_MPI(MPI_Send(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Irecv(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[0]));
    CHECK_MPI(MPI_Isend(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[1]));
    CHECK_MPI(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    CHECK_MPI(MPI_Sendrecv(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 0, NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 0,
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE));
}

static void op_extensions(void)
{
    char c = (char)(rank + 1), csum = 0, cmax = 0;
    CHECK_MPI(MPI_Allreduce(&c, &csum, 1, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Allreduce(&c, &cmax, 1, MPI_CHAR, MPI_MAX, MPI_COMM_WORLD));
    CHECK(csum == (char)(size * (size + 1) / 2) && cmax == (char)size, "MPI_CHAR sum %d max %d", csum, cmax);
    MPI_Count flag = rank == size - 1, any = -1;
    CHECK_MPI(MPI_Allreduce(&flag, &any, 1, MPI_COUNT, MPI_LOR, MPI_COMM_WORLD));
    CHECK(any == 1, "MPI_LOR on MPI_COUNT gave %lld", (long long)any);
}

static void split_types(void)
{
    MPI_Comm shared, none, ung;
    int n;
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shared));
    MPI_Comm_size(shared, &n);
    CHECK(n == size, "COMM_TYPE_SHARED has %d of %d ranks", n, size);
    MPI_Comm_free(&shared);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_hw_resource_type", "no_such_resource");
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, rank, info, &none));
    CHECK(none == MPI_COMM_NULL, "HW_GUIDED with an unknown resource did not give MPI_COMM_NULL");
    MPI_Info_free(&info);
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, rank, MPI_INFO_NULL, &ung));
    if (ung != MPI_COMM_NULL) {
        MPI_Comm_size(ung, &n);
        CHECK(n < size, "HW_UNGUIDED gave %d ranks, not a strict subset of %d", n, size);
        MPI_Info got;
        char value[MPI_MAX_INFO_VAL + 1] = "";
        int flag = 0;
        CHECK_MPI(MPI_Comm_get_info(ung, &got));
        MPI_Info_get(got, "mpi_hw_resource_type", MPI_MAX_INFO_VAL, value, &flag);
        CHECK(flag && value[0], "HW_UNGUIDED: mpi_hw_resource_type is not set on the new communicator");
        MPI_Info_free(&got);
        MPI_Comm_free(&ung);
    }
}

/* A message sent on y first, then one on x, same peer and tag: the receive
 * on x must get x's.  Were the two communicators to share a context,
 * non-overtaking order would hand it y's. */
static void check_apart(MPI_Comm x, MPI_Comm y, const char *what)
{
    int to = (rank + 1) % size, from = (rank + size - 1) % size, one = 1, two = 2, vx = -1, vy = -1;
    MPI_Request q[2];
    CHECK_MPI(MPI_Isend(&two, 1, MPI_INT, to, 9, y, &q[0]));
    CHECK_MPI(MPI_Isend(&one, 1, MPI_INT, to, 9, x, &q[1]));
    CHECK_MPI(MPI_Recv(&vx, 1, MPI_INT, from, 9, x, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Recv(&vy, 1, MPI_INT, from, 9, y, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
    CHECK(vx == 1 && vy == 2, "%s share a context: got %d on the first, %d on the second", what, vx, vy);
}

/* Two idups of one parent outstanding at once, and a third started while
 * they run: their agreements are told apart by their tags only. */
static void idup_same_parent(void)
{
    MPI_Comm d[3];
    MPI_Request r[3];
    CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &d[0], &r[0]));
    CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &d[1], &r[1]));
    int flag;
    CHECK_MPI(MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &d[2], &r[2]));
    CHECK_MPI(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
    check_apart(d[0], d[1], "two idups of one parent");
    check_apart(d[1], d[2], "two idups of one parent");
    check_apart(d[2], d[0], "two idups of one parent");
    for (int i = 0; i < 3; i++)
        MPI_Comm_free(&d[i]);
}

static void idup_crossed(void)
{
    MPI_Comm a, b, da, db;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &b));
    MPI_Request r[2];
    if (rank % 2) {
        CHECK_MPI(MPI_Comm_idup(a, &da, &r[0]));
        CHECK_MPI(MPI_Comm_idup(b, &db, &r[1]));
    } else {
        CHECK_MPI(MPI_Comm_idup(b, &db, &r[1]));
        CHECK_MPI(MPI_Comm_idup(a, &da, &r[0]));
    }
    CHECK_MPI(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    /* both are usable and distinct: a token round on each */
    int x = rank, sa = -1, sb = -1;
    CHECK_MPI(MPI_Allreduce(&x, &sa, 1, MPI_INT, MPI_SUM, da));
    CHECK_MPI(MPI_Allreduce(&x, &sb, 1, MPI_INT, MPI_SUM, db));
    CHECK(sa == size * (size - 1) / 2 && sb == sa, "allreduce on the idup'd communicators: %d %d", sa, sb);
    /* Distinct contexts (round B's refusal: the two agreements ran at once
     * and first found the same free pair; a mutation that drops the refusal
     * is caught here, not by the sums above). */
    check_apart(da, db, "idup'd communicators");
    MPI_Comm_free(&da);
    MPI_Comm_free(&db);
    MPI_Comm_free(&a);
    MPI_Comm_free(&b);
}

int main(int argc, char **argv)
{
    check_init(&argc, &argv, &rank, &size);
    bottom_point_to_point();
    pair_elements();
    proc_null_datatype_null();
    op_extensions();
    split_types();
    idup_crossed();
    idup_same_parent();
    MPI_Barrier(MPI_COMM_WORLD);
    return check_done("semantics");
}
