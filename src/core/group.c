/*
 * group.c -- MPI groups and their set operations.
 *
 * A group is an ordered list of world ranks.  Membership questions go through
 * a world-sized scratch map, so every operation is linear in the sizes.
 */
#include "core/group.h"
#include "core/handle.h"
#include "core/comm.h"
#include "core/state.h"
#include "core/error.h"
#include "core/thread.h"
#include "shm/fault.h"
#include "fe_comm.h"

#include <stdlib.h>
#include <string.h>

static struct cm_group **table;
static int table_len, table_cap;
/* MPI_THREAD_MULTIPLE: a slot's claim and release and the table's growth;
 * lookups take none (core/thread.h). */
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cm_group empty_group = { 0, NULL, 1, 0 };

struct cm_group *cm_group_lookup(MPI_Group h)
{
    if (h == MPI_GROUP_EMPTY)
        return &empty_group;
    int i = cm_group_index(h);
    if (i <= cm_group_index(MPI_GROUP_EMPTY) || i >= CM_RACY_LOAD(table_len))
        return NULL;
    return CM_RACY_LOAD(CM_RACY_LOAD(table)[i]);
}

void cm_group_set_session(MPI_Group h, int session)
{
    struct cm_group *g = h == MPI_GROUP_EMPTY ? NULL : cm_group_lookup(h);
    if (g)
        g->session = session;
}

int cm_group_make(const int *world, int n, MPI_Group *out)
{
    if (n == 0) {
        *out = MPI_GROUP_EMPTY;
        return MPI_SUCCESS;
    }
    struct cm_group *g = malloc(sizeof *g);
    int *w = malloc((size_t)n * sizeof(int));
    if (!g || !w) {
        free(g);
        free(w);
        return MPI_ERR_NO_MEM;
    }
    memcpy(w, world, (size_t)n * sizeof(int));
    *g = (struct cm_group){ n, w, 1, 0 };
    cm_mt_lock(&table_lock);
    CM_FAULT(mt_group);   /* another thread must not claim the same slot */
    int h = cm_table_claim((void ***)&table, &table_len, &table_cap, 2, 64, g);
    cm_mt_unlock(&table_lock);
    if (h < 0) {
        free(w);
        free(g);
        return MPI_ERR_NO_MEM;
    }
    *out = cm_group_handle(h);
    return MPI_SUCCESS;
}

int cm_group_rank_of(const struct cm_group *g, int world_rank)
{
    for (int i = 0; i < g->size; i++)
        if (g->world[i] == world_rank)
            return i;
    return MPI_UNDEFINED;
}

void cm_group_finalize(void)
{
    for (int i = 2; i < table_len; i++)
        if (table[i]) {
            free(table[i]->world);
            free(table[i]);
        }
    free(table);
    table = NULL;
    table_len = table_cap = 0;
}

#define GET_GROUP(var, h, call)                                                            \
    struct cm_group *var = cm_group_lookup(h);                                             \
    if (!var)                                                                              \
        return cm_error(MPI_COMM_WORLD, MPI_ERR_GROUP, call, "invalid group %ld", (long)(intptr_t)(h))

int cm_Group_size(MPI_Group group, int *size)
{
    GET_GROUP(g, group, "MPI_Group_size");
    *size = g->size;
    return MPI_SUCCESS;
}

int cm_Group_rank(MPI_Group group, int *rank)
{
    GET_GROUP(g, group, "MPI_Group_rank");
    *rank = cm_group_rank_of(g, cm_g.rank);
    return MPI_SUCCESS;
}

int cm_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    struct cm_comm *c = cm_comm_lookup(comm, NULL);
    if (!c)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_COMM, "MPI_Comm_group", "invalid communicator %ld", (long)(intptr_t)comm);
    int rc = cm_group_make(c->world_of, c->size, group);
    if (!rc)
        cm_group_set_session(*group, c->session);
    return rc ? cm_error(comm, rc, "MPI_Comm_group", "out of memory") : MPI_SUCCESS;
}

/* Ranks listed must be valid and distinct: mark them in a scratch array. */
static int check_ranks(const struct cm_group *g, int n, const int ranks[], char *seen, const char *call)
{
    if (n < 0 || n > g->size)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "invalid number of ranks %d (group size %d)", n, g->size);
    if (n > 0 && !ranks)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "ranks array is NULL");
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= g->size)
            return cm_error(MPI_COMM_WORLD, MPI_ERR_RANK, call, "rank %d at index %d is not in the group (size %d)",
                            ranks[i], i, g->size);
        if (seen[ranks[i]])
            return cm_error(MPI_COMM_WORLD, MPI_ERR_RANK, call, "rank %d appears twice", ranks[i]);
        seen[ranks[i]] = 1;
    }
    return MPI_SUCCESS;
}

static int make_or_fail(const int *world, int n, MPI_Group *out, const char *call)
{
    int rc = cm_group_make(world, n, out);
    return rc ? cm_error(MPI_COMM_WORLD, rc, call, "out of memory") : MPI_SUCCESS;
}

int cm_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    GET_GROUP(g, group, "MPI_Group_incl");
    char *seen = calloc((size_t)g->size + 1, 1);
    int *w = malloc(((size_t)n + 1) * sizeof(int));
    int rc = check_ranks(g, n, ranks, seen, "MPI_Group_incl");
    if (!rc) {
        for (int i = 0; i < n; i++)
            w[i] = g->world[ranks[i]];
        rc = make_or_fail(w, n, newgroup, "MPI_Group_incl");
        if (!rc)
            cm_group_set_session(*newgroup, g->session);
    }
    free(seen);
    free(w);
    return rc;
}

int cm_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    GET_GROUP(g, group, "MPI_Group_excl");
    char *seen = calloc((size_t)g->size + 1, 1);
    int *w = malloc(((size_t)g->size + 1) * sizeof(int));
    int rc = check_ranks(g, n, ranks, seen, "MPI_Group_excl");
    if (!rc) {
        int k = 0;
        for (int i = 0; i < g->size; i++)
            if (!seen[i])
                w[k++] = g->world[i];
        rc = make_or_fail(w, k, newgroup, "MPI_Group_excl");
        if (!rc)
            cm_group_set_session(*newgroup, g->session);
    }
    free(seen);
    free(w);
    return rc;
}

/* Expand (first, last, stride) triplets into a rank list. */
static int expand_ranges(const struct cm_group *g, int n, int ranges[][3], int **out, int *nout, const char *call)
{
    if (n < 0)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "negative number of ranges %d", n);
    size_t cap = 16, k = 0;
    int *r = malloc(cap * sizeof(int));
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        if (stride == 0 || first < 0 || first >= g->size || last < 0 || last >= g->size ||
            (stride > 0 && first > last) || (stride < 0 && first < last)) {
            free(r);
            return cm_error(MPI_COMM_WORLD, MPI_ERR_RANK, call, "invalid range %d: (%d, %d, %d) for group size %d",
                            i, first, last, stride, g->size);
        }
        for (int x = first; stride > 0 ? x <= last : x >= last; x += stride) {
            if (k == cap)
                r = realloc(r, (cap *= 2) * sizeof(int));
            r[k++] = x;
        }
    }
    *out = r;
    *nout = (int)k;
    return MPI_SUCCESS;
}

/* Both range forms: the ranks the triplets name, then MPI_Group_excl (excl)
 * or MPI_Group_incl of them. */
static int by_ranges(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup, int excl, const char *call)
{
    GET_GROUP(g, group, call);
    int *ranks = NULL, k = 0;
    int rc = expand_ranges(g, n, ranges, &ranks, &k, call);
    if (rc)
        return rc;
    rc = excl ? PMPI_Group_excl(group, k, ranks, newgroup) : PMPI_Group_incl(group, k, ranks, newgroup);
    free(ranks);
    return rc;
}

int cm_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return by_ranges(group, n, ranges, newgroup, 0, "MPI_Group_range_incl");
}

int cm_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return by_ranges(group, n, ranges, newgroup, 1, "MPI_Group_range_excl");
}

/* in_b[w] = 1 when world rank w belongs to b. */
static char *membership(const struct cm_group *b)
{
    char *m = calloc((size_t)cm_g.size + 1, 1);
    for (int i = 0; i < b->size; i++)
        m[b->world[i]] = 1;
    return m;
}

/* mode 0: union, 1: intersection, 2: difference (a's order first, then b's new members for union). */
static int set_op(MPI_Group g1, MPI_Group g2, MPI_Group *out, int mode, const char *call)
{
    GET_GROUP(a, g1, call);
    GET_GROUP(b, g2, call);
    char *in_b = membership(b), *in_a = membership(a);
    int *w = malloc(((size_t)a->size + b->size + 1) * sizeof(int)), k = 0;
    for (int i = 0; i < a->size; i++) {
        int x = a->world[i];
        if (mode == 0 || (mode == 1) == (in_b[x] != 0))
            w[k++] = x;
    }
    if (mode == 0)
        for (int i = 0; i < b->size; i++)
            if (!in_a[b->world[i]])
                w[k++] = b->world[i];
    int rc = make_or_fail(w, k, out, call);
    if (!rc)
        cm_group_set_session(*out, a->session ? a->session : b->session);
    free(w);
    free(in_a);
    free(in_b);
    return rc;
}

int cm_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_op(group1, group2, newgroup, 0, "MPI_Group_union");
}

int cm_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_op(group1, group2, newgroup, 1, "MPI_Group_intersection");
}

int cm_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_op(group1, group2, newgroup, 2, "MPI_Group_difference");
}

int cm_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[])
{
    GET_GROUP(a, group1, "MPI_Group_translate_ranks");
    GET_GROUP(b, group2, "MPI_Group_translate_ranks");
    if (n < 0)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Group_translate_ranks", "negative count %d", n);
    int *pos = malloc(((size_t)cm_g.size + 1) * sizeof(int));
    for (int w = 0; w < cm_g.size; w++)
        pos[w] = MPI_UNDEFINED;
    for (int i = 0; i < b->size; i++)
        pos[b->world[i]] = i;
    for (int i = 0; i < n; i++) {
        if (ranks1[i] == MPI_PROC_NULL) {
            ranks2[i] = MPI_PROC_NULL;
            continue;
        }
        if (ranks1[i] < 0 || ranks1[i] >= a->size) {
            free(pos);
            return cm_error(MPI_COMM_WORLD, MPI_ERR_RANK, "MPI_Group_translate_ranks",
                            "rank %d at index %d is not in group1 (size %d)", ranks1[i], i, a->size);
        }
        ranks2[i] = pos[a->world[ranks1[i]]];
    }
    free(pos);
    return MPI_SUCCESS;
}

int cm_group_compare_lists(const int *a, int na, const int *b, int nb)
{
    if (na != nb)
        return MPI_UNEQUAL;
    if (na == 0 || !memcmp(a, b, (size_t)na * sizeof(int)))
        return MPI_IDENT;
    char *m = calloc((size_t)cm_g.size + 1, 1);
    for (int i = 0; i < na; i++)
        m[a[i]] = 1;
    int same = 1;
    for (int i = 0; i < nb; i++)
        same &= m[b[i]];
    free(m);
    return same ? MPI_SIMILAR : MPI_UNEQUAL;
}

int cm_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
    GET_GROUP(a, group1, "MPI_Group_compare");
    GET_GROUP(b, group2, "MPI_Group_compare");
    *result = cm_group_compare_lists(a->world, a->size, b->world, b->size);
    return MPI_SUCCESS;
}

int cm_Group_free(MPI_Group *group)
{
    if (!group)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Group_free", "group pointer is NULL");
    if (*group == MPI_GROUP_EMPTY) {
        *group = MPI_GROUP_NULL;
        return MPI_SUCCESS;
    }
    GET_GROUP(g, *group, "MPI_Group_free");
    cm_mt_lock(&table_lock);
    __atomic_store_n(&table[cm_group_index(*group)], NULL, __ATOMIC_RELAXED);
    cm_mt_unlock(&table_lock);
    free(g->world);
    free(g);
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}
