/*
 * env_basic.c -- start-up and environment queries.
 *
 * Usage: env_basic [init|single|funneled|serialized|multiple [expected_world_size]]
 * The first argument picks MPI_Init or MPI_Init_thread with that level (a
 * process can initialise only once, so ctest runs it once per level).  With a
 * second argument the size of MPI_COMM_WORLD is checked: 1 when the program
 * is started without mpirun (a singleton).
 */
#include "check.h"

static int parse_level(const char *name)
{
    if (strcmp(name, "single") == 0) return MPI_THREAD_SINGLE;
    if (strcmp(name, "funneled") == 0) return MPI_THREAD_FUNNELED;
    if (strcmp(name, "serialized") == 0) return MPI_THREAD_SERIALIZED;
    if (strcmp(name, "multiple") == 0) return MPI_THREAD_MULTIPLE;
    return -1; /* plain MPI_Init */
}

int main(int argc, char **argv)
{
    int flag = -1, provided = -1, rank = -1, size = -1;
    const char *level_name = argc > 1 ? argv[1] : "init";
    int expected_size = argc > 2 ? atoi(argv[2]) : 0;
    int required = parse_level(level_name);

    CHECK(MPI_THREAD_SINGLE < MPI_THREAD_FUNNELED && MPI_THREAD_FUNNELED < MPI_THREAD_SERIALIZED &&
          MPI_THREAD_SERIALIZED < MPI_THREAD_MULTIPLE, "thread level constants out of order");
    CHECK_MPI(MPI_Initialized(&flag));
    CHECK(flag == 0, "Initialized before Init: %d", flag);
    flag = -1;
    CHECK_MPI(MPI_Finalized(&flag));
    CHECK(flag == 0, "Finalized before Init: %d", flag);

    if (required < 0) {
        CHECK_MPI(MPI_Init(&argc, &argv));
    } else {
        CHECK_MPI(MPI_Init_thread(&argc, &argv, required, &provided));
        int floor = required < MPI_THREAD_SERIALIZED ? required : MPI_THREAD_SERIALIZED;
        CHECK(provided >= floor && provided <= MPI_THREAD_MULTIPLE,
              "Init_thread(%s) provided %d, expected at least %d", level_name, provided, floor);
        int queried = -1;
        CHECK_MPI(MPI_Query_thread(&queried));
        CHECK(queried == provided, "Query_thread %d, Init_thread provided %d", queried, provided);
    }
    CHECK_MPI(MPI_Initialized(&flag));
    CHECK(flag == 1, "Initialized after Init: %d", flag);
    CHECK_MPI(MPI_Finalized(&flag));
    CHECK(flag == 0, "Finalized before Finalize: %d", flag);
    CHECK_MPI(MPI_Is_thread_main(&flag));
    CHECK(flag == 1, "Is_thread_main in the main thread: %d", flag);

    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size >= 1 && rank >= 0 && rank < size, "WORLD rank %d size %d", rank, size);
    if (expected_size > 0)
        CHECK(size == expected_size, "WORLD size %d, expected %d", size, expected_size);
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_SELF, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_SELF, &size));
    CHECK(rank == 0 && size == 1, "SELF rank %d size %d", rank, size);

    double tick = MPI_Wtick(), prev = MPI_Wtime();
    CHECK(tick > 0.0 && tick < 1.0, "Wtick %g", tick);
    for (int i = 0; i < 100000; i++) {
        double now = MPI_Wtime();
        CHECK(now >= prev, "Wtime went backwards: %.9f after %.9f", now, prev);
        prev = now;
    }

    char name[MPI_MAX_PROCESSOR_NAME];
    int len = -1;
    memset(name, 'x', sizeof name);
    CHECK_MPI(MPI_Get_processor_name(name, &len));
    CHECK(len > 0 && len < MPI_MAX_PROCESSOR_NAME && strlen(name) == (size_t)len,
          "Get_processor_name: length %d", len);

    int version = -1, subversion = -1;
    CHECK_MPI(MPI_Get_version(&version, &subversion));
    CHECK(version == MPI_VERSION && subversion == MPI_SUBVERSION,
          "Get_version %d.%d, header says %d.%d", version, subversion, MPI_VERSION, MPI_SUBVERSION);
#if defined(COREMPI)
    /* The MPI-5.0 standard ABI header fixes MPI_VERSION 5.0 (docs/abi.md). */
    CHECK(version == 5 && subversion == 0, "corempi's header is the MPI-5.0 ABI, Get_version says %d.%d",
          version, subversion);
#endif
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    len = -1;
    CHECK_MPI(MPI_Get_library_version(lib, &len));
    CHECK(len > 0 && len < MPI_MAX_LIBRARY_VERSION_STRING && strlen(lib) > 0,
          "Get_library_version: length %d", len);
#if defined(COREMPI)
    CHECK(strlen(lib) == (size_t)len, "Get_library_version: length %d for a string of %zu", len,
          strlen(lib));
#endif

    CHECK_MPI(MPI_Pcontrol(0));
    CHECK_MPI(MPI_Pcontrol(1));
    CHECK_MPI(MPI_Pcontrol(2));

    CHECK_MPI(MPI_Finalize());
    CHECK_MPI(MPI_Initialized(&flag));
    CHECK(flag == 1, "Initialized after Finalize: %d", flag);
    CHECK_MPI(MPI_Finalized(&flag));
    CHECK(flag == 1, "Finalized after Finalize: %d", flag);
    return 0;
}
