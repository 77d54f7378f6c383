/* mapper.c -- the cost of a placement, the named policies as placements,
 * and the choice between them and the searches (mapper.h). */
#include "topo/mapper.h"

#include <stdlib.h>
#include <string.h>

const enum cm_map_policy cm_map_named[CM_MAP_NAMED] = {CM_MAP_IDENTITY, CM_MAP_RING, CM_MAP_EVENODD, CM_MAP_LEAP2,
                                                       CM_MAP_OVERLAP};

/* Both directions between ranks i and j on cores a and b. */
static inline double pair_cost(const struct cm_cost_model *cm, const struct cm_comm_pattern *p, int i, int j, int a,
                               int b)
{
    size_t ij = (size_t)i * p->n + j, ji = (size_t)j * p->n + i;
    double c = 0;
    if (p->msgs[ij] > 0 || p->bytes[ij] > 0)
        c += cm_cost_pair(cm, a, b, p->msgs[ij], p->bytes[ij]);
    if (p->msgs[ji] > 0 || p->bytes[ji] > 0)
        c += cm_cost_pair(cm, b, a, p->msgs[ji], p->bytes[ji]);
    return c;
}

double cm_map_cost(const struct cm_cost_model *cm, const struct cm_comm_pattern *p, const int *core)
{
    double c = 0;
    for (int i = 0; i < p->n; i++)
        for (int j = i + 1; j < p->n; j++)
            c += pair_cost(cm, p, i, j, core[i], core[j]);
    return c;
}

static int slot_count(int n, int ncores)
{
    return n < ncores ? n : ncores;
}

void cm_map_policy_cores(enum cm_map_policy policy, int n, int ncores, int *core)
{
    int s = slot_count(n, ncores);
    for (int r = 0; r < n; r++)
        core[r] = cm_map_slot(policy, r, s);
}

/* Who talks to whom, as lists: the swaps then cost the pattern's edges,
 * not n per rank. */
static int talks(const struct cm_comm_pattern *p, int i, int j)
{
    size_t ij = (size_t)i * p->n + j, ji = (size_t)j * p->n + i;
    return i != j && (p->msgs[ij] > 0 || p->bytes[ij] > 0 || p->msgs[ji] > 0 || p->bytes[ji] > 0);
}

static int build_partners(struct cm_map_ctx *x)
{
    int n = x->n;
    size_t edges = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            edges += (size_t)talks(x->p, i, j);
    x->adj = malloc((edges + 1) * sizeof *x->adj);
    if (!x->adj)
        return -1;
    size_t k = 0;
    for (int i = 0; i < n; i++) {
        x->adj_at[i] = (int)k;
        for (int j = 0; j < n; j++)
            if (talks(x->p, i, j))
                x->adj[k++] = j;
    }
    x->adj_at[n] = (int)k;
    return 0;
}

/* group[l][s]: the smallest slot t with level(s, t) <= l.  The hierarchy
 * is a tree when "level <= l" is an equivalence at every l; that is what
 * cutting symmetries assumes, so it is checked, not taken for granted. */
int cm_map_ctx_init(struct cm_map_ctx *x, const struct cm_cost_model *cm, const struct cm_comm_pattern *p)
{
    memset(x, 0, sizeof *x);
    x->cm = cm;
    x->p = p;
    x->n = p->n;
    x->nslots = slot_count(p->n, cm->ncores);
    int s = x->nslots;
    x->group = malloc((size_t)CM_LVL_COUNT * s * sizeof *x->group);
    x->adj_at = calloc((size_t)x->n + 1, sizeof *x->adj_at);
    if (!x->group || !x->adj_at || build_partners(x) != 0) {
        cm_map_ctx_free(x);
        return -1;
    }
    x->nested = cm->scale == NULL; /* distances make equal subtrees unequal */
    for (int l = 0; l < CM_LVL_COUNT; l++)
        for (int a = 0; a < s; a++) {
            int g = a;
            for (int b = 0; b < a; b++)
                if ((int)cm_cost_level_of(cm, a, b) <= l) {
                    g = b;
                    break;
                }
            x->group[l * s + a] = g;
            if (g != a && x->group[l * s + g] != g)
                x->nested = 0;
            for (int b = 0; b < s && x->nested; b++) /* same group <=> level <= l */
                if (((int)cm_cost_level_of(cm, a, b) <= l) != (x->group[l * s + b] == g) && b < a)
                    x->nested = 0;
        }
    return 0;
}

void cm_map_ctx_free(struct cm_map_ctx *x)
{
    free(x->group);
    free(x->adj_at);
    free(x->adj);
    memset(x, 0, sizeof *x);
}

/* Rank i's cost on core a against every rank but i and skip where they are. */
static double rank_cost(const struct cm_map_ctx *x, const int *core, int i, int a, int skip)
{
    double c = 0;
    for (int e = x->adj_at[i]; e < x->adj_at[i + 1]; e++) {
        int k = x->adj[e];
        if (k != skip)
            c += pair_cost(x->cm, x->p, i, k, a, core[k]);
    }
    return c;
}

double cm_map_swaps(const struct cm_map_ctx *x, int *core)
{
    int improved = 1, rounds = 0;
    while (improved && rounds++ < 50) {
        improved = 0;
        for (int i = 0; i < x->n; i++)
            for (int j = i + 1; j < x->n; j++) {
                int a = core[i], b = core[j];
                if (a == b)
                    continue;
                double before = rank_cost(x, core, i, a, j) + rank_cost(x, core, j, b, i) +
                                pair_cost(x->cm, x->p, i, j, a, b);
                double after = rank_cost(x, core, i, b, j) + rank_cost(x, core, j, a, i) +
                               pair_cost(x->cm, x->p, i, j, b, a);
                if (after < before * (1 - 1e-12) - 1e-9) {
                    core[i] = b;
                    core[j] = a;
                    improved = 1;
                }
            }
    }
    return cm_map_cost(x->cm, x->p, core);
}

static void keep_if_cheaper(double c, const int *cand, int n, double *best, int *core, const char **method,
                            const char *why)
{
    if (c < *best) {
        *best = c;
        memcpy(core, cand, (size_t)n * sizeof *core);
        *method = why;
    }
}

int cm_map_auto(const struct cm_cost_model *cm, const struct cm_comm_pattern *p, int *core, struct cm_map_info *info)
{
    static const char *const swapped[CM_MAP_NAMED] = {"identity + swaps", "ring + swaps", "evenodd + swaps",
                                                      "leap2 + swaps", "overlap + swaps"};
    struct cm_map_ctx x;
    int n = p->n, rc = 0;
    int *cand = malloc((size_t)n * sizeof *cand);
    memset(info, 0, sizeof *info);
    if (!cand || cm_map_ctx_init(&x, cm, p) != 0) {
        free(cand);
        return -1;
    }
    double best = -1;
    for (int k = 0; k < CM_MAP_NAMED; k++) {
        cm_map_policy_cores(cm_map_named[k], n, cm->ncores, cand);
        info->named_cost[k] = cm_map_cost(cm, p, cand);
        if (best < 0 || info->named_cost[k] < best) {
            best = info->named_cost[k];
            info->best_named = k;
            memcpy(core, cand, (size_t)n * sizeof *core);
            info->method = cm_map_policy_name(cm_map_named[k]);
        }
    }
    for (int k = 0; k < CM_MAP_NAMED && best > 0; k++) {
        cm_map_policy_cores(cm_map_named[k], n, cm->ncores, cand);
        keep_if_cheaper(cm_map_swaps(&x, cand), cand, n, &best, core, &info->method, swapped[k]);
    }
    if (best > 0 && cm_map_bisect(&x, cand) == 0) {
        double c = cm_map_cost(cm, p, cand);
        keep_if_cheaper(c, cand, n, &best, core, &info->method, "bisection");
        keep_if_cheaper(cm_map_swaps(&x, cand), cand, n, &best, core, &info->method, "bisection + swaps");
    }
    if (best > 0 && n <= CM_MAP_EXHAUSTIVE_MAX && n <= cm->ncores) {
        int e = cm_map_exhaustive(&x, best, 50000000LL, cand, info);
        if (e == 1) {
            best = cm_map_cost(cm, p, cand);
            memcpy(core, cand, (size_t)n * sizeof *core);
        }
        if (e == 1)
            info->method = info->complete ? "exhaustive" : "exhaustive (stopped early)";
        if (e == -1)
            rc = -1;
    }
    info->cost = best;
    cm_map_ctx_free(&x);
    free(cand);
    return rc;
}
