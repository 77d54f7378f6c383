/* mapper_bisect.c -- recursive bisection along the machine's levels
 * (mapper.h), TreeMatch's idea in a few lines of our own.
 *
 * The machine is a tree of slot groups (mapper.c's group[][]).  From the
 * top, the ranks of a group are split between its child groups, each
 * getting as many as it has room for, so that the traffic crossing the
 * split is least: children are halved into two sides, the ranks split in
 * two by greedy growth from the busiest rank, then improved by
 * Kernighan-Lin swaps; each side recurses.  Heavy pairs thus share the
 * lowest level that can hold them. */
#include "topo/mapper.h"

#include <stdlib.h>
#include <string.h>

struct bis {
    const struct cm_map_ctx *x;
    int s;
    int *cap;     /* per slot: ranks it takes */
    double *w;    /* n x n symmetric traffic weight */
    int *core;
    char *side;   /* scratch, per rank */
};

static int group_cap(const struct bis *B, int l, int g)
{
    int c = 0;
    for (int t = 0; t < B->s; t++)
        if (B->x->group[l * B->s + t] == g)
            c += B->cap[t];
    return c;
}

/* Split ranks[0..nr) so that the first na go to side 1 (side[] = 1),
 * cutting least weight. */
static void bipartition(struct bis *B, int *ranks, int nr, int na)
{
    int n = B->x->n;
    const double *w = B->w;
    for (int k = 0; k < nr; k++)
        B->side[ranks[k]] = 0;
    for (int added = 0; added < na; added++) { /* greedy growth */
        int pick = -1;
        double best = -1;
        for (int k = 0; k < nr; k++) {
            int i = ranks[k];
            if (B->side[i])
                continue;
            double g = 0;
            for (int m = 0; m < nr; m++)
                g += w[(size_t)i * n + ranks[m]] * (added == 0 ? 1 : B->side[ranks[m]]);
            if (g > best) {
                best = g;
                pick = i;
            }
        }
        B->side[pick] = 1;
    }
    /* Kernighan-Lin: the best single swap while it gains.  D[x] = weight to
     * the other side - weight to its own; swapping a and b gains
     * D[a] + D[b] - 2 w(a,b), and moves every D by the two weights. */
    double *D = malloc((size_t)nr * sizeof *D);
    for (int k = 0; D && k < nr; k++) {
        D[k] = 0;
        for (int m = 0; m < nr; m++)
            D[k] += w[(size_t)ranks[k] * n + ranks[m]] * (B->side[ranks[m]] != B->side[ranks[k]] ? 1 : -1);
    }
    for (int pass = 0; D && pass < nr; pass++) {
        int ka = -1, kb = -1;
        double best = 1e-9;
        for (int x = 0; x < nr; x++) {
            if (!B->side[ranks[x]])
                continue;
            for (int y = 0; y < nr; y++) {
                if (B->side[ranks[y]])
                    continue;
                double gain = D[x] + D[y] - 2 * w[(size_t)ranks[x] * n + ranks[y]];
                if (gain > best) {
                    best = gain;
                    ka = x;
                    kb = y;
                }
            }
        }
        if (ka < 0)
            break;
        int a = ranks[ka], b = ranks[kb];
        B->side[a] = 0;
        B->side[b] = 1;
        for (int m = 0; m < nr; m++) { /* a moved to side 0, b to side 1 */
            int r = ranks[m];
            double wa = w[(size_t)r * n + a], wb = w[(size_t)r * n + b];
            if (m == ka || m == kb)
                continue;
            D[m] += B->side[r] ? 2 * wa - 2 * wb : 2 * wb - 2 * wa;
        }
        D[ka] = D[kb] = 0;
        for (int m = 0; m < nr; m++) {
            D[ka] += w[(size_t)a * n + ranks[m]] * (B->side[ranks[m]] != B->side[a] ? 1 : -1);
            D[kb] += w[(size_t)b * n + ranks[m]] * (B->side[ranks[m]] != B->side[b] ? 1 : -1);
        }
    }
    free(D);
    /* Side 1 first, order kept within each side. */
    int *tmp = malloc((size_t)nr * sizeof *tmp), k = 0;
    if (!tmp)
        return; /* sides stay as the greedy/KL left them in ranks order: still a valid split below */
    for (int m = 0; m < nr; m++)
        if (B->side[ranks[m]])
            tmp[k++] = ranks[m];
    for (int m = 0; m < nr; m++)
        if (!B->side[ranks[m]])
            tmp[k++] = ranks[m];
    memcpy(ranks, tmp, (size_t)nr * sizeof *tmp);
    free(tmp);
}

static void split_group(struct bis *B, int *ranks, int nr, int l, int g);

/* ranks over the child groups kids[0..nk) of level l. */
static void split_kids(struct bis *B, int *ranks, int nr, int l, const int *kids, int nk)
{
    if (nk == 1) {
        split_group(B, ranks, nr, l, kids[0]);
        return;
    }
    int half = nk / 2, na = 0;
    for (int k = 0; k < half; k++)
        na += group_cap(B, l, kids[k]);
    bipartition(B, ranks, nr, na);
    split_kids(B, ranks, na, l, kids, half);
    split_kids(B, ranks + na, nr - na, l, kids + half, nk - half);
}

/* ranks (exactly as many as group g of level l has room for) inside g. */
static void split_group(struct bis *B, int *ranks, int nr, int l, int g)
{
    const int *grp = B->x->group;
    int s = B->s;
    if (nr == 0)
        return;
    int *kids = malloc((size_t)s * sizeof *kids);
    for (int sub = l - 1; kids && sub >= 0; sub--) {
        int nk = 0;
        for (int t = 0; t < s; t++)
            if (grp[l * s + t] == g && grp[sub * s + t] == t)
                kids[nk++] = t;
        if (nk >= 2) {
            split_kids(B, ranks, nr, sub, kids, nk);
            free(kids);
            return;
        }
    }
    free(kids);
    /* One slot (or no memory for more): everything here goes on g's slots in turn. */
    int t = g, left = B->cap[g];
    for (int k = 0; k < nr; k++) {
        while (left == 0 && t + 1 < s) {
            t++;
            left = grp[l * s + t] == g ? B->cap[t] : 0;
        }
        B->core[ranks[k]] = t;
        left--;
    }
}

int cm_map_bisect(const struct cm_map_ctx *x, int *core)
{
    int n = x->n, s = x->nslots, rc = 0;
    const struct cm_comm_pattern *p = x->p;
    struct bis B = {x, s, calloc((size_t)s, sizeof(int)), malloc((size_t)n * n * sizeof(double)), core,
                    calloc((size_t)n, 1)};
    int *ranks = malloc((size_t)n * sizeof *ranks);
    if (!B.cap || !B.w || !B.side || !ranks) {
        rc = -1;
        goto out;
    }
    for (int r = 0; r < n; r++) {
        B.cap[r % s]++; /* the named policies' wrap when ranks outnumber slots */
        ranks[r] = r;
    }
    /* Weight: the pair's cost across packages, the dearest crossing. */
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            size_t ij = (size_t)i * n + j, ji = (size_t)j * n + i;
            double m = p->msgs[ij] + p->msgs[ji], b = p->bytes[ij] + p->bytes[ji];
            B.w[ij] = i == j ? 0 : m * x->cm->lat_ns[CM_LVL_MACHINE] + b / x->cm->bw_gbs[CM_LVL_MACHINE];
        }
    split_group(&B, ranks, n, CM_LVL_COUNT - 1, 0);
out:
    free(B.cap);
    free(B.w);
    free(B.side);
    free(ranks);
    return rc;
}
