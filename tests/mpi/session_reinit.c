/*
 * session_reinit.c -- a library that opens a session, builds a communicator
 * from a group modified from mpi://WORLD, uses it and closes the session,
 * several times in one process (the shape of MPICH's session_mod_group_re_init,
 * session_re_init and session_mult_init, which failed here).
 *
 * MPI-4.1 11.3.1 lets a session start after every earlier session of the
 * process has ended.  corempi tore its process state down at the last
 * MPI_Session_finalize, and the next MPI_Session_init returned an error
 * ("cannot start MPI again"), so the second round never ran.
 *
 * Each round: Session_init with a "thread_level" hint (the session info must
 * carry it), Group_from_session_pset, Group_excl of one rank that changes
 * from round to round (that rank passes MPI_GROUP_EMPTY and gets
 * MPI_COMM_NULL, as MPICH's program does), the same string tag every round,
 * a reduce, a ring of messages and an allreduce on the members,
 * Comm_free, Session_finalize.  Between rounds no session is open:
 * MPI_Initialized and MPI_Finalized both stay false.
 *
 * argv[1]: "cycle" (every rank ends all its sessions each round), "held"
 * (every rank but the last keeps another session open throughout, so only
 * the last one starts from nothing again while its peers' message state
 * goes on), or "then_init" (cycle, then MPI_Init/MPI_Finalize: the world
 * model after sessions only).  argv[2]: rounds (default 4).
 */
#include "check.h"

static const char tag[] = "org.corempi.test.session_reinit";

/* One library round; returns the number of members of its communicator. */
static int library_round(int round, int *world_rank)
{
    MPI_Session s;
    MPI_Info hints, got;
    MPI_Info_create(&hints);
    MPI_Info_set(hints, "thread_level", "MPI_THREAD_SERIALIZED");
    CHECK_MPI(MPI_Session_init(hints, MPI_ERRORS_RETURN, &s));
    MPI_Info_free(&hints);
    CHECK_MPI(MPI_Session_get_info(s, &got));
    char level[64];
    int flag = 0;
    MPI_Info_get(got, "thread_level", (int)sizeof level - 1, level, &flag);
    CHECK(flag && !strncmp(level, "MPI_THREAD_", 11), "round %d: session info without thread_level", round);
    MPI_Info_free(&got);

    MPI_Group world_g, g;
    CHECK_MPI(MPI_Group_from_session_pset(s, "mpi://WORLD", &world_g));
    int rank, size;
    MPI_Group_rank(world_g, &rank);
    MPI_Group_size(world_g, &size);
    *world_rank = rank;
    int out = size - 1 - round % size;   /* another rank left out each round */
    CHECK_MPI(MPI_Group_excl(world_g, 1, &out, &g));
    int grank;
    MPI_Group_rank(g, &grank);
    CHECK((grank == MPI_UNDEFINED) == (rank == out), "round %d: group rank %d", round, grank);

    MPI_Comm c = MPI_COMM_WORLD;   /* must be overwritten either way */
    CHECK_MPI(MPI_Comm_create_from_group(rank == out ? MPI_GROUP_EMPTY : g, tag, MPI_INFO_NULL,
                                         MPI_ERRORS_RETURN, &c));
    int members = 0;
    if (rank == out) {
        CHECK(c == MPI_COMM_NULL, "round %d: the left-out rank got a communicator", round);
    } else {
        CHECK(c != MPI_COMM_NULL && c != MPI_COMM_WORLD, "round %d: no communicator for a member", round);
        int me;
        MPI_Comm_size(c, &members);
        MPI_Comm_rank(c, &me);
        CHECK(members == size - 1 && me == grank, "round %d: rank %d of %d, group %d of %d", round, me, members,
              grank, size - 1);
        int sum = -1;
        CHECK_MPI(MPI_Reduce(&me, &sum, 1, MPI_INT, MPI_SUM, 0, c));
        CHECK(me != 0 || sum == members * (members - 1) / 2, "round %d: reduce gave %d", round, sum);
        /* A ring: each member's message carries the round, so one left in a
         * queue from an earlier round would be caught here. */
        int next = (me + 1) % members, prev = (me + members - 1) % members;
        for (int k = 0; k < 3; k++) {
            int send[2] = { round, k }, recv[2] = { -1, -1 };
            CHECK_MPI(MPI_Sendrecv(send, 2, MPI_INT, next, k, recv, 2, MPI_INT, prev, k, c, MPI_STATUS_IGNORE));
            CHECK(recv[0] == round && recv[1] == k, "round %d: ring got (%d, %d)", round, recv[0], recv[1]);
        }
        int total = 0, one = 1;
        CHECK_MPI(MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, c));
        CHECK(total == members, "round %d: allreduce %d", round, total);
        CHECK_MPI(MPI_Comm_free(&c));
    }
    MPI_Group_free(&g);
    MPI_Group_free(&world_g);
    CHECK_MPI(MPI_Session_finalize(&s));
    CHECK(s == MPI_SESSION_NULL, "round %d: Session_finalize left the handle", round);
    return members;
}

static void world_model_after(void)
{
    MPI_Init(NULL, NULL);
    int rank, size, sum = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == size * (size - 1) / 2, "MPI_COMM_WORLD after the sessions: allreduce %d", sum);
    MPI_Finalize();
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "cycle";
    int rounds = argc > 2 ? atoi(argv[2]) : 4;
    CHECK(!strcmp(mode, "cycle") || !strcmp(mode, "held") || !strcmp(mode, "then_init"), "mode %s", mode);

    /* "held": every rank but the last keeps a session of its own open; the
     * world size comes from a first throwaway session on the last rank. */
    MPI_Session keep = MPI_SESSION_NULL;
    int size = 1;
    {
        MPI_Session probe;
        MPI_Group w;
        int rank;
        CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &probe));
        CHECK_MPI(MPI_Group_from_session_pset(probe, "mpi://WORLD", &w));
        MPI_Group_size(w, &size);
        MPI_Group_rank(w, &rank);
        MPI_Group_free(&w);
        if (!strcmp(mode, "held") && rank != size - 1)
            keep = probe;
        else
            CHECK_MPI(MPI_Session_finalize(&probe));
    }

    int rank = -1;
    for (int round = 0; round < rounds; round++) {
        int members = library_round(round, &rank);
        CHECK(members == 0 || members == size - 1, "round %d: %d members", round, members);
        int inited = -1, finalized = -1;
        MPI_Initialized(&inited);
        MPI_Finalized(&finalized);
        CHECK(!inited && !finalized, "round %d: between sessions Initialized %d, Finalized %d", round, inited,
              finalized);
    }
    if (keep != MPI_SESSION_NULL)
        CHECK_MPI(MPI_Session_finalize(&keep));
    if (!strcmp(mode, "then_init"))
        world_model_after();
    if (rank == 0)
        printf("session_reinit %s: ok (%d processes, %d rounds)\n", mode, size, rounds);
    return 0;
}
