/*
 * large.c -- the helpers of the large-count bindings (large.h).
 */
#include "mpi/large.h"
#include "core/comm.h"
#include "core/datatype.h"
#include "core/error.h"
#include "core/topo.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

int cm_lc_one(MPI_Comm comm, const char *call, const char *arg, MPI_Count count, MPI_Datatype type,
              struct cm_lc *out)
{
    out->n = 0;
    out->t = type;
    out->temp = 0;
    if (count < 0)
        return cm_error(comm, MPI_ERR_COUNT, call, "%s is negative (%lld)", arg, (long long)count);
    int rc = cm_dt_check_bytes(comm, count, type, call, arg);
    if (rc)
        return rc;
    if (count <= INT_MAX) {
        out->n = (int)count;
        return MPI_SUCCESS;
    }
    MPI_Datatype big;
    rc = PMPI_Type_contiguous_c(count, type, &big);
    if (rc == MPI_SUCCESS && (rc = PMPI_Type_commit(&big)) != MPI_SUCCESS)
        PMPI_Type_free(&big);
    if (rc != MPI_SUCCESS)
        return rc;
    out->n = 1;
    out->t = big;
    out->temp = 1;
    return MPI_SUCCESS;
}

void cm_lc_skip(MPI_Datatype type, struct cm_lc *out)
{
    out->n = 0;
    out->t = type;
    out->temp = 0;
}

void cm_lc_free(struct cm_lc *x)
{
    if (x->temp) {
        PMPI_Type_free(&x->t);
        x->temp = 0;
    }
}

void *cm_lc_at(const void *buf, MPI_Aint off)
{
    if (buf == MPI_IN_PLACE)
        return MPI_IN_PLACE;
    return (void *)((uintptr_t)buf + (uintptr_t)off);
}

int cm_lc_pieces_begin(MPI_Comm comm, const char *call, MPI_Count count, MPI_Datatype type,
                       struct cm_lc_pieces *p)
{
    p->left = count;
    p->done = 0;
    p->extent = 0;
    p->n = 0;
    if (count < 0)
        return cm_error(comm, MPI_ERR_COUNT, call, "count is negative (%lld)", (long long)count);
    int rc = cm_dt_check_bytes(comm, count, type, call, "count");
    if (rc)
        return rc;
    if (count > INT_MAX) {
        MPI_Aint lb;
        rc = PMPI_Type_get_extent(type, &lb, &p->extent);
        if (rc)
            return rc;
    }
    p->n = (int)(count < CM_LC_PIECE || count <= INT_MAX ? count : CM_LC_PIECE);
    return MPI_SUCCESS;
}

int cm_lc_pieces_next(struct cm_lc_pieces *p)
{
    p->left -= p->n;
    p->done += (MPI_Aint)p->n * p->extent;
    if (p->left <= 0)
        return 0;
    p->n = (int)(p->left < CM_LC_PIECE ? p->left : CM_LC_PIECE);
    return 1;
}

int cm_lc_ints(MPI_Comm comm, const char *call, const char *arg, const MPI_Count *c, int n, int **out)
{
    *out = NULL;
    if (n <= 0 || !c)
        return MPI_SUCCESS;
    int *a = malloc((size_t)n * sizeof *a);
    if (!a)
        return cm_error(comm, MPI_ERR_NO_MEM, call, "out of memory (%d counts)", n);
    for (int i = 0; i < n; i++) {
        if (c[i] < 0 || c[i] > INT_MAX) {
            free(a);
            return cm_error(comm, MPI_ERR_COUNT, call,
                            c[i] < 0 ? "%s[%d] is negative (%lld)"
                                     : "%s[%d] = %lld is above INT_MAX, which corempi's per-peer arrays do not "
                                       "reach (docs/large_counts.md)",
                            arg, i, (long long)c[i]);
        }
        a[i] = (int)c[i];
    }
    *out = a;
    return MPI_SUCCESS;
}

int cm_lc_displs(MPI_Comm comm, const char *call, const char *arg, const MPI_Aint *d, int n, int **out)
{
    *out = NULL;
    if (n <= 0 || !d)
        return MPI_SUCCESS;
    int *a = malloc((size_t)n * sizeof *a);
    if (!a)
        return cm_error(comm, MPI_ERR_NO_MEM, call, "out of memory (%d displacements)", n);
    for (int i = 0; i < n; i++) {
        if (d[i] < INT_MIN || d[i] > INT_MAX) {
            free(a);
            return cm_error(comm, MPI_ERR_ARG, call,
                            "%s[%d] = %ld does not fit in an int, which corempi's per-peer arrays need "
                            "(docs/large_counts.md)",
                            arg, i, (long)d[i]);
        }
        a[i] = (int)d[i];
    }
    *out = a;
    return MPI_SUCCESS;
}

int cm_lc_nlocal(MPI_Comm comm)
{
    struct cm_comm *c = cm_comm_lookup(comm, NULL);
    return c ? c->size : -1;
}

int cm_lc_npeers(MPI_Comm comm)
{
    struct cm_comm *c = cm_comm_lookup(comm, NULL);
    return c ? c->peer_size : -1;
}

int cm_lc_nroot(MPI_Comm comm, int root)
{
    struct cm_comm *c = cm_comm_lookup(comm, NULL);
    if (!c)
        return -1;
    if (cm_comm_is_inter(c) ? root == MPI_ROOT : root == c->rank)
        return c->peer_size;
    return 0;
}

int cm_lc_leaf(MPI_Comm comm, int root)
{
    struct cm_comm *c = cm_comm_lookup(comm, NULL);
    return !c || !cm_comm_is_inter(c) || (root != MPI_ROOT && root != MPI_PROC_NULL);
}

/* Degrees as the neighbourhood collectives see them (mpi/topo_neighbor.c):
 * a Cartesian rank has 2 per dimension, a graph rank its edges. */
static int degree(MPI_Comm comm, int in)
{
    struct cm_comm *c = cm_comm_lookup(comm, NULL);
    if (!c || !c->topo)
        return -1;
    const struct cm_topo *t = c->topo;
    switch (t->kind) {
    case MPI_CART:
        return 2 * t->ndims;
    case MPI_GRAPH:
        return t->index[c->rank] - (c->rank ? t->index[c->rank - 1] : 0);
    default:
        return in ? t->indegree : t->outdegree;
    }
}

int cm_lc_nin(MPI_Comm comm) { return degree(comm, 1); }
int cm_lc_nout(MPI_Comm comm) { return degree(comm, 0); }
