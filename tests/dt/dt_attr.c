/*
 * dt_attr.c -- datatype keyvals and attributes: copy callbacks run on
 * MPI_Type_dup (MPI_TYPE_DUP_FN copies, MPI_TYPE_NULL_COPY_FN does not, a
 * user callback sees the old type and can refuse), delete callbacks run on
 * MPI_Type_free and on replacing a value, a freed keyval still serves the
 * attributes made with it, attributes on a predefined type, and bad
 * arguments (a communicator keyval on a type, an invalid type) under
 * MPI_ERRORS_RETURN.  Runs on any number of ranks and under any MPI.
 */
#include "dt_ref.h"

static int deletes, copies;
static MPI_Datatype copied_from;

static int count_delete(MPI_Datatype t, int k, void *val, void *extra)
{
    (void)t, (void)k, (void)extra;
    deletes += *(int *)val;
    return MPI_SUCCESS;
}

static int plus_one_copy(MPI_Datatype t, int k, void *extra, void *in, void *out, int *flag)
{
    (void)k, (void)extra;
    copied_from = t;
    copies++;
    static int v;
    v = *(int *)in + 1;
    *(void **)out = &v;
    *flag = 1;
    return MPI_SUCCESS;
}

static int refuse_copy(MPI_Datatype t, int k, void *extra, void *in, void *out, int *flag)
{
    (void)t, (void)k, (void)extra, (void)in, (void)out, (void)flag;
    return MPI_ERR_OTHER;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* keyval errors go there */
    int kdup, knull, kuser, kbad, kcomm, flag = -1, one = 1, ten = 10;
    void *got = NULL;
    MPI_Datatype t, d, d2;
    CHECK(MPI_Type_contiguous(3, MPI_INT, &t) == MPI_SUCCESS, "contiguous");
    CHECK(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, count_delete, &kdup, NULL) == MPI_SUCCESS, "keyval dup");
    CHECK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &knull, NULL) == MPI_SUCCESS, "null");
    CHECK(MPI_Type_create_keyval(plus_one_copy, count_delete, &kuser, NULL) == MPI_SUCCESS, "keyval user");
    CHECK(MPI_Type_set_attr(t, kdup, &one) == MPI_SUCCESS, "set dup");
    CHECK(MPI_Type_set_attr(t, knull, &one) == MPI_SUCCESS, "set null");
    CHECK(MPI_Type_set_attr(t, kuser, &ten) == MPI_SUCCESS, "set user");
    CHECK(MPI_Type_get_attr(t, kuser, &got, &flag) == MPI_SUCCESS && flag && got == &ten, "get user");

    CHECK(MPI_Type_dup(t, &d) == MPI_SUCCESS, "dup");
    CHECK(copies == 1 && copied_from == t, "copy callback ran %d times", copies);
    CHECK(MPI_Type_get_attr(d, kdup, &got, &flag) == MPI_SUCCESS && flag && got == &one, "dup fn copied");
    CHECK(MPI_Type_get_attr(d, knull, &got, &flag) == MPI_SUCCESS && !flag, "null copy fn copied");
    CHECK(MPI_Type_get_attr(d, kuser, &got, &flag) == MPI_SUCCESS && flag && *(int *)got == 11, "user copy");

    /* Replacing runs the delete callback on the old value; deleting too. */
    deletes = 0;
    CHECK(MPI_Type_set_attr(t, kdup, &ten) == MPI_SUCCESS && deletes == 1, "replace: deletes %d", deletes);
    CHECK(MPI_Type_delete_attr(t, kdup) == MPI_SUCCESS && deletes == 11, "delete: deletes %d", deletes);
    CHECK(MPI_Type_get_attr(t, kdup, &got, &flag) == MPI_SUCCESS && !flag, "deleted attr still there");

    /* Free runs the delete callbacks of what is attached (kdup 1 + kuser 11). */
    deletes = 0;
    CHECK(MPI_Type_free_keyval(&kuser) == MPI_SUCCESS && kuser == MPI_KEYVAL_INVALID, "free keyval");
    CHECK(MPI_Type_free(&d) == MPI_SUCCESS && deletes == 12, "free ran deletes: %d", deletes);

    /* A copy callback that fails makes Type_dup fail and leaves no type. */
    CHECK(MPI_Type_create_keyval(refuse_copy, MPI_TYPE_NULL_DELETE_FN, &kbad, NULL) == MPI_SUCCESS, "keyval bad");
    CHECK(MPI_Type_set_attr(t, kbad, &one) == MPI_SUCCESS, "set bad");
    d2 = MPI_INT;
    CHECK(MPI_Type_dup(t, &d2) == MPI_ERR_OTHER && d2 == MPI_DATATYPE_NULL, "refused copy: dup succeeded");
    CHECK(MPI_Type_delete_attr(t, kbad) == MPI_SUCCESS, "delete bad");

    /* Predefined types carry attributes too. */
    CHECK(MPI_Type_set_attr(MPI_DOUBLE, knull, &ten) == MPI_SUCCESS, "set on MPI_DOUBLE");
    CHECK(MPI_Type_get_attr(MPI_DOUBLE, knull, &got, &flag) == MPI_SUCCESS && flag && got == &ten, "get DOUBLE");
    CHECK(MPI_Type_delete_attr(MPI_DOUBLE, knull) == MPI_SUCCESS, "delete on MPI_DOUBLE");

    /* bad arguments */
    CHECK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kcomm, NULL) == MPI_SUCCESS, "ck");
    CHECK(MPI_Type_set_attr(t, kcomm, &one) == MPI_ERR_KEYVAL, "communicator keyval accepted on a type");
    CHECK(MPI_Comm_set_attr(MPI_COMM_WORLD, knull, &one) == MPI_ERR_KEYVAL, "type keyval accepted on a comm");
    CHECK(MPI_Type_get_attr(t, 12345, &got, &flag) == MPI_ERR_KEYVAL, "keyval 12345 accepted");
    CHECK(MPI_Type_set_attr(MPI_DATATYPE_NULL, knull, &one) == MPI_ERR_TYPE, "MPI_DATATYPE_NULL accepted");
    CHECK(MPI_Type_get_attr(t, knull, NULL, &flag) == MPI_ERR_ARG, "NULL attribute_val accepted");
    CHECK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, NULL, NULL) == MPI_ERR_ARG,
          "NULL type_keyval accepted");
    CHECK(MPI_Type_free_keyval(&kcomm) == MPI_ERR_KEYVAL, "communicator keyval freed as a type keyval");
    CHECK(MPI_Comm_free_keyval(&kcomm) == MPI_SUCCESS, "comm free keyval");

    CHECK(MPI_Type_free(&t) == MPI_SUCCESS, "free t");
    CHECK(MPI_Type_free_keyval(&kdup) == MPI_SUCCESS && MPI_Type_free_keyval(&knull) == MPI_SUCCESS &&
          MPI_Type_free_keyval(&kbad) == MPI_SUCCESS, "free keyvals");
    CHECK(MPI_Type_free_keyval(&kdup) == MPI_ERR_KEYVAL, "freed twice");
    MPI_Finalize();
    return 0;
}
