/*
 * std_edges.c -- the standard's behaviour in small places that mpi4py
 * checks (issue 33 item 3), each a correct call that must do what MPI-4.1
 * says:
 *   - a Session_* call on MPI_SESSION_NULL raises MPI_ERR_SESSION on
 *     MPI_COMM_SELF's handler (9.3), so MPI_ERRORS_RETURN there returns it;
 *   - Comm/Type/Win_get_name of MPI_COMM_NULL / MPI_DATATYPE_NULL /
 *     MPI_WIN_NULL name the null handle (7.8);
 *   - Comm_split_type(MPI_COMM_TYPE_RESOURCE_GUIDED) by mpi_pset_name
 *     ("mpi://WORLD", "mpi://SELF", unknown: MPI_COMM_NULL) and by
 *     mpi_hw_resource_type, the new communicator's info naming it (7.4.2);
 *   - Comm_split_type(MPI_COMM_TYPE_HW_UNGUIDED): the new communicator's
 *     info and the info argument (INOUT there) carry mpi_hw_resource_type
 *     (argument --packages: a split must happen, under a 2-package
 *     COREMPI_TOPOLOGY);
 *   - Win_shared_query on a Win_create window of malloc memory: size 0 and
 *     a NULL base for another rank's memory, the real answer for its own;
 *   - Win_allocate_shared / Win_allocate of size 0: a NULL base (and
 *     Win_shared_query of that rank: size 0, NULL);
 *   - Get_accumulate and Accumulate of count 0 take any op (a user op,
 *     MPI_MAXLOC on MPI_INT) (nothing is combined).
 */
#include "check.h"

static int me, n;

static void session_null(void)
{
    MPI_Errhandler old;
    CHECK_MPI(MPI_Comm_get_errhandler(MPI_COMM_SELF, &old));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    MPI_Session s = MPI_SESSION_NULL;
    MPI_Info info = MPI_INFO_NULL;
    int np = -1, cls = -1;
    int rc = MPI_Session_get_num_psets(s, MPI_INFO_NULL, &np);
    CHECK(rc != MPI_SUCCESS, "Session_get_num_psets(MPI_SESSION_NULL) succeeded");
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_SESSION, "Session_get_num_psets(MPI_SESSION_NULL): class %d, expected MPI_ERR_SESSION", cls);
    rc = MPI_Session_get_info(s, &info);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_SESSION, "Session_get_info(MPI_SESSION_NULL): class %d, expected MPI_ERR_SESSION", cls);
    rc = MPI_Session_finalize(&s);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_SESSION, "Session_finalize(MPI_SESSION_NULL): class %d, expected MPI_ERR_SESSION", cls);
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, old));
    MPI_Errhandler_free(&old);
}

static void null_names(void)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    CHECK_MPI(MPI_Comm_get_name(MPI_COMM_NULL, name, &len));
    CHECK(!strcmp(name, "MPI_COMM_NULL") && len == 13, "Comm_get_name(MPI_COMM_NULL): \"%s\" (%d)", name, len);
    CHECK_MPI(MPI_Type_get_name(MPI_DATATYPE_NULL, name, &len));
    CHECK(!strcmp(name, "MPI_DATATYPE_NULL") && len == 17, "Type_get_name(MPI_DATATYPE_NULL): \"%s\" (%d)", name, len);
    CHECK_MPI(MPI_Win_get_name(MPI_WIN_NULL, name, &len));
    CHECK(!strcmp(name, "MPI_WIN_NULL") && len == 12, "Win_get_name(MPI_WIN_NULL): \"%s\" (%d)", name, len);
}

/* The new communicator of a split: its size (0: MPI_COMM_NULL) and the
 * value of info key `key` (empty if missing); the communicator is freed. */
static int split(int type, const char *key, const char *value, const char *info_key, char *got)
{
    MPI_Info info = MPI_INFO_NULL;
    MPI_Comm c;
    int size = 0, flag = 0;
    if (key) {
        CHECK_MPI(MPI_Info_create(&info));
        CHECK_MPI(MPI_Info_set(info, key, value));
    }
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, type, 0, info, &c));
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    got[0] = 0;
    if (c == MPI_COMM_NULL)
        return 0;
    MPI_Comm_size(c, &size);
    MPI_Info ci;
    CHECK_MPI(MPI_Comm_get_info(c, &ci));
    CHECK_MPI(MPI_Info_get(ci, info_key, MPI_MAX_INFO_VAL - 1, got, &flag));
    if (!flag)
        got[0] = 0;
    MPI_Info_free(&ci);
    MPI_Comm_free(&c);
    return size;
}

static void split_types(int packages)
{
    char got[MPI_MAX_INFO_VAL];
    int s = split(MPI_COMM_TYPE_RESOURCE_GUIDED, "mpi_pset_name", "mpi://WORLD", "mpi_pset_name", got);
    CHECK(s == n && !strcmp(got, "mpi://WORLD"), "RESOURCE_GUIDED mpi://WORLD: size %d, info \"%s\"", s, got);
    s = split(MPI_COMM_TYPE_RESOURCE_GUIDED, "mpi_pset_name", "mpi://SELF", "mpi_pset_name", got);
    CHECK(s == 1 && !strcmp(got, "mpi://SELF"), "RESOURCE_GUIDED mpi://SELF: size %d, info \"%s\"", s, got);
    s = split(MPI_COMM_TYPE_RESOURCE_GUIDED, "mpi_pset_name", "no://such/set", "mpi_pset_name", got);
    CHECK(s == 0, "RESOURCE_GUIDED no://such/set: size %d, expected MPI_COMM_NULL", s);
    s = split(MPI_COMM_TYPE_RESOURCE_GUIDED, "mpi_hw_resource_type", "mpi_shared_memory", "mpi_hw_resource_type", got);
    CHECK(s == n && !strcmp(got, "mpi_shared_memory"), "RESOURCE_GUIDED mpi_shared_memory: size %d, info \"%s\"", s,
          got);
    s = split(MPI_COMM_TYPE_HW_UNGUIDED, NULL, NULL, "mpi_hw_resource_type", got);
    CHECK(!packages || (s > 0 && s < n), "HW_UNGUIDED under 2 packages: size %d of %d", s, n);
    CHECK(s == 0 || got[0], "HW_UNGUIDED: the new communicator's info lacks mpi_hw_resource_type");
    if (me == 0 && s)
        printf("std_edges: HW_UNGUIDED split at %s (size %d)\n", got, s);
}

/* The info argument is INOUT for HW_UNGUIDED: it gets the level too. */
static void unguided_info(void)
{
    char got[MPI_MAX_INFO_VAL];
    MPI_Info info;
    MPI_Comm c;
    int flag = 0;
    CHECK_MPI(MPI_Info_create(&info));
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, me, info, &c));
    CHECK_MPI(MPI_Info_get(info, "mpi_hw_resource_type", MPI_MAX_INFO_VAL - 1, got, &flag));
    CHECK(c == MPI_COMM_NULL || (flag && got[0]), "HW_UNGUIDED: the info argument lacks mpi_hw_resource_type");
    if (c != MPI_COMM_NULL)
        MPI_Comm_free(&c);
    MPI_Info_free(&info);
}

static void shared_query_create(void)
{
    int *mem = calloc(4, sizeof(int));
    CHECK(mem, "calloc");
    MPI_Win win;
    CHECK_MPI(MPI_Win_create(mem, 4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    for (int r = 0; r < n; r++) {
        MPI_Aint size = -1;
        int du = -1;
        void *p = &du;
        CHECK_MPI(MPI_Win_shared_query(win, r, &size, &du, &p));
        if (r == me)
            CHECK(size == 4 * (MPI_Aint)sizeof(int) && p == mem && du == (int)sizeof(int),
                  "Win_shared_query of my own Win_create memory: size %ld, base %p (mine %p)", (long)size, p,
                  (void *)mem);
        else
            CHECK((size == 0 && p == NULL) || (size == 4 * (MPI_Aint)sizeof(int) && p != NULL),
                  "Win_shared_query of rank %d's Win_create memory: size %ld, base %p", r, (long)size, p);
    }
    CHECK_MPI(MPI_Win_free(&win));
    free(mem);
}

static void zero_size(void)
{
    for (int k = 0; k < 2; k++) {
        MPI_Aint mine = me % 2 ? 0 : 64;
        void *base = &mine;
        MPI_Win win;
        if (k == 0)
            CHECK_MPI(MPI_Win_allocate_shared(mine, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
        else
            CHECK_MPI(MPI_Win_allocate(mine, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
        const char *call = k == 0 ? "Win_allocate_shared" : "Win_allocate";
        CHECK(mine ? base != NULL : base == NULL, "%s of size %ld: base %p", call, (long)mine, base);
        void *attr = NULL;
        int flag = 0;
        CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_BASE, &attr, &flag));
        CHECK(flag && attr == base, "%s: MPI_WIN_BASE %p, base %p", call, attr, base);
        for (int r = 0; r < n; r++) {
            MPI_Aint size = -1;
            int du;
            void *p = &du;
            CHECK_MPI(MPI_Win_shared_query(win, r, &size, &du, &p));
            CHECK(r % 2 ? size == 0 && p == NULL : size == 64 && p != NULL,
                  "%s: Win_shared_query of rank %d: size %ld, base %p", call, r, (long)size, p);
        }
        CHECK_MPI(MPI_Win_free(&win));
    }
}

static void my_op(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)in, (void)inout, (void)len, (void)t;
}

static void zero_count_ops(void)
{
    int buf[2] = {0}, res[2] = {0}, origin[2] = {1, 2};
    MPI_Win win;
    MPI_Op user;
    CHECK_MPI(MPI_Op_create(my_op, 1, &user));
    CHECK_MPI(MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_MPI(MPI_Win_lock_all(0, win));
    int t = (me + 1) % n;
    MPI_Op ops[] = {user, MPI_MAXLOC, MPI_REPLACE, MPI_NO_OP, MPI_SUM};
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
        CHECK_MPI(MPI_Get_accumulate(origin, 0, MPI_INT, res, 0, MPI_INT, t, 0, 0, MPI_INT, ops[i], win));
        CHECK_MPI(MPI_Accumulate(origin, 0, MPI_INT, t, 0, 0, MPI_INT, ops[i], win));
    }
    CHECK_MPI(MPI_Win_unlock_all(win));
    CHECK_MPI(MPI_Win_free(&win));
    CHECK(buf[0] == 0 && buf[1] == 0 && res[0] == 0, "an op of count 0 changed memory");
    MPI_Op_free(&user);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int packages = argc > 1 && !strcmp(argv[1], "--packages");
    /* STD_EDGES_ONLY=<name> runs one part (to see each fail alone) */
    const char *only = getenv("STD_EDGES_ONLY");
#define PART(name, call)                              \
    if (!only || !strcmp(only, name))                 \
        call;
    PART("session_null", session_null());
    PART("null_names", null_names());
    PART("split_types", split_types(packages));
    PART("unguided_info", unguided_info());
    PART("shared_query_create", shared_query_create());
    PART("zero_size", zero_size());
    PART("zero_count_ops", zero_count_ops());
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0)
        printf("std_edges: ok\n");
    MPI_Finalize();
    return 0;
}
