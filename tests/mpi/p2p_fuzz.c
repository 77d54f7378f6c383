/*
 * p2p_fuzz.c -- randomized differential test of point-to-point.
 *
 *   mpirun -n N p2p_fuzz [--seed S] [--rounds R] [--verbose]
 *   (or P2P_FUZZ_SEED, P2P_FUZZ_ROUNDS; the seed is printed on every run)
 *
 * Each round, every rank draws the same schedule from (seed, round): the
 * messages (source, destination, communicator, tag, size, send mode) and, for
 * each destination, how it receives them.  The model is the schedule itself,
 * so each rank checks what it got on its own:
 *
 * - every message sent to it is received exactly once, with its bytes and
 *   nothing written past them;
 * - in MPI order: taking the receiving operations (receives and matched
 *   probes) in the order they were posted, each got the earliest message
 *   still pending from its source on its communicator that matches its
 *   (source, tag) -- non-overtaking per (source, tag, comm);
 * - statuses: MPI_SOURCE, MPI_TAG, MPI_Get_count, a probe's status equal to
 *   the receive's, cancelled decoys cancelled, and MPI_ERROR never written
 *   (no call here fails, so none may touch it, MPI-4.1 3.2.5).
 *
 * Receives use wildcards in families that cannot starve one another: per
 * (communicator, source) all MPI_ANY_TAG, or per (communicator, tag) all
 * MPI_ANY_SOURCE, or everything MPI_ANY_SOURCE + MPI_ANY_TAG; each family
 * has exactly as many receives as messages.  Sends are started before any
 * receive (blocking ones only eager MPI_Send and MPI_Bsend, which need no
 * receiver), so no blocking receive can wait on a rank that waits on it.
 */
#include "check.h"

#include <limits.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#define MAXMSG 8        /* messages a rank sends per round */
#define SENTINEL 0xEE
#define ERR_MARK 0x7ee7

static uint64_t seed;
static long round_no;
static int rank, size, eager;
/* Largest buffered send (P2P_FUZZ_BSEND_MAX; default: no limit but the
 * attached buffer).  A rendezvous bsend needs its sender's progress while
 * the sender waits in the round's closing MPI_Barrier (docs/testing-fuzz.md:
 * it hung there before 2026-11-29, when the limit was the eager size). */
static int bsend_max;
static unsigned how_mask = ~0u;      /* P2P_FUZZ_HOWS: receive methods drawn (bit per case of receive_all) */
static unsigned mode_mask = ~0u;     /* P2P_FUZZ_MODES: send modes drawn (bit per enum smode) */

#define FAIL(...)                                                                               \
    do {                                                                                        \
        fprintf(stderr, "p2p_fuzz: rank %d: seed %llu round %ld: ", rank, (unsigned long long)seed, \
                round_no);                                                                      \
        fprintf(stderr, __VA_ARGS__);                                                           \
        fprintf(stderr, "\np2p_fuzz FAILED: rerun: mpirun -n %d p2p_fuzz --seed %llu --rounds %ld\n", size, \
                (unsigned long long)seed, round_no + 1);                                        \
        check_fail_end();                                                                       \
    } while (0)
#define EXPECT(cond, ...)       \
    do {                        \
        if (!(cond))            \
            FAIL(__VA_ARGS__);  \
    } while (0)

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static uint64_t rng;
static unsigned pick(unsigned n)        /* 0..n-1 from the shared stream */
{
    rng = mix(rng);
    return n ? (unsigned)(rng % n) : 0;
}

static uint64_t lrng;                   /* this rank's own choices */
static unsigned lpick(unsigned n)
{
    lrng = mix(lrng);
    return n ? (unsigned)(lrng % n) : 0;
}

enum smode { S_ISEND, S_ISSEND, S_SEND, S_BSEND, S_IBSEND, S_PERSIST, S_NMODES };
static const char *smode_name[] = {"Isend", "Issend", "Send", "Bsend", "Ibsend", "Send_init"};

struct msg {
    int src, dst, comm, tag, len, mode;
    int consumed;
};

static struct msg msgs[64 * MAXMSG];
static int nmsgs;
static MPI_Comm comms[2];

static unsigned char pattern(int id, int i)
{
    return (unsigned char)(mix(seed ^ ((uint64_t)round_no << 20) ^ (uint64_t)id) >> (8 * (i % 7))) ^ (unsigned char)i;
}

static int draw_len(void)
{
    switch (pick(20)) {
    case 0: case 1: return 0;
    case 2: case 3: case 4: case 5: case 6: case 7: return 1 + (int)pick(64);
    case 8: case 9: case 10: return eager - 1 + (int)pick(3);       /* eager/rendezvous boundary */
    case 11: case 12: case 13: case 14: return 65 + (int)pick(4000);
    case 15: case 16: case 17: return eager + 2 + (int)pick(50000);
    case 18: return 100000 + (int)pick(300000);
    default: return (int)pick(eager);
    }
}

/* The round's schedule: every rank draws the same. */
static void draw_schedule(void)
{
    rng = mix(seed * 1000003 + (uint64_t)round_no);
    nmsgs = 0;
    for (int s = 0; s < size; s++) {
        int bbytes = 0, n = (int)pick(MAXMSG + 1);
        for (int k = 0; k < n; k++) {
            struct msg *m = &msgs[nmsgs++];
            m->src = s;
            m->dst = (int)pick((unsigned)size);
            m->comm = (int)pick(2);
            m->tag = (int)pick(4);
            m->len = draw_len();
            m->mode = (int)pick(S_NMODES);
            if (!(mode_mask >> m->mode & 1))
                m->mode = S_ISEND;
            if (m->mode == S_SEND && m->len > eager)
                m->mode = S_ISEND;
            if ((m->mode == S_BSEND || m->mode == S_IBSEND) && m->len > bsend_max)
                m->mode = S_ISEND;
            if (m->mode == S_BSEND || m->mode == S_IBSEND) {
                if (bbytes + m->len + MPI_BSEND_OVERHEAD > (1 << 21))
                    m->mode = S_ISSEND;
                else
                    bbytes += m->len + MPI_BSEND_OVERHEAD;
            }
            m->consumed = 0;
        }
    }
}

/* Receiving operations of this rank, in posting order. */
struct op {
    int comm, csrc, ctag;       /* criteria */
    int maxlen;
    unsigned char *buf;
    MPI_Status st;
    int done, cancelled, decoy;
    int probe_src, probe_tag, probe_count;  /* -1: no probe before */
    const char *how;
};
static struct op ops[64 * MAXMSG * 2];
static int nops;

/* Pending requests: op index, or -1 for a send (-2 persistent: free after). */
struct pend { MPI_Request req; int op; };
static struct pend pend[64 * MAXMSG * 3];
static int npend;

static int new_op(int comm, int csrc, int ctag, int maxlen, const char *how)
{
    struct op *o = &ops[nops];
    memset(o, 0, sizeof *o);
    o->comm = comm;
    o->csrc = csrc;
    o->ctag = ctag;
    o->maxlen = maxlen;
    o->buf = malloc((size_t)maxlen + 16);
    memset(o->buf, SENTINEL, (size_t)maxlen + 16);
    o->st.MPI_ERROR = ERR_MARK;
    o->probe_src = o->probe_tag = o->probe_count = -1;
    o->how = how;
    return nops++;
}

static void fresh(MPI_Status *st)
{
    memset(st, 0, sizeof *st);
    st->MPI_ERROR = ERR_MARK;
}

static void got(int op, const MPI_Status *st, const char *call)
{
    EXPECT(st->MPI_ERROR == ERR_MARK, "%s wrote MPI_ERROR %d (op %d, %s)", call, st->MPI_ERROR, op, ops[op].how);
    if (op < 0)
        return;
    ops[op].st = *st;
    ops[op].done = 1;
}

/* Complete a random subset of the pending requests with a random call:
 * all of them, or (before this rank's receives are all posted) some of its
 * receives -- a send may wait for a receive its peer has not posted yet,
 * while that peer waits for one of this rank's sends. */
static void complete_some(int all)
{
    MPI_Request arr[3 * 64 * MAXMSG + 8];
    int idx[3 * 64 * MAXMSG + 8], n = 0, k = 0;
    struct pend chosen[3 * 64 * MAXMSG];
    int keep = 0;
    for (int i = 0; i < npend; i++) {
        if (all || (pend[i].op >= 0 && lpick(2)))
            chosen[k++] = pend[i];
        else
            pend[keep++] = pend[i];
    }
    npend = keep;
    if (!k)
        return;
    for (int i = 0; i < k; i++) {
        if (!lpick(6))
            idx[n] = -1, arr[n++] = MPI_REQUEST_NULL;   /* NULL entries are allowed */
        idx[n] = i;
        arr[n++] = chosen[i].req;
    }
    MPI_Status sts[3 * 64 * MAXMSG + 8];
    for (int i = 0; i < n; i++)
        fresh(&sts[i]);
    int how = (int)lpick(7), flag = 0, done = 0;
    int outi[3 * 64 * MAXMSG + 8], out = 0, index = 0;
    static const char *names[] = {"MPI_Wait", "MPI_Test", "MPI_Waitall", "MPI_Testall", "MPI_Waitany", "MPI_Waitsome",
                                  "MPI_Testsome"};
    switch (how) {
    case 0: case 1:     /* one at a time */
        for (int i = 0; i < n; i++) {
            if (how == 0)
                CHECK_MPI(MPI_Wait(&arr[i], &sts[i]));
            else
                do
                    CHECK_MPI(MPI_Test(&arr[i], &flag, &sts[i]));
                while (!flag);
            if (idx[i] >= 0)
                got(chosen[idx[i]].op, &sts[i], names[how]);
        }
        break;
    case 2: case 3:
        if (how == 2)
            CHECK_MPI(MPI_Waitall(n, arr, sts));
        else
            do
                CHECK_MPI(MPI_Testall(n, arr, &flag, sts));
            while (!flag);
        for (int i = 0; i < n; i++)
            if (idx[i] >= 0)
                got(chosen[idx[i]].op, &sts[i], names[how]);
        break;
    case 4:
        while (done < k) {
            MPI_Status st;
            fresh(&st);
            if (lpick(2))
                CHECK_MPI(MPI_Waitany(n, arr, &index, &st));
            else
                do
                    CHECK_MPI(MPI_Testany(n, arr, &index, &flag, &st));
                while (!flag);
            EXPECT(index >= 0 && index < n && idx[index] >= 0, "Wait/Testany index %d of %d", index, n);
            got(chosen[idx[index]].op, &st, "MPI_Wait/Testany");
            done++;
        }
        break;
    default:
        while (done < k) {
            if (how == 5)
                CHECK_MPI(MPI_Waitsome(n, arr, &out, outi, sts));
            else
                CHECK_MPI(MPI_Testsome(n, arr, &out, outi, sts));
            EXPECT(out != MPI_UNDEFINED, "%s: MPI_UNDEFINED with %d pending", names[how], k - done);
            for (int j = 0; j < out; j++) {
                EXPECT(idx[outi[j]] >= 0, "%s gave index %d (a NULL entry)", names[how], outi[j]);
                got(chosen[idx[outi[j]]].op, &sts[j], names[how]);
                fresh(&sts[j]);
            }
            done += out;
        }
        break;
    }
    for (int i = 0; i < n; i++)
        EXPECT(arr[i] == MPI_REQUEST_NULL || chosen[idx[i]].op == -2, "%s left entry %d not NULL", names[how], i);
    for (int i = 0; i < k; i++)
        if (chosen[i].op == -2)
            CHECK_MPI(MPI_Request_free(&chosen[i].req));
}

/* Send buffers live until the round's end (a Bsend copies, the others may not). */
static unsigned char *sendbufs[MAXMSG];
static int nsendbufs;

static void start_sends(void)
{
    for (int i = 0; i < nmsgs; i++) {
        struct msg *m = &msgs[i];
        if (m->src != rank)
            continue;
        unsigned char *b = malloc((size_t)m->len + 1);
        for (int j = 0; j < m->len; j++)
            b[j] = pattern(i, j);
        MPI_Comm c = comms[m->comm];
        MPI_Request r = MPI_REQUEST_NULL;
        int op = -1;
        switch (m->mode) {
        case S_ISEND: CHECK_MPI(MPI_Isend(b, m->len, MPI_BYTE, m->dst, m->tag, c, &r)); break;
        case S_ISSEND: CHECK_MPI(MPI_Issend(b, m->len, MPI_BYTE, m->dst, m->tag, c, &r)); break;
        case S_SEND: CHECK_MPI(MPI_Send(b, m->len, MPI_BYTE, m->dst, m->tag, c)); break;
        case S_BSEND: CHECK_MPI(MPI_Bsend(b, m->len, MPI_BYTE, m->dst, m->tag, c)); break;
        case S_IBSEND: CHECK_MPI(MPI_Ibsend(b, m->len, MPI_BYTE, m->dst, m->tag, c, &r)); break;
        default:
            CHECK_MPI(MPI_Send_init(b, m->len, MPI_BYTE, m->dst, m->tag, c, &r));
            CHECK_MPI(MPI_Start(&r));
            op = -2;
            break;
        }
        if (r != MPI_REQUEST_NULL)
            pend[npend++] = (struct pend){r, op};
        sendbufs[nsendbufs++] = b;
    }
}

/* Receives: one slot per incoming message, criteria per wildcard family. */
struct slot { int comm, src, tag; };

static int key_coin(uint64_t base, int a, int b)
{
    return (int)(mix(base ^ ((uint64_t)a << 32) ^ (uint64_t)b) & 1);
}

static int matching_probe(int how, const struct slot *sl, MPI_Status *st, MPI_Message *msg)
{
    int flag = 0;
    MPI_Comm c = comms[sl->comm];
    switch (how) {
    case 0: CHECK_MPI(MPI_Probe(sl->src, sl->tag, c, st)); return 1;
    case 1: while (!flag) CHECK_MPI(MPI_Iprobe(sl->src, sl->tag, c, &flag, st)); return 1;
    case 2: CHECK_MPI(MPI_Mprobe(sl->src, sl->tag, c, msg, st)); return 1;
    default: while (!flag) CHECK_MPI(MPI_Improbe(sl->src, sl->tag, c, &flag, msg, st)); return 1;
    }
}

static void note_probe(int op, const MPI_Status *st, const char *call)
{
    EXPECT(st->MPI_ERROR == ERR_MARK, "%s wrote MPI_ERROR %d", call, st->MPI_ERROR);
    ops[op].probe_src = st->MPI_SOURCE;
    ops[op].probe_tag = st->MPI_TAG;
    CHECK_MPI(MPI_Get_count(st, MPI_BYTE, &ops[op].probe_count));
}

static void decoy(int comm)
{
    int op = new_op(comm, MPI_ANY_SOURCE, 1000, 4, "decoy Irecv + Cancel");
    MPI_Request r;
    MPI_Status st;
    fresh(&st);
    CHECK_MPI(MPI_Irecv(ops[op].buf, 4, MPI_BYTE, MPI_ANY_SOURCE, 1000, comms[comm], &r));
    CHECK_MPI(MPI_Cancel(&r));
    CHECK_MPI(MPI_Wait(&r, &st));
    int c = 0;
    CHECK_MPI(MPI_Test_cancelled(&st, &c));
    EXPECT(c, "a receive no message matches was not cancelled");
    EXPECT(st.MPI_ERROR == ERR_MARK, "Wait of a cancelled receive wrote MPI_ERROR %d", st.MPI_ERROR);
    ops[op].decoy = ops[op].cancelled = 1;
}

static void receive_all(void)
{
    lrng = mix(seed ^ mix((uint64_t)round_no * 7919 + (uint64_t)rank + 1));
    struct slot slots[64 * MAXMSG];
    int n = 0, maxlen = 0;
    int family = (int)lpick(4);
    uint64_t base = mix(lrng);
    for (int i = 0; i < nmsgs; i++) {
        struct msg *m = &msgs[i];
        if (m->dst != rank)
            continue;
        struct slot sl = {m->comm, m->src, m->tag};
        if ((family == 1 && key_coin(base, m->comm, m->src)) || family == 3)
            sl.tag = MPI_ANY_TAG;
        if ((family == 2 && key_coin(base, m->comm, 100 + m->tag)) || family == 3)
            sl.src = MPI_ANY_SOURCE;
        slots[n++] = sl;
        if (m->len > maxlen)
            maxlen = m->len;
    }
    for (int i = n - 1; i > 0; i--) {   /* post in a random order */
        int j = (int)lpick((unsigned)i + 1);
        struct slot t = slots[i];
        slots[i] = slots[j];
        slots[j] = t;
    }
    for (int i = 0; i < n; i++) {
        struct slot *sl = &slots[i];
        MPI_Comm c = comms[sl->comm];
        MPI_Status st, pst;
        MPI_Message msg;
        MPI_Request r;
        fresh(&st);
        fresh(&pst);
        if (!lpick(8) && getenv("P2P_FUZZ_NODECOY") == NULL)
            decoy((int)lpick(2));
        int how = (int)lpick(9), op, flag = 0;
        if (!(how_mask >> how & 1))
            how = 1;
        switch (how) {
        case 0:
            op = new_op(sl->comm, sl->src, sl->tag, maxlen, "Recv");
            CHECK_MPI(MPI_Recv(ops[op].buf, maxlen, MPI_BYTE, sl->src, sl->tag, c, &st));
            got(op, &st, "MPI_Recv");
            break;
        case 1: case 2:
            op = new_op(sl->comm, sl->src, sl->tag, maxlen, "Irecv");
            CHECK_MPI(MPI_Irecv(ops[op].buf, maxlen, MPI_BYTE, sl->src, sl->tag, c, &r));
            pend[npend++] = (struct pend){r, op};
            break;
        case 3: case 4:         /* Probe or Iprobe, then a receive of what it found */
            op = new_op(sl->comm, sl->src, sl->tag, maxlen, how == 3 ? "Probe + Recv" : "Iprobe + Recv");
            matching_probe(how - 3, sl, &pst, NULL);
            note_probe(op, &pst, ops[op].how);
            CHECK_MPI(MPI_Recv(ops[op].buf, maxlen, MPI_BYTE, pst.MPI_SOURCE, pst.MPI_TAG, c, &st));
            got(op, &st, "MPI_Recv after a probe");
            break;
        case 5: case 6:         /* Mprobe or Improbe, then Mrecv or Imrecv */
            op = new_op(sl->comm, sl->src, sl->tag, maxlen, how == 5 ? "Mprobe + Mrecv/Imrecv" : "Improbe + Mrecv/Imrecv");
            matching_probe(how - 3, sl, &pst, &msg);
            note_probe(op, &pst, ops[op].how);
            if (lpick(2)) {
                CHECK_MPI(MPI_Mrecv(ops[op].buf, maxlen, MPI_BYTE, &msg, &st));
                got(op, &st, "MPI_Mrecv");
            } else {
                CHECK_MPI(MPI_Imrecv(ops[op].buf, maxlen, MPI_BYTE, &msg, &r));
                pend[npend++] = (struct pend){r, op};
            }
            EXPECT(msg == MPI_MESSAGE_NULL, "Mrecv/Imrecv left the message handle");
            break;
        default:                /* Irecv then Cancel: cancelled, or it received */
            op = new_op(sl->comm, sl->src, sl->tag, maxlen, "Irecv + Cancel (not cancelled)");
            CHECK_MPI(MPI_Irecv(ops[op].buf, maxlen, MPI_BYTE, sl->src, sl->tag, c, &r));
            CHECK_MPI(MPI_Cancel(&r));
            CHECK_MPI(MPI_Wait(&r, &st));
            got(op, &st, "MPI_Wait of a cancelled Irecv");
            CHECK_MPI(MPI_Test_cancelled(&st, &flag));
            if (flag) {
                ops[op].cancelled = 1;
                op = new_op(sl->comm, sl->src, sl->tag, maxlen, "Irecv after a cancelled one");
                CHECK_MPI(MPI_Irecv(ops[op].buf, maxlen, MPI_BYTE, sl->src, sl->tag, c, &r));
                pend[npend++] = (struct pend){r, op};
            }
            break;
        }
        if (!lpick(5))
            complete_some(0);
    }
    while (npend)
        complete_some(1);
}

/* The model: ops in posting order take the earliest pending matching message. */
static void check_round(void)
{
    for (int i = 0; i < nops; i++) {
        struct op *o = &ops[i];
        if (o->cancelled)
            continue;
        EXPECT(o->done, "op %d (%s) never completed", i, o->how);
        int src = o->st.MPI_SOURCE, tag = o->st.MPI_TAG, count = -1;
        CHECK_MPI(MPI_Get_count(&o->st, MPI_BYTE, &count));
        EXPECT(src >= 0 && src < size && (o->csrc == MPI_ANY_SOURCE || o->csrc == src),
               "op %d (%s, source %d tag %d comm %d): status source %d", i, o->how, o->csrc, o->ctag, o->comm, src);
        int id = -1;
        for (int j = 0; j < nmsgs && id < 0; j++) {
            struct msg *m = &msgs[j];
            if (m->dst == rank && m->src == src && m->comm == o->comm && !m->consumed &&
                (o->ctag == MPI_ANY_TAG || o->ctag == m->tag))
                id = j;
        }
        EXPECT(id >= 0, "op %d (%s, source %d tag %d comm %d) got a message from %d tag %d (%d bytes) that no send left",
               i, o->how, o->csrc, o->ctag, o->comm, src, tag, count);
        struct msg *m = &msgs[id];
        EXPECT(m->tag == tag && m->len == count,
               "op %d (%s, source %d tag %d comm %d): got tag %d, %d bytes; the earliest pending match is message %d "
               "(%s, tag %d, %d bytes): overtaken or wrong status", i, o->how, o->csrc, o->ctag, o->comm, tag, count,
               id, smode_name[m->mode], m->tag, m->len);
        if (o->probe_count >= 0)
            EXPECT(o->probe_src == src && o->probe_tag == tag && o->probe_count == count,
                   "op %d (%s): probe said source %d tag %d %d bytes, the receive got %d %d %d", i, o->how,
                   o->probe_src, o->probe_tag, o->probe_count, src, tag, count);
        for (int j = 0; j < m->len; j++)
            EXPECT(o->buf[j] == pattern(id, j), "op %d (%s): message %d from %d (%s, %d bytes): byte %d is 0x%02x, want 0x%02x",
                   i, o->how, id, src, smode_name[m->mode], m->len, j, o->buf[j], pattern(id, j));
        for (int j = m->len; j < o->maxlen + 16; j++)
            EXPECT(o->buf[j] == SENTINEL, "op %d (%s): message %d (%d bytes) wrote byte %d past its end", i, o->how,
                   id, m->len, j);
        m->consumed = 1;
    }
    for (int j = 0; j < nmsgs; j++)
        EXPECT(msgs[j].dst != rank || msgs[j].consumed, "message %d from %d (%s, tag %d, %d bytes) never received", j,
               msgs[j].src, smode_name[msgs[j].mode], msgs[j].tag, msgs[j].len);
}

static void describe(void)
{
    for (int j = 0; j < nmsgs; j++)
        printf("p2p_fuzz: round %ld: message %d: %d -> %d comm %d tag %d %d bytes %s\n", round_no, j, msgs[j].src,
               msgs[j].dst, msgs[j].comm, msgs[j].tag, msgs[j].len, smode_name[msgs[j].mode]);
}

int main(int argc, char **argv)
{
    long rounds = 400;
    int have_seed = 0, verbose = 0;
    CHECK_MPI(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (getenv("P2P_FUZZ_SEED"))
        seed = strtoull(getenv("P2P_FUZZ_SEED"), NULL, 10), have_seed = 1;
    if (getenv("P2P_FUZZ_MODES"))
        mode_mask = (unsigned)strtoul(getenv("P2P_FUZZ_MODES"), NULL, 0);
    if (getenv("P2P_FUZZ_HOWS"))
        how_mask = (unsigned)strtoul(getenv("P2P_FUZZ_HOWS"), NULL, 0);
    if (getenv("P2P_FUZZ_ROUNDS"))
        rounds = atol(getenv("P2P_FUZZ_ROUNDS"));
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10), have_seed = 1;
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
            rounds = atol(argv[++i]);
        else if (!strcmp(argv[i], "--verbose"))
            verbose = 1;
        else
            CHECK(0, "usage: p2p_fuzz [--seed S] [--rounds R] [--verbose]");
    }
    if (!have_seed)
        seed = mix((uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20)) % 1000000000000ULL;
    MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    eager = 16384;
    if (getenv("COREMPI_EAGER_MAX"))
        eager = atoi(getenv("COREMPI_EAGER_MAX"));
    bsend_max = getenv("P2P_FUZZ_BSEND_MAX") ? atoi(getenv("P2P_FUZZ_BSEND_MAX")) : INT_MAX;
    if (rank == 0)
        printf("p2p_fuzz: seed %llu, %d ranks, %ld rounds (rerun with --seed %llu)\n", (unsigned long long)seed, size,
               rounds, (unsigned long long)seed);
    comms[0] = MPI_COMM_WORLD;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]));
    int bsize = (1 << 21) + 64 * MAXMSG * MPI_BSEND_OVERHEAD;
    void *bbuf = malloc((size_t)bsize);
    CHECK_MPI(MPI_Buffer_attach(bbuf, bsize));
    double t0 = MPI_Wtime();
    for (round_no = 0; round_no < rounds; round_no++) {
        draw_schedule();
        if (verbose && rank == 0)
            describe();
        nops = npend = nsendbufs = 0;
        start_sends();
        receive_all();
        check_round();
        for (int i = 0; i < nops; i++)
            free(ops[i].buf);
        for (int i = 0; i < nsendbufs; i++)
            free(sendbufs[i]);
        /* No message of the next round may meet a wildcard receive of this one. */
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    }
    CHECK_MPI(MPI_Buffer_detach(&bbuf, &bsize));
    free(bbuf);
    CHECK_MPI(MPI_Comm_free(&comms[1]));
    if (rank == 0)
        printf("p2p_fuzz ok: seed %llu, %d ranks, %ld rounds, %.1f s\n", (unsigned long long)seed, size, rounds,
               MPI_Wtime() - t0);
    CHECK_MPI(MPI_Finalize());
    return 0;
}
