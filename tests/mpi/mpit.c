/*
 * mpit.c -- the MPI tool information interface (src/mpi/mpit_*.c).
 *
 * Before MPI_Init: MPI_T nests (init twice, finalize twice, a third
 * finalize refused), every control variable is there under the name
 * config.def gives it (the COREMPI_<COLL> row once per collective), in
 * exactly one category, and reads as the environment says.  Between Init
 * and Finalize: COREMPI_CHECK written to 1 makes a collective with
 * mismatched ops fail on every rank; the traffic counters move by exactly
 * the messages and bytes each rank sends (per level and per destination),
 * a stopped per-destination counter stays put, reset and write work; the
 * unexpected queue's length and high-water mark see messages parked in it;
 * the allreduce algorithm state names the algorithm (the forced one when
 * COREMPI_ALLREDUCE is set).  Bad indices, handles and sessions get their
 * MPI_T_ERR_* class.  After MPI_Finalize, MPI_T still answers.
 */
#include "check.h"

#include <stdint.h>

#define OK(call) do { int rc_ = (call); CHECK(rc_ == MPI_SUCCESS, "%s returned %d", #call, rc_); } while (0)
#define FAILS(call, want) \
    do { int rc_ = (call); CHECK(rc_ == (want), "%s returned %d, expected %s (%d)", #call, rc_, #want, want); } while (0)

/* The names config.def declares, the family row expanded per collective. */
static const char *const table_rows[] = {
#define CM_CONFIG(name, kind, who, def, values, help) #name,
#include "core/config.def"
#undef CM_CONFIG
};
static const char *const family[] = {
#define CM_COLL(coll, COLL) "COREMPI_" #COLL,
#include "coll/algorithms.def"
};
#define NROWS (int)(sizeof table_rows / sizeof *table_rows)
#define NFAMILY (int)(sizeof family / sizeof *family)

static int cvar_index(const char *name)
{
    int i = -1;
    OK(MPI_T_cvar_get_index(name, &i));
    return i;
}

static void read_cvar(const char *name, void *buf)
{
    MPI_T_cvar_handle h;
    int count;
    OK(MPI_T_cvar_handle_alloc(cvar_index(name), NULL, &h, &count));
    OK(MPI_T_cvar_read(h, buf));
    OK(MPI_T_cvar_handle_free(&h));
    CHECK(h == MPI_T_CVAR_HANDLE_NULL, "cvar_handle_free left the handle set");
}

static void cvars_before_init(void)
{
    int n;
    OK(MPI_T_cvar_get_num(&n));
    int expected = 0;
    for (int r = 0; r < NROWS; r++) {
        if (!strcmp(table_rows[r], "COREMPI_<COLL>")) {
            for (int c = 0; c < NFAMILY; c++, expected++)
                cvar_index(family[c]);
            continue;
        }
        int i = cvar_index(table_rows[r]);
        char name[128];
        int len = sizeof name, verb, bind, scope;
        MPI_Datatype dt;
        MPI_T_enum en;
        char desc[512];
        int dlen = sizeof desc;
        OK(MPI_T_cvar_get_info(i, name, &len, &verb, &dt, &en, desc, &dlen, &bind, &scope));
        CHECK(!strcmp(name, table_rows[r]) && len == (int)strlen(name) + 1, "cvar %d is %s (len %d), not %s", i,
              name, len, table_rows[r]);
        CHECK(dlen > 1 && bind == MPI_T_BIND_NO_OBJECT && en == MPI_T_ENUM_NULL, "cvar %s: bad info", name);
        CHECK(dt == MPI_INT || dt == MPI_CHAR, "cvar %s: datatype is neither MPI_INT nor MPI_CHAR", name);
        CHECK(scope == (strcmp(name, "COREMPI_CHECK") ? scope : MPI_T_SCOPE_ALL_EQ), "COREMPI_CHECK scope %d", scope);
        CHECK(scope >= MPI_T_SCOPE_CONSTANT && scope <= MPI_T_SCOPE_ALL_EQ, "cvar %s scope %d", name, scope);
        expected++;
    }
    CHECK(n == expected, "%d cvars, config.def declares %d", n, expected);

    /* The length-only query. */
    int len = 0;
    OK(MPI_T_cvar_get_info(cvar_index("COREMPI_EAGER_MAX"), NULL, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    CHECK(len == (int)strlen("COREMPI_EAGER_MAX") + 1, "name length %d", len);

    /* Values: the environment's text (the test runs with COREMPI_EAGER_MAX
     * set), a flag as an int. */
    char text[256];
    read_cvar("COREMPI_EAGER_MAX", text);
    const char *env = getenv("COREMPI_EAGER_MAX");
    CHECK(!strcmp(text, env ? env : "16384"), "COREMPI_EAGER_MAX reads \"%s\"", text);
    int flag = -1;
    read_cvar("COREMPI_SHM_NBC", &flag);
    CHECK(flag == 1, "COREMPI_SHM_NBC reads %d", flag);

    /* Categories: the four asked for, every cvar in exactly one. */
    int ncat, seen_total = 0;
    OK(MPI_T_category_get_num(&ncat));
    const char *want[] = {"p2p", "collectives", "launch/topology", "profiling"};
    for (int w = 0; w < 4; w++) {
        int c;
        OK(MPI_T_category_get_index(want[w], &c));
    }
    char *in_cat = calloc((size_t)n, 1);
    for (int c = 0; c < ncat; c++) {
        int nc, np, nsub;
        OK(MPI_T_category_get_info(c, NULL, NULL, NULL, NULL, &nc, &np, &nsub));
        int *idx = malloc(sizeof(int) * (size_t)(nc + 1));
        OK(MPI_T_category_get_cvars(c, nc, idx));
        for (int k = 0; k < nc; k++) {
            CHECK(idx[k] >= 0 && idx[k] < n && !in_cat[idx[k]], "cvar %d listed twice or out of range", idx[k]);
            in_cat[idx[k]] = 1;
        }
        seen_total += nc;
        free(idx);
    }
    CHECK(seen_total == n, "categories hold %d cvars of %d", seen_total, n);
    free(in_cat);
    int stamp1, stamp2;
    OK(MPI_T_category_changed(&stamp1));
    OK(MPI_T_category_changed(&stamp2));
    CHECK(stamp1 == stamp2, "category set changed without a change");

    /* Writing: COREMPI_CHECK not before MPI_Init, read-only ones never. */
    MPI_T_cvar_handle h;
    int count;
    OK(MPI_T_cvar_handle_alloc(cvar_index("COREMPI_CHECK"), NULL, &h, &count));
    CHECK(count == 1, "COREMPI_CHECK count %d", count);
    int one = 1;
    FAILS(MPI_T_cvar_write(h, &one), MPI_T_ERR_CVAR_SET_NOT_NOW);
    OK(MPI_T_cvar_handle_free(&h));
    OK(MPI_T_cvar_handle_alloc(cvar_index("COREMPI_EAGER_MAX"), NULL, &h, &count));
    FAILS(MPI_T_cvar_write(h, "64"), MPI_T_ERR_CVAR_SET_NEVER);
    OK(MPI_T_cvar_handle_free(&h));
}

static void bad_arguments(void)
{
    int n, np, dummy;
    OK(MPI_T_cvar_get_num(&n));
    OK(MPI_T_pvar_get_num(&np));
    FAILS(MPI_T_cvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    FAILS(MPI_T_cvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    FAILS(MPI_T_pvar_get_info(np, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
          MPI_T_ERR_INVALID_INDEX);
    FAILS(MPI_T_category_get_info(99, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    FAILS(MPI_T_cvar_get_index("COREMPI_NO_SUCH", &dummy), MPI_T_ERR_INVALID_NAME);
    FAILS(MPI_T_pvar_get_index("p2p_unexpected_length", MPI_T_PVAR_CLASS_COUNTER, &dummy), MPI_T_ERR_INVALID_NAME);
    MPI_T_cvar_handle ch;
    int count;
    FAILS(MPI_T_cvar_handle_alloc(n, NULL, &ch, &count), MPI_T_ERR_INVALID_INDEX);
    /* A handle that was never ours, and one already freed. */
    int junk[8] = {0};
    FAILS(MPI_T_cvar_read((MPI_T_cvar_handle)(void *)junk, junk), MPI_T_ERR_INVALID_HANDLE);
    OK(MPI_T_cvar_handle_alloc(0, NULL, &ch, &count));
    MPI_T_cvar_handle stale = ch;
    OK(MPI_T_cvar_handle_free(&ch));
    FAILS(MPI_T_cvar_read(stale, junk), MPI_T_ERR_INVALID_HANDLE);
    FAILS(MPI_T_cvar_handle_free(&stale), MPI_T_ERR_INVALID_HANDLE);
    FAILS(MPI_T_enum_get_info((MPI_T_enum)(void *)junk, &dummy, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);

    MPI_T_pvar_session s, bogus = (MPI_T_pvar_session)(void *)junk;
    MPI_T_pvar_handle ph;
    FAILS(MPI_T_pvar_handle_alloc(bogus, 0, NULL, &ph, &count), MPI_T_ERR_INVALID_SESSION);
    OK(MPI_T_pvar_session_create(&s));
    FAILS(MPI_T_pvar_handle_alloc(s, np, NULL, &ph, &count), MPI_T_ERR_INVALID_INDEX);
    FAILS(MPI_T_pvar_read(s, (MPI_T_pvar_handle)(void *)junk, junk), MPI_T_ERR_INVALID_HANDLE);
    FAILS(MPI_T_pvar_start(s, (MPI_T_pvar_handle)(void *)junk), MPI_T_ERR_INVALID_HANDLE);
    int peer;
    OK(MPI_T_pvar_get_index("p2p_peer_msgs", MPI_T_PVAR_CLASS_COUNTER, &peer));
    MPI_Comm null = MPI_COMM_NULL;
    FAILS(MPI_T_pvar_handle_alloc(s, peer, &null, &ph, &count), MPI_T_ERR_INVALID_HANDLE);
    int len_i;
    OK(MPI_T_pvar_get_index("p2p_unexpected_length", MPI_T_PVAR_CLASS_LEVEL, &len_i));
    OK(MPI_T_pvar_handle_alloc(s, len_i, NULL, &ph, &count));
    FAILS(MPI_T_pvar_start(s, ph), MPI_T_ERR_PVAR_NO_STARTSTOP);
    FAILS(MPI_T_pvar_reset(s, ph), MPI_T_ERR_PVAR_NO_WRITE);
    unsigned long long v = 3;
    FAILS(MPI_T_pvar_write(s, ph, &v), MPI_T_ERR_PVAR_NO_WRITE);
    OK(MPI_T_pvar_handle_free(s, &ph));
    OK(MPI_T_pvar_session_free(&s));
    FAILS(MPI_T_pvar_session_free(&bogus), MPI_T_ERR_INVALID_SESSION);

    /* No events, no sources, and saying so. */
    OK(MPI_T_event_get_num(&dummy));
    CHECK(dummy == 0, "%d events", dummy);
    OK(MPI_T_source_get_num(&dummy));
    CHECK(dummy == 0, "%d sources", dummy);
    MPI_T_event_registration reg;
    FAILS(MPI_T_event_handle_alloc(0, NULL, MPI_INFO_NULL, &reg), MPI_T_ERR_INVALID_INDEX);
    FAILS(MPI_T_event_get_index("x", &dummy), MPI_T_ERR_INVALID_NAME);
    FAILS(MPI_T_event_handle_free((MPI_T_event_registration)(void *)junk, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);

    char text[MPI_MAX_ERROR_STRING];
    int tl, cls;
    OK(MPI_Error_string(MPI_T_ERR_INVALID_INDEX, text, &tl));
    CHECK(strstr(text, "MPI_T") != NULL, "error string \"%s\"", text);
    OK(MPI_Error_class(MPI_T_ERR_INVALID_HANDLE, &cls));
    CHECK(cls == MPI_T_ERR_INVALID_HANDLE, "class %d", cls);
}

static int pvar_index(const char *name, int cls)
{
    int i = -1;
    OK(MPI_T_pvar_get_index(name, cls, &i));
    return i;
}

static MPI_T_pvar_handle alloc(MPI_T_pvar_session s, const char *name, int cls, void *obj, int want_count)
{
    MPI_T_pvar_handle h;
    int count;
    OK(MPI_T_pvar_handle_alloc(s, pvar_index(name, cls), obj, &h, &count));
    CHECK(count == want_count, "%s: count %d, expected %d", name, count, want_count);
    return h;
}

static unsigned long long read1(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    unsigned long long v;
    OK(MPI_T_pvar_read(s, h, &v));
    return v;
}

/* Every rank sends rank+1 small and 2 large messages to the next rank and
 * receives from the previous; nothing else is sent between the reads. */
static void exchange(int rank, int size, size_t large, char *sbuf, char *rbuf)
{
    int to = (rank + 1) % size, from = (rank + size - 1) % size, nfrom = from + 1;
    MPI_Request rq[64];
    int k = 0;
    for (int i = 0; i < 2; i++)
        OK(MPI_Irecv(rbuf + (size_t)i * large, (int)large, MPI_CHAR, from, 2, MPI_COMM_WORLD, &rq[k++]));
    for (int i = 0; i < nfrom; i++)
        OK(MPI_Irecv(rbuf + 2 * large + 100 * (size_t)i, 100, MPI_CHAR, from, 1, MPI_COMM_WORLD, &rq[k++]));
    for (int i = 0; i < rank + 1; i++)
        OK(MPI_Isend(sbuf, 100, MPI_CHAR, to, 1, MPI_COMM_WORLD, &rq[k++]));
    for (int i = 0; i < 2; i++)
        OK(MPI_Isend(sbuf, (int)large, MPI_CHAR, to, 2, MPI_COMM_WORLD, &rq[k++]));
    OK(MPI_Waitall(k, rq, MPI_STATUSES_IGNORE));
}

static void traffic(int rank, int size)
{
    if (size < 2)
        return;
    const size_t large = 200000;
    char *sbuf = calloc(large, 1), *rbuf = calloc(2 * large + 100 * (size_t)size, 1);
    MPI_T_pvar_session s;
    OK(MPI_T_pvar_session_create(&s));
    MPI_Comm world = MPI_COMM_WORLD;
    MPI_T_pvar_handle same = alloc(s, "p2p_msgs_same_level", MPI_T_PVAR_CLASS_COUNTER, NULL, 1);
    MPI_T_pvar_handle across = alloc(s, "p2p_msgs_across_level", MPI_T_PVAR_CLASS_COUNTER, NULL, 1);
    MPI_T_pvar_handle bsame = alloc(s, "p2p_bytes_same_level", MPI_T_PVAR_CLASS_COUNTER, NULL, 1);
    MPI_T_pvar_handle bacross = alloc(s, "p2p_bytes_across_level", MPI_T_PVAR_CLASS_COUNTER, NULL, 1);
    MPI_T_pvar_handle peer = alloc(s, "p2p_peer_msgs", MPI_T_PVAR_CLASS_COUNTER, &world, size);
    MPI_T_pvar_handle pbytes = alloc(s, "p2p_peer_bytes", MPI_T_PVAR_CLASS_COUNTER, &world, size);
    unsigned long long *pv = calloc((size_t)size, sizeof *pv), *pb = calloc((size_t)size, sizeof *pb);

    /* Not started yet: a non-continuous counter reads 0 whatever is sent. */
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_T_pvar_read(s, peer, pv));
    for (int r = 0; r < size; r++)
        CHECK(pv[r] == 0, "peer_msgs[%d] = %llu before start", r, pv[r]);
    OK(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_T_pvar_reset(s, MPI_T_PVAR_ALL_HANDLES));
    unsigned long long m0 = read1(s, same) + read1(s, across), b0 = read1(s, bsame) + read1(s, bacross);
    CHECK(m0 == 0 && b0 == 0, "after reset: %llu messages, %llu bytes", m0, b0);
    exchange(rank, size, large, sbuf, rbuf);
    unsigned long long m1 = read1(s, same) + read1(s, across), b1 = read1(s, bsame) + read1(s, bacross);
    unsigned long long nmsg = (unsigned long long)rank + 1 + 2, nbytes = (unsigned long long)(rank + 1) * 100 + 2 * large;
    CHECK(m1 == nmsg, "sent %llu messages, the level counters say %llu", nmsg, m1);
    CHECK(b1 == nbytes, "sent %llu bytes, the level counters say %llu", nbytes, b1);
    if (getenv("COREMPI_TOPOLOGY")) {
        /* Two packages, ranks on both: some ring edge crosses the top level. */
        unsigned long long mine = read1(s, across), all = 0;
        OK(MPI_Allreduce(&mine, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
        CHECK(all > 0, "no message counted across packages");
        OK(MPI_T_pvar_reset(s, MPI_T_PVAR_ALL_HANDLES));   /* the allreduce's own messages */
        OK(MPI_T_pvar_start(s, peer));   /* reset keeps it running; start again is allowed */
        exchange(rank, size, large, sbuf, rbuf);
        m1 = read1(s, same) + read1(s, across);
        CHECK(m1 == nmsg, "after reset: sent %llu messages, the level counters say %llu", nmsg, m1);
    }
    OK(MPI_T_pvar_read(s, peer, pv));
    OK(MPI_T_pvar_read(s, pbytes, pb));
    for (int r = 0; r < size; r++) {
        int to = r == (rank + 1) % size;
        CHECK(pv[r] == (to ? nmsg : 0), "peer_msgs[%d] = %llu", r, pv[r]);
        CHECK(pb[r] == (to ? nbytes : 0), "peer_bytes[%d] = %llu", r, pb[r]);
    }

    /* Stopped, the per-destination counter keeps its value; the continuous
     * level counters go on counting. */
    OK(MPI_T_pvar_stop(s, peer));
    exchange(rank, size, large, sbuf, rbuf);
    OK(MPI_T_pvar_read(s, peer, pv));
    CHECK(pv[(rank + 1) % size] == nmsg, "stopped peer counter moved to %llu", pv[(rank + 1) % size]);
    unsigned long long m2 = read1(s, same) + read1(s, across);
    CHECK(m2 == 2 * nmsg, "level counters %llu after two rounds of %llu", m2, nmsg);
    FAILS(MPI_T_pvar_start(s, same), MPI_T_ERR_PVAR_NO_STARTSTOP);

    /* Write and readreset. */
    unsigned long long five = 5, got;
    OK(MPI_T_pvar_write(s, same, &five));
    CHECK(read1(s, same) == 5, "written 5, read %llu", read1(s, same));
    OK(MPI_T_pvar_readreset(s, same, &got));
    CHECK(got == 5 && read1(s, same) == 0, "readreset gave %llu then %llu", got, read1(s, same));

    OK(MPI_T_pvar_handle_free(s, &peer));
    CHECK(peer == MPI_T_PVAR_HANDLE_NULL, "handle_free left the handle set");
    OK(MPI_T_pvar_session_free(&s));   /* frees the other handles */
    free(pv), free(pb), free(sbuf), free(rbuf);
}

/* Rank 1 lets K messages from rank 0 wait in its unexpected queue.  Every
 * other rank then waits for rank 1's "go", so that nothing else (a
 * collective's message) can land in that queue while rank 1 counts. */
static void unexpected(int rank, int size)
{
    MPI_T_pvar_session s;
    OK(MPI_T_pvar_session_create(&s));
    MPI_T_pvar_handle now = alloc(s, "p2p_unexpected_length", MPI_T_PVAR_CLASS_LEVEL, NULL, 1);
    MPI_T_pvar_handle most = alloc(s, "p2p_unexpected_max", MPI_T_PVAR_CLASS_HIGHWATERMARK, NULL, 1);
    enum { K = 6 };
    int v = 0;
    if (size < 2) {
        CHECK(read1(s, now) == 0, "unexpected queue holds %llu with one rank", read1(s, now));
    } else if (rank == 1) {
        OK(MPI_Probe(0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));   /* the K before it arrived first */
        CHECK(read1(s, now) == K + 1, "unexpected queue holds %llu, expected %d", read1(s, now), K + 1);
        for (int i = 0; i < K; i++)
            OK(MPI_Recv(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        OK(MPI_Recv(&v, 1, MPI_INT, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(read1(s, now) == 0, "unexpected queue holds %llu after the receives", read1(s, now));
        CHECK(read1(s, most) >= K + 1, "high-water mark %llu", read1(s, most));
        for (int r = 0; r < size; r++)
            if (r != 1)
                OK(MPI_Send(&v, 1, MPI_INT, r, 9, MPI_COMM_WORLD));
    } else {
        if (rank == 0)
            for (int i = 0; i <= K; i++)
                OK(MPI_Send(&i, 1, MPI_INT, 1, i == K ? 8 : 7, MPI_COMM_WORLD));
        OK(MPI_Recv(&v, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    OK(MPI_T_pvar_session_free(&s));
}

static void check_cvar_write(int rank, int size)
{
    MPI_T_cvar_handle h;
    int count, v = -1;
    OK(MPI_T_cvar_handle_alloc(cvar_index("COREMPI_CHECK"), NULL, &h, &count));
    OK(MPI_T_cvar_read(h, &v));
    CHECK(v == 0, "COREMPI_CHECK reads %d by default", v);
    int one = 1, zero = 0, seven = 7;
    FAILS(MPI_T_cvar_write(h, &seven), MPI_T_ERR_INVALID);
    OK(MPI_T_cvar_write(h, &one));
    OK(MPI_T_cvar_read(h, &v));
    CHECK(v == 1, "COREMPI_CHECK reads %d after writing 1", v);
    if (size >= 2) {
        /* The effect: mismatched ops are caught, on every rank. */
        OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        int in = rank, out;
        int rc = MPI_Allreduce(&in, &out, 1, MPI_INT, rank == 0 ? MPI_SUM : MPI_MAX, MPI_COMM_WORLD);
        CHECK(rc != MPI_SUCCESS, "mismatched ops not caught with COREMPI_CHECK written to 1");
        OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    }
    OK(MPI_T_cvar_write(h, &zero));
    OK(MPI_T_cvar_read(h, &v));
    CHECK(v == 0, "COREMPI_CHECK reads %d after writing 0", v);
    OK(MPI_T_cvar_handle_free(&h));
}

static void algorithm_state(int size)
{
    int in = 1, out = 0;
    OK(MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(out == size, "allreduce gave %d", out);
    MPI_T_pvar_session s;
    OK(MPI_T_pvar_session_create(&s));
    int i = pvar_index("coll_algorithm_allreduce", MPI_T_PVAR_CLASS_STATE);
    MPI_Datatype dt;
    MPI_T_enum en;
    OK(MPI_T_pvar_get_info(i, NULL, NULL, NULL, NULL, &dt, &en, NULL, NULL, NULL, NULL, NULL, NULL));
    CHECK(dt == MPI_INT && en != MPI_T_ENUM_NULL, "state variable without int type or enumeration");
    MPI_T_pvar_handle h = alloc(s, "coll_algorithm_allreduce", MPI_T_PVAR_CLASS_STATE, NULL, 1);
    int state = -99;
    OK(MPI_T_pvar_read(s, h, &state));
    int num;
    OK(MPI_T_enum_get_info(en, &num, NULL, NULL));
    char name[64] = "";
    int found = 0;
    for (int k = 0; k < num; k++) {
        int value, len = sizeof name;
        OK(MPI_T_enum_get_item(en, k, &value, name, &len));
        if (value == state) {
            found = 1;
            break;
        }
    }
    CHECK(found, "state %d is no item of the enumeration", state);
    FAILS(MPI_T_enum_get_item(en, num, &state, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    const char *forced = getenv("COREMPI_ALLREDUCE");
    if (size > 1)
        CHECK(strcmp(name, "none") != 0, "no allreduce algorithm recorded");
    if (forced && size > 1)
        CHECK(!strcmp(name, forced), "allreduce ran %s, %s was forced", name, forced);
    OK(MPI_T_pvar_session_free(&s));
}

int main(int argc, char **argv)
{
    int provided, n;
    FAILS(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    FAILS(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);
    OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    OK(MPI_T_init_thread(MPI_THREAD_FUNNELED, &provided));
    CHECK(provided == MPI_THREAD_FUNNELED, "provided %d", provided);
    OK(MPI_T_finalize());
    OK(MPI_T_cvar_get_num(&n));   /* still one init open */
    cvars_before_init();
    bad_arguments();

    OK(MPI_Init(&argc, &argv));
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    bad_arguments();
    check_cvar_write(rank, size);
    traffic(rank, size);
    unexpected(rank, size);
    algorithm_state(size);
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Finalize());

    /* After MPI_Finalize: still answering, COREMPI_CHECK no longer settable. */
    OK(MPI_T_cvar_get_num(&n));
    MPI_T_cvar_handle h;
    int count, one = 1;
    OK(MPI_T_cvar_handle_alloc(cvar_index("COREMPI_CHECK"), NULL, &h, &count));
    FAILS(MPI_T_cvar_write(h, &one), MPI_T_ERR_CVAR_SET_NOT_NOW);
    OK(MPI_T_cvar_handle_free(&h));
    OK(MPI_T_finalize());
    FAILS(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    FAILS(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);
    if (rank == 0)
        printf("mpit: ok on %d ranks\n", size);
    return 0;
}
