/*
 * dyn_bridge.c -- the channel every process of the segment shares, and the
 * intercommunicator two groups build over it (mpi/dyn.h).
 */
#include "mpi/dyn.h"
#include "mpi/intercomm.h"
#include "mpi/comm_create.h"
#include "core/error.h"
#include "core/request.h"
#include "core/state.h"
#include "p2p/p2p.h"
#include "p2p/request_wait.h"

#include <stdlib.h>
#include <string.h>

static struct cm_comm *chan;

struct cm_comm *cm_dyn_chan(void)
{
    if (chan && cm_comm_lookup(chan->handle, NULL) == chan)
        return chan;
    int *all = malloc((size_t)cm_g.size * sizeof(int));
    if (!all)
        return NULL;
    for (int i = 0; i < cm_g.size; i++)
        all[i] = i;
    chan = cm_comm_create_raw(all, cm_g.size, cm_g.rank, CM_CTX_DYN);
    free(all);
    if (chan)
        strcpy(chan->name, "(dynamic-process channel)");
    return chan;
}

static struct cm_comm *chan_or_die(void)
{
    struct cm_comm *c = cm_dyn_chan();
    if (!c)
        cm_fatal("dynamic processes", "out of memory");
    return c;
}

void cm_dyn_send(const void *buf, size_t bytes, int to, int tag)
{
    cm_comm_exchange(chan_or_die(), buf, bytes, to, NULL, 0, -1, tag);
}

/* cm_comm_exchange takes no MPI_ANY_SOURCE and gives no status: a request
 * of its own, on the channel's collective context like the exchange's. */
int cm_dyn_recv(void *buf, size_t bytes, int from, int tag)
{
    struct cm_request r = { .kind = CM_REQ_RECV, .internal = 1, .buf = buf, .count = (int)bytes, .dtype = MPI_BYTE,
                            .comm = cm_coll_comm(chan_or_die()->handle), .peer = from, .tag = tag };
    cm_recv_start(&r);
    cm_request_wait(&r, CM_CALL_Comm_accept);
    return r.status.MPI_SOURCE;
}

int cm_dyn_check_group(const char *call, MPI_Comm comm, int root, MPI_Comm *out, const char *outname,
                       struct cm_comm **cp)
{
    int rc = cm_check_initialized(call);
    if (rc)
        return rc;
    struct cm_comm *c = cm_comm_intra_or_error(comm, "comm", call, &rc);
    if (!c)
        return rc;
    if (root < 0 || root >= c->size)
        return cm_error(comm, MPI_ERR_ROOT, call, "invalid root %d (comm size %d)", root, c->size);
    if (!out)
        return cm_error(comm, MPI_ERR_ARG, call, "%s is NULL", outname);
    *out = MPI_COMM_NULL;
    *cp = c;
    return MPI_SUCCESS;
}

int cm_dyn_bridge(struct cm_comm *comm, int root, int peer_slot, int tag, const char *call, MPI_Comm *out)
{
    struct cm_comm *ch = cm_dyn_chan();
    int *ident = malloc((size_t)comm->size * sizeof(int));
    size_t bytes;
    int *mine = cm_inter_payload(comm->world_of, comm->size, &bytes), *theirs = cm_inter_payload(NULL, 0, &bytes);
    int rc = MPI_SUCCESS;
    if (!ch || !ident || !mine || !theirs) {
        rc = cm_error(comm->handle, MPI_ERR_NO_MEM, call, "out of memory");
        goto out;
    }
    for (int i = 0; i < comm->size; i++)
        ident[i] = i;
    struct cm_sub g = { comm, ident, comm->size, comm->rank, CM_TAG_DYN_GROUP };
    uint16_t ctx[2];
    rc = cm_inter_agree(&g, root, ch, comm->rank == root ? peer_slot : -1, tag, mine, bytes, theirs, bytes, ctx, 2);
    if (rc)
        rc = cm_error(comm->handle, rc, call, "no context id is free in both groups");
    else
        rc = cm_inter_build(call, comm->handle, comm->world_of, comm->size, comm->rank, theirs, ctx, comm->errh, out);
out:
    free(ident);
    free(mine);
    free(theirs);
    return rc;
}
