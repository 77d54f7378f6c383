/*
 * large_coll.c -- the large-count collectives (rows of large.def other than
 * LC_BUF): the impls cm_<name>_c their generated front ends call
 * (spec/coll.api and topo.api, layer_c=mpi).  Uniform counts resolve as in large.h; per-peer count arrays
 * become int arrays (an entry above INT_MAX is an error naming it), except
 * in the w-collectives, whose per-peer types let such an entry travel as
 * one element of a temporary contiguous type.
 */
#include "mpi/large.h"
#include "core/state.h"
#include "core/error.h"
#include "core/op.h"
#include "core/datatype.h"
#include "fe_coll.h"
#include "fe_topo.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#define LC_UNPAREN(...) __VA_ARGS__

/* A side of a collective: skipped when not significant or in place. */
static int side(MPI_Comm comm, const char *call, const char *arg, int significant, const void *buf,
                MPI_Count count, MPI_Datatype type, struct cm_lc *out)
{
    if (!significant || buf == MPI_IN_PLACE) {
        cm_lc_skip(type, out);
        return MPI_SUCCESS;
    }
    return cm_lc_one(comm, call, arg, count, type, out);
}

/* A reduction's count: above INT_MAX only with a predefined op (a user
 * function would see the temporary type instead of its own). */
static int red_count(MPI_Comm comm, const char *call, MPI_Count count, MPI_Datatype type, MPI_Op op,
                     struct cm_lc *out)
{
    if (count > INT_MAX && !cm_op_is_predefined(op)) {
        cm_lc_skip(type, out);
        return cm_error(comm, MPI_ERR_COUNT, call,
                        "count %lld is above INT_MAX with a user-defined op, which this call does not "
                        "support (docs/large_counts.md)", (long long)count);
    }
    return cm_lc_one(comm, call, "count", count, type, out);
}

/* Counts and displacements of one side of a v-collective, as ints. */
struct vside {
    int *counts, *displs;
};
static int vside(MPI_Comm comm, const char *call, const char *cname, const char *dname, int n,
                 const MPI_Count *c, const MPI_Aint *d, MPI_Datatype t, struct vside *o)
{
    o->displs = NULL;
    int rc = cm_lc_ints(comm, call, cname, c, n, &o->counts);
    for (int i = 0; rc == MPI_SUCCESS && o->counts && i < n; i++) {
        char arg[48];
        snprintf(arg, sizeof arg, "%s[%d]", cname, i);
        if ((rc = cm_dt_check_bytes(comm, c[i], t, call, arg)) != MPI_SUCCESS) {
            free(o->counts);
            o->counts = NULL;
            return rc;
        }
    }
    if (rc == MPI_SUCCESS && (rc = cm_lc_displs(comm, call, dname, d, n, &o->displs)) != MPI_SUCCESS) {
        free(o->counts);
        o->counts = NULL;
    }
    return rc;
}
static void vside_free(struct vside *o)
{
    free(o->counts);
    free(o->displs);
}

/* One side of a w-collective: per-peer counts as ints, an entry above
 * INT_MAX as one element of a temporary type (temp[i] set), byte
 * displacements as ints when the int twin wants them. */
struct wside {
    int n;
    int *counts, *idispls;
    MPI_Datatype *types;
    char *temp;
};
/* A running nonblocking or persistent collective holds its own reference
 * on each type (coll/nbc.c, coll/direct/nbc.c), so the temporaries go now. */
static void wside_free(struct wside *o)
{
    for (int i = 0; o->temp && i < o->n; i++)
        if (o->temp[i])
            PMPI_Type_free(&o->types[i]);
    free(o->counts);
    free(o->idispls);
    free(o->types);
    free(o->temp);
}
static int wside(MPI_Comm comm, const char *call, const char *cname, const char *dname, int n,
                 const MPI_Count *c, const MPI_Aint *d, const MPI_Datatype *t, int int_displs, struct wside *o)
{
    o->n = 0;
    o->counts = o->idispls = NULL;
    o->types = NULL;
    o->temp = NULL;
    if (n <= 0 || !c || !t)
        return MPI_SUCCESS;
    o->counts = malloc((size_t)n * sizeof *o->counts);
    o->types = malloc((size_t)n * sizeof *o->types);
    o->temp = calloc((size_t)n, 1);
    if (!o->counts || !o->types || !o->temp) {
        wside_free(o);
        return cm_error(comm, MPI_ERR_NO_MEM, call, "out of memory (%d peers)", n);
    }
    o->n = n;
    int rc = int_displs ? cm_lc_displs(comm, call, dname, d, n, &o->idispls) : MPI_SUCCESS;
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++) {
        struct cm_lc x;
        if (c[i] < 0)
            rc = cm_error(comm, MPI_ERR_COUNT, call, "%s[%d] is negative (%lld)", cname, i, (long long)c[i]);
        else if ((rc = cm_lc_one(comm, call, cname, c[i], t[i], &x)) == MPI_SUCCESS) {
            o->counts[i] = x.n;
            o->types[i] = x.t;
            o->temp[i] = (char)x.temp;
        }
    }
    if (rc)
        wside_free(o); /* nothing was started with them */
    return rc;
}

#define LC_PIECES(...) LC_PIECES_(__VA_ARGS__)
#define LC_PIECES_(name, params, args, commx)                                                         \
    int cm_##name##_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, \
                        MPI_Op op, LC_UNPAREN params)                                               \
    {                                                                                               \
        struct cm_lc_pieces p;                                                                      \
        int rc = cm_lc_pieces_begin(commx, "MPI_" #name "_c", count, datatype, &p);                 \
        if (rc)                                                                                     \
            return rc;                                                                              \
        do                                                                                          \
            rc = PMPI_##name(cm_lc_at(sendbuf, p.done), cm_lc_at(recvbuf, p.done), p.n, datatype,    \
                             op, LC_UNPAREN args);                                                  \
        while (rc == MPI_SUCCESS && cm_lc_pieces_next(&p));                                         \
        return rc;                                                                                  \
    }

#define LC_REDTYPE(...) LC_REDTYPE_(__VA_ARGS__)
#define LC_REDTYPE_(name, params, args, commx)                                                        \
    int cm_##name##_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, \
                        MPI_Op op, LC_UNPAREN params)                                               \
    {                                                                                               \
        struct cm_lc x;                                                                             \
        int rc = red_count(commx, "MPI_" #name "_c", count, datatype, op, &x);                      \
        if (rc)                                                                                     \
            return rc;                                                                              \
        rc = PMPI_##name(sendbuf, recvbuf, x.n, x.t, op, LC_UNPAREN args);                          \
        cm_lc_free(&x);                                                                             \
        return rc;                                                                                  \
    }

#define LC_G2(...) LC_G2_(__VA_ARGS__)
#define LC_G2_(name, params, args, commx, ssig, rsig)                                                 \
    int cm_##name##_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,            \
                        void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, LC_UNPAREN params) \
    {                                                                                               \
        const char *call = "MPI_" #name "_c";                                                       \
        struct cm_lc s, r;                                                                          \
        int rc = side(commx, call, "sendcount", ssig, sendbuf, sendcount, sendtype, &s);            \
        if (rc)                                                                                     \
            return rc;                                                                              \
        if ((rc = side(commx, call, "recvcount", rsig, recvbuf, recvcount, recvtype, &r)) == 0) {   \
            rc = PMPI_##name(sendbuf, s.n, s.t, recvbuf, r.n, r.t, LC_UNPAREN args);                \
            cm_lc_free(&r);                                                                         \
        }                                                                                           \
        cm_lc_free(&s);                                                                             \
        return rc;                                                                                  \
    }

#define LC_GV(...) LC_GV_(__VA_ARGS__)
#define LC_GV_(name, params, args, commx, ssig, nrecv)                                                \
    int cm_##name##_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,            \
                        void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],       \
                        MPI_Datatype recvtype, LC_UNPAREN params)                                   \
    {                                                                                               \
        const char *call = "MPI_" #name "_c";                                                       \
        struct cm_lc s;                                                                             \
        struct vside r;                                                                             \
        int rc = side(commx, call, "sendcount", ssig, sendbuf, sendcount, sendtype, &s);            \
        if (rc)                                                                                     \
            return rc;                                                                              \
        if ((rc = vside(commx, call, "recvcounts", "displs", nrecv, recvcounts, displs, recvtype, &r)) == 0) { \
            rc = PMPI_##name(sendbuf, s.n, s.t, recvbuf, r.counts, r.displs, recvtype, LC_UNPAREN args); \
            vside_free(&r);                                                                         \
        }                                                                                           \
        cm_lc_free(&s);                                                                             \
        return rc;                                                                                  \
    }

#define LC_SV(...) LC_SV_(__VA_ARGS__)
#define LC_SV_(name, params, args, commx, nsend, rsig)                                                \
    int cm_##name##_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[], \
                        MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,                  \
                        MPI_Datatype recvtype, LC_UNPAREN params)                                   \
    {                                                                                               \
        const char *call = "MPI_" #name "_c";                                                       \
        struct cm_lc r;                                                                             \
        struct vside s;                                                                             \
        int rc = side(commx, call, "recvcount", rsig, recvbuf, recvcount, recvtype, &r);            \
        if (rc)                                                                                     \
            return rc;                                                                              \
        if ((rc = vside(commx, call, "sendcounts", "displs", nsend, sendcounts, displs, sendtype, &s)) == 0) { \
            rc = PMPI_##name(sendbuf, s.counts, s.displs, sendtype, recvbuf, r.n, r.t, LC_UNPAREN args); \
            vside_free(&s);                                                                         \
        }                                                                                           \
        cm_lc_free(&r);                                                                             \
        return rc;                                                                                  \
    }

#define LC_AV(...) LC_AV_(__VA_ARGS__)
#define LC_AV_(name, params, args, commx, nsend, nrecv)                                               \
    int cm_##name##_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], \
                        MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],         \
                        const MPI_Aint rdispls[], MPI_Datatype recvtype, LC_UNPAREN params)         \
    {                                                                                               \
        const char *call = "MPI_" #name "_c";                                                       \
        struct vside s = { NULL, NULL }, r;                                                         \
        int rc = sendbuf == MPI_IN_PLACE                                                            \
                     ? MPI_SUCCESS                                                                  \
                     : vside(commx, call, "sendcounts", "sdispls", nsend, sendcounts, sdispls, sendtype, &s); \
        if (rc)                                                                                     \
            return rc;                                                                              \
        if ((rc = vside(commx, call, "recvcounts", "rdispls", nrecv, recvcounts, rdispls, recvtype, &r)) == 0) { \
            rc = PMPI_##name(sendbuf, s.counts, s.displs, sendtype, recvbuf, r.counts, r.displs,    \
                             recvtype, LC_UNPAREN args);                                            \
            vside_free(&r);                                                                         \
        }                                                                                           \
        vside_free(&s);                                                                             \
        return rc;                                                                                  \
    }

/* int_displs: the int twin takes int byte displacements (Alltoallw), else
 * MPI_Aint ones passed through (Neighbor_alltoallw). */
#define LC_AW(...) LC_AW_(__VA_ARGS__)
#define LC_AW_(name, params, args, commx, nsend, nrecv, int_displs)                                   \
    int cm_##name##_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], \
                        const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[], \
                        const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], LC_UNPAREN params) \
    {                                                                                               \
        const char *call = "MPI_" #name "_c";                                                       \
        struct wside s = { 0 }, r;                                                                  \
        int rc = sendbuf == MPI_IN_PLACE ? MPI_SUCCESS                                              \
                                         : wside(commx, call, "sendcounts", "sdispls", nsend,       \
                                                 sendcounts, sdispls, sendtypes, int_displs, &s);   \
        if (rc)                                                                                     \
            return rc;                                                                              \
        if ((rc = wside(commx, call, "recvcounts", "rdispls", nrecv, recvcounts, rdispls, recvtypes, \
                        int_displs, &r)) == 0) {                                                    \
            rc = PMPI_##name(sendbuf, s.counts, LC_DISPLS_##int_displs(s, sdispls), s.types,       \
                             recvbuf, r.counts, LC_DISPLS_##int_displs(r, rdispls), r.types,       \
                             LC_UNPAREN args);                                                      \
            wside_free(&r);                                                                         \
        }                                                                                           \
        wside_free(&s);                                                                             \
        return rc;                                                                                  \
    }
#define LC_DISPLS_1(w, d) (w).idispls
#define LC_DISPLS_0(w, d) (d)

#define LC_RS(...) LC_RS_(__VA_ARGS__)
#define LC_RS_(name, params, args, commx)                                                             \
    int cm_##name##_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],           \
                        MPI_Datatype datatype, MPI_Op op, LC_UNPAREN params)                        \
    {                                                                                               \
        int *counts;                                                                                \
        int rc = cm_lc_ints(commx, "MPI_" #name "_c", "recvcounts", recvcounts, cm_lc_nlocal(commx), \
                            &counts);                                                               \
        if (rc)                                                                                     \
            return rc;                                                                              \
        rc = PMPI_##name(sendbuf, recvbuf, counts, datatype, op, LC_UNPAREN args);                  \
        free(counts);                                                                               \
        return rc;                                                                                  \
    }

#define LC_BUF(...)
#include "mpi/large.def"
