/*
 * outside_init.c -- MPI calls before MPI_Init and after MPI_Finalize.
 *
 * usage: outside_init allowed | before CALL | after CALL | badclass
 *   allowed    the calls MPI-4.1 lets run at any time (Initialized, Finalized,
 *              Get_version, Get_library_version, Error_class, Error_string)
 *              work before Init and after Finalize; exits 0.
 *   before/after CALL
 *              CALL (Comm_rank, Comm_size, Type_size, Comm_group,
 *              Type_contiguous) outside Init..Finalize; run through
 *              expect_fail.sh, which wants "MPI_<CALL>...: called before
 *              MPI_Init" (or "after MPI_Finalize"), not a complaint about an
 *              argument that was never wrong.
 *   badclass   MPI_Error_class(-5) before Init: a call allowed there keeps
 *              its own error ("invalid error code"), through expect_fail.sh.
 */
#include "check.h"

static void check_always_available(const char *when)
{
    int flag = -1, version = 0, subversion = -1, len = 0, cls = -1;
    char text[MPI_MAX_ERROR_STRING] = "", lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    CHECK(MPI_Initialized(&flag) == MPI_SUCCESS && flag == (strcmp(when, "before") != 0),
          "%s: MPI_Initialized gave %d", when, flag);
    CHECK(MPI_Finalized(&flag) == MPI_SUCCESS && flag == (strcmp(when, "after") == 0),
          "%s: MPI_Finalized gave %d", when, flag);
    CHECK(MPI_Get_version(&version, &subversion) == MPI_SUCCESS && version == MPI_VERSION &&
          subversion == MPI_SUBVERSION, "%s: MPI_Get_version gave %d.%d", when, version, subversion);
    CHECK(MPI_Get_library_version(lib, &len) == MPI_SUCCESS && len > 0 && strlen(lib) == (size_t)len,
          "%s: MPI_Get_library_version gave \"%s\" (%d)", when, lib, len);
    CHECK(MPI_Error_class(MPI_ERR_RANK, &cls) == MPI_SUCCESS && cls == MPI_ERR_RANK,
          "%s: MPI_Error_class(MPI_ERR_RANK) gave %d", when, cls);
    CHECK(MPI_Error_string(MPI_ERR_RANK, text, &len) == MPI_SUCCESS && len > 0 && strstr(text, "rank"),
          "%s: MPI_Error_string(MPI_ERR_RANK) gave \"%s\"", when, text);
}

/* One call that is not allowed outside; under the fix it never returns. */
static int call_outside(const char *name)
{
    int i = 0;
    MPI_Group g;
    MPI_Datatype t;
    if (!strcmp(name, "Comm_rank"))
        return MPI_Comm_rank(MPI_COMM_WORLD, &i);
    if (!strcmp(name, "Comm_size"))
        return MPI_Comm_size(MPI_COMM_WORLD, &i);
    if (!strcmp(name, "Type_size"))
        return MPI_Type_size(MPI_INT, &i);
    if (!strcmp(name, "Comm_group"))
        return MPI_Comm_group(MPI_COMM_WORLD, &g);
    if (!strcmp(name, "Type_contiguous"))
        return MPI_Type_contiguous(2, MPI_INT, &t);
    fprintf(stderr, "outside_init: unknown call %s\n", name);
    exit(2);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "allowed")) {
        check_always_available("before");
        MPI_Init(&argc, &argv);
        check_always_available("during");
        MPI_Finalize();
        check_always_available("after");
        printf("outside_init: the always-available calls work before, during and after\n");
        return 0;
    }
    if (!strcmp(mode, "badclass")) {
        int cls;
        MPI_Error_class(-5, &cls);
        fprintf(stderr, "outside_init: MPI_Error_class(-5) returned under the default handler\n");
        return 0;
    }
    if (argc != 3 || (strcmp(mode, "before") && strcmp(mode, "after"))) {
        fprintf(stderr, "usage: outside_init allowed | badclass | before CALL | after CALL\n");
        return 2;
    }
    if (!strcmp(mode, "after")) {
        MPI_Init(&argc, &argv);
        MPI_Finalize();
    }
    int rc = call_outside(argv[2]);
    fprintf(stderr, "outside_init: MPI_%s %s returned %d\n", argv[2], mode, rc);
    return 0; /* exit 0: only the library's refusal may fail the job */
}
