/*
 * p2p_errors.c -- argument checking under MPI_ERRORS_RETURN, and error handlers.
 *
 * Every bad argument must come back as the right error class, with a
 * non-empty MPI_Error_string, and leave the library usable.  Garbage integer
 * handles are only tried on corempi (its handles are integers; elsewhere they
 * are pointers and garbage would crash the process rather than test it).
 */
#include "check.h"

#include <limits.h>

#define T_OK 51

static int rank, size;

static int class_of(int rc)
{
    int cls = -1;
    if (MPI_Error_class(rc, &cls) != MPI_SUCCESS)
        return -1; /* not a valid error code at all */
    return cls;
}

static void expect_class(int rc, int expected, const char *what)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = -1;
    CHECK(rc != MPI_SUCCESS, "%s: succeeded, expected error class %d", what, expected);
    CHECK(class_of(rc) == expected, "%s: returned %d of class %d, expected class %d", what, rc,
          class_of(rc), expected);
    text[0] = '\0';
    CHECK_MPI(MPI_Error_string(rc, text, &len));
    CHECK(len > 0 && (size_t)len == strlen(text), "%s: Error_string gave length %d for \"%s\"",
          what, len, text);
}

static void test_ranks(void)
{
    char buf[8] = {0};
    MPI_Request req = MPI_REQUEST_NULL;
    expect_class(MPI_Send(buf, 1, MPI_BYTE, size, T_OK, MPI_COMM_WORLD), MPI_ERR_RANK, "Send to rank size");
    expect_class(MPI_Send(buf, 1, MPI_BYTE, size + 100, T_OK, MPI_COMM_WORLD), MPI_ERR_RANK, "Send to rank size+100");
    expect_class(MPI_Send(buf, 1, MPI_BYTE, -5, T_OK, MPI_COMM_WORLD), MPI_ERR_RANK, "Send to rank -5");
    expect_class(MPI_Send(buf, 1, MPI_BYTE, MPI_ANY_SOURCE, T_OK, MPI_COMM_WORLD), MPI_ERR_RANK,
                 "Send to MPI_ANY_SOURCE");
    expect_class(MPI_Ssend(buf, 1, MPI_BYTE, size, T_OK, MPI_COMM_WORLD), MPI_ERR_RANK, "Ssend to rank size");
    expect_class(MPI_Isend(buf, 1, MPI_BYTE, size, T_OK, MPI_COMM_WORLD, &req), MPI_ERR_RANK, "Isend to rank size");
    expect_class(MPI_Recv(buf, 1, MPI_BYTE, size, T_OK, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                 MPI_ERR_RANK, "Recv from rank size");
    expect_class(MPI_Recv(buf, 1, MPI_BYTE, -5, T_OK, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                 MPI_ERR_RANK, "Recv from rank -5");
    expect_class(MPI_Irecv(buf, 1, MPI_BYTE, size + 1, T_OK, MPI_COMM_WORLD, &req), MPI_ERR_RANK,
                 "Irecv from rank size+1");
    int flag;
    expect_class(MPI_Iprobe(size, T_OK, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE), MPI_ERR_RANK,
                 "Iprobe rank size");
}

static void test_counts_and_tags(void)
{
    char buf[8] = {0};
    MPI_Request req;
    int *tag_ub = NULL, flag = 0;
    expect_class(MPI_Send(buf, -1, MPI_BYTE, rank, T_OK, MPI_COMM_WORLD), MPI_ERR_COUNT, "Send count -1");
    expect_class(MPI_Recv(buf, -1, MPI_BYTE, rank, T_OK, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                 MPI_ERR_COUNT, "Recv count -1");
    expect_class(MPI_Irecv(buf, -3, MPI_BYTE, rank, T_OK, MPI_COMM_WORLD, &req), MPI_ERR_COUNT, "Irecv count -3");

    expect_class(MPI_Send(buf, 1, MPI_BYTE, rank, -1, MPI_COMM_WORLD), MPI_ERR_TAG,
                 "Send with tag -1 (ANY_TAG is not a send tag)");
    expect_class(MPI_Send(buf, 1, MPI_BYTE, rank, -7, MPI_COMM_WORLD), MPI_ERR_TAG, "Send with tag -7");
    expect_class(MPI_Recv(buf, 1, MPI_BYTE, rank, -7, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                 MPI_ERR_TAG, "Recv with tag -7");
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag));
    CHECK(flag && tag_ub != NULL && *tag_ub >= 32767, "MPI_TAG_UB attribute missing or too small");
    if (*tag_ub < INT_MAX)
        expect_class(MPI_Send(buf, 1, MPI_BYTE, rank, *tag_ub + 1, MPI_COMM_WORLD), MPI_ERR_TAG,
                     "Send with tag MPI_TAG_UB+1");
    /* The bound itself is a valid tag. */
    int value = 9, got = 0;
    CHECK_MPI(MPI_Sendrecv(&value, 1, MPI_INT, rank, *tag_ub, &got, 1, MPI_INT, rank, *tag_ub,
                           MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(got == 9, "message with tag MPI_TAG_UB: got %d", got);
}

static void test_types_comms_buffers(void)
{
    char buf[8] = {0};
    MPI_Status st;
    int count;
    expect_class(MPI_Send(buf, 1, MPI_DATATYPE_NULL, rank, T_OK, MPI_COMM_WORLD), MPI_ERR_TYPE,
                 "Send with MPI_DATATYPE_NULL");
    expect_class(MPI_Recv(buf, 1, MPI_DATATYPE_NULL, rank, T_OK, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                 MPI_ERR_TYPE, "Recv with MPI_DATATYPE_NULL");
    expect_class(MPI_Send(buf, 1, MPI_BYTE, 0, T_OK, MPI_COMM_NULL), MPI_ERR_COMM, "Send on MPI_COMM_NULL");
    expect_class(MPI_Recv(buf, 1, MPI_BYTE, 0, T_OK, MPI_COMM_NULL, MPI_STATUS_IGNORE), MPI_ERR_COMM,
                 "Recv on MPI_COMM_NULL");
    int r;
    expect_class(MPI_Comm_rank(MPI_COMM_NULL, &r), MPI_ERR_COMM, "Comm_rank(MPI_COMM_NULL)");
    expect_class(MPI_Send(NULL, 4, MPI_BYTE, rank, T_OK, MPI_COMM_WORLD), MPI_ERR_BUFFER,
                 "Send of 4 bytes from NULL");
#if defined(COREMPI)
    /* corempi's handles are integers: out-of-range ones must be caught. */
    expect_class(MPI_Send(buf, 1, (MPI_Datatype)12345, rank, T_OK, MPI_COMM_WORLD), MPI_ERR_TYPE,
                 "Send with garbage datatype 12345");
    expect_class(MPI_Send(buf, 1, MPI_BYTE, rank, T_OK, (MPI_Comm)12345), MPI_ERR_COMM,
                 "Send on garbage communicator 12345");
    expect_class(MPI_Recv(NULL, 4, MPI_BYTE, rank, T_OK, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                 MPI_ERR_BUFFER, "Recv of 4 bytes into NULL");
    MPI_Request bad = (MPI_Request)12345;
    expect_class(MPI_Wait(&bad, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, "Wait on garbage request 12345");
    bad = (MPI_Request)-7;
    int flag;
    expect_class(MPI_Test(&bad, &flag, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, "Test on garbage request -7");
#endif
    /* A status from a real receive, then Get_count with no datatype. */
    int value = 1;
    CHECK_MPI(MPI_Sendrecv(&value, 1, MPI_INT, rank, T_OK, &value, 1, MPI_INT, rank, T_OK,
                           MPI_COMM_WORLD, &st));
    expect_class(MPI_Get_count(&st, MPI_DATATYPE_NULL, &count), MPI_ERR_TYPE,
                 "Get_count with MPI_DATATYPE_NULL");

    /* Only one buffer may be attached at a time. */
    static char first[1024], second[1024];
    void *addr;
    int sz;
    CHECK_MPI(MPI_Buffer_attach(first, sizeof first));
    int rc = MPI_Buffer_attach(second, sizeof second);
#if defined(OPEN_MPI) && OPEN_MPI
    /* Open MPI 4.1 refuses it but returns an internal code (-30), not a class. */
    CHECK(rc != MPI_SUCCESS, "second Buffer_attach succeeded");
#else
    expect_class(rc, MPI_ERR_BUFFER, "second Buffer_attach");
#endif
    CHECK_MPI(MPI_Buffer_detach(&addr, &sz));
    CHECK(addr == first && sz == (int)sizeof first, "Buffer_detach after a refused attach");
}

static const int standard_classes[] = {
    MPI_SUCCESS, MPI_ERR_BUFFER, MPI_ERR_COUNT, MPI_ERR_TYPE, MPI_ERR_TAG, MPI_ERR_COMM,
    MPI_ERR_RANK, MPI_ERR_REQUEST, MPI_ERR_ROOT, MPI_ERR_GROUP, MPI_ERR_OP, MPI_ERR_TOPOLOGY,
    MPI_ERR_DIMS, MPI_ERR_ARG, MPI_ERR_UNKNOWN, MPI_ERR_TRUNCATE, MPI_ERR_OTHER, MPI_ERR_INTERN,
    MPI_ERR_IN_STATUS, MPI_ERR_PENDING, MPI_ERR_KEYVAL, MPI_ERR_NO_MEM, MPI_ERR_BASE,
    MPI_ERR_INFO_KEY, MPI_ERR_INFO_VALUE, MPI_ERR_INFO_NOKEY, MPI_ERR_SPAWN, MPI_ERR_PORT,
    MPI_ERR_SERVICE, MPI_ERR_NAME, MPI_ERR_WIN, MPI_ERR_SIZE, MPI_ERR_DISP, MPI_ERR_INFO,
    MPI_ERR_LOCKTYPE, MPI_ERR_ASSERT, MPI_ERR_RMA_CONFLICT, MPI_ERR_RMA_SYNC, MPI_ERR_FILE,
    MPI_ERR_NOT_SAME, MPI_ERR_AMODE, MPI_ERR_UNSUPPORTED_DATAREP, MPI_ERR_UNSUPPORTED_OPERATION,
    MPI_ERR_NO_SUCH_FILE, MPI_ERR_FILE_EXISTS, MPI_ERR_BAD_FILE, MPI_ERR_ACCESS, MPI_ERR_NO_SPACE,
    MPI_ERR_QUOTA, MPI_ERR_READ_ONLY, MPI_ERR_FILE_IN_USE, MPI_ERR_DUP_DATAREP, MPI_ERR_CONVERSION,
    MPI_ERR_IO, MPI_ERR_RMA_RANGE, MPI_ERR_RMA_ATTACH, MPI_ERR_RMA_SHARED, MPI_ERR_RMA_FLAVOR,
#ifdef MPI_ERR_SESSION /* MPI 4 */
    MPI_ERR_SESSION, MPI_ERR_PROC_ABORTED, MPI_ERR_VALUE_TOO_LARGE,
#endif
#ifdef MPI_ERR_ERRHANDLER
    MPI_ERR_ERRHANDLER,
#endif
#ifdef MPI_ERR_ABI /* MPI 5 */
    MPI_ERR_ABI,
#endif
};

static void test_error_strings(void)
{
    int n = (int)(sizeof standard_classes / sizeof standard_classes[0]);
    for (int i = 0; i < n; i++) {
        int cls = standard_classes[i];
        char text[MPI_MAX_ERROR_STRING];
        int len = -1, back = -1;
        text[0] = '\0';
        CHECK_MPI(MPI_Error_string(cls, text, &len));
        CHECK(len > 0 && (size_t)len == strlen(text) && len < MPI_MAX_ERROR_STRING,
              "Error_string(%d): length %d, text \"%s\"", cls, len, text);
        CHECK_MPI(MPI_Error_class(cls, &back));
        CHECK(back == cls, "Error_class(%d) = %d: a class is its own class", cls, back);
        CHECK(cls <= MPI_ERR_LASTCODE, "class %d above MPI_ERR_LASTCODE", cls);
    }
}

static int handler_calls, handler_last_code;
static MPI_Comm handler_last_comm;

static void counting_handler(MPI_Comm *comm, int *code, ...)
{
    handler_calls++;
    handler_last_comm = *comm;
    handler_last_code = *code;
}

static void test_handlers(void)
{
    MPI_Errhandler eh, got;
    CHECK_MPI(MPI_Comm_create_errhandler(counting_handler, &eh));
    CHECK(eh != MPI_ERRHANDLER_NULL, "Comm_create_errhandler gave MPI_ERRHANDLER_NULL");
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh));
    CHECK_MPI(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got));
    CHECK(got == eh, "Comm_get_errhandler does not return the handler just set");
    CHECK_MPI(MPI_Errhandler_free(&got));

    CHECK_MPI(MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER));
    CHECK(handler_calls == 1 && handler_last_comm == MPI_COMM_WORLD && handler_last_code == MPI_ERR_OTHER,
          "Comm_call_errhandler: handler called %d times with code %d", handler_calls, handler_last_code);

    /* A real error goes through the user's handler, and the call returns it. */
    char buf[4] = {0};
    int rc = MPI_Send(buf, 1, MPI_BYTE, size, T_OK, MPI_COMM_WORLD);
    CHECK(handler_calls == 2, "invalid Send did not call the user's handler (%d calls)", handler_calls);
    CHECK(class_of(handler_last_code) == MPI_ERR_RANK, "user's handler got code of class %d",
          class_of(handler_last_code));
    CHECK(rc != MPI_SUCCESS && class_of(rc) == MPI_ERR_RANK, "invalid Send under a user handler returned %d", rc);

    /* The handler stays alive while attached, even after Errhandler_free. */
    CHECK_MPI(MPI_Errhandler_free(&eh));
    CHECK(eh == MPI_ERRHANDLER_NULL, "Errhandler_free did not null the handle");
    CHECK_MPI(MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_ARG));
    CHECK(handler_calls == 3 && handler_last_code == MPI_ERR_ARG, "freed-but-attached handler not called");
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_ARG));
    CHECK(handler_calls == 3, "replaced handler still called");
}

int main(int argc, char **argv)
{
    MPI_Errhandler eh;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    CHECK_MPI(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    CHECK(eh == MPI_ERRORS_ARE_FATAL, "default error handler of MPI_COMM_WORLD is not MPI_ERRORS_ARE_FATAL");
    CHECK_MPI(MPI_Errhandler_free(&eh));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    /* Errors that belong to no communicator are raised on SELF (MPI 4) or WORLD. */
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));

    test_error_strings();
    test_ranks();
    test_counts_and_tags();
    test_types_comms_buffers();
    test_handlers();

    /* Still usable after all that. */
    int value = 5, got = 0;
    CHECK_MPI(MPI_Sendrecv(&value, 1, MPI_INT, (rank + 1) % size, T_OK, &got, 1, MPI_INT,
                           (rank + size - 1) % size, T_OK, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(got == 5, "ring exchange after the error tests: got %d", got);
    MPI_Finalize();
    return 0;
}
