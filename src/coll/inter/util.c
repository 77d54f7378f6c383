/*
 * util.c -- the shared part of the intercommunicator collectives (see
 * util.h and inter.h).
 */
#include "coll/inter/util.h"
#include "coll/p2p.h"
#include "coll/nbc.h"

#include <stdlib.h>
#include <string.h>

/* Per thread: under MPI_THREAD_MULTIPLE two threads may run collectives on
 * two intercommunicators at once, each between its begin and its end. */
static CM_THREAD_LOCAL struct cm_nbc *pending;
static CM_THREAD_LOCAL const char *pending_call;
/* The pending schedule's word (coll/nbc.c, "argument agreement"): the
 * collective, the op, the root as the root's group numbers it (the root
 * names itself MPI_ROOT, the other group names its rank there; its own
 * group's MPI_PROC_NULL ranks take no part) and, per message, the class of
 * the data it moves (cm_nbc_classes: the two groups name their own types,
 * which need not be alike within a rank), no bytes: each message's size is
 * compared with what its receive posted, within a group and between the
 * groups. */
static CM_THREAD_LOCAL struct cm_direct_nbc_args pending_args;
static CM_THREAD_LOCAL int pending_root;

/* The collective of a blocking function's name (cm_ic_get's call). */
static unsigned coll_of(const char *blocking_call)
{
    unsigned i = 0;
    while (i < CM_COLL_NUM && strcmp(cm_coll_call_name(i), blocking_call))
        i++;
    return i;
}

static void pending_word(MPI_Comm comm, const char *blocking_call, MPI_Op op)
{
    unsigned coll = blocking_call ? coll_of(blocking_call) : (pending_args.word & 31u) - 1;
    if (coll >= CM_COLL_NUM)
        return;
    pending_args = (struct cm_direct_nbc_args){ cm_direct_word_of(coll, 0, pending_root, op), 0, comm, pending_call };
    cm_nbc_word(pending, &pending_args);
}

/* A blocking form's schedule: wanted (blocking_begin) until the body asks
 * for its communicator, then running until blocking_end. */
static CM_THREAD_LOCAL int blocking_want, blocking_run;

void cm_inter_blocking_begin(void) { blocking_want = 1; }

int cm_inter_blocking_end(MPI_Comm comm, int rc)
{
    MPI_Request req = MPI_REQUEST_NULL;
    blocking_want = 0;
    if (!blocking_run)
        return rc;
    blocking_run = 0;
    rc = cm_inter_nb_end(comm, &req, rc);
    return rc ? rc : cm_coll_wait(&req, MPI_STATUS_IGNORE);
}

void cm_inter_nb_begin(MPI_Comm comm, const char *call)
{
    blocking_want = 0;
    pending = cm_nbc_new(cm_coll_comm(comm));
    pending_call = call;
    pending_root = -1;
    if (pending)
        cm_nbc_classes(pending);
}

int cm_inter_nb_end(MPI_Comm comm, MPI_Request *request, int rc)
{
    struct cm_nbc *s = pending;
    pending = NULL;
    if (!s)
        return cm_error(comm, MPI_ERR_NO_MEM, pending_call, "out of memory");
    if (!rc && !request)
        rc = cm_error(comm, MPI_ERR_REQUEST, pending_call, "request pointer is NULL");
    if (rc) {
        cm_nbc_free(s);
        return rc;
    }
    rc = cm_nbc_start(s, request);
    return rc ? cm_error(comm, rc, pending_call, "out of memory") : MPI_SUCCESS;
}

int cm_ic_get(MPI_Comm comm, const char *call, struct cm_ic *ic)
{
    struct cm_comm *c = cm_comm_lookup(comm, NULL);
    if (blocking_want && !pending) {
        cm_inter_nb_begin(comm, call);
        blocking_run = pending != NULL;   /* else the body runs blocking, wordless */
    }
    ic->nbc = pending;
    if (pending) {
        pending_word(comm, call, MPI_OP_NULL);
        call = pending_call;
        cm_nbc_use(pending, cm_coll_comm(comm));
    }
    ic->comm = comm;
    ic->cc = cm_coll_comm(comm);
    ic->local = c->local->handle;
    ic->rank = c->rank;
    ic->size = c->size;
    ic->rsize = c->remote_size;
    ic->call = call;
    return 0;
}

void cm_ic_op(const struct cm_ic *ic, MPI_Op op)
{
    if (ic->nbc)
        pending_word(ic->comm, NULL, op);
}

int cm_ic_rooted(MPI_Comm comm, const char *call, int root, struct cm_ic *ic, int *rc)
{
    if ((*rc = cm_ic_get(comm, call, ic)) || (*rc = cm_ic_root(ic, root)))
        return 1;
    return root == MPI_PROC_NULL;
}

int cm_ic_root(const struct cm_ic *ic, int root)
{
    if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < ic->rsize)) {
        if (ic->nbc && root != MPI_PROC_NULL) {
            pending_root = root == MPI_ROOT ? ic->rank : root;
            pending_word(ic->comm, NULL, MPI_OP_NULL);
        }
        return 0;
    }
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
    if (ic->nbc) {
        for (int j = 0; j < n; j++) {
            if (r)
                cm_nbc_recv(ic->nbc, (void *)r[j].buf, r[j].count, r[j].dt, j);
            if (s)
                cm_nbc_send(ic->nbc, s[j].buf, s[j].count, s[j].dt, j);
        }
        return cm_nbc_round(ic->nbc);
    }
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

int cm_ic_send(const struct cm_ic *ic, const void *buf, int count, MPI_Datatype dt, int peer)
{
    if (!ic->nbc)
        return cm_coll_send(buf, count, dt, peer, CM_INTER_TAG, ic->cc);
    cm_nbc_send(ic->nbc, buf, count, dt, peer);
    return cm_nbc_round(ic->nbc);
}

int cm_ic_recv(const struct cm_ic *ic, void *buf, int count, MPI_Datatype dt, int peer)
{
    if (!ic->nbc)
        return cm_coll_recv(buf, count, dt, peer, CM_INTER_TAG, ic->cc, MPI_STATUS_IGNORE);
    cm_nbc_recv(ic->nbc, buf, count, dt, peer);
    return cm_nbc_round(ic->nbc);
}

/* With the other group's rank 0. */
int cm_ic_sendrecv(const struct cm_ic *ic, const void *sbuf, void *rbuf, int count, MPI_Datatype dt)
{
    if (!ic->nbc)
        return cm_coll_sendrecv(sbuf, count, dt, 0, CM_INTER_TAG, rbuf, count, dt, 0, CM_INTER_TAG, ic->cc,
                                MPI_STATUS_IGNORE);
    cm_nbc_recv(ic->nbc, rbuf, count, dt, 0);
    cm_nbc_send(ic->nbc, sbuf, count, dt, 0);
    return cm_nbc_round(ic->nbc);
}

int cm_ic_copy(const struct cm_ic *ic, const void *src, void *dst, int count, MPI_Datatype dt)
{
    if (!ic->nbc)
        return cm_coll_copy(src, count, dt, dst, count, dt, ic->local);
    cm_nbc_copy(ic->nbc, src, count, dt, dst, count, dt);
    return cm_nbc_round(ic->nbc);
}

/* The local group's part: the ordinary collective on the hidden local
 * communicator, or its schedule builder over the local twin. */
#define LOCAL_STEP(ic, blocking, build)                          \
    do {                                                         \
        if (!(ic)->nbc)                                          \
            return blocking;                                     \
        MPI_Comm lc_ = cm_coll_comm((ic)->local);                \
        cm_nbc_round((ic)->nbc);                                 \
        cm_nbc_use((ic)->nbc, lc_);                              \
        int rc_ = build;                                         \
        cm_nbc_round((ic)->nbc);                                 \
        cm_nbc_use((ic)->nbc, (ic)->cc);                         \
        return rc_;                                              \
    } while (0)

int cm_ic_local_barrier(const struct cm_ic *ic)
{
    LOCAL_STEP(ic, PMPI_Barrier(ic->local), cm_nbc_build_barrier(ic->nbc, lc_));
}

int cm_ic_local_bcast(const struct cm_ic *ic, void *buf, int count, MPI_Datatype dt)
{
    LOCAL_STEP(ic, PMPI_Bcast(buf, count, dt, 0, ic->local), cm_nbc_build_bcast(ic->nbc, buf, count, dt, 0, lc_));
}

int cm_ic_local_reduce(const struct cm_ic *ic, const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op)
{
    LOCAL_STEP(ic, PMPI_Reduce(sbuf, rbuf, count, dt, op, 0, ic->local),
               cm_nbc_build_reduce(ic->nbc, sbuf, rbuf, count, dt, op, 0, lc_));
}

int cm_ic_local_scatter(const struct cm_ic *ic, const void *sbuf, const int *counts, const int *displs, int count,
                        void *rbuf, MPI_Datatype dt)
{
    int mine = counts ? counts[ic->rank] : count;
    struct cm_nbc_blocks b = { counts, displs, count };
    LOCAL_STEP(ic,
               counts ? PMPI_Scatterv(sbuf, counts, displs, dt, rbuf, mine, dt, 0, ic->local)
                      : PMPI_Scatter(sbuf, count, dt, rbuf, count, dt, 0, ic->local),
               cm_nbc_build_scatterv(ic->nbc, sbuf, &b, dt, rbuf, mine, dt, 0, lc_));
}

void *cm_ic_tmp(const struct cm_ic *ic, MPI_Datatype dt, int count, void **block)
{
    *block = NULL;
    return ic->nbc ? cm_nbc_scratch(ic->nbc, dt, count) : cm_coll_tmp(dt, count, block);
}

int cm_ic_done(const struct cm_ic *ic, int rc)
{
    if (rc == MPI_SUCCESS)
        return rc;
    return cm_error(ic->comm, rc, ic->call, "collective on an intercommunicator failed (error %d)", rc);
}

int cm_inter_refuse(MPI_Comm comm, const char *call)
{
    return cm_error(comm, MPI_ERR_COMM, call, "not defined on an intercommunicator (MPI-4.1)");
}
