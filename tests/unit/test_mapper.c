/* test_mapper.c -- the cost model and the placement search (src/topo/mapper.h,
 * issue 39): known optima, symmetric cases, no communication, the CSV's
 * errors, and random matrices on which auto must never be worse than the
 * best named policy (and, up to 8 ranks, equal to a brute-force optimum).
 * The random part prints its seed; MAPPER_SEED=S reruns it. */
#include "topo/mapper.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int failures;
#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            failures++;                                                                                                \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                                       \
            fprintf(stderr, __VA_ARGS__);                                                                              \
            fputc('\n', stderr);                                                                                       \
        }                                                                                                              \
    } while (0)

struct mach {
    struct cm_machine m;
    struct cm_cost_model cm;
};

static void load(struct mach *x, const char *spec)
{
    char err[256];
    if (cm_machine_load_caches(&x->m, spec, err, sizeof err) != 0 || cm_cost_model_build(&x->cm, &x->m) != 0) {
        fprintf(stderr, "cannot load %s: %s\n", spec, err);
        exit(1);
    }
}

static void unload(struct mach *x)
{
    cm_cost_model_free(&x->cm);
    cm_machine_free(&x->m);
}

/* The least cost over every permutation of the first n cores. */
static double brute_force(const struct cm_cost_model *cm, const struct cm_comm_pattern *p)
{
    int n = p->n, perm[12] = {0}, c[12] = {0};
    for (int i = 0; i < n; i++)
        perm[i] = i;
    double best = cm_map_cost(cm, p, perm);
    for (int i = 1; i < n;) { /* Heap's algorithm */
        if (c[i] < i) {
            int j = i % 2 ? c[i] : 0, t = perm[j];
            perm[j] = perm[i];
            perm[i] = t;
            double v = cm_map_cost(cm, p, perm);
            if (v < best)
                best = v;
            c[i]++;
            i = 1;
        } else {
            c[i++] = 0;
        }
    }
    return best;
}

static void flow(struct cm_comm_pattern *p, int a, int b, double bytes)
{
    p->bytes[(size_t)a * p->n + b] += bytes;
    p->msgs[(size_t)a * p->n + b] += 1;
}

static double near(double a, double b)
{
    return a - b < 1e-6 * (b > 1 ? b : 1) && b - a < 1e-6 * (b > 1 ? b : 1);
}

/* Levels of the synthetic machines, as the issue names them. */
static void test_levels(void)
{
    struct mach x;
    load(&x, "package:2 l3cache:2 core:8 pu:1");
    CHECK(cm_cost_level_of(&x.cm, 0, 1) == CM_LVL_L3, "same L3: %d", cm_cost_level_of(&x.cm, 0, 1));
    CHECK(cm_cost_level_of(&x.cm, 0, 8) == CM_LVL_NUMA, "same package, other L3: %d", cm_cost_level_of(&x.cm, 0, 8));
    CHECK(cm_cost_level_of(&x.cm, 0, 16) == CM_LVL_MACHINE, "other package: %d", cm_cost_level_of(&x.cm, 0, 16));
    CHECK(cm_cost_level_of(&x.cm, 3, 3) == CM_LVL_SMT, "same core");
    unload(&x);
    load(&x, "numa:4 core:16 pu:1");
    CHECK(cm_cost_level_of(&x.cm, 0, 15) == CM_LVL_NUMA, "same node: %d", cm_cost_level_of(&x.cm, 0, 15));
    CHECK(cm_cost_level_of(&x.cm, 0, 16) == CM_LVL_MACHINE, "other node: %d", cm_cost_level_of(&x.cm, 0, 16));
    unload(&x);
    load(&x, "package:1 numa:2 l2cache:2 core:2 pu:2");
    CHECK(cm_cost_level_of(&x.cm, 0, 1) == CM_LVL_L2, "shared L2: %d", cm_cost_level_of(&x.cm, 0, 1));
    CHECK(cm_cost_level_of(&x.cm, 0, 2) == CM_LVL_NUMA, "same node: %d", cm_cost_level_of(&x.cm, 0, 2));
    CHECK(cm_cost_level_of(&x.cm, 0, 4) == CM_LVL_PACKAGE, "package, other node: %d", cm_cost_level_of(&x.cm, 0, 4));
    unload(&x);
}

/* Pairs (0,4) (1,5) (2,6) (3,7) talk, on two packages of four cores: the
 * optimum keeps each pair in one package; identity splits every pair. */
static void test_known_optimum(void)
{
    struct mach x;
    struct cm_comm_pattern p;
    struct cm_map_info info;
    int core[8];
    load(&x, "package:2 core:4 pu:1");
    cm_pattern_alloc(&p, 8);
    for (int i = 0; i < 4; i++) {
        flow(&p, i, i + 4, 1 << 20);
        flow(&p, i + 4, i, 1 << 20);
    }
    cm_map_auto(&x.cm, &p, core, &info);
    for (int i = 0; i < 4; i++)
        CHECK(core[i] / 4 == core[i + 4] / 4, "pair %d-%d split: cores %d %d", i, i + 4, core[i], core[i + 4]);
    double expect = 8 * (x.cm.lat_ns[CM_LVL_NUMA] + (1 << 20) / x.cm.bw_gbs[CM_LVL_NUMA]);
    CHECK(near(info.cost, expect), "cost %.1f, expected %.1f", info.cost, expect);
    CHECK(info.cost < info.named_cost[0], "identity %.1f not beaten (%.1f)", info.named_cost[0], info.cost);
    CHECK(info.complete, "the search did not finish");
    CHECK(near(info.cost, brute_force(&x.cm, &p)), "not the brute-force optimum");
    cm_pattern_free(&p);
    unload(&x);
}

/* A pattern symmetric under the machine's symmetries: the symmetry cut
 * must find the brute-force optimum with far fewer nodes than 8!. */
static void test_symmetric(void)
{
    struct mach x;
    struct cm_comm_pattern p;
    struct cm_map_info info;
    int core[8];
    load(&x, "package:2 l3cache:2 core:2 pu:1");
    cm_pattern_alloc(&p, 8);
    for (int i = 0; i < 8; i++) /* a ring in the order 0 2 4 6 1 3 5 7 */
        flow(&p, (2 * i) % 8 + (2 * i) / 8, (2 * i + 2) % 8 + (2 * i + 2) / 8 % 2, 65536);
    struct cm_map_ctx c;
    cm_map_ctx_init(&c, &x.cm, &p);
    CHECK(c.nested, "the synthetic machine's levels do not nest");
    int e = cm_map_exhaustive(&c, 1e300, 100000000LL, core, &info);
    CHECK(e == 1 && info.complete, "exhaustive: %d", e);
    CHECK(near(cm_map_cost(&x.cm, &p, core), brute_force(&x.cm, &p)), "symmetry cut lost the optimum: %.1f vs %.1f",
          cm_map_cost(&x.cm, &p, core), brute_force(&x.cm, &p));
    CHECK(info.visited < 40320 / 4, "visited %lld nodes: the symmetries were not cut", info.visited);
    printf("symmetric 8-rank ring on 2x2x2: %lld nodes searched (8! = 40320 leaves)\n", info.visited);
    cm_map_ctx_free(&c);
    cm_pattern_free(&p);
    unload(&x);
}

static void test_no_communication(void)
{
    struct mach x;
    struct cm_comm_pattern p;
    struct cm_map_info info;
    int core[20];
    load(&x, "package:2 core:8 pu:1");
    for (int n = 1; n <= 20; n += 19) {
        cm_pattern_alloc(&p, n);
        CHECK(cm_map_auto(&x.cm, &p, core, &info) == 0, "failed");
        CHECK(info.cost == 0, "cost %.1f with no communication", info.cost);
        for (int r = 0; r < n; r++)
            CHECK(core[r] == r % (n < 16 ? n : 16), "n=%d: rank %d on core %d (expected identity)", n, r, core[r]);
        cm_pattern_free(&p);
    }
    unload(&x);
}

static int csv(const char *text, struct cm_comm_pattern *p, char *err, size_t len)
{
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    int rc = cm_pattern_read_csv(f, p, err, len);
    fclose(f);
    return rc;
}

static void test_csv(void)
{
    struct cm_comm_pattern p;
    char err[256] = "";
    CHECK(csv("src,dst,bytes\n0,1,100\n1,0,50,2\n0,1,100\n", &p, err, sizeof err) == 0, "%s", err);
    CHECK(p.n == 2 && p.bytes[1] == 200 && p.msgs[1] == 2 && p.msgs[2] == 2, "sums wrong");
    cm_pattern_free(&p);
    CHECK(csv("# ranks 8\n0,1,100\n", &p, err, sizeof err) == 0 && p.n == 8, "'# ranks 8' ignored");
    cm_pattern_free(&p);
    CHECK(csv("# ranks 2\n0,5,100\n", &p, err, sizeof err) != 0 && strstr(err, "rank 5 named"), "got '%s'", err);
    CHECK(csv("0,1,lots\n", &p, err, sizeof err) != 0 && strstr(err, "line 1"), "got '%s'", err);
    CHECK(csv("0,-1,5\n", &p, err, sizeof err) != 0, "negative rank accepted");
    CHECK(csv("", &p, err, sizeof err) != 0 && strstr(err, "no src,dst,bytes line"), "got '%s'", err);
}

static double frand(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 8) / (double)(1u << 24);
}

static void test_random(unsigned seed)
{
    static const char *const machines[] = {"package:2 core:8 pu:1", "package:2 l3cache:2 core:8 pu:1",
                                           "numa:4 core:16 pu:1", "package:2 core:4 pu:1"};
    unsigned s = seed;
    printf("random matrices: seed %u (MAPPER_SEED=%u reruns them)\n", seed, seed);
    for (int t = 0; t < 24; t++) {
        struct mach x;
        struct cm_comm_pattern p;
        struct cm_map_info info;
        const char *spec = machines[t % 4];
        int n = t % 4 == 3 ? 3 + t % 6 : 4 + (int)(frand(&s) * 40);
        int core[64];
        load(&x, spec);
        cm_pattern_alloc(&p, n);
        double density = frand(&s);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                if (i != j && frand(&s) < density)
                    flow(&p, i, j, frand(&s) < 0.5 ? 8 : frand(&s) * (1 << 22));
        cm_map_auto(&x.cm, &p, core, &info);
        double best = info.named_cost[info.best_named];
        CHECK(info.cost <= best * (1 + 1e-12), "seed %u case %d (%s, %d ranks): auto %.1f > %s %.1f", seed, t, spec, n,
              info.cost, cm_map_policy_name(cm_map_named[info.best_named]), best);
        CHECK(near(cm_map_cost(&x.cm, &p, core), info.cost), "case %d: reported cost is not the mapping's", t);
        int seen[64] = {0};
        for (int r = 0; r < n; r++)
            seen[core[r]]++;
        for (int c = 0; c < (n < x.cm.ncores ? n : x.cm.ncores); c++) /* a slot holds floor or ceil of n/S */
            CHECK(seen[c] == n / x.cm.ncores + 1 || (seen[c] == n / x.cm.ncores && seen[c] > 0),
                  "case %d (%d ranks, %s): core %d holds %d ranks", t, n, info.method, c, seen[c]);
        if (n <= 8 && n <= x.cm.ncores)
            CHECK(near(info.cost, brute_force(&x.cm, &p)), "seed %u case %d: %.1f is not the optimum %.1f", seed, t,
                  info.cost, brute_force(&x.cm, &p));
        cm_pattern_free(&p);
        unload(&x);
    }
}

int main(void)
{
    const char *env = getenv("MAPPER_SEED");
    unsigned seed = env ? (unsigned)strtoul(env, NULL, 10) : (unsigned)time(NULL);
    test_levels();
    test_known_optimum();
    test_symmetric();
    test_no_communication();
    test_csv();
    test_random(seed);
    if (failures)
        fprintf(stderr, "%d check(s) failed\n", failures);
    else
        printf("PASS\n");
    return failures != 0;
}
