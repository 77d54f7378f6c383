/* check.c -- argument checks of point-to-point calls (see check.h). */
#include "p2p/check.h"
#include "core/comm.h"
#include "core/datatype.h"
#include "core/error.h"
#include "core/state.h"

int cm_p2p_check(const char *call, const void *buf, int count, MPI_Datatype dt, int peer,
                 enum cm_peer_role role, int tag, MPI_Comm comm)
{
    cm_check_initialized(call);
    struct cm_comm *c = cm_comm_lookup(comm, NULL);
    if (!c) {
        if (comm == MPI_COMM_NULL)
            return cm_error(MPI_COMM_WORLD, MPI_ERR_COMM, call, "communicator is MPI_COMM_NULL");
        return cm_error(MPI_COMM_WORLD, MPI_ERR_COMM, call, "invalid communicator %ld", (long)(intptr_t)comm);
    }
    if (count < 0)
        return cm_error(comm, MPI_ERR_COUNT, call, "negative count %d", count);
    /* Boundary ranks of a stencil post empty transfers to MPI_PROC_NULL with
     * MPI_DATATYPE_NULL; nothing is read or written, and both Open MPI and
     * MPICH accept it. */
    int empty_null = count == 0 && dt == MPI_DATATYPE_NULL && peer == MPI_PROC_NULL;
    int rc = empty_null ? MPI_SUCCESS : cm_dt_check(comm, dt, call, "datatype");
    if (rc || (rc = cm_dt_check_bytes(comm, count, dt, call, "count")))
        return rc;
    if (!empty_null && (rc = cm_dt_bottom_check(comm, call, "buffer", buf, count, cm_dt_lookup(dt))))
        return rc;
    const char *what = role == CM_PEER_DEST ? "destination" : "source";
    if (peer != MPI_PROC_NULL && !(role == CM_PEER_SOURCE && peer == MPI_ANY_SOURCE) &&
        (peer < 0 || peer >= c->peer_size))
        return cm_error(comm, MPI_ERR_RANK, call, "invalid %s %d (%s size %d)", what, peer,
                        c->remote_size ? "remote group" : "communicator", c->peer_size);
    if (tag != MPI_ANY_TAG || role == CM_PEER_DEST) {
        if (tag < 0 || tag > CM_TAG_UB) {
            if (role == CM_PEER_DEST)
                return cm_error(comm, MPI_ERR_TAG, call, "invalid tag %d (must be 0..%d)", tag, CM_TAG_UB);
            return cm_error(comm, MPI_ERR_TAG, call, "invalid tag %d (must be 0..%d or MPI_ANY_TAG)", tag, CM_TAG_UB);
        }
    }
    return MPI_SUCCESS;
}

int cm_p2p_check_envelope(const char *call, int peer, enum cm_peer_role role, int tag, MPI_Comm comm)
{
    /* (void *)1: a buffer no check reads (count 0), not MPI_BOTTOM */
    return cm_p2p_check(call, (void *)1, 0, MPI_BYTE, peer, role, tag, comm);
}

int cm_request_ptr_null(const char *call)
{
    return cm_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, call, "request pointer is NULL");
}
