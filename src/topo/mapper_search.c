/* mapper_search.c -- exhaustive branch and bound for small cases (mapper.h).
 *
 * Ranks are placed one at a time, most-communicating first (so the bound
 * bites early), each on every free slot that is not a mirror image of a
 * slot already tried: when the slot lies in a subtree of the machine that
 * is still empty, only the first slot of the first such subtree of its
 * shape under the same parent is tried -- every other is the same
 * placement up to a symmetry of the machine (seed 001's 8! -> 7!/2).  The
 * bound is the cost so far plus, for each pair not yet placed, its cost at
 * the cheapest level two distinct slots can have. */
#include "topo/mapper.h"

#include <stdlib.h>
#include <string.h>

struct search {
    const struct cm_map_ctx *x;
    int n, s;
    int *order;      /* ranks in placement order */
    int *core;       /* current partial placement, -1 = not yet */
    int *best;
    int *used;       /* per slot */
    int *gused;      /* [l * s + group]: used slots of the group */
    int *shape;      /* [l * s + group]: a signature of the group's subtree */
    double *minpair; /* n x n: cheapest cost of the pair on distinct slots */
    double best_cost;
    long long nodes, max_nodes;
    int found, gave_up;
};

static double pair_cost(const struct cm_map_ctx *x, int i, int j, int a, int b)
{
    const struct cm_comm_pattern *p = x->p;
    size_t ij = (size_t)i * p->n + j, ji = (size_t)j * p->n + i;
    return cm_cost_pair(x->cm, a, b, p->msgs[ij], p->bytes[ij]) + cm_cost_pair(x->cm, b, a, p->msgs[ji], p->bytes[ji]);
}

/* Subtree shape: for each level below, how many groups it holds. */
static void compute_shapes(struct search *S)
{
    const int *g = S->x->group;
    int s = S->s;
    for (int l = 0; l < CM_LVL_COUNT; l++)
        for (int a = 0; a < s; a++) {
            if (g[l * s + a] != a)
                continue;
            unsigned sig = 0;     /* a hash: wraps by design (unsigned, no overflow) */
            for (int k = 0; k <= l; k++) {
                unsigned count = 0;
                for (int t = 0; t < s; t++)
                    count += g[l * s + t] == a && g[k * s + t] == t;
                sig = sig * 131u + count;
            }
            S->shape[l * s + a] = (int)(sig & 0x7fffffffu);
        }
}

/* May slot t be tried next?  (the symmetry cut in the file comment)  From
 * the highest empty subtree holding t down to t itself, each subtree must
 * be the first empty one of its shape under its parent. */
static int canonical(const struct search *S, int t)
{
    if (!S->x->nested)
        return 1;
    const int *g = S->x->group;
    int s = S->s, L = -1;
    for (int l = 0; l < CM_LVL_COUNT; l++)
        if (S->gused[l * s + g[l * s + t]] == 0)
            L = l;
        else
            break;
    for (int l = L < CM_LVL_COUNT - 1 ? L : CM_LVL_COUNT - 2; l >= 0; l--) {
        int G = g[l * s + t], P = g[(l + 1) * s + t];
        for (int u = 0; u < G; u++)
            if (g[l * s + u] == u && g[(l + 1) * s + u] == P && S->gused[l * s + u] == 0 &&
                S->shape[l * s + u] == S->shape[l * s + G])
                return 0;
    }
    return 1;
}

static void mark(struct search *S, int t, int delta)
{
    S->used[t] += delta;
    for (int l = 0; l < CM_LVL_COUNT; l++)
        S->gused[l * S->s + S->x->group[l * S->s + t]] += delta;
}

static void dfs(struct search *S, int depth, double cost, double rest)
{
    if (S->gave_up)
        return;
    if (++S->nodes > S->max_nodes) {
        S->gave_up = 1;
        return;
    }
    if (depth == S->n) {
        if (cost < S->best_cost * (1 - 1e-12)) {
            S->best_cost = cost;
            memcpy(S->best, S->core, (size_t)S->n * sizeof *S->best);
            S->found = 1;
        }
        return;
    }
    int r = S->order[depth];
    double placed_min = 0;
    for (int d = 0; d < depth; d++)
        placed_min += S->minpair[(size_t)r * S->n + S->order[d]];
    for (int t = 0; t < S->s; t++) {
        if (S->used[t] || !canonical(S, t))
            continue;
        double c = cost;
        for (int d = 0; d < depth; d++) {
            int q = S->order[d];
            c += pair_cost(S->x, r, q, t, S->core[q]);
        }
        double lb = c + rest - placed_min;
        if (lb >= S->best_cost * (1 - 1e-12))
            continue;
        S->core[r] = t;
        mark(S, t, 1);
        dfs(S, depth + 1, c, rest - placed_min);
        mark(S, t, -1);
        S->core[r] = -1;
    }
}

/* Most traffic first, then the rank most tied to those placed. */
static int placement_order(struct search *S)
{
    int n = S->n;
    char *taken = calloc((size_t)n, 1);
    double *tie = calloc((size_t)n, sizeof *tie);
    if (!taken || !tie) {
        free(taken);
        free(tie);
        return -1;
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            tie[i] += S->minpair[(size_t)i * n + j];
    for (int d = 0; d < n; d++) {
        int pick = -1;
        for (int i = 0; i < n; i++)
            if (!taken[i] && (pick < 0 || tie[i] > tie[pick]))
                pick = i;
        S->order[d] = pick;
        taken[pick] = 1;
        if (d == 0)
            memset(tie, 0, (size_t)n * sizeof *tie);
        for (int i = 0; i < n; i++)
            tie[i] += S->minpair[(size_t)i * n + pick];
    }
    free(taken);
    free(tie);
    return 0;
}

int cm_map_exhaustive(const struct cm_map_ctx *x, double bound, long long max_nodes, int *core,
                      struct cm_map_info *info)
{
    struct search S;
    memset(&S, 0, sizeof S);
    S.x = x;
    S.n = x->n;
    S.s = x->nslots;
    S.best_cost = bound;
    S.max_nodes = max_nodes;
    int n = S.n, s = S.s, rc = 0;
    S.order = malloc((size_t)n * sizeof(int));
    S.core = malloc((size_t)n * sizeof(int));
    S.best = malloc((size_t)n * sizeof(int));
    S.used = calloc((size_t)s, sizeof(int));
    S.gused = calloc((size_t)CM_LVL_COUNT * s, sizeof(int));
    S.shape = calloc((size_t)CM_LVL_COUNT * s, sizeof(int));
    S.minpair = calloc((size_t)n * n, sizeof(double));
    if (!S.order || !S.core || !S.best || !S.used || !S.gused || !S.shape || !S.minpair) {
        rc = -1;
        goto out;
    }
    /* The cheapest ordered pair of distinct slots bounds every pair. */
    double rest = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            double m = -1;
            for (int a = 0; a < s; a++)
                for (int b = 0; b < s; b++)
                    if (a != b) {
                        double c = pair_cost(x, i, j, a, b);
                        if (m < 0 || c < m)
                            m = c;
                    }
            S.minpair[(size_t)i * n + j] = S.minpair[(size_t)j * n + i] = m < 0 ? 0 : m;
            rest += m < 0 ? 0 : m;
        }
    for (int i = 0; i < n; i++)
        S.core[i] = -1;
    compute_shapes(&S);
    if (placement_order(&S) != 0) {
        rc = -1;
        goto out;
    }
    dfs(&S, 0, 0, rest);
    info->visited = S.nodes;
    info->symmetric = x->nested;
    info->complete = !S.gave_up;
    if (S.found) {
        memcpy(core, S.best, (size_t)n * sizeof *core);
        rc = 1;
    }
out:
    free(S.order);
    free(S.core);
    free(S.best);
    free(S.used);
    free(S.gused);
    free(S.shape);
    free(S.minpair);
    return rc;
}
