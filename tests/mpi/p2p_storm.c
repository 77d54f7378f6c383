/*
 * p2p_storm.c -- many point-to-point messages of random size, tag and peer.
 *
 * Every rank regenerates the same schedule from a fixed seed, so each receiver
 * knows exactly which messages come to it, in which order per (sender, tag)
 * stream, with which size and contents.  Checked: size and contents of every
 * message, and non-overtaking: of the receives that got messages of one
 * (sender, tag) stream, the one posted first got the one sent first -- the
 * embedded sequence number and the contents say which message each got.
 *
 * The work is cut into rounds.  A round's receives are posted in priority
 * order -- fully specific first, then (source, ANY_TAG), then
 * (ANY_SOURCE, ANY_TAG) -- which makes the set of messages each class of
 * receive gets deterministic, so the counts always match and nothing hangs.
 * A rank starts sending round r+1 only after every rank told it (a zero-byte
 * READY message, caught by a specific receive posted before any wildcard) that
 * its round-r data receives are done, so a wildcard never steals a message of
 * another round.  Only point-to-point calls are used.
 *
 * Usage: p2p_storm [messages [seed]]  (or P2P_STORM_MESSAGES / P2P_STORM_SEED)
 */
#include "check.h"
#include "payload.h"

#include <stdint.h>

#define NTAGS 5
#define TAG_READY 100
#define MAX_MSG (256 * 1024)
#define AVG_PER_ROUND 40 /* messages one rank sends in a round, on average */
#define HEADER_BYTES 8

enum recv_kind { RECV_SPECIFIC, RECV_SOURCE_ANY_TAG, RECV_ANY, RECV_KINDS };
enum send_kind { SEND_ISEND, SEND_ISSEND, SEND_BLOCKING, SEND_KINDS };

typedef struct {
    int src, dst, tag, size;
    int send_kind, recv_kind;
    uint32_t seq;    /* position in its (src, dst, tag) stream, over all rounds */
    int next;        /* next incoming message of the same (src, tag) stream this round */
} storm_msg;

typedef struct {
    int rank, size;
    uint64_t seed;
    uint32_t *send_seq; /* [dst * NTAGS + tag] */
    uint32_t *recv_seq; /* [src * NTAGS + tag] */
} storm_state;

static uint64_t rng_next(uint64_t *state)
{
    *state = payload_mix(*state);
    return *state;
}

/* Mostly small messages, some on every side of any plausible eager limit. */
static int pick_size(uint64_t *rng)
{
    unsigned c = (unsigned)(rng_next(rng) % 100);
    uint64_t v = rng_next(rng);
    if (c < 5) return 0;
    if (c < 35) return 1 + (int)(v % 64);
    if (c < 65) return 65 + (int)(v % 960);
    if (c < 85) return 1025 + (int)(v % (16 * 1024));
    if (c < 97) return 16 * 1024 + (int)(v % (48 * 1024));
    return 64 * 1024 + (int)(v % (MAX_MSG - 64 * 1024 + 1));
}

static uint64_t msg_key(const storm_state *st, const storm_msg *m)
{
    return payload_key(st->seed, ((uint64_t)m->src << 32) | (uint32_t)m->dst,
                       (uint64_t)m->tag, m->seq);
}

static void fill_message(const storm_state *st, const storm_msg *m, unsigned char *buf)
{
    if (m->size >= HEADER_BYTES) {
        uint32_t header[2] = {m->seq, (uint32_t)m->src};
        memcpy(buf, header, HEADER_BYTES);
        payload_fill(buf + HEADER_BYTES, m->size - HEADER_BYTES, msg_key(st, m));
    } else {
        payload_fill(buf, m->size, msg_key(st, m));
    }
}

static void verify_message(const storm_state *st, const storm_msg *m,
                           const unsigned char *buf, int got_size)
{
    CHECK(got_size == m->size,
          "message %u from %d tag %d: got %d bytes, expected %d (overtaken or lost?)",
          m->seq, m->src, m->tag, got_size, m->size);
    if (m->size >= HEADER_BYTES) {
        uint32_t header[2];
        memcpy(header, buf, HEADER_BYTES);
        CHECK(header[0] == m->seq && header[1] == (uint32_t)m->src,
              "from %d tag %d: got sequence %u of sender %u, expected sequence %u "
              "(non-overtaking broken)", m->src, m->tag, header[0], header[1], m->seq);
        size_t bad = payload_mismatch(buf + HEADER_BYTES, m->size - HEADER_BYTES,
                                      msg_key(st, m));
        CHECK(bad == (size_t)(m->size - HEADER_BYTES),
              "message %u from %d tag %d size %d: wrong byte at offset %zu", m->seq,
              m->src, m->tag, m->size, bad + HEADER_BYTES);
    } else {
        size_t bad = payload_mismatch(buf, m->size, msg_key(st, m));
        CHECK(bad == (size_t)m->size, "message %u from %d tag %d size %d: wrong byte at %zu",
              m->seq, m->src, m->tag, m->size, bad);
    }
}

/* The whole round's schedule, identical on every rank. */
static int generate_round(const storm_state *st, int round, storm_msg **out, int *cap)
{
    int n = 0;
    for (int src = 0; src < st->size; src++) {
        uint64_t rng = payload_key(st->seed, 0x5704, (uint64_t)round, (uint64_t)src);
        int count = (int)(rng_next(&rng) % (2 * AVG_PER_ROUND + 1));
        for (int i = 0; i < count; i++) {
            if (n == *cap) {
                *cap = *cap ? 2 * *cap : 256;
                *out = realloc(*out, (size_t)*cap * sizeof(storm_msg));
                CHECK(*out != NULL, "out of memory");
            }
            storm_msg *m = &(*out)[n++];
            m->src = src;
            m->dst = (int)(rng_next(&rng) % (uint64_t)st->size);
            m->tag = (int)(rng_next(&rng) % NTAGS);
            m->size = pick_size(&rng);
            m->send_kind = (int)(rng_next(&rng) % 10);
            m->send_kind = m->send_kind < 6 ? SEND_ISEND : m->send_kind < 9 ? SEND_ISSEND
                                                                            : SEND_BLOCKING;
            m->recv_kind = (int)(rng_next(&rng) % RECV_KINDS);
            m->next = -1;
        }
    }
    return n;
}

typedef struct {
    storm_msg *msgs;
    int nmsgs;
    /* receives of this rank, in posting order */
    int *recv_kind;
    int *recv_src;
    int *got_src, *got_tag, *got_count; /* what each receive got */
    unsigned char **recv_buf;
    int nrecv;
    /* per (src, tag) stream: next expected incoming message this round */
    int *stream_head;
    int *stream_tail;
    /* sends of this rank */
    unsigned char **send_buf;
    int nsend;
} round_plan;

static int *grow_int(int *p, int n) { int *q = realloc(p, (size_t)(n ? n : 1) * sizeof(int)); CHECK(q != NULL, "out of memory"); return q; }

static void run_round(storm_state *st, int round, round_plan *rp, storm_msg **msgs, int *cap,
                      long long *total)
{
    const int me = st->rank, P = st->size;
    int n = generate_round(st, round, msgs, cap);
    storm_msg *m = *msgs;
    *total += n;

    /* Sequence numbers, and the per-stream chains of incoming messages. */
    for (int i = 0; i < P * NTAGS; i++)
        rp->stream_head[i] = rp->stream_tail[i] = -1;
    int nin = 0, nout = 0;
    for (int i = 0; i < n; i++) {
        if (m[i].src == me) {
            m[i].seq = st->send_seq[m[i].dst * NTAGS + m[i].tag]++;
            nout++;
        }
        if (m[i].dst == me) {
            int s = m[i].src * NTAGS + m[i].tag;
            uint32_t expect = st->recv_seq[s]++;
            if (m[i].src != me)
                m[i].seq = expect;
            else
                CHECK(m[i].seq == expect, "self stream bookkeeping");
            if (rp->stream_tail[s] < 0)
                rp->stream_head[s] = i;
            else
                m[rp->stream_tail[s]].next = i;
            rp->stream_tail[s] = i;
            nin++;
        }
    }

    int nready = P - 1;
    int total_reqs = nin + nout + 2 * nready;
    MPI_Request *reqs = malloc((size_t)(total_reqs ? total_reqs : 1) * sizeof(MPI_Request));
    MPI_Status *stats = malloc((size_t)(total_reqs ? total_reqs : 1) * sizeof(MPI_Status));
    int *indices = malloc((size_t)(total_reqs ? total_reqs : 1) * sizeof(int));
    CHECK(reqs && stats && indices, "out of memory");
    rp->recv_kind = grow_int(rp->recv_kind, nin);
    rp->recv_src = grow_int(rp->recv_src, nin);
    rp->got_src = grow_int(rp->got_src, nin);
    rp->got_tag = grow_int(rp->got_tag, nin);
    rp->got_count = grow_int(rp->got_count, nin);
    rp->recv_buf = realloc(rp->recv_buf, (size_t)(nin + 1) * sizeof(unsigned char *));
    rp->send_buf = realloc(rp->send_buf, (size_t)(nout + 1) * sizeof(unsigned char *));
    CHECK(rp->recv_buf && rp->send_buf, "out of memory");

    /* Layout of reqs: [0, nin) data receives, [nin, nin+nout) sends,
     * then READY receives, then READY sends. */
    int r = 0;
    /* 1. fully specific receives.  Posted before every other receive, the
     *    S specific receives of a stream get its first S messages, in order,
     *    whichever messages the schedule marked "specific": size them exactly. */
    for (int s = 0; s < P * NTAGS; s++) {
        int specific = 0;
        for (int i = rp->stream_head[s]; i >= 0; i = m[i].next)
            specific += m[i].recv_kind == RECV_SPECIFIC;
        for (int i = rp->stream_head[s]; i >= 0 && specific > 0; i = m[i].next, specific--) {
            rp->recv_kind[r] = RECV_SPECIFIC;
            rp->recv_src[r] = m[i].src;
            rp->recv_buf[r] = malloc(m[i].size ? (size_t)m[i].size : 1);
            CHECK(rp->recv_buf[r] != NULL, "out of memory");
            CHECK_MPI(MPI_Irecv(rp->recv_buf[r], m[i].size, MPI_BYTE, m[i].src, m[i].tag,
                                MPI_COMM_WORLD, &reqs[r]));
            r++;
        }
    }
    /* 2. READY receives, specific, before any wildcard. */
    int ready_recv0 = nin + nout;
    for (int q = 0, k = 0; q < P; q++) {
        if (q == me)
            continue;
        CHECK_MPI(MPI_Irecv(NULL, 0, MPI_BYTE, q, TAG_READY, MPI_COMM_WORLD,
                            &reqs[ready_recv0 + k++]));
    }
    /* 3. (source, ANY_TAG), then 4. (ANY_SOURCE, ANY_TAG), with room for any size. */
    for (int kind = RECV_SOURCE_ANY_TAG; kind <= RECV_ANY; kind++) {
        for (int i = 0; i < n; i++) {
            if (m[i].dst != me || m[i].recv_kind != kind)
                continue;
            rp->recv_kind[r] = kind;
            rp->recv_src[r] = kind == RECV_ANY ? MPI_ANY_SOURCE : m[i].src;
            rp->recv_buf[r] = malloc(MAX_MSG);
            CHECK(rp->recv_buf[r] != NULL, "out of memory");
            CHECK_MPI(MPI_Irecv(rp->recv_buf[r], MAX_MSG, MPI_BYTE, rp->recv_src[r],
                                MPI_ANY_TAG, MPI_COMM_WORLD, &reqs[r]));
            r++;
        }
    }
    CHECK(r == nin, "posted %d receives, expected %d", r, nin);

    /* Sends, in schedule order (which is each stream's order). */
    int data_left = nin;
    int w = 0;
    for (int i = 0; i < n; i++) {
        if (m[i].src != me)
            continue;
        unsigned char *buf = malloc(m[i].size ? (size_t)m[i].size : 1);
        CHECK(buf != NULL, "out of memory");
        fill_message(st, &m[i], buf);
        rp->send_buf[w] = buf;
        MPI_Request *req = &reqs[nin + w];
        switch (m[i].send_kind) {
        case SEND_ISEND:
            CHECK_MPI(MPI_Isend(buf, m[i].size, MPI_BYTE, m[i].dst, m[i].tag, MPI_COMM_WORLD, req));
            break;
        case SEND_ISSEND:
            CHECK_MPI(MPI_Issend(buf, m[i].size, MPI_BYTE, m[i].dst, m[i].tag, MPI_COMM_WORLD, req));
            break;
        default:
            /* Blocking: the receiver has posted (or will post without waiting
             * for us) its receives, so the progress rule guarantees completion. */
            CHECK_MPI(MPI_Send(buf, m[i].size, MPI_BYTE, m[i].dst, m[i].tag, MPI_COMM_WORLD));
            free(buf);
            rp->send_buf[w] = NULL;
            *req = MPI_REQUEST_NULL;
            break;
        }
        w++;
    }

    /* A completed data receive only records what it got.  Which message that
     * was follows from matching order, not completion order: of the receives
     * that got messages of one (source, tag) stream, the earlier posted got
     * the earlier sent (non-overtaking), so verification walks the receives
     * in posting order once they are all done. */
#define HANDLE_COMPLETION(idx, status)                                                   \
    do {                                                                                 \
        int ix_ = (idx);                                                                 \
        if (ix_ < nin) {                                                                 \
            MPI_Status *s_ = (status);                                                   \
            int src_ = s_->MPI_SOURCE, tag_ = s_->MPI_TAG, got_ = -1;                    \
            CHECK(src_ >= 0 && src_ < P, "status source %d out of range", src_);       \
            CHECK(tag_ >= 0 && tag_ < NTAGS, "status tag %d from %d not a data tag",    \
                  tag_, src_);                                                           \
            if (rp->recv_kind[ix_] != RECV_ANY)                                          \
                CHECK(src_ == rp->recv_src[ix_], "receive for source %d matched %d",     \
                      rp->recv_src[ix_], src_);                                          \
            CHECK_MPI(MPI_Get_count(s_, MPI_BYTE, &got_));                               \
            rp->got_src[ix_] = src_;                                                     \
            rp->got_tag[ix_] = tag_;                                                     \
            rp->got_count[ix_] = got_;                                                   \
            data_left--;                                                                 \
        } else {                                                                         \
            free(rp->send_buf[ix_ - nin]);                                               \
            rp->send_buf[ix_ - nin] = NULL;                                              \
        }                                                                                \
    } while (0)

    int active = nin + nout;
    switch (round % 3) {
    case 0: /* Waitany */
        while (data_left > 0) {
            int idx;
            MPI_Status status;
            CHECK_MPI(MPI_Waitany(active, reqs, &idx, &status));
            CHECK(idx != MPI_UNDEFINED, "Waitany found no active request, %d receives left",
                  data_left);
            CHECK(reqs[idx] == MPI_REQUEST_NULL, "Waitany did not free request %d", idx);
            HANDLE_COMPLETION(idx, &status);
        }
        break;
    case 1: /* Testsome, polling */
        while (data_left > 0) {
            int outcount;
            CHECK_MPI(MPI_Testsome(active, reqs, &outcount, indices, stats));
            CHECK(outcount != MPI_UNDEFINED, "Testsome found no active request");
            for (int k = 0; k < outcount; k++)
                HANDLE_COMPLETION(indices[k], &stats[k]);
        }
        break;
    default: /* Waitsome */
        while (data_left > 0) {
            int outcount;
            CHECK_MPI(MPI_Waitsome(active, reqs, &outcount, indices, stats));
            CHECK(outcount != MPI_UNDEFINED && outcount > 0, "Waitsome returned %d", outcount);
            for (int k = 0; k < outcount; k++)
                HANDLE_COMPLETION(indices[k], &stats[k]);
        }
        break;
    }
#undef HANDLE_COMPLETION

    for (int k = 0; k < nin; k++) {
        int sid = rp->got_src[k] * NTAGS + rp->got_tag[k];
        int mi = rp->stream_head[sid];
        CHECK(mi >= 0, "one message too many from %d tag %d", rp->got_src[k], rp->got_tag[k]);
        rp->stream_head[sid] = m[mi].next;
        verify_message(st, &m[mi], rp->recv_buf[k], rp->got_count[k]);
        free(rp->recv_buf[k]);
    }
    for (int s = 0; s < P * NTAGS; s++)
        CHECK(rp->stream_head[s] < 0, "message(s) from %d tag %d never arrived",
              s / NTAGS, s % NTAGS);

    /* This round's data is all here: tell everyone. */
    int ready_send0 = ready_recv0 + nready;
    for (int q = 0, k = 0; q < P; q++) {
        if (q == me)
            continue;
        CHECK_MPI(MPI_Isend(NULL, 0, MPI_BYTE, q, TAG_READY, MPI_COMM_WORLD,
                            &reqs[ready_send0 + k++]));
    }
    CHECK_MPI(MPI_Waitall(total_reqs, reqs, stats));
    for (int k = 0; k < nready; k++) {
        int cnt = -1;
        CHECK_MPI(MPI_Get_count(&stats[ready_recv0 + k], MPI_BYTE, &cnt));
        CHECK(stats[ready_recv0 + k].MPI_TAG == TAG_READY && cnt == 0,
              "READY receive got tag %d, %d bytes", stats[ready_recv0 + k].MPI_TAG, cnt);
    }
    for (int k = 0; k < nout; k++)
        free(rp->send_buf[k]);
    free(reqs);
    free(stats);
    free(indices);
}

static long long arg_or_env(int argc, char **argv, int pos, const char *env, long long dflt)
{
    const char *s = argc > pos ? argv[pos] : getenv(env);
    return s && *s ? atoll(s) : dflt;
}

int main(int argc, char **argv)
{
    storm_state st;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &st.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &st.size);
    long long target = arg_or_env(argc, argv, 1, "P2P_STORM_MESSAGES", 100000);
    st.seed = (uint64_t)arg_or_env(argc, argv, 2, "P2P_STORM_SEED", 20260522);
    st.send_seq = calloc((size_t)st.size * NTAGS, sizeof(uint32_t));
    st.recv_seq = calloc((size_t)st.size * NTAGS, sizeof(uint32_t));
    round_plan rp = {0};
    rp.stream_head = malloc((size_t)st.size * NTAGS * sizeof(int));
    rp.stream_tail = malloc((size_t)st.size * NTAGS * sizeof(int));
    CHECK(st.send_seq && st.recv_seq && rp.stream_head && rp.stream_tail, "out of memory");

    storm_msg *msgs = NULL;
    int cap = 0, rounds = 0;
    long long total = 0;
    double t0 = MPI_Wtime();
    while (total < target)
        run_round(&st, rounds++, &rp, &msgs, &cap, &total);
    double t1 = MPI_Wtime();

    if (st.rank == 0)
        printf("p2p_storm: %lld messages in %d rounds on %d ranks, %.2f s\n", total, rounds,
               st.size, t1 - t0);
    free(msgs);
    free(rp.recv_kind);
    free(rp.recv_src);
    free(rp.got_src);
    free(rp.got_tag);
    free(rp.got_count);
    free(rp.recv_buf);
    free(rp.send_buf);
    free(rp.stream_head);
    free(rp.stream_tail);
    free(st.send_seq);
    free(st.recv_seq);
    MPI_Finalize();
    return 0;
}
