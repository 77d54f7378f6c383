/*
 * attr.c -- communicator attributes: copy callbacks run on Comm_dup (and
 * their flag decides whether the copy exists), delete callbacks run on
 * Comm_free, Comm_delete_attr, replacement by Comm_set_attr and for
 * MPI_COMM_SELF at MPI_Finalize; a freed keyval keeps working for the
 * attributes that still use it; a failing copy callback makes Comm_dup fail;
 * the predefined attributes.  Callback calls are counted.
 */
#include "topo_check.h"
#include <stdint.h>

static int copies, deletes, self_deletes;
static intptr_t last_deleted;
static int extra_marker;

static int copy_plus_one(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    CHECK(extra == &extra_marker, "copy callback: wrong extra_state");
    copies++;
    *(void **)out = (void *)((intptr_t)in + 1);
    *flag = 1;
    return MPI_SUCCESS;
}

static int count_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    CHECK(extra == &extra_marker, "delete callback: wrong extra_state");
    deletes++;
    last_deleted = (intptr_t)value;
    return MPI_SUCCESS;
}

static int failing_copy(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    *flag = 0;
    return MPI_ERR_ARG;
}

static int self_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    self_deletes++;
    return MPI_SUCCESS;
}

static intptr_t get(MPI_Comm c, int k, int *flag)
{
    void *v = NULL;
    OK(MPI_Comm_get_attr(c, k, &v, flag));
    return (intptr_t)v;
}

static void check_predefined(MPI_Comm c, const char *name)
{
    int *v, flag, size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    OK(MPI_Comm_get_attr(c, MPI_TAG_UB, &v, &flag));
    CHECK(flag && *v >= 32767, "%s: MPI_TAG_UB flag %d", name, flag);
#ifdef COREMPI
    CHECK(*v == 0x7fffffff, "%s: MPI_TAG_UB = %d", name, *v);
#endif
    OK(MPI_Comm_get_attr(c, MPI_HOST, &v, &flag));
    CHECK(flag && *v == MPI_PROC_NULL, "%s: MPI_HOST", name);
    OK(MPI_Comm_get_attr(c, MPI_IO, &v, &flag));
    CHECK(flag && (*v == MPI_ANY_SOURCE || (*v >= 0 && *v < size)), "%s: MPI_IO", name);
    OK(MPI_Comm_get_attr(c, MPI_WTIME_IS_GLOBAL, &v, &flag));
    CHECK(!flag || *v == 0 || *v == 1, "%s: MPI_WTIME_IS_GLOBAL", name);
#ifdef COREMPI
    CHECK(flag && *v == 1, "%s: MPI_WTIME_IS_GLOBAL", name);
    OK(MPI_Comm_get_attr(c, MPI_UNIVERSE_SIZE, &v, &flag));
    /* the universe: mpirun --universe-size, by default the larger of 64, the cores and -n */
    CHECK(flag && *v >= size, "%s: MPI_UNIVERSE_SIZE %d below the world size %d", name, *v, size);
    OK(MPI_Comm_get_attr(c, MPI_APPNUM, &v, &flag));
    CHECK(flag && *v == 0, "%s: MPI_APPNUM", name);
#endif
}

int main(int argc, char **argv)
{
    topo_init_returning(&argc, &argv);
    int k, knull, kdup, flag;
    OK(MPI_Comm_create_keyval(copy_plus_one, count_delete, &k, &extra_marker));
    OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &knull, NULL));
    OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &kdup, NULL));

    MPI_Comm a, b;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    get(a, k, &flag);
    CHECK(!flag, "attribute present before set");
    OK(MPI_Comm_set_attr(a, k, (void *)100));
    OK(MPI_Comm_set_attr(a, knull, (void *)7));
    OK(MPI_Comm_set_attr(a, kdup, (void *)8));
    CHECK(get(a, k, &flag) == 100 && flag, "get after set");

    /* dup: one copy call; NULL_COPY_FN attribute is not copied, DUP_FN one is */
    OK(MPI_Comm_dup(a, &b));
    CHECK(copies == 1, "copy callback ran %d times on dup, expected 1", copies);
    CHECK(get(b, k, &flag) == 101 && flag, "copied value");
    get(b, knull, &flag);
    CHECK(!flag, "MPI_COMM_NULL_COPY_FN attribute was copied");
    CHECK(get(b, kdup, &flag) == 8 && flag, "MPI_COMM_DUP_FN attribute not copied");
    CHECK(get(a, k, &flag) == 100, "dup changed the original");

    /* replace: deletes the old value */
    OK(MPI_Comm_set_attr(b, k, (void *)200));
    CHECK(deletes == 1 && last_deleted == 101, "replace: deletes %d last %ld", deletes, (long)last_deleted);
    /* delete_attr */
    OK(MPI_Comm_delete_attr(b, k));
    CHECK(deletes == 2 && last_deleted == 200, "delete_attr: deletes %d last %ld", deletes, (long)last_deleted);
    get(b, k, &flag);
    CHECK(!flag, "attribute present after delete");
    OK(MPI_Comm_set_attr(b, k, (void *)300));
    OK(MPI_Comm_free(&b));
    CHECK(deletes == 3 && last_deleted == 300, "Comm_free: deletes %d last %ld", deletes, (long)last_deleted);

    /* a freed keyval still serves the attributes made with it */
    int kept = k;
    OK(MPI_Comm_free_keyval(&k));
    CHECK(k == MPI_KEYVAL_INVALID, "Comm_free_keyval did not reset the handle");
    OK(MPI_Comm_dup(a, &b));
    CHECK(copies == 2, "copy callback of a freed keyval did not run on dup (%d)", copies);
    OK(MPI_Comm_free(&b));
    CHECK(deletes == 4 && last_deleted == 101, "delete of the dup's copy: %d %ld", deletes, (long)last_deleted);
    OK(MPI_Comm_free(&a));
    CHECK(deletes == 5 && last_deleted == 100, "delete with a freed keyval: %d %ld", deletes, (long)last_deleted);
    (void)kept;

    /* a copy callback that fails makes Comm_dup fail with its code */
    int kfail;
    OK(MPI_Comm_create_keyval(failing_copy, MPI_COMM_NULL_DELETE_FN, &kfail, NULL));
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    MPI_Comm_set_errhandler(a, MPI_ERRORS_RETURN);
    OK(MPI_Comm_set_attr(a, kfail, (void *)1));
    b = MPI_COMM_NULL;
    int rc = MPI_Comm_dup(a, &b);
    CHECK(rc != MPI_SUCCESS, "Comm_dup succeeded although a copy callback failed");
#ifdef COREMPI
    CHECK(rc == MPI_ERR_ARG && b == MPI_COMM_NULL, "Comm_dup: rc %d (expected the callback's MPI_ERR_ARG)", rc);
#endif
    OK(MPI_Comm_free(&a));
    OK(MPI_Comm_free_keyval(&kfail));

    /* topology communicators carry attributes too */
    int kc;
    OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_delete, &kc, &extra_marker));
    int size, dims[1], periods[1] = { 1 };
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    dims[0] = size;
    OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &a));
    OK(MPI_Comm_set_attr(a, kc, (void *)42));
    OK(MPI_Comm_free(&a));
    CHECK(deletes == 6 && last_deleted == 42, "Cartesian Comm_free: deletes %d", deletes);
    OK(MPI_Comm_free_keyval(&kc));

    /* predefined attributes */
    check_predefined(MPI_COMM_WORLD, "MPI_COMM_WORLD");
#ifdef COREMPI
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    check_predefined(a, "a duplicate of MPI_COMM_WORLD");
    OK(MPI_Comm_free(&a));
    rc = MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, (void *)1);
    CHECK(rc == MPI_ERR_KEYVAL, "setting MPI_TAG_UB: %d", rc);
    rc = MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_TAG_UB);
    CHECK(rc == MPI_ERR_KEYVAL, "deleting MPI_TAG_UB: %d", rc);
    rc = MPI_Comm_get_attr(MPI_COMM_WORLD, 12345, &a, &flag);
    CHECK(rc == MPI_ERR_KEYVAL, "invalid keyval accepted: %d", rc);
    int bad = 12345;
    rc = MPI_Comm_free_keyval(&bad);
    CHECK(rc == MPI_ERR_KEYVAL, "freeing an invalid keyval: %d", rc);
#endif
    OK(MPI_Comm_free_keyval(&knull));
    OK(MPI_Comm_free_keyval(&kdup));

    /* MPI_COMM_SELF's attributes are deleted at the start of MPI_Finalize */
    int ks;
    OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &ks, NULL));
    OK(MPI_Comm_set_attr(MPI_COMM_SELF, ks, (void *)1));
    topo_pass("attr");
    MPI_Finalize();
    if (self_deletes != 1) {
        fprintf(stderr, "MPI_Finalize ran the MPI_COMM_SELF delete callback %d times\n", self_deletes);
        return 1;
    }
    return 0;
}
