/*
 * session_mod_group.c -- MPI_Comm_create_from_group on groups modified from
 * a session's pset (after MPICH's test of that name).
 *
 * MPI_Comm_create_from_group is collective over the group's members only
 * (MPI-4.1 §7.4.2, §11.3): with MPI_GROUP_EMPTY it is local and returns
 * MPI_COMM_NULL, and so, as MPI_Comm_create_group does, for a process not
 * in the group.  MPICH's program excludes the last rank (MPI_Group_excl)
 * and that rank passes MPI_GROUP_EMPTY: it got MPI_ERR_GROUP, so the
 * program failed (exit status 1).  Here, in addition, every rank calls
 * with the modified group, in a variable that still holds the communicator
 * of the whole world: an error there left the excluded rank on the old
 * communicator, waiting in MPI_Barrier while the members' barrier was on
 * the new one.  (MPICH's session_mod_group_re_init repeats its rounds in
 * new sessions: session_reinit.c.)
 * Also: members only calling with the even ranks (MPI_Group_incl), the odd
 * ranks at the same time with the same string tag (disjoint groups), a
 * reversed group (MPI_Group_range_incl), and MPI_GROUP_EMPTY.
 */
#include "check.h"

static MPI_Comm create(MPI_Group g, const char *tag, MPI_Comm old)
{
    MPI_Comm c = old;   /* the program's variable still holds its previous communicator */
    int rc = MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c);
    CHECK(rc == MPI_SUCCESS || c == old, "MPI_Comm_create_from_group failed (%d) and changed newcomm", rc);
    int gr;
    MPI_Group_rank(g, &gr);
    if (c != MPI_COMM_NULL) {   /* what the program does with it: the hang was here */
        MPI_Barrier(c);
        int size, want;
        MPI_Comm_size(c, &size);
        MPI_Group_size(g, &want);
        CHECK(gr != MPI_UNDEFINED, "a communicator for a process not in the group (rc %d)", rc);
        CHECK(size == want, "size %d, group size %d", size, want);
    }
    CHECK(rc == MPI_SUCCESS, "MPI_Comm_create_from_group returned %d (rank %s the group)", rc,
          gr == MPI_UNDEFINED ? "not in" : "in");
    CHECK((c == MPI_COMM_NULL) == (gr == MPI_UNDEFINED), "newcomm %s for a rank %s the group",
          c == MPI_COMM_NULL ? "MPI_COMM_NULL" : "set", gr == MPI_UNDEFINED ? "not in" : "in");
    return c;
}

static void check_order(MPI_Comm c, MPI_Group g)
{
    if (c == MPI_COMM_NULL)
        return;
    int me, world, n;
    MPI_Comm_rank(c, &me);
    MPI_Group_rank(g, &world);
    CHECK(me == world, "rank %d in the communicator, %d in the group", me, world);
    MPI_Comm_size(c, &n);
    int sum = 0, one = me;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c);
    CHECK(sum == n * (n - 1) / 2, "allreduce %d", sum);
}

int main(void)
{
    MPI_Session s;
    MPI_Group world_g, g;
    CHECK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s) == MPI_SUCCESS, "Session_init");
    CHECK(MPI_Group_from_session_pset(s, "mpi://WORLD", &world_g) == MPI_SUCCESS, "group of mpi://WORLD");
    int rank, size;
    MPI_Group_rank(world_g, &rank);
    MPI_Group_size(world_g, &size);
    MPI_Comm world = create(world_g, "org.corempi.world", MPI_COMM_NULL);

    /* Everyone calls; the last rank is not in the group. */
    int last = size - 1;
    MPI_Group_excl(world_g, 1, &last, &g);
    MPI_Comm c = create(g, "org.corempi.excl", world);
    check_order(c, g);
    if (c != MPI_COMM_NULL)
        MPI_Comm_free(&c);
    MPI_Group_free(&g);
    MPI_Barrier(world);

    /* Members only: the even ranks, the odd ones with the same tag at once. */
    int ranks[256], n = 0;
    for (int r = rank % 2; r < size && n < 256; r += 2)
        ranks[n++] = r;
    MPI_Group_incl(world_g, n, ranks, &g);
    c = create(g, "org.corempi.parity", MPI_COMM_NULL);
    check_order(c, g);
    MPI_Comm_free(&c);
    MPI_Group_free(&g);

    /* Reversed order. */
    int rev[1][3] = { { size - 1, 0, -1 } };
    MPI_Group_range_incl(world_g, 1, rev, &g);
    c = create(g, "org.corempi.reversed", MPI_COMM_NULL);
    check_order(c, g);
    MPI_Comm_free(&c);
    MPI_Group_free(&g);

    /* The empty group: local, MPI_COMM_NULL, on every rank. */
    c = create(MPI_GROUP_EMPTY, "org.corempi.empty", world);
    CHECK(c == MPI_COMM_NULL, "a communicator from MPI_GROUP_EMPTY");

    MPI_Barrier(world);
    MPI_Comm_free(&world);
    MPI_Group_free(&world_g);
    CHECK(MPI_Session_finalize(&s) == MPI_SUCCESS, "Session_finalize");
    if (rank == 0)
        printf("session_mod_group: ok (%d processes)\n", size);
    return 0;
}
