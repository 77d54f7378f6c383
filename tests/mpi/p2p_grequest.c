/*
 * p2p_grequest.c -- generalized requests: query fills the status at every
 * completion call, free runs once per request (also when Request_free came
 * before Grequest_complete), cancel gets the completion flag, a query error
 * is the call's error (MPI_ERR_IN_STATUS in Waitall), mixed with p2p
 * requests in one array; bad arguments under MPI_ERRORS_RETURN.
 */
#include "check.h"

struct state { int id, queried, freed, cancelled, fail; };

static int query(void *extra, MPI_Status *st)
{
    struct state *s = extra;
    s->queried++;
    MPI_Status_set_source(st, MPI_UNDEFINED);
    MPI_Status_set_tag(st, 100 + s->id);
    MPI_Status_set_elements(st, MPI_BYTE, 0);
    MPI_Status_set_cancelled(st, s->cancelled > 0);
    return s->fail ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static int release(void *extra)
{
    ((struct state *)extra)->freed++;
    return MPI_SUCCESS;
}

static int cancel(void *extra, int complete)
{
    struct state *s = extra;
    s->cancelled = complete ? -1 : 1;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    int rank, size;
    CHECK_MPI(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    struct state s[8] = {{0}};
    MPI_Request r[8];
    MPI_Status st;
    int flag = 0, idx = -1, out = 0, ind[8];
    for (int i = 0; i < 8; i++) {
        s[i].id = i;
        CHECK_MPI(MPI_Grequest_start(query, release, cancel, &s[i], &r[i]));
    }
    /* Not complete: Test says no and calls nothing. */
    CHECK_MPI(MPI_Test(&r[0], &flag, &st));
    CHECK(!flag && s[0].queried == 0, "Test of a pending grequest: flag %d", flag);
    /* Wait, Test, Waitany, Testsome each on a completed one. */
    CHECK_MPI(MPI_Grequest_complete(r[0]));
    CHECK_MPI(MPI_Wait(&r[0], &st));
    CHECK(st.MPI_TAG == 100 && s[0].queried == 1 && s[0].freed == 1 && r[0] == MPI_REQUEST_NULL, "Wait");
    CHECK_MPI(MPI_Grequest_complete(r[1]));
    CHECK_MPI(MPI_Test(&r[1], &flag, &st));
    CHECK(flag && st.MPI_TAG == 101 && s[1].freed == 1, "Test");
    CHECK_MPI(MPI_Grequest_complete(r[2]));
    CHECK_MPI(MPI_Waitany(3, r, &idx, &st));
    CHECK(idx == 2 && st.MPI_TAG == 102 && s[2].freed == 1, "Waitany index %d", idx);
    CHECK_MPI(MPI_Grequest_complete(r[3]));
    CHECK_MPI(MPI_Testsome(4, r, &out, ind, &st));
    CHECK(out == 1 && ind[0] == 3 && st.MPI_TAG == 103, "Testsome %d", out);
    /* Request_get_status queries without freeing. */
    CHECK_MPI(MPI_Grequest_complete(r[4]));
    CHECK_MPI(MPI_Request_get_status(r[4], &flag, &st));
    CHECK(flag && st.MPI_TAG == 104 && s[4].freed == 0 && r[4] != MPI_REQUEST_NULL, "Request_get_status");
    /* Cancel before completion, then Waitall with a p2p receive and a failing query. */
    CHECK_MPI(MPI_Cancel(&r[5]));
    CHECK(s[5].cancelled == 1, "cancel not called with complete=0");
    CHECK_MPI(MPI_Grequest_complete(r[5]));
    s[6].fail = 1;
    CHECK_MPI(MPI_Grequest_complete(r[6]));
    int v = -1, me = rank;
    MPI_Request all[4] = {r[4], r[5], r[6], MPI_REQUEST_NULL};
    CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, (rank + size - 1) % size, 3, MPI_COMM_WORLD, &all[3]));
    CHECK_MPI(MPI_Send(&me, 1, MPI_INT, (rank + 1) % size, 3, MPI_COMM_WORLD));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Status sts[4];
    int rc = MPI_Waitall(4, all, sts);
    CHECK(rc == MPI_ERR_IN_STATUS, "Waitall with a failing query: %d", rc);
    CHECK(sts[2].MPI_ERROR == MPI_ERR_OTHER && sts[0].MPI_ERROR == MPI_SUCCESS, "status errors %d %d",
          sts[2].MPI_ERROR, sts[0].MPI_ERROR);
    int c = 0;
    MPI_Test_cancelled(&sts[1], &c);
    CHECK(c, "cancelled grequest status not cancelled");
    CHECK(v == (rank + size - 1) % size && s[4].freed == 1 && s[5].freed == 1 && s[6].freed == 1, "Waitall");
    /* Request_free first, complete later: free runs at completion, query never. */
    MPI_Request keep = r[7];
    CHECK_MPI(MPI_Request_free(&r[7]));
    CHECK(s[7].freed == 0, "freed before completion");
    CHECK_MPI(MPI_Grequest_complete(keep));
    CHECK(s[7].freed == 1 && s[7].queried == 0, "free after late complete: %d %d", s[7].freed, s[7].queried);

    /* Bad arguments. */
    rc = MPI_Grequest_start(query, release, cancel, NULL, NULL);
    CHECK(rc == MPI_ERR_REQUEST, "NULL request: %d", rc);
    CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, rank, 77, MPI_COMM_WORLD, &all[0]));
    rc = MPI_Grequest_complete(all[0]);
    CHECK(rc == MPI_ERR_REQUEST, "complete of a receive: %d", rc);
    CHECK_MPI(MPI_Cancel(&all[0]));
    CHECK_MPI(MPI_Wait(&all[0], MPI_STATUS_IGNORE));
    struct state z = {0};
    MPI_Request g;
    CHECK_MPI(MPI_Grequest_start(NULL, NULL, NULL, &z, &g));
    CHECK_MPI(MPI_Grequest_complete(g));
    rc = MPI_Grequest_complete(g);
    CHECK(rc == MPI_ERR_REQUEST, "second complete: %d", rc);
    CHECK_MPI(MPI_Testall(1, &g, &flag, MPI_STATUSES_IGNORE));
    CHECK(flag && g == MPI_REQUEST_NULL, "Testall with no callbacks");
    CHECK_MPI(MPI_Finalize());
    return 0;
}
