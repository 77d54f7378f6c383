/*
 * part_random.c -- randomized partitioned communication.
 *
 * Every iteration all ranks draw the same program from the seed: 1-4
 * concurrent pairs (sender and receiver at random, possibly the same rank;
 * tags from {0,1,2} so pairs collide; the world or a duplicate), each side
 * with its own partition count (1, a few, or many; often unequal) and its
 * own datatype over the same basic type (the element alone, 3 in a row, or 2
 * with a hole between), element counts that may be 0 or leave partition
 * boundaries inside the other side's elements; 1-3 rounds.  Each rank inits
 * its receives in a random order that keeps MPI's order among pairs with the
 * same (source, tag, comm), before or after its sends (some pairs follow a
 * "ghost" pair on the same tag and comm, inited and freed unstarted); starts its requests
 * in a random order; makes partitions ready in a random order through
 * Pready, Pready_range and Pready_list in two halves with Parrived polling
 * between; checks every receive partition when Parrived says it arrived,
 * and every element and hole after Waitall.
 *
 * The seed is printed on every run and in every failure; rerun with
 * COREMPI_TEST_SEED=N or -seed=N.  -iters=N sets the number of programs.
 */
#include "part_common.h"

#define MAXPAIRS 4

enum { BASE_INT, BASE_DOUBLE, BASE_CHAR, NBASE };
enum { SHAPE_ONE, SHAPE_ROW3, SHAPE_HOLE2, NSHAPE };
static const int shape_basics[NSHAPE] = {1, 3, 2};   /* basic elements per element */
static const int shape_span[NSHAPE] = {1, 3, 3};     /* extent in basic elements */

struct side {
    int parts, count, shape;
    MPI_Datatype dt;
};

struct pair {
    int from, to, tag, dup, base;
    int ghost;                   /* a pair on the same (tag, comm) inited and freed unstarted just before */
    long total;                  /* basic elements */
    struct side s, r;
    void *buf[2];                /* send, receive (this rank's) */
    MPI_Request req[2];
};

static int rank, size;
static MPI_Datatype types[NBASE][NSHAPE];
static const MPI_Datatype basics[NBASE] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
static const size_t basic_size[NBASE] = {sizeof(int), sizeof(double), 1};

static void make_types(void)
{
    for (int b = 0; b < NBASE; b++) {
        types[b][SHAPE_ONE] = basics[b];
        CHECK_MPI(MPI_Type_contiguous(3, basics[b], &types[b][SHAPE_ROW3]));
        CHECK_MPI(MPI_Type_vector(2, 1, 2, basics[b], &types[b][SHAPE_HOLE2]));
        for (int s = 1; s < NSHAPE; s++)
            CHECK_MPI(MPI_Type_commit(&types[b][s]));
    }
}

/* Where basic element k lives, in basic elements from the buffer's start. */
static long where(int shape, long k)
{
    long e = k / shape_basics[shape], w = k % shape_basics[shape];
    return e * shape_span[shape] + (shape == SHAPE_HOLE2 ? 2 * w : w);
}

static long value(const struct pair *p, int q, int round, long k)
{
    long v = (q * 7919L + round * 104729L + k * 31L + p->from * 13L) & 0x7fffffff;
    return p->base == BASE_CHAR ? v & 0xff : v;
}

static long get(const struct pair *p, const void *buf, long at)
{
    if (p->base == BASE_INT)
        return ((const int *)buf)[at];
    if (p->base == BASE_DOUBLE)
        return (long)((const double *)buf)[at];
    return ((const unsigned char *)buf)[at];
}

static void put(const struct pair *p, void *buf, long at, long v)
{
    if (p->base == BASE_INT)
        ((int *)buf)[at] = (int)v;
    else if (p->base == BASE_DOUBLE)
        ((double *)buf)[at] = (double)v;
    else
        ((unsigned char *)buf)[at] = (unsigned char)v;
}

static long span(const struct side *sd) { return (long)sd->parts * sd->count * shape_span[sd->shape]; }

static int draw_parts(unsigned long *s)
{
    int how = part_pick(s, 4);
    return how == 0 ? 1 : how == 3 ? 64 + part_pick(s, 2000) : 1 + part_pick(s, 24);
}

static long gcd(long a, long b) { return b ? gcd(b, a % b) : a; }

/* A pair both sides agree on: totals equal in basic elements. */
static void draw_pair(struct pair *p, unsigned long *s)
{
    p->from = part_pick(s, size);
    p->to = part_pick(s, size);
    p->tag = part_pick(s, 3);
    p->dup = part_pick(s, 4) == 0;
    p->ghost = part_pick(s, 6) == 0;
    p->base = part_pick(s, NBASE);
    for (;;) {
        p->s.parts = draw_parts(s);
        p->r.parts = draw_parts(s);
        p->s.shape = part_pick(s, NSHAPE);
        p->r.shape = part_pick(s, NSHAPE);
        long a = (long)p->s.parts * shape_basics[p->s.shape], b = (long)p->r.parts * shape_basics[p->r.shape];
        long l = a / gcd(a, b) * b;
        if (l > 300000)
            continue;
        long m = part_pick(s, 8) == 0 ? 0 : 1 + part_pick(s, (int)(300000 / l < 4 ? 300000 / l : 4));
        p->total = l * m;
        p->s.count = (int)(p->total / a);
        p->r.count = (int)(p->total / b);
        break;
    }
    p->s.dt = types[p->base][p->s.shape];
    p->r.dt = types[p->base][p->r.shape];
}

static void fill(struct pair *p, int q, int round)
{
    if (p->from == rank) {
        long n = span(&p->s);
        for (long at = 0; at < n; at++)
            put(p, p->buf[0], at, 0x5a);   /* holes: anything */
        for (long k = 0; k < p->total; k++)
            put(p, p->buf[0], where(p->s.shape, k), value(p, q, round, k));
    }
    if (p->to == rank) {
        long n = span(&p->r);
        for (long at = 0; at < n; at++)
            put(p, p->buf[1], at, 0x33);
    }
}

/* Receive partition j of pair q: every element right, every hole untouched. */
static void check_part(const struct pair *p, int q, int round, int j, const char *when)
{
    long per = (long)p->r.count * shape_basics[p->r.shape];
    for (long k = j * per; k < (j + 1) * per; k++) {
        long got = get(p, p->buf[1], where(p->r.shape, k)), want = value(p, q, round, k);
        PCHECK(got == want, "%s: pair %d (%d->%d tag %d, send %d x %d of shape %d, receive %d x %d of shape %d, base %d) "
               "round %d partition %d basic element %ld: %ld, expected %ld", when, q, p->from, p->to, p->tag,
               p->s.parts, p->s.count, p->s.shape, p->r.parts, p->r.count, p->r.shape, p->base, round, j, k, got, want);
        if (p->r.shape == SHAPE_HOLE2 && k % 2 == 0)
            PCHECK(get(p, p->buf[1], where(p->r.shape, k) + 1) == 0x33, "pair %d round %d: hole after basic element %ld written",
                   q, round, k);
    }
}

static void ready_half(struct pair *p, const int *order, int from, int to, unsigned long *s)
{
    if (to > from)
        part_ready_mixed(p->req[0], order + from, to - from, s);
}

/* The ghost of pair p: an init of the same side, peer, tag and comm (another
 * shape), freed without a start; the real pair must not inherit its match. */
static void free_unstarted(int send, const struct pair *p, MPI_Comm dup)
{
    static int scratch[4];
    MPI_Request g;
    MPI_Comm c = p->dup ? dup : MPI_COMM_WORLD;
    if (send)
        CHECK_MPI(MPI_Psend_init(scratch, 2, 2, MPI_INT, p->to, p->tag, c, MPI_INFO_NULL, &g));
    else
        CHECK_MPI(MPI_Precv_init(scratch, 1, 3, MPI_INT, p->from, p->tag, c, MPI_INFO_NULL, &g));
    CHECK_MPI(MPI_Request_free(&g));
}

static void one_program(int iter, unsigned long *s, unsigned long *mine, MPI_Comm dup)
{
    struct pair pairs[MAXPAIRS];
    int np = 1 + part_pick(s, MAXPAIRS), rounds = 1 + part_pick(s, 3);
    for (int q = 0; q < np; q++)
        draw_pair(&pairs[q], s);
    /* Receive init order: random, then each (source, tag, comm) group put back in its order. */
    int order[MAXPAIRS];
    part_shuffle(order, np, s);
    for (int a = 0; a < np; a++)
        for (int b = a + 1; b < np; b++) {
            struct pair *x = &pairs[order[a]], *y = &pairs[order[b]];
            if (x->from == y->from && x->to == y->to && x->tag == y->tag && x->dup == y->dup && order[a] > order[b]) {
                int t = order[a];
                order[a] = order[b];
                order[b] = t;
            }
        }
    int recv_first = part_pick(s, 2);
    for (int q = 0; q < np; q++) {
        struct pair *p = &pairs[q];
        p->req[0] = p->req[1] = MPI_REQUEST_NULL;
        p->buf[0] = p->from == rank ? malloc(basic_size[p->base] * (size_t)(span(&p->s) + 1)) : NULL;
        p->buf[1] = p->to == rank ? malloc(basic_size[p->base] * (size_t)(span(&p->r) + 1)) : NULL;
    }
    for (int phase = 0; phase < 2; phase++) {
        if (phase == recv_first) {
            for (int a = 0; a < np; a++) {
                struct pair *p = &pairs[order[a]];
                if (p->to == rank && p->ghost)
                    free_unstarted(0, p, dup);
                if (p->to == rank)
                    CHECK_MPI(MPI_Precv_init(p->buf[1], p->r.parts, p->r.count, p->r.dt, p->from, p->tag,
                                             p->dup ? dup : MPI_COMM_WORLD, MPI_INFO_NULL, &p->req[1]));
            }
        } else {
            for (int q = 0; q < np; q++) {
                struct pair *p = &pairs[q];
                if (p->from == rank && p->ghost)
                    free_unstarted(1, p, dup);
                if (p->from == rank)
                    CHECK_MPI(MPI_Psend_init(p->buf[0], p->s.parts, p->s.count, p->s.dt, p->to, p->tag,
                                             p->dup ? dup : MPI_COMM_WORLD, MPI_INFO_NULL, &p->req[0]));
            }
        }
    }
    for (int round = 0; round < rounds; round++) {
        MPI_Request all[2 * MAXPAIRS];
        int n = 0, start[2 * MAXPAIRS];
        for (int q = 0; q < np; q++) {
            fill(&pairs[q], q, round);
            all[2 * q] = pairs[q].req[0];
            all[2 * q + 1] = pairs[q].req[1];
        }
        part_shuffle(start, 2 * np, mine);
        for (int i = 0; i < 2 * np; i++)
            if (all[start[i]] != MPI_REQUEST_NULL) {
                CHECK_MPI(MPI_Start(&all[start[i]]));
                n++;
            }
        int *orders[MAXPAIRS] = {0}, *seen[MAXPAIRS] = {0};
        for (int q = 0; q < np; q++) {
            struct pair *p = &pairs[q];
            if (p->from == rank) {
                orders[q] = malloc(sizeof(int) * (size_t)p->s.parts);
                part_shuffle(orders[q], p->s.parts, mine);
                ready_half(p, orders[q], 0, p->s.parts / 2, mine);
            }
            if (p->to == rank)
                seen[q] = calloc((size_t)p->r.parts, sizeof(int));
        }
        for (int poll = 0; poll < 2; poll++) {
            int left = 0;
            do {
                left = 0;
                for (int q = 0; q < np; q++) {
                    struct pair *p = &pairs[q];
                    if (p->to != rank)
                        continue;
                    for (int t = 0; t < (poll ? p->r.parts : 3); t++) {
                        int j = poll ? t : part_pick(mine, p->r.parts), flag = 0;
                        if (seen[q][j])
                            continue;
                        CHECK_MPI(MPI_Parrived(p->req[1], j, &flag));
                        if (flag) {
                            seen[q][j] = 1;
                            check_part(p, q, round, j, "Parrived");
                        } else {
                            left++;
                        }
                    }
                }
            } while (poll && left);
            if (poll == 0)
                for (int q = 0; q < np; q++)
                    if (pairs[q].from == rank)
                        ready_half(&pairs[q], orders[q], pairs[q].s.parts / 2, pairs[q].s.parts, mine);
        }
        CHECK_MPI(MPI_Waitall(2 * np, all, MPI_STATUSES_IGNORE));
        for (int q = 0; q < np; q++) {
            if (pairs[q].to == rank)
                for (int j = 0; j < pairs[q].r.parts; j++)
                    check_part(&pairs[q], q, round, j, "Waitall");
            free(orders[q]);
            free(seen[q]);
        }
        (void)n;
        (void)iter;
    }
    for (int q = 0; q < np; q++) {
        for (int k = 0; k < 2; k++)
            if (pairs[q].req[k] != MPI_REQUEST_NULL)
                CHECK_MPI(MPI_Request_free(&pairs[q].req[k]));
        free(pairs[q].buf[0]);
        free(pairs[q].buf[1]);
    }
}

int main(int argc, char **argv)
{
    unsigned long seed = part_start(&argc, &argv, "part_random", &rank, &size);
    int iters = (int)part_arg(argc, argv, "iters", 40);
    unsigned long s = seed * 2 + 1, mine = (seed ^ (0x9e3779b97f4a7c15ul * (unsigned long)(rank + 1))) | 1;
    MPI_Comm dup;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    make_types();
    for (int it = 0; it < iters; it++)
        one_program(it, &s, &mine, dup);
    for (int b = 0; b < NBASE; b++)
        for (int sh = 1; sh < NSHAPE; sh++)
            CHECK_MPI(MPI_Type_free(&types[b][sh]));
    CHECK_MPI(MPI_Comm_free(&dup));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("part_random: %d programs passed (seed %lu)\n", iters, seed);
    CHECK_MPI(MPI_Finalize());
    return 0;
}
