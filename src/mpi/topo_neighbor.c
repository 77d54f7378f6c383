/*
 * topo_neighbor.c -- the neighbourhood collectives (Neighbor_allgather,
 * _allgatherv, _alltoall, _alltoallv, _alltoallw) and their nonblocking forms
 * (Ineighbor_*) over point-to-point on the communicator's collective context.
 * The nonblocking form posts the same messages and hands them to a generic
 * request; outstanding ones on one communicator match in call order because
 * every rank starts them in the same order (non-overtaking).
 *
 * Neighbour order (MPI 4.0, 8.6):
 *   Cartesian:  for each dimension d, the neighbour at -1 then the one at +1
 *               (the pair Cart_shift(d, 1) returns); MPI_PROC_NULL neighbours
 *               keep their buffer slot and move no data.
 *   graph:      Graph_neighbors of the calling rank, both ways.
 *   dist graph: sources (receive) and destinations (send).
 *
 * Matching: in a Cartesian grid the same process can be the neighbour on both
 * sides (a periodic dimension of size 1 or 2).  The block sent towards -1
 * must land in the receiver's +1 slot, so each Cartesian slot has its own tag:
 * slot i is sent with tag BASE + i and slot i is received with tag BASE + (i ^ 1).
 * For graphs a neighbour listed k times is matched in order, which the
 * non-overtaking rule of point-to-point guarantees.
 */
#include "mpi/topo_cart.h"
#include "core/comm.h"
#include "core/datatype.h"
#include "core/error.h"
#include "core/state.h"
#include "p2p/request_wait.h"
#include "coll/nbc.h"

#include <stdlib.h>
#include <string.h>
#include "fe_topo.h"

/* Above every tag the collectives in src/coll use (coll.h: < 1024 + 4096). */
#define TAG_BASE 0x100000

struct nbrs {
    int nin, nout;
    const int *in, *out;
    int cart;           /* per-slot tags (see the file comment) */
    int *owned;         /* Cartesian lists are computed; freed by nbrs_done */
};

static int nbrs_get(MPI_Comm comm, const char *call, struct nbrs *nb)
{
    int rc;
    struct cm_topo *t = cm_topo_of(comm, 0, call, &rc);
    if (!t)
        return rc;
    memset(nb, 0, sizeof *nb);
    struct cm_comm *c = cm_comm_lookup(comm, NULL);
    switch (t->kind) {
    case MPI_CART:
        nb->owned = malloc((2 * (size_t)t->ndims + 1) * sizeof(int));
        if (!nb->owned)
            return cm_error(comm, MPI_ERR_NO_MEM, call, "out of memory");
        for (int d = 0; d < t->ndims; d++)
            cm_cart_shift(t, c->rank, d, 1, &nb->owned[2 * d], &nb->owned[2 * d + 1]);
        nb->nin = nb->nout = 2 * t->ndims;
        nb->in = nb->out = nb->owned;
        nb->cart = 1;
        break;
    case MPI_GRAPH: {
        int first = c->rank ? t->index[c->rank - 1] : 0;
        nb->nin = nb->nout = t->index[c->rank] - first;
        nb->in = nb->out = t->edges + first;
        break;
    }
    default:
        nb->nin = t->indegree;
        nb->nout = t->outdegree;
        nb->in = t->sources;
        nb->out = t->destinations;
        break;
    }
    return MPI_SUCCESS;
}

/* One block of the exchange: count elements of type at buf. */
struct block {
    void *buf;
    int count;
    MPI_Datatype type;
};

/* The started messages of a nonblocking neighbourhood collective. */
struct pending {
    int n;
    MPI_Request req[];
};

static int pending_poll(void *state)
{
    struct pending *pd = state;
    int flag = 0;
    PMPI_Testall(pd->n, pd->req, &flag, MPI_STATUSES_IGNORE);
    return flag;
}

static void pending_free(void *state)
{
    free(state);
}

/* A persistent neighbourhood collective's plan (coll/nbc.h, cm_coll_keep):
 * copies of the neighbour lists and blocks, posted again at every MPI_Start
 * under the same tags as the nonblocking form. */
struct kept {
    MPI_Comm cc;
    struct nbrs nb;
    struct block *s, *r;
    struct pending *pd;
};

static int kept_begin(void *state)
{
    struct kept *k = state;
    int rc = MPI_SUCCESS, n = 0;
    for (int i = 0; i < k->nb.nin && rc == MPI_SUCCESS; i++)
        rc = PMPI_Irecv(k->r[i].buf, k->r[i].count, k->r[i].type, k->nb.in[i],
                        TAG_BASE + (k->nb.cart ? i ^ 1 : 0), k->cc, &k->pd->req[n++]);
    for (int i = 0; i < k->nb.nout && rc == MPI_SUCCESS; i++)
        rc = PMPI_Isend(k->s[i].buf, k->s[i].count, k->s[i].type, k->nb.out[i],
                        TAG_BASE + (k->nb.cart ? i : 0), k->cc, &k->pd->req[n++]);
    k->pd->n = rc == MPI_SUCCESS ? n : n - 1;
    return rc;
}

static int kept_poll(void *state) { return pending_poll(((struct kept *)state)->pd); }

/* The blocks' types outlive the _init (MPI_Type_free before MPI_Start). */
static void kept_hold(const struct kept *k, int take)
{
    void (*dt_fn)(MPI_Datatype) = take ? cm_dt_retain : cm_dt_release;
    for (int i = 0; i < k->nb.nout; i++)
        dt_fn(k->s[i].type);
    for (int i = 0; i < k->nb.nin; i++)
        dt_fn(k->r[i].type);
}

static void kept_free(void *state)
{
    struct kept *k = state;
    kept_hold(k, 0);
    free(k->pd);
    free(k);
}

/* One block allocation for everything the plan keeps. */
static int keep(MPI_Comm comm, const char *call, MPI_Comm cc, const struct nbrs *nb, const struct block *s,
                const struct block *r, MPI_Request *request)
{
    size_t nin = (size_t)nb->nin, nout = (size_t)nb->nout;
    struct kept *k = malloc(sizeof *k + (nin + nout) * (sizeof(struct block) + sizeof(int)));
    struct pending *pd = malloc(sizeof *pd + (nin + nout + 1) * sizeof(MPI_Request));
    if (!k || !pd) {
        free(k);
        free(pd);
        return cm_error(comm, MPI_ERR_NO_MEM, call, "out of memory");
    }
    k->cc = cc;
    k->pd = pd;
    k->s = (struct block *)(k + 1);
    k->r = k->s + nout;
    int *in = (int *)(k->r + nin), *out = in + nin;
    memcpy(k->s, s, nout * sizeof *s);
    memcpy(k->r, r, nin * sizeof *r);
    memcpy(in, nb->in, nin * sizeof *in);
    memcpy(out, nb->out, nout * sizeof *out);
    k->nb = (struct nbrs){ .nin = nb->nin, .nout = nb->nout, .in = in, .out = out, .cart = nb->cart };
    kept_hold(k, 1);
    return cm_coll_keep(k, kept_begin, kept_poll, NULL, kept_free, request);
}

/* Receive in[i] into r[i] and send s[i] to out[i], all at once, then wait
 * (request NULL) or hand the messages to *request (or, inside an _init,
 * keep them for MPI_Start). */
static int run(MPI_Comm comm, const char *call, const struct nbrs *nb, const struct block *s, const struct block *r,
               MPI_Request *request)
{
    if (request && cm_coll_capture.on)
        return keep(comm, call, cm_coll_comm(comm), nb, s, r, request);
    int n = nb->nin + nb->nout;
    struct pending *pd = malloc(sizeof *pd + ((size_t)n + 1) * sizeof(MPI_Request));
    if (!pd)
        return cm_error(comm, MPI_ERR_NO_MEM, call, "out of memory");
    MPI_Request *req = pd->req;
    MPI_Comm cc = cm_coll_comm(comm);
    int rc = MPI_SUCCESS, k = 0;
    for (int i = 0; i < nb->nin && rc == MPI_SUCCESS; i++)
        rc = PMPI_Irecv(r[i].buf, r[i].count, r[i].type, nb->in[i], TAG_BASE + (nb->cart ? i ^ 1 : 0), cc, &req[k++]);
    for (int i = 0; i < nb->nout && rc == MPI_SUCCESS; i++)
        rc = PMPI_Isend(s[i].buf, s[i].count, s[i].type, nb->out[i], TAG_BASE + (nb->cart ? i : 0), cc, &req[k++]);
    if (rc != MPI_SUCCESS) {
        /* A bad argument showed up in a p2p check (already reported); finish what was started. */
        k -= 1;
        PMPI_Waitall(k, req, MPI_STATUSES_IGNORE);
    } else if (request) {
        pd->n = k;
        *request = cm_request_generic(pending_poll, pending_free, pd);
        return MPI_SUCCESS;
    } else {
        rc = PMPI_Waitall(k, req, MPI_STATUSES_IGNORE);
    }
    free(pd);
    return rc;
}

static void nbrs_done(struct nbrs *nb)
{
    free(nb->owned);
}

static int check_count(MPI_Comm comm, const char *call, int count, const char *what)
{
    return count < 0 ? cm_error(comm, MPI_ERR_COUNT, call, "%s %d is negative", what, count) : MPI_SUCCESS;
}

static int check_type(MPI_Comm comm, const char *call, MPI_Datatype t, MPI_Aint *extent, const char *what)
{
    const struct cm_datatype *d = cm_dt_lookup(t);
    if (!d)
        return cm_error(comm, MPI_ERR_TYPE, call, "invalid %s %ld", what, (long)(intptr_t)t);
    if (!d->predefined && !d->committed)
        return cm_error(comm, MPI_ERR_TYPE, call, "%s %ld is not committed", what, (long)(intptr_t)t);
    *extent = d->extent;
    return MPI_SUCCESS;
}

static int check_in_place(MPI_Comm comm, const char *call, const void *sendbuf)
{
    if (sendbuf == MPI_IN_PLACE)
        return cm_error(comm, MPI_ERR_BUFFER, call, "MPI_IN_PLACE is not allowed in neighborhood collectives");
    return MPI_SUCCESS;
}

static int alloc_blocks(MPI_Comm comm, const char *call, const struct nbrs *nb, struct block **s, struct block **r)
{
    *s = malloc(((size_t)nb->nout + 1) * sizeof **s);
    *r = malloc(((size_t)nb->nin + 1) * sizeof **r);
    if (*s && *r)
        return MPI_SUCCESS;
    free(*s);
    free(*r);
    return cm_error(comm, MPI_ERR_NO_MEM, call, "out of memory");
}

static void *at(const void *buf, MPI_Aint bytes)
{
    return (char *)buf + bytes;
}

/* The end of every front end below: the exchange unless a check failed
 * (rc), then the blocks and the neighbour lists go. */
static int finish(MPI_Comm comm, const char *call, struct nbrs *nb, struct block *s, struct block *r, int rc,
                  MPI_Request *request)
{
    if (rc == MPI_SUCCESS)
        rc = run(comm, call, nb, s, r, request);
    free(s);
    free(r);
    nbrs_done(nb);
    return rc;
}

/* Neighbor_allgather and Neighbor_alltoall: one count and type per side;
 * an alltoall sends block i to out-neighbour i, an allgather the same
 * buffer to all (a2a 0). */
static int neighbor_uniform(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request, const char *call, int a2a)
{
    struct nbrs nb;
    struct block *s, *r;
    MPI_Aint sext, rext;
    int rc;
    if ((rc = nbrs_get(comm, call, &nb)))
        return rc;
    if ((rc = check_in_place(comm, call, sendbuf)) || (rc = check_count(comm, call, sendcount, "sendcount")) ||
        (rc = check_count(comm, call, recvcount, "recvcount")) ||
        (rc = check_type(comm, call, sendtype, &sext, "sendtype")) ||
        (rc = check_type(comm, call, recvtype, &rext, "recvtype")) || (rc = alloc_blocks(comm, call, &nb, &s, &r))) {
        nbrs_done(&nb);
        return rc;
    }
    for (int i = 0; i < nb.nout; i++)
        s[i] = (struct block){ at(sendbuf, a2a ? (MPI_Aint)i * sendcount * sext : 0), sendcount, sendtype };
    for (int i = 0; i < nb.nin; i++)
        r[i] = (struct block){ at(recvbuf, (MPI_Aint)i * recvcount * rext), recvcount, recvtype };
    return finish(comm, call, &nb, s, r, MPI_SUCCESS, request);
}

static int neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request,
        const char *call)
{
    struct nbrs nb;
    struct block *s, *r;
    MPI_Aint sext, rext;
    int rc;
    if ((rc = nbrs_get(comm, call, &nb)))
        return rc;
    if ((rc = check_in_place(comm, call, sendbuf)) || (rc = check_count(comm, call, sendcount, "sendcount")) ||
        (rc = check_type(comm, call, sendtype, &sext, "sendtype")) ||
        (rc = check_type(comm, call, recvtype, &rext, "recvtype")) ||
        (nb.nin > 0 && (!recvcounts || !displs) &&
         (rc = cm_error(comm, MPI_ERR_ARG, call, "%s is NULL", recvcounts ? "displs" : "recvcounts"))) ||
        (rc = alloc_blocks(comm, call, &nb, &s, &r))) {
        nbrs_done(&nb);
        return rc;
    }
    for (int i = 0; i < nb.nin && rc == MPI_SUCCESS; i++)
        rc = check_count(comm, call, recvcounts[i], "recvcounts[i]");
    for (int i = 0; i < nb.nout; i++)
        s[i] = (struct block){ (void *)sendbuf, sendcount, sendtype };
    for (int i = 0; i < nb.nin; i++)
        r[i] = (struct block){ at(recvbuf, (MPI_Aint)displs[i] * rext), recvcounts[i], recvtype };
    return finish(comm, call, &nb, s, r, rc, request);
}

static int neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                            MPI_Comm comm, MPI_Request *request,
        const char *call)
{
    struct nbrs nb;
    struct block *s, *r;
    MPI_Aint sext, rext;
    int rc;
    if ((rc = nbrs_get(comm, call, &nb)))
        return rc;
    if ((rc = check_in_place(comm, call, sendbuf)) || (rc = check_type(comm, call, sendtype, &sext, "sendtype")) ||
        (rc = check_type(comm, call, recvtype, &rext, "recvtype")) ||
        (nb.nout > 0 && (!sendcounts || !sdispls) &&
         (rc = cm_error(comm, MPI_ERR_ARG, call, "%s is NULL", sendcounts ? "sdispls" : "sendcounts"))) ||
        (nb.nin > 0 && (!recvcounts || !rdispls) &&
         (rc = cm_error(comm, MPI_ERR_ARG, call, "%s is NULL", recvcounts ? "rdispls" : "recvcounts"))) ||
        (rc = alloc_blocks(comm, call, &nb, &s, &r))) {
        nbrs_done(&nb);
        return rc;
    }
    for (int i = 0; i < nb.nout && rc == MPI_SUCCESS; i++)
        rc = check_count(comm, call, sendcounts[i], "sendcounts[i]");
    for (int i = 0; i < nb.nin && rc == MPI_SUCCESS; i++)
        rc = check_count(comm, call, recvcounts[i], "recvcounts[i]");
    for (int i = 0; i < nb.nout; i++)
        s[i] = (struct block){ at(sendbuf, (MPI_Aint)sdispls[i] * sext), sendcounts[i], sendtype };
    for (int i = 0; i < nb.nin; i++)
        r[i] = (struct block){ at(recvbuf, (MPI_Aint)rdispls[i] * rext), recvcounts[i], recvtype };
    return finish(comm, call, &nb, s, r, rc, request);
}

static int neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request,
        const char *call)
{
    struct nbrs nb;
    struct block *s, *r;
    MPI_Aint ext;
    int rc;
    if ((rc = nbrs_get(comm, call, &nb)))
        return rc;
    if ((rc = check_in_place(comm, call, sendbuf)) ||
        (nb.nout > 0 && (!sendcounts || !sdispls || !sendtypes) &&
         (rc = cm_error(comm, MPI_ERR_ARG, call, "sendcounts, sdispls or sendtypes is NULL"))) ||
        (nb.nin > 0 && (!recvcounts || !rdispls || !recvtypes) &&
         (rc = cm_error(comm, MPI_ERR_ARG, call, "recvcounts, rdispls or recvtypes is NULL"))) ||
        (rc = alloc_blocks(comm, call, &nb, &s, &r))) {
        nbrs_done(&nb);
        return rc;
    }
    for (int i = 0; i < nb.nout && rc == MPI_SUCCESS; i++)
        if (!(rc = check_count(comm, call, sendcounts[i], "sendcounts[i]")))
            rc = check_type(comm, call, sendtypes[i], &ext, "sendtypes[i]");
    for (int i = 0; i < nb.nin && rc == MPI_SUCCESS; i++)
        if (!(rc = check_count(comm, call, recvcounts[i], "recvcounts[i]")))
            rc = check_type(comm, call, recvtypes[i], &ext, "recvtypes[i]");
    /* alltoallw displacements are in bytes. */
    for (int i = 0; i < nb.nout; i++)
        s[i] = (struct block){ at(sendbuf, sdispls[i]), sendcounts[i], sendtypes[i] };
    for (int i = 0; i < nb.nin; i++)
        r[i] = (struct block){ at(recvbuf, rdispls[i]), recvcounts[i], recvtypes[i] };
    return finish(comm, call, &nb, s, r, rc, request);
}

/* The public entries: one checked body each for both forms. */

int cm_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          MPI_Datatype recvtype, MPI_Comm comm)
{
    return neighbor_uniform(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, NULL, "MPI_Neighbor_allgather", 0);
}

int cm_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    if (!request)
        return cm_error(comm, MPI_ERR_REQUEST, "MPI_Ineighbor_allgather", "request pointer is NULL");
    return neighbor_uniform(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request, CM_COLL_CALL("MPI_Ineighbor_allgather"), 0);
}

int cm_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, NULL, "MPI_Neighbor_allgatherv");
}

int cm_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    if (!request)
        return cm_error(comm, MPI_ERR_REQUEST, "MPI_Ineighbor_allgatherv", "request pointer is NULL");
    return neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request, CM_COLL_CALL("MPI_Ineighbor_allgatherv"));
}

int cm_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                         MPI_Datatype recvtype, MPI_Comm comm)
{
    return neighbor_uniform(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, NULL, "MPI_Neighbor_alltoall", 1);
}

int cm_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    if (!request)
        return cm_error(comm, MPI_ERR_REQUEST, "MPI_Ineighbor_alltoall", "request pointer is NULL");
    return neighbor_uniform(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request, CM_COLL_CALL("MPI_Ineighbor_alltoall"), 1);
}

int cm_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                          void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                          MPI_Comm comm)
{
    return neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, NULL, "MPI_Neighbor_alltoallv");
}

int cm_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                            MPI_Comm comm, MPI_Request *request)
{
    if (!request)
        return cm_error(comm, MPI_ERR_REQUEST, "MPI_Ineighbor_alltoallv", "request pointer is NULL");
    return neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, request, CM_COLL_CALL("MPI_Ineighbor_alltoallv"));
}

int cm_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                          const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                          const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    return neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, NULL, "MPI_Neighbor_alltoallw");
}

int cm_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request)
{
    if (!request)
        return cm_error(comm, MPI_ERR_REQUEST, "MPI_Ineighbor_alltoallw", "request pointer is NULL");
    return neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, request, CM_COLL_CALL("MPI_Ineighbor_alltoallw"));
}
