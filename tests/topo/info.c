/*
 * info.c -- MPI_Info: set/get/get_string/valuelen/delete/dup/free/nkeys/
 * nthkey (order of first insertion is kept), MPI_INFO_ENV, communicator hints,
 * and the error classes of bad keys, values and handles (MPI_ERRORS_RETURN).
 */
#include "topo_check.h"

static void expect_value(MPI_Info info, const char *key, const char *value)
{
    char buf[MPI_MAX_INFO_VAL + 1];
    int flag = -1, len = -1;
    OK(MPI_Info_get_valuelen(info, key, &len, &flag));
    CHECK(flag && len == (int)strlen(value), "valuelen of %s: flag %d len %d", key, flag, len);
    OK(MPI_Info_get(info, key, MPI_MAX_INFO_VAL, buf, &flag));
    CHECK(flag && strcmp(buf, value) == 0, "Info_get %s = \"%s\", expected \"%s\"", key, flag ? buf : "", value);
}

int main(int argc, char **argv)
{
    topo_init_returning(&argc, &argv);
    MPI_Info info, dup;
    int nkeys, flag;
    char key[MPI_MAX_INFO_KEY + 1], buf[MPI_MAX_INFO_VAL + 1];

    OK(MPI_Info_create(&info));
    OK(MPI_Info_get_nkeys(info, &nkeys));
    CHECK(nkeys == 0, "new info has %d keys", nkeys);
    OK(MPI_Info_set(info, "zeta", "1"));
    OK(MPI_Info_set(info, "alpha", "two"));
    OK(MPI_Info_set(info, "mid", "three three"));
    OK(MPI_Info_set(info, "alpha", "TWO")); /* replace keeps the position */
    OK(MPI_Info_get_nkeys(info, &nkeys));
    CHECK(nkeys == 3, "3 keys expected, got %d", nkeys);
    const char *order[3] = { "zeta", "alpha", "mid" };
    for (int i = 0; i < 3; i++) {
        OK(MPI_Info_get_nthkey(info, i, key));
        CHECK(strcmp(key, order[i]) == 0, "nthkey(%d) = %s, expected %s", i, key, order[i]);
    }
    expect_value(info, "alpha", "TWO");
    expect_value(info, "mid", "three three");
    OK(MPI_Info_get(info, "missing", MPI_MAX_INFO_VAL, buf, &flag));
    CHECK(!flag, "missing key found");

    /* Info_get truncates to valuelen characters */
    OK(MPI_Info_get(info, "mid", 5, buf, &flag));
    CHECK(flag && strcmp(buf, "three") == 0, "truncated Info_get: \"%s\"", buf);

#if MPI_VERSION >= 4
    /* Info_get_string: buflen in/out, counting the NUL */
    int buflen = 0;
    OK(MPI_Info_get_string(info, "mid", &buflen, NULL, &flag));
    CHECK(flag && buflen == 12, "get_string size query: flag %d buflen %d", flag, buflen);
    buflen = 4;
    OK(MPI_Info_get_string(info, "mid", &buflen, buf, &flag));
    CHECK(flag && buflen == 12 && strcmp(buf, "thr") == 0, "get_string truncated: %d \"%s\"", buflen, buf);
    buflen = sizeof buf;
    OK(MPI_Info_get_string(info, "mid", &buflen, buf, &flag));
    CHECK(flag && buflen == 12 && strcmp(buf, "three three") == 0, "get_string: %d \"%s\"", buflen, buf);
#endif

    /* dup is deep and keeps the order */
    OK(MPI_Info_dup(info, &dup));
    OK(MPI_Info_set(info, "zeta", "changed"));
    expect_value(dup, "zeta", "1");
    for (int i = 0; i < 3; i++) {
        OK(MPI_Info_get_nthkey(dup, i, key));
        CHECK(strcmp(key, order[i]) == 0, "dup nthkey(%d) = %s", i, key);
    }
    OK(MPI_Info_delete(info, "alpha"));
    OK(MPI_Info_get_nkeys(info, &nkeys));
    CHECK(nkeys == 2, "after delete: %d keys", nkeys);
    OK(MPI_Info_get_nthkey(info, 1, key));
    CHECK(strcmp(key, "mid") == 0, "after delete nthkey(1) = %s", key);
    OK(MPI_Info_get_nkeys(dup, &nkeys));
    CHECK(nkeys == 3, "delete in the original changed the dup");

    /* errors */
    int rc = MPI_Info_delete(info, "alpha");
    CHECK(rc != MPI_SUCCESS && topo_error_class(rc) == MPI_ERR_INFO_NOKEY, "delete of a missing key: %d", rc);
    char longkey[MPI_MAX_INFO_KEY + 10];
    memset(longkey, 'k', sizeof longkey - 1);
    longkey[sizeof longkey - 1] = 0;
    rc = MPI_Info_set(info, longkey, "v");
    CHECK(rc != MPI_SUCCESS && topo_error_class(rc) == MPI_ERR_INFO_KEY, "too long key: %d", rc);
    static char longval[MPI_MAX_INFO_VAL + 10];
    memset(longval, 'v', sizeof longval - 1);
    rc = MPI_Info_set(info, "k", longval);
    CHECK(rc != MPI_SUCCESS && topo_error_class(rc) == MPI_ERR_INFO_VALUE, "too long value: %d", rc);
    rc = MPI_Info_get_nthkey(info, 2, key);
    CHECK(rc != MPI_SUCCESS, "nthkey out of range succeeded");
    MPI_Info freed = dup;
    OK(MPI_Info_free(&dup));
    CHECK(dup == MPI_INFO_NULL, "Info_free did not set MPI_INFO_NULL");
#ifdef COREMPI
    /* Open MPI may crash on a stale handle, so this runs on corempi only. */
    rc = MPI_Info_get_nkeys(freed, &nkeys);
    CHECK(rc != MPI_SUCCESS && topo_error_class(rc) == MPI_ERR_INFO, "freed handle accepted: %d", rc);
    rc = MPI_Info_get_nkeys(MPI_INFO_NULL, &nkeys);
    CHECK(rc != MPI_SUCCESS && topo_error_class(rc) == MPI_ERR_INFO, "MPI_INFO_NULL accepted: %d", rc);
#endif
    (void)freed;

    /* MPI_INFO_ENV exists; where "command" is known it names this program */
    OK(MPI_Info_get_nkeys(MPI_INFO_ENV, &nkeys));
    OK(MPI_Info_get(MPI_INFO_ENV, "command", MPI_MAX_INFO_VAL, buf, &flag));
    if (flag)
        CHECK(strstr(buf, "info") != NULL, "MPI_INFO_ENV command = \"%s\"", buf);
#ifdef COREMPI
    CHECK(flag, "MPI_INFO_ENV has no command");
    OK(MPI_Info_get(MPI_INFO_ENV, "maxprocs", MPI_MAX_INFO_VAL, buf, &flag));
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(flag && atoi(buf) == size, "MPI_INFO_ENV maxprocs = %s", flag ? buf : "(none)");
#endif

    /* communicator hints: set stores a copy, get returns a new object */
    MPI_Comm c;
    MPI_Info used;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    OK(MPI_Comm_get_info(c, &used));
    CHECK(used != MPI_INFO_NULL, "Comm_get_info returned MPI_INFO_NULL");
    OK(MPI_Info_free(&used));
#ifdef COREMPI
    /* Open MPI returns only hints it understands; corempi keeps what was set. */
    OK(MPI_Info_set(info, "corempi_test_hint", "yes"));
    OK(MPI_Comm_set_info(c, info));
    OK(MPI_Info_set(info, "corempi_test_hint", "changed later"));
    OK(MPI_Comm_get_info(c, &used));
    expect_value(used, "corempi_test_hint", "yes");
    OK(MPI_Info_free(&used));
#endif
    OK(MPI_Comm_free(&c));
    OK(MPI_Info_free(&info));
    topo_pass("info");
    MPI_Finalize();
    return 0;
}
