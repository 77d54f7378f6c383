/* Irregular sparse exchange: the communication of an unstructured or
 * algebraic-multigrid code, where each rank talks to its own set of
 * neighbours with messages of its own sizes.
 *
 * The graph is fixed by the seed (-s) and the same on every rank: between
 * each pair of ranks a and b there are m(a,b) = m(b,a) links (so it is
 * symmetric), chosen so that every rank has 6 to 26 links in all; a link k
 * carries one message each way, of 2 to 512 ints, under tag k.  With 8 ranks
 * or fewer a rank has at most 7 peers, so links to the same peer repeat with
 * other tags and sizes: the count of messages is what an application with
 * 6-26 neighbours posts.  One exchange: every Irecv, every Isend, then
 * completion by one of
 *   waitall   MPI_Waitall over all of them, then check every message;
 *   waitany   MPI_Waitany until all are done, checking each as it lands;
 *   waitsome  MPI_Waitsome likewise.
 * Prints  sparse ranks=N completion=C seed=S us_per_exchange=X
 * Every int of every message is stamp(exchange, sender, receiver, link) + i,
 * checked on arrival.  Needs 2 to 27 ranks (beyond, 6-26 links per rank with
 * at least one to every peer is impossible). */
#include "pattern_bench.h"

enum { MIN_LINKS = 6, MAX_LINKS = 26, MIN_INTS = 2, MAX_INTS = 512 };
enum completion { WAITALL, WAITANY, WAITSOME, COMPLETIONS };
static const char *const completion_names[COMPLETIONS] = {"waitall", "waitany", "waitsome"};

struct link {
    int peer, tag, ints;
    int *buf;
};

struct sparse {
    enum completion how;
    unsigned long seed;
    int nlinks; /* this rank's links: recv k is slot k, its send is slot nlinks + k */
    struct link *recv, *send;
    MPI_Request *req;
    int *done_idx;
};

static int links_between(unsigned long seed, int a, int b)
{
    int lo = (MIN_LINKS + pat_size - 2) / (pat_size - 1), hi = MAX_LINKS / (pat_size - 1);
    if (hi < lo)
        hi = lo;
    int x = a < b ? a : b, y = a < b ? b : a;
    return lo + (int)(pat_mix(seed ^ pat_mix((uint64_t)x << 32 | (uint64_t)y)) % (uint64_t)(hi - lo + 1));
}

static int message_ints(unsigned long seed, int from, int to, int tag)
{
    uint64_t h = pat_mix(seed + 0x51ed) ^ pat_mix(((uint64_t)from << 40) ^ ((uint64_t)to << 20) ^ (uint64_t)tag);
    return MIN_INTS + (int)(pat_mix(h) % (MAX_INTS - MIN_INTS + 1));
}

static void check_message(const struct link *l, long round)
{
    int s = pat_stamp((uint64_t)round, (uint64_t)l->peer, (uint64_t)pat_rank, (uint64_t)l->tag);
    for (int i = 0; i < l->ints; i++)
        if (l->buf[i] != s + i)
            pat_expect(l->buf[i], s + i, "sparse: a word of a neighbour's message");
}

static void sparse_exchange(void *ctx, long round)
{
    struct sparse *sp = ctx;
    const int n = sp->nlinks, total = 2 * n;
    for (int k = 0; k < n; k++) {
        struct link *l = &sp->recv[k];
        MPI_Irecv(l->buf, l->ints, MPI_INT, l->peer, l->tag, MPI_COMM_WORLD, &sp->req[k]);
    }
    for (int k = 0; k < n; k++) {
        struct link *l = &sp->send[k];
        int s = pat_stamp((uint64_t)round, (uint64_t)pat_rank, (uint64_t)l->peer, (uint64_t)l->tag);
        for (int i = 0; i < l->ints; i++)
            l->buf[i] = s + i;
        MPI_Isend(l->buf, l->ints, MPI_INT, l->peer, l->tag, MPI_COMM_WORLD, &sp->req[n + k]);
    }
    int left = total, idx, outcount;
    switch (sp->how) {
    case WAITALL:
        MPI_Waitall(total, sp->req, MPI_STATUSES_IGNORE);
        for (int k = 0; k < n; k++)
            check_message(&sp->recv[k], round);
        break;
    case WAITANY:
        while (left--) {
            MPI_Waitany(total, sp->req, &idx, MPI_STATUS_IGNORE);
            if (idx == MPI_UNDEFINED)
                pat_expect(idx, 0, "sparse: MPI_Waitany found no active request");
            if (idx < n)
                check_message(&sp->recv[idx], round);
        }
        break;
    default:
        while (left > 0) {
            MPI_Waitsome(total, sp->req, &outcount, sp->done_idx, MPI_STATUSES_IGNORE);
            if (outcount == MPI_UNDEFINED || outcount < 1)
                pat_expect(outcount, 1, "sparse: MPI_Waitsome completed nothing");
            for (int j = 0; j < outcount; j++)
                if (sp->done_idx[j] < n)
                    check_message(&sp->recv[sp->done_idx[j]], round);
            left -= outcount;
        }
        break;
    }
}

static void build_links(struct sparse *sp)
{
    sp->nlinks = 0;
    for (int p = 0; p < pat_size; p++)
        if (p != pat_rank)
            sp->nlinks += links_between(sp->seed, pat_rank, p);
    sp->recv = calloc((size_t)sp->nlinks, sizeof *sp->recv);
    sp->send = calloc((size_t)sp->nlinks, sizeof *sp->send);
    sp->req = calloc((size_t)sp->nlinks * 2, sizeof *sp->req);
    sp->done_idx = calloc((size_t)sp->nlinks * 2, sizeof *sp->done_idx);
    if (!sp->recv || !sp->send || !sp->req || !sp->done_idx)
        MPI_Abort(MPI_COMM_WORLD, 2);
    int k = 0;
    for (int p = 0; p < pat_size; p++) {
        if (p == pat_rank)
            continue;
        for (int t = 0, m = links_between(sp->seed, pat_rank, p); t < m; t++, k++) {
            sp->recv[k] = (struct link){p, t, message_ints(sp->seed, p, pat_rank, t), NULL};
            sp->send[k] = (struct link){p, t, message_ints(sp->seed, pat_rank, p, t), NULL};
            sp->recv[k].buf = calloc((size_t)sp->recv[k].ints, sizeof(int));
            sp->send[k].buf = calloc((size_t)sp->send[k].ints, sizeof(int));
            if (!sp->recv[k].buf || !sp->send[k].buf)
                MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
}

int main(int argc, char **argv)
{
    struct pat_opts o = pat_init(&argc, &argv, "sparse");
    if (pat_size < 2 || pat_size > MAX_LINKS + 1) {
        if (pat_rank == 0)
            fprintf(stderr, "sparse: needs 2 to %d ranks, got %d\n", MAX_LINKS + 1, pat_size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    struct sparse sp = {.seed = o.seed};
    build_links(&sp);
    int range[2] = {-sp.nlinks, sp.nlinks}, all[2];
    MPI_Allreduce(range, all, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (pat_rank == 0)
        printf("# sparse seed %lu: %d to %d links (messages each way) per rank\n", sp.seed, -all[0], all[1]);
    for (int c = 0; c < COMPLETIONS; c++) {
        if (!pat_wanted(&o, completion_names[c]))
            continue;
        sp.how = (enum completion)c;
        double t = pat_measure(sparse_exchange, &sp, &o);
        if (pat_rank == 0) {
            printf("sparse ranks=%d completion=%s seed=%lu us_per_exchange=%.3f\n", pat_size, completion_names[c],
                   sp.seed, t * 1e6);
            fflush(stdout);
        }
    }
    for (int k = 0; k < sp.nlinks; k++) {
        free(sp.recv[k].buf);
        free(sp.send[k].buf);
    }
    free(sp.recv);
    free(sp.send);
    free(sp.req);
    free(sp.done_idx);
    MPI_Finalize();
    return 0;
}
