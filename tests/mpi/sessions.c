/*
 * sessions.c -- the sessions model.  Argument "only": never MPI_Init (two
 * sessions at once, the last Session_finalize ends the process state);
 * "mixed": MPI_Init first, sessions beside it, MPI_Finalize last; "late":
 * MPI_Init after the sessions (the state is already up).  All:
 * psets, pset info, a communicator from mpi://WORLD (collectives and p2p),
 * from the odd ranks and from the even ranks with two string tags at the
 * same time, from mpi://SELF, and bad arguments returning clear errors.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(c, ...)                                                               \
    do {                                                                            \
        if (!(c)) {                                                                 \
            fprintf(stderr, "sessions: line %d: ", __LINE__);                       \
            fprintf(stderr, __VA_ARGS__);                                           \
            fputc('\n', stderr);                                                    \
            exit(1);                                                                \
        }                                                                           \
    } while (0)

static int handler_calls;
static void on_error(MPI_Session *s, int *code, ...)
{
    (void)s;
    (void)code;
    handler_calls++;
}

static MPI_Comm comm_of(MPI_Session s, const char *pset, const char *tag)
{
    MPI_Group g;
    MPI_Comm c;
    CHECK(MPI_Group_from_session_pset(s, pset, &g) == MPI_SUCCESS, "group of %s", pset);
    CHECK(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c) == MPI_SUCCESS, "comm of %s", pset);
    MPI_Group_free(&g);
    return c;
}

static void psets(MPI_Session s, int world)
{
    int n = 0, len = 0;
    char name[MPI_MAX_PSET_NAME_LEN], v[32];
    CHECK(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n) == MPI_SUCCESS && n >= 2, "num psets %d", n);
    int seen = 0;
    for (int i = 0; i < n; i++) {
        len = 0;
        CHECK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL) == MPI_SUCCESS && len > 1, "len of %d", i);
        CHECK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name) == MPI_SUCCESS, "pset %d", i);
        CHECK((int)strlen(name) + 1 == len, "pset %d: len %d for \"%s\"", i, len, name);
        MPI_Info info;
        int flag = 0;
        CHECK(MPI_Session_get_pset_info(s, name, &info) == MPI_SUCCESS, "pset info of %s", name);
        CHECK(MPI_Info_get(info, "mpi_size", sizeof v - 1, v, &flag) == MPI_SUCCESS && flag, "mpi_size of %s", name);
        if (!strcmp(name, "mpi://WORLD")) {
            seen |= 1;
            CHECK(atoi(v) == world, "WORLD size %s, want %d", v, world);
        }
        if (!strcmp(name, "mpi://SELF")) {
            seen |= 2;
            CHECK(atoi(v) == 1, "SELF size %s", v);
        }
        MPI_Info_free(&info);
    }
    CHECK(seen == 3, "mpi://WORLD and mpi://SELF not both listed");
}

/* Collectives and p2p on a communicator from mpi://WORLD. */
static void use_world(MPI_Comm c, int *rank, int *size)
{
    MPI_Comm_rank(c, rank);
    MPI_Comm_size(c, size);
    int sum = 0, me = *rank + 1;
    CHECK(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, c) == MPI_SUCCESS, "allreduce");
    CHECK(sum == *size * (*size + 1) / 2, "allreduce gave %d", sum);
    int token = *rank == 0 ? 42 : -1;
    MPI_Bcast(&token, 1, MPI_INT, 0, c);
    CHECK(token == 42, "bcast gave %d", token);
    int next = (*rank + 1) % *size, prev = (*rank + *size - 1) % *size, got = -1;
    MPI_Sendrecv(rank, 1, MPI_INT, next, 7, &got, 1, MPI_INT, prev, 7, c, MPI_STATUS_IGNORE);
    CHECK(got == prev, "ring got %d, want %d", got, prev);
    MPI_Barrier(c);
}

/* Odd ranks and even ranks make their communicators at the same time. */
static void halves(MPI_Session s, int rank, int size)
{
    MPI_Group wg, half;
    MPI_Group_from_session_pset(s, "mpi://WORLD", &wg);
    int ranks[64], n = 0;
    for (int r = rank % 2; r < size; r += 2)
        ranks[n++] = r;
    MPI_Group_incl(wg, n, ranks, &half);
    MPI_Comm c;
    CHECK(MPI_Comm_create_from_group(half, rank % 2 ? "test://odd" : "test://even", MPI_INFO_NULL,
                                     MPI_ERRORS_RETURN, &c) == MPI_SUCCESS, "half comm");
    int hsize, hrank, sum = 0;
    MPI_Comm_size(c, &hsize);
    MPI_Comm_rank(c, &hrank);
    CHECK(hsize == n && hrank == rank / 2, "half: size %d rank %d, want %d %d", hsize, hrank, n, rank / 2);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c);
    int want = 0;
    for (int i = 0; i < n; i++)
        want += ranks[i];
    CHECK(sum == want, "half sum %d, want %d", sum, want);
    MPI_Comm_free(&c);
    MPI_Group_free(&half);
    MPI_Group_free(&wg);
}

static void bad_args(MPI_Session s)
{
    MPI_Group g = MPI_GROUP_NULL;
    MPI_Info info;
    MPI_Comm c;
    int len = 0;
    CHECK(MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN) == MPI_SUCCESS, "set errhandler");
    CHECK(MPI_Group_from_session_pset(s, "mpi://NOWHERE", &g) == MPI_ERR_ARG, "unknown pset accepted");
    char msg[MPI_MAX_ERROR_STRING];
    MPI_Error_string(MPI_ERR_ARG, msg, &len);
    CHECK(strstr(msg, "mpi://NOWHERE") != NULL, "error text does not name the pset: %s", msg);
    CHECK(MPI_Session_get_pset_info(s, "bogus", &info) == MPI_ERR_ARG, "unknown pset info accepted");
    CHECK(MPI_Group_from_session_pset(s, NULL, &g) == MPI_ERR_ARG, "NULL pset accepted");
    CHECK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 99, &len, NULL) == MPI_ERR_ARG, "pset 99 accepted");
    CHECK(MPI_Comm_create_from_group(MPI_GROUP_NULL, "t", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c) == MPI_ERR_GROUP,
          "MPI_GROUP_NULL accepted");
    MPI_Group_from_session_pset(s, "mpi://SELF", &g);
    CHECK(MPI_Comm_create_from_group(g, NULL, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c) == MPI_ERR_ARG, "NULL tag accepted");
    MPI_Group_free(&g);
    /* A user session handler is called with the error. */
    MPI_Errhandler eh;
    CHECK(MPI_Session_create_errhandler(on_error, &eh) == MPI_SUCCESS, "create errhandler");
    MPI_Session_set_errhandler(s, eh);
    MPI_Errhandler_free(&eh);
    int before = handler_calls;
    MPI_Session_call_errhandler(s, MPI_ERR_OTHER);
    MPI_Group_from_session_pset(s, "nope", &g);
    CHECK(handler_calls == before + 2, "handler called %d times, want 2", handler_calls - before);
    MPI_Errhandler got;
    MPI_Session_get_errhandler(s, &got);
    CHECK(got != MPI_ERRORS_RETURN && got != MPI_ERRHANDLER_NULL, "get errhandler");
    MPI_Errhandler_free(&got);
    MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN);
}

int main(int argc, char **argv)
{
    int late = argc > 1 && !strcmp(argv[1], "late");
    int mixed = late || (argc > 1 && !strcmp(argv[1], "mixed")), flag = -1, rank, size;
    if (mixed && !late)
        MPI_Init(&argc, &argv);
    MPI_Session s1 = MPI_SESSION_NULL, s2 = MPI_SESSION_NULL;
    MPI_Info hints;
    MPI_Info_create(&hints);
    MPI_Info_set(hints, "thread_level", "MPI_THREAD_SINGLE");
    CHECK(MPI_Session_init(hints, MPI_ERRORS_RETURN, &s1) == MPI_SUCCESS && s1 != MPI_SESSION_NULL, "session 1");
    MPI_Info_free(&hints);
    CHECK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s2) == MPI_SUCCESS && s2 != s1, "session 2");
    if (late) {
        MPI_Initialized(&flag);
        CHECK(flag == 0, "MPI_Initialized says %d before MPI_Init", flag);
        CHECK(MPI_Init(&argc, &argv) == MPI_SUCCESS, "MPI_Init after sessions");
    }
    MPI_Initialized(&flag);
    CHECK(flag == mixed, "MPI_Initialized says %d under %s", flag, mixed ? "MPI_Init" : "sessions only");

    MPI_Info used;
    char v[64];
    CHECK(MPI_Session_get_info(s1, &used) == MPI_SUCCESS, "get info");
    MPI_Info_get(used, "thread_level", sizeof v - 1, v, &flag);
    CHECK(flag && !strcmp(v, "MPI_THREAD_SINGLE"), "thread_level %s", flag ? v : "(none)");
    MPI_Info_free(&used);

    MPI_Comm w = comm_of(s1, "mpi://WORLD", "test://world");
    use_world(w, &rank, &size);
    psets(s2, size);
    halves(s2, rank, size);
    MPI_Comm self = comm_of(s2, "mpi://SELF", "test://self");
    int ssize;
    MPI_Comm_size(self, &ssize);
    CHECK(ssize == 1, "SELF comm size %d", ssize);
    MPI_Comm_free(&self);
    bad_args(s2);
    if (mixed) {
        int sum = 0;
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);   /* world beside the session's */
        CHECK(sum == size * (size - 1) / 2, "world allreduce %d", sum);
    }
    MPI_Comm_free(&w);
    CHECK(MPI_Session_finalize(&s2) == MPI_SUCCESS && s2 == MPI_SESSION_NULL, "finalize 2");
    /* Still usable: s1 keeps the process state up. */
    MPI_Comm w2 = comm_of(s1, "mpi://WORLD", "test://world2");
    use_world(w2, &rank, &size);
    MPI_Comm_free(&w2);
    CHECK(MPI_Session_finalize(&s1) == MPI_SUCCESS, "finalize 1");
    MPI_Finalized(&flag);
    CHECK(flag == 0, "MPI_Finalized says %d before MPI_Finalize", flag);
    if (mixed)
        MPI_Finalize();
    if (rank == 0)
        printf("sessions %s: %d ranks ok\n", late ? "late" : mixed ? "mixed" : "only", size);
    return 0;
}
