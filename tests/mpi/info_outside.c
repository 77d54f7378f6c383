/*
 * info_outside.c -- the Info calls before MPI_Init and after MPI_Finalize
 * (allowed since MPI-4.0), an info made before Init still valid after
 * Finalize, and MPI_Info_create_env (command, argv, maxprocs, thread_level,
 * host, arch, wdir) from given arguments and from the real command line,
 * with its bad arguments.
 */
#include "check.h"

static void expect(MPI_Info info, const char *key, const char *want)
{
    char v[MPI_MAX_INFO_VAL + 1] = "";
    int flag = 0;
    CHECK_MPI(MPI_Info_get(info, key, MPI_MAX_INFO_VAL, v, &flag));
    CHECK(flag, "key %s missing", key);
    CHECK(!want || !strcmp(v, want), "key %s is \"%s\", want \"%s\"", key, v, want);
}

int main(int argc, char **argv)
{
    MPI_Info early, dup, env, env2;
    int nkeys = -1, flag = 1;
    char v[64];
    char *args[] = { "prog", "-x", "7", NULL };
    CHECK_MPI(MPI_Info_create(&early));
    CHECK_MPI(MPI_Info_set(early, "color", "blue"));
    CHECK_MPI(MPI_Info_dup(early, &dup));
    CHECK_MPI(MPI_Info_get_nkeys(dup, &nkeys));
    CHECK(nkeys == 1, "dup before Init has %d keys", nkeys);
    CHECK_MPI(MPI_Info_free(&dup));
    CHECK_MPI(MPI_Info_create_env(3, args, &env));
    expect(env, "command", "prog");
    expect(env, "argv", "-x 7");
    expect(env, "host", NULL);
    expect(env, "wdir", NULL);

    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    expect(early, "color", "blue");
    CHECK_MPI(MPI_Info_create_env(0, NULL, &env2)); /* argv NULL: the real command line */
    expect(env2, "command", NULL);
    expect(env2, "arch", NULL);
    snprintf(v, sizeof v, "%d", size);
    expect(env2, "maxprocs", v);
    CHECK(provided == MPI_THREAD_FUNNELED || provided == MPI_THREAD_SERIALIZED || provided == MPI_THREAD_MULTIPLE,
          "provided %d", provided);
    expect(env2, "thread_level", provided == MPI_THREAD_FUNNELED ? "MPI_THREAD_FUNNELED" : NULL);
    CHECK_MPI(MPI_Info_free(&env2));
    CHECK(MPI_Info_create_env(-1, args, &env2) == MPI_ERR_ARG, "argc -1 accepted");
    CHECK(MPI_Info_create_env(2, NULL, &env2) == MPI_ERR_ARG, "argv NULL with argc 2 accepted");
    CHECK(MPI_Info_create_env(1, args, NULL) == MPI_ERR_ARG, "NULL info accepted");
    MPI_Finalize();

    expect(early, "color", "blue");
    expect(env, "command", "prog");
    CHECK_MPI(MPI_Info_delete(early, "color"));
    CHECK_MPI(MPI_Info_get(early, "color", 10, v, &flag));
    CHECK(!flag, "deleted key still there after Finalize");
    CHECK_MPI(MPI_Info_create(&dup));
    CHECK_MPI(MPI_Info_free(&dup));
    CHECK_MPI(MPI_Info_free(&early));
    CHECK_MPI(MPI_Info_free(&env));
    CHECK(early == MPI_INFO_NULL, "freed info not MPI_INFO_NULL");
    printf("info_outside: Info calls work before Init and after Finalize\n");
    return 0;
}
