/*
 * abi_calls.c -- the MPI-5.0 ABI chapter's calls on corempi.
 *
 * MPI_Abi_get_version before MPI_Init and after (1.0), MPI_Abi_get_info's
 * sizes, MPI_Abi_get_fortran_info's MPI_INFO_NULL (no Fortran bindings),
 * NULL arguments refused with MPI_ERR_ARG, and toint/fromint round trips of
 * predefined and created handles of every kind corempi has (a created
 * handle's int must not be 0 nor any other live handle's).
 */
#include "../mpi/check.h"

static void roundtrips(int rank)
{
    MPI_Comm dup;
    MPI_Datatype vec;
    MPI_Group grp;
    MPI_Info info;
    MPI_Request req;
    int buf = rank;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
    MPI_Comm_group(MPI_COMM_WORLD, &grp);
    MPI_Info_create(&info);
    MPI_Irecv(&buf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &req);

    MPI_Comm comms[] = { MPI_COMM_NULL, MPI_COMM_WORLD, MPI_COMM_SELF, dup };
    for (int i = 0; i < 4; i++)
        CHECK(MPI_Comm_fromint(MPI_Comm_toint(comms[i])) == comms[i], "comm %d: fromint(toint(h)) != h", i);
    CHECK(MPI_Comm_toint(dup) != 0 && MPI_Comm_toint(dup) != MPI_Comm_toint(MPI_COMM_WORLD),
          "a created communicator's int is 0 or WORLD's");
    MPI_Datatype types[] = { MPI_DATATYPE_NULL, MPI_INT, MPI_DOUBLE_INT, vec };
    for (int i = 0; i < 4; i++)
        CHECK(MPI_Type_fromint(MPI_Type_toint(types[i])) == types[i], "type %d: fromint(toint(h)) != h", i);
    CHECK(MPI_Type_toint(vec) != MPI_Type_toint(MPI_INT), "a derived type's int is MPI_INT's");
    MPI_Op ops[] = { MPI_OP_NULL, MPI_SUM, MPI_MAXLOC, MPI_NO_OP };
    for (int i = 0; i < 4; i++)
        CHECK(MPI_Op_fromint(MPI_Op_toint(ops[i])) == ops[i], "op %d: fromint(toint(h)) != h", i);
    CHECK(MPI_Group_fromint(MPI_Group_toint(grp)) == grp, "group: fromint(toint(h)) != h");
    CHECK(MPI_Group_fromint(MPI_Group_toint(MPI_GROUP_EMPTY)) == MPI_GROUP_EMPTY, "MPI_GROUP_EMPTY round trip");
    CHECK(MPI_Info_fromint(MPI_Info_toint(info)) == info, "info: fromint(toint(h)) != h");
    CHECK(MPI_Info_fromint(MPI_Info_toint(MPI_INFO_ENV)) == MPI_INFO_ENV, "MPI_INFO_ENV round trip");
    CHECK(MPI_Request_fromint(MPI_Request_toint(req)) == req, "request: fromint(toint(h)) != h");
    CHECK(MPI_Request_fromint(MPI_Request_toint(MPI_REQUEST_NULL)) == MPI_REQUEST_NULL, "MPI_REQUEST_NULL round trip");
    CHECK(MPI_Errhandler_fromint(MPI_Errhandler_toint(MPI_ERRORS_RETURN)) == MPI_ERRORS_RETURN,
          "MPI_ERRORS_RETURN round trip");
    CHECK(MPI_Message_fromint(MPI_Message_toint(MPI_MESSAGE_NO_PROC)) == MPI_MESSAGE_NO_PROC,
          "MPI_MESSAGE_NO_PROC round trip");
    CHECK(MPI_Win_fromint(MPI_Win_toint(MPI_WIN_NULL)) == MPI_WIN_NULL, "MPI_WIN_NULL round trip");
    CHECK(MPI_File_fromint(MPI_File_toint(MPI_FILE_NULL)) == MPI_FILE_NULL, "MPI_FILE_NULL round trip");
    CHECK(MPI_Session_fromint(MPI_Session_toint(MPI_SESSION_NULL)) == MPI_SESSION_NULL,
          "MPI_SESSION_NULL round trip");
    MPI_Session session;
    CHECK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session) == MPI_SUCCESS, "MPI_Session_init");
    CHECK(MPI_Session_fromint(MPI_Session_toint(session)) == session, "session: fromint(toint(h)) != h");
    CHECK(MPI_Session_toint(session) != MPI_Session_toint(MPI_SESSION_NULL), "a session's int is NULL's");
    CHECK(MPI_Session_finalize(&session) == MPI_SUCCESS, "MPI_Session_finalize");

    /* The handle that comes back works: the request completes, the comm
     * and type are usable. */
    MPI_Request back = MPI_Request_fromint(MPI_Request_toint(req));
    CHECK(MPI_Wait(&back, MPI_STATUS_IGNORE) == MPI_SUCCESS && back == MPI_REQUEST_NULL, "MPI_Wait on fromint(toint(req))");
    int size = 0;
    MPI_Comm_size(MPI_Comm_fromint(MPI_Comm_toint(dup)), &size);
    CHECK(size > 0, "MPI_Comm_size on fromint(toint(dup))");
    MPI_Datatype vec2 = MPI_Type_fromint(MPI_Type_toint(vec));
    MPI_Type_free(&vec2);
    MPI_Info_free(&info);
    MPI_Group_free(&grp);
    MPI_Comm_free(&dup);
}

int main(int argc, char **argv)
{
    int major = -1, minor = -1;
    CHECK(MPI_Abi_get_version(&major, &minor) == MPI_SUCCESS && major == 1 && minor == 0,
          "MPI_Abi_get_version before MPI_Init: %d.%d, want 1.0", major, minor);
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    int cls = -1, rc = MPI_Abi_get_version(NULL, &minor);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG, "MPI_Abi_get_version(NULL, ...) gave class %d, want MPI_ERR_ARG", cls);

    MPI_Info info = MPI_INFO_NULL;
    CHECK(MPI_Abi_get_info(&info) == MPI_SUCCESS && info != MPI_INFO_NULL, "MPI_Abi_get_info");
    const char *keys[] = { "mpi_aint_size", "mpi_count_size", "mpi_offset_size" };
    int sizes[] = { (int)sizeof(MPI_Aint), (int)sizeof(MPI_Count), (int)sizeof(MPI_Offset) };
    for (int i = 0; i < 3; i++) {
        char v[MPI_MAX_INFO_VAL];
        int flag = 0;
        MPI_Info_get(info, keys[i], (int)sizeof v - 1, v, &flag);
        CHECK(flag && atoi(v) == sizes[i], "MPI_Abi_get_info: %s is %s, want %d", keys[i], flag ? v : "(absent)", sizes[i]);
    }
    MPI_Info_free(&info);
    info = MPI_INFO_ENV;
    CHECK(MPI_Abi_get_fortran_info(&info) == MPI_SUCCESS && info == MPI_INFO_NULL,
          "MPI_Abi_get_fortran_info: want MPI_INFO_NULL (no Fortran bindings)");
    rc = MPI_Abi_get_info(NULL);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG, "MPI_Abi_get_info(NULL) gave class %d, want MPI_ERR_ARG", cls);

    roundtrips(rank);
    MPI_Finalize();
    CHECK(MPI_Abi_get_version(&major, &minor) == MPI_SUCCESS && major == 1, "MPI_Abi_get_version after MPI_Finalize");
    if (rank == 0)
        printf("abi_calls: ok\n");
    return 0;
}
