/*
 * partitioned.c -- partitioned communication (MPI-4.0): Psend_init,
 * Precv_init, Pready(_range/_list), Parrived.
 *
 * Each partition is a message of its own on the communicator's collective
 * context (never matched by user receives) under a hidden tag made of the
 * low 14 bits of the user's tag and the partition number, so Parrived sees
 * partitions as they land.  Both sides must use the same partitioning.
 * A persistent generic request: MPI_Start posts the receives (receive side)
 * or arms Pready (send side); the engine completes it when every partition
 * message is done.
 */
#include "p2p/p2p.h"
#include "p2p/check.h"
#include "p2p/coll_entry.h"
#include "p2p/outq.h"
#include "p2p/request_wait.h"
#include "core/state.h"
#include "core/comm.h"
#include "core/datatype.h"
#include "core/request.h"
#include "core/error.h"

#include <stdlib.h>

#pragma weak MPI_Psend_init = PMPI_Psend_init
#pragma weak MPI_Precv_init = PMPI_Precv_init
#pragma weak MPI_Psend_init_c = PMPI_Psend_init_c
#pragma weak MPI_Precv_init_c = PMPI_Precv_init_c
#pragma weak MPI_Pready = PMPI_Pready
#pragma weak MPI_Pready_range = PMPI_Pready_range
#pragma weak MPI_Pready_list = PMPI_Pready_list
#pragma weak MPI_Parrived = PMPI_Parrived

#define MAX_PARTITIONS 65536

struct part {
    int send;
    char *buf;
    int partitions, count;
    MPI_Datatype dt;
    size_t stride;              /* bytes between partitions: count * extent */
    int peer, tag;
    MPI_Comm comm;
    MPI_Request *reqs;          /* per partition; MPI_REQUEST_NULL: not started / retired */
    int ndone;
};

static int hidden_tag(const struct part *p, int i)
{
    return (1 << 30) | ((p->tag & 0x3fff) << 16) | i;
}

static int part_poll(void *state)
{
    struct part *p = state;
    for (int i = 0; i < p->partitions; i++) {
        struct cm_request *q = p->reqs[i] == MPI_REQUEST_NULL ? NULL : cm_request_get(p->reqs[i]);
        if (q && q->complete) {
            cm_request_release(q);
            p->reqs[i] = MPI_REQUEST_NULL;
            p->ndone++;
        }
    }
    return p->ndone == p->partitions;
}

static void part_destroy(void *state)
{
    struct part *p = state;
    free(p->reqs);
    free(p);
}

static int part_start(struct cm_request *r, const char *call)
{
    struct part *p = r->state;
    if (r->active)
        return cm_error(p->comm, MPI_ERR_REQUEST, call, "partitioned request %ld is already active",
                        (long)(intptr_t)cm_req_handle(r->hindex));
    r->active = 1;
    r->complete = 0;
    p->ndone = 0;
    for (int i = 0; i < p->partitions; i++)
        p->reqs[i] = MPI_REQUEST_NULL;
    if (!p->send)
        for (int i = 0; i < p->partitions; i++)
            cm_p2p_irecv(p->buf + i * p->stride, p->count, p->dt, p->peer, hidden_tag(p, i), cm_coll_comm(p->comm),
                         &p->reqs[i], CM_CALL_Precv_init);
    if (part_poll(p))
        r->complete = 1;
    else
        cm_progress_add_generic(r);
    return MPI_SUCCESS;
}

static int part_init(int send, const void *buf, int partitions, MPI_Count count, MPI_Datatype dt, int peer, int tag,
                     MPI_Comm comm, MPI_Request *request, const char *call)
{
    int rc = cm_check_request_ptr(call, request);
    if (rc)
        return rc;
    if (partitions < 1 || partitions > MAX_PARTITIONS)
        return cm_error(comm, MPI_ERR_ARG, call, "partitions is %d (1..%d)", partitions, MAX_PARTITIONS);
    if (count < 0 || count > 0x7fffffff / partitions)
        return cm_error(comm, MPI_ERR_COUNT, call, "count %lld per partition", (long long)count);
    rc = cm_p2p_check(call, buf, (int)count * partitions, dt, peer, send ? CM_PEER_DEST : CM_PEER_SOURCE, tag, comm);
    if (rc)
        return rc;
    if (tag == MPI_ANY_TAG || peer == MPI_ANY_SOURCE)
        return cm_error(comm, MPI_ERR_ARG, call, "wildcards are not allowed in partitioned communication");
    struct part *p = calloc(1, sizeof *p);
    if (!p || !(p->reqs = calloc((size_t)partitions, sizeof *p->reqs))) {
        free(p);
        return cm_error(comm, MPI_ERR_NO_MEM, call, "out of memory");
    }
    for (int i = 0; i < partitions; i++)
        p->reqs[i] = MPI_REQUEST_NULL; /* not calloc's 0: no handle is 0 in the standard ABI */
    struct cm_datatype *t = cm_dt_lookup(dt);
    p->send = send;
    p->buf = (char *)buf;
    p->partitions = partitions;
    p->count = (int)count;
    p->dt = dt;
    p->stride = (size_t)count * (size_t)t->extent;
    p->peer = peer;
    p->tag = tag;
    p->comm = comm;
    struct cm_request *r = cm_request_generic_new(part_poll, part_destroy, p);
    r->persistent = 1;
    r->complete = 1;
    r->start = part_start;
    r->comm = comm;
    *request = cm_request_handle(r);
    return MPI_SUCCESS;
}

/* The int binding takes an int count (the standard's and the ABI's
 * signature); the _c binding an MPI_Count.  Both share part_init, whose
 * limit (partitions * count <= INT_MAX elements) names the count. */
int PMPI_Psend_init(const void *buf, int partitions, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    CM_ENTER(Psend_init);
    (void)info;
    return part_init(1, buf, partitions, count, datatype, dest, tag, comm, request, "MPI_Psend_init");
}

int PMPI_Precv_init(void *buf, int partitions, int count, MPI_Datatype datatype, int source, int tag,
                    MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    CM_ENTER(Precv_init);
    (void)info;
    return part_init(0, buf, partitions, count, datatype, source, tag, comm, request, "MPI_Precv_init");
}

int PMPI_Psend_init_c(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    CM_ENTER(Psend_init_c);
    (void)info;
    return part_init(1, buf, partitions, count, datatype, dest, tag, comm, request, "MPI_Psend_init_c");
}

int PMPI_Precv_init_c(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                      MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    CM_ENTER(Precv_init_c);
    (void)info;
    return part_init(0, buf, partitions, count, datatype, source, tag, comm, request, "MPI_Precv_init_c");
}

/* The partitioned request behind h, active and of the wanted side. */
static struct part *get_part(MPI_Request h, int send, const char *call, int *rc)
{
    struct cm_request *r = cm_request_get(h);
    *rc = MPI_SUCCESS;
    if (!r || r->start != part_start || ((struct part *)r->state)->send != send)
        *rc = cm_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, call, "request %ld is not a partitioned %s request", (long)(intptr_t)h,
                       send ? "send" : "receive");
    else if (!r->active)
        *rc = cm_error(r->comm, MPI_ERR_REQUEST, call, "partitioned request %ld is not started", (long)(intptr_t)h);
    return *rc ? NULL : r->state;
}

static int ready(struct part *p, int i, const char *call)
{
    if (i < 0 || i >= p->partitions)
        return cm_error(p->comm, MPI_ERR_ARG, call, "partition %d out of range 0..%d", i, p->partitions - 1);
    if (p->reqs[i] != MPI_REQUEST_NULL)
        return cm_error(p->comm, MPI_ERR_ARG, call, "partition %d is already ready", i);
    return cm_p2p_isend(p->buf + i * p->stride, p->count, p->dt, p->peer, hidden_tag(p, i), cm_coll_comm(p->comm),
                        &p->reqs[i], CM_CALL_Pready);
}

int PMPI_Pready(int partition, MPI_Request request)
{
    CM_ENTER(Pready);
    int rc;
    struct part *p = get_part(request, 1, "MPI_Pready", &rc);
    return p ? ready(p, partition, "MPI_Pready") : rc;
}

int PMPI_Pready_range(int partition_low, int partition_high, MPI_Request request)
{
    CM_ENTER(Pready_range);
    int rc;
    struct part *p = get_part(request, 1, "MPI_Pready_range", &rc);
    for (int i = partition_low; p && !rc && i <= partition_high; i++)
        rc = ready(p, i, "MPI_Pready_range");
    return rc;
}

int PMPI_Pready_list(int length, const int array_of_partitions[], MPI_Request request)
{
    CM_ENTER(Pready_list);
    int rc;
    struct part *p = get_part(request, 1, "MPI_Pready_list", &rc);
    if (p && length > 0 && !array_of_partitions)
        return cm_error(p->comm, MPI_ERR_ARG, "MPI_Pready_list", "array_of_partitions is NULL");
    for (int i = 0; p && !rc && i < length; i++)
        rc = ready(p, array_of_partitions[i], "MPI_Pready_list");
    return rc;
}

int PMPI_Parrived(MPI_Request request, int partition, int *flag)
{
    CM_ENTER(Parrived);
    int rc;
    struct part *p = get_part(request, 0, "MPI_Parrived", &rc);
    if (!p)
        return rc;
    if (partition < 0 || partition >= p->partitions)
        return cm_error(p->comm, MPI_ERR_ARG, "MPI_Parrived", "partition %d out of range 0..%d", partition,
                        p->partitions - 1);
    if (!flag)
        return cm_error(p->comm, MPI_ERR_ARG, "MPI_Parrived", "flag is NULL");
    cm_progress(-1);
    struct cm_request *q = p->reqs[partition] == MPI_REQUEST_NULL ? NULL : cm_request_get(p->reqs[partition]);
    *flag = !q || q->complete;
    return MPI_SUCCESS;
}
