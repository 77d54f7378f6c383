/*
 * util.c -- the shared part of the intercommunicator collectives (see
 * util.h and inter.h).
 */
#include "coll/inter/util.h"
#include "coll/p2p.h"

#include <stdlib.h>

int cm_ic_get(MPI_Comm comm, const char *call, struct cm_ic *ic)
{
    struct cm_comm *c = cm_comm_lookup(comm, NULL);
    ic->comm = comm;
    ic->cc = cm_coll_comm(comm);
    ic->local = c->local->handle;
    ic->rank = c->rank;
    ic->size = c->size;
    ic->rsize = c->remote_size;
    ic->call = call;
    return 0;
}

int cm_ic_root(const struct cm_ic *ic, int root)
{
    if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < ic->rsize))
        return 0;
    return cm_error(ic->comm, MPI_ERR_ROOT, ic->call,
                    "invalid root %d on an intercommunicator (MPI_ROOT, MPI_PROC_NULL or a remote rank below %d)",
                    root, ic->rsize);
}

int cm_ic_no_in_place(const struct cm_ic *ic, const void *sbuf, const void *rbuf)
{
    if (sbuf == MPI_IN_PLACE || rbuf == MPI_IN_PLACE)
        return cm_error(ic->comm, MPI_ERR_BUFFER, ic->call, "MPI_IN_PLACE is not allowed on an intercommunicator");
    return 0;
}

void *cm_ic_at(const void *buf, MPI_Datatype dt, long index)
{
    return (char *)buf + index * (long)cm_dt_lookup(dt)->extent;
}

int cm_ic_swap(const struct cm_ic *ic, const struct cm_blk *s, const struct cm_blk *r)
{
    int n = ic->rsize, k = 0, rc = MPI_SUCCESS;
    MPI_Request *q = malloc(2 * (size_t)n * sizeof *q);
    if (!q)
        return MPI_ERR_NO_MEM;
    for (int j = 0; j < 2 * n; j++)
        q[j] = MPI_REQUEST_NULL;
    for (int j = 0; j < n && !rc; j++) {
        if (r)
            rc = cm_coll_irecv((void *)r[j].buf, r[j].count, r[j].dt, j, CM_INTER_TAG, ic->cc, &q[k++]);
        if (s && !rc)
            rc = cm_coll_isend(s[j].buf, s[j].count, s[j].dt, j, CM_INTER_TAG, ic->cc, &q[k++]);
    }
    int wrc = cm_coll_waitall(k, q, MPI_STATUSES_IGNORE);
    free(q);
    return rc ? rc : wrc;
}

int cm_ic_done(const struct cm_ic *ic, int rc)
{
    if (rc == MPI_SUCCESS)
        return rc;
    return cm_error(ic->comm, rc, ic->call, "collective on an intercommunicator failed (error %d)", rc);
}

int cm_inter_refuse(MPI_Comm comm, const char *call, int undefined)
{
    return cm_error(comm, MPI_ERR_COMM, call,
                    undefined ? "not defined on an intercommunicator (MPI-4.1)"
                              : "not supported on an intercommunicator by corempi yet (use the blocking form)");
}
