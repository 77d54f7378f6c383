/*
 * mapper.h -- which core each rank should have, given who talks to whom
 * (issue 39): the cost model's cost of a placement, and the search for a
 * cheap one.
 *
 * The ranks go on "slots": the first S = min(n, cores) usable cores, as the
 * named policies of placement.h place them (ranks beyond S wrap round, so a
 * slot may hold several).  Small cases (n <= CM_MAP_EXHAUSTIVE_MAX, one rank
 * per slot) are searched exhaustively, by branch and bound with the
 * machine's symmetries cut (cores in empty, equal subtrees are one choice);
 * larger ones by recursive bisection of the communication graph along the
 * machine's levels, then pairwise swaps.  Every named policy is evaluated
 * too, each improved by the same swaps, and the cheapest placement wins:
 * auto is never worse in the model than the best named policy.
 */
#ifndef CM_TOPO_MAPPER_H
#define CM_TOPO_MAPPER_H

#include <stdio.h>
#include "topo/costmodel.h"
#include "topo/placement.h"

#define CM_MAP_EXHAUSTIVE_MAX 10
#define CM_MAP_NAMED 5 /* identity, ring, evenodd, leap2, overlap */

/* A communication matrix: row = sender, column = receiver. */
struct cm_comm_pattern {
    int n;
    double *bytes; /* n x n */
    double *msgs;  /* n x n */
};

int cm_pattern_alloc(struct cm_comm_pattern *p, int n);
void cm_pattern_free(struct cm_comm_pattern *p);

/* Read "src,dst,bytes[,count]" lines (count defaults to 1 message per
 * line; lines add up).  '#' starts a comment; "# ranks N" gives the rank
 * count, which is otherwise the highest rank named plus one.  A first line
 * that is not numeric is a header.  0, or -1 with why in err ("line 3: ..."). */
int cm_pattern_read_csv(FILE *f, struct cm_comm_pattern *p, char *err, size_t errlen);

/* The named policies auto is compared with, and their names. */
extern const enum cm_map_policy cm_map_named[CM_MAP_NAMED];

/* The model's cost (ns) of placing rank r on core[r]. */
double cm_map_cost(const struct cm_cost_model *cm, const struct cm_comm_pattern *p, const int *core);

/* The named policy's placement on the first S cores (S = min(n, cores)). */
void cm_map_policy_cores(enum cm_map_policy policy, int n, int ncores, int *core);

struct cm_map_info {
    double cost;                        /* the chosen placement's */
    double named_cost[CM_MAP_NAMED];    /* each named policy, as is */
    int best_named;                     /* index into cm_map_named */
    const char *method;                 /* "exhaustive", "bisection", "<policy> + swaps", ... */
    long long visited;                  /* exhaustive: nodes of the search tree */
    int symmetric;                      /* exhaustive: the machine's symmetries were cut */
    int complete;                       /* exhaustive: the whole tree was searched (an optimum) */
};

/* Choose core[r] for each rank of p (p->n ranks) on cm's machine; 0, or -1
 * (out of memory). */
int cm_map_auto(const struct cm_cost_model *cm, const struct cm_comm_pattern *p, int *core,
                struct cm_map_info *info);

/* Internals shared by mapper*.c: the slots' nested groups per level. */
struct cm_map_ctx {
    const struct cm_cost_model *cm;
    const struct cm_comm_pattern *p;
    int n, nslots;
    int *group;      /* [level * nslots + s]: smallest slot at level <= level from s */
    int nested;      /* the groups form a tree (checked), so symmetries may be cut */
    int *adj_at;     /* n + 1: rank i's partners (traffic either way) are adj[adj_at[i] .. adj_at[i+1]) */
    int *adj;
};
int cm_map_ctx_init(struct cm_map_ctx *x, const struct cm_cost_model *cm, const struct cm_comm_pattern *p);
void cm_map_ctx_free(struct cm_map_ctx *x);
/* Exhaustive branch and bound below bound; 1 found better (core set), 0 not,
 * -1 out of memory.  info->complete: 0 when it stopped after max_nodes. */
int cm_map_exhaustive(const struct cm_map_ctx *x, double bound, long long max_nodes, int *core,
                      struct cm_map_info *info);
/* Recursive bisection; 0 or -1. */
int cm_map_bisect(const struct cm_map_ctx *x, int *core);
/* Pairwise swaps while one lowers the cost; returns the cost. */
double cm_map_swaps(const struct cm_map_ctx *x, int *core);

#endif
