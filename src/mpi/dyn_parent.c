/*
 * dyn_parent.c -- the children's side of a spawn (MPI_Comm_get_parent) and
 * MPI_Comm_disconnect.
 *
 * A spawned process learns from its environment (COREMPI_PARENT, set by
 * mpirun) the slot of the parents' root; its MPI_Init then meets the
 * parents over the channel (mpi/dyn.h), as the standard makes the
 * children's MPI_Init collective with the parents' MPI_Comm_spawn.
 */
#include "mpi/dyn.h"
#include "core/error.h"
#include "core/state.h"
#include "p2p/p2p.h"
#include "p2p/outq.h"
#include "shm/dyn.h"
#include "fe_proc.h"

#include <stdlib.h>
#include <string.h>

/* The parent intercommunicator, until it is freed or disconnected: the
 * object is remembered too, so that a handle reused after MPI_Comm_free
 * is not taken for it. */
static MPI_Comm parent = MPI_COMM_NULL;
static struct cm_comm *parent_obj;

int cm_dyn_init_parent(void)
{
    int root_slot = cm_config_int(COREMPI_PARENT, -1);
    if (root_slot < 0)
        return MPI_SUCCESS;
    struct cm_comm *w = cm_comm_lookup(MPI_COMM_WORLD, NULL);
    int rc = cm_dyn_bridge(w, 0, root_slot, CM_TAG_DYN_SPAWN - cm_g.world_first, "MPI_Init", &parent);
    if (rc == MPI_SUCCESS) {
        parent_obj = cm_comm_lookup(parent, NULL);
        strcpy(parent_obj->name, "MPI_COMM_PARENT"); /* the standard's default name */
    }
    return rc;
}

int cm_Comm_get_parent(MPI_Comm *out)
{
    CM_CALL_INITIALIZED("MPI_Comm_get_parent");
    if (!out)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "parent is NULL");
    if (parent != MPI_COMM_NULL && cm_comm_user_lookup(parent) != parent_obj)
        parent = MPI_COMM_NULL; /* freed by MPI_Comm_free */
    *out = parent;
    return MPI_SUCCESS;
}

static int outq_empty(void *unused)
{
    (void)unused;
    return !cm_outq_active();
}

int cm_Comm_disconnect(MPI_Comm *comm)
{
    CM_CALL_INITIALIZED("MPI_Comm_disconnect");
    CM_ARG_NOT_NULL(MPI_COMM_WORLD, comm, call);
    struct cm_comm *c = cm_comm_user_lookup(*comm);
    if (!c)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_COMM, call, "comm is %s",
                        *comm == MPI_COMM_NULL ? "MPI_COMM_NULL" : "not a valid communicator");
    if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
        return cm_error(*comm, MPI_ERR_COMM, call, "comm is %s (it cannot be disconnected)",
                        *comm == MPI_COMM_WORLD ? "MPI_COMM_WORLD" : "MPI_COMM_SELF");
    /* Pending sends leave first; the barrier then says every member of
     * both groups has reached the call, so nothing more will come. */
    cm_progress_until(outq_empty, NULL, -1, CM_CALL_Comm_disconnect, MPI_ANY_SOURCE, MPI_ANY_TAG, 0);
    if ((rc = PMPI_Barrier(*comm)) != MPI_SUCCESS)
        return rc;
    int was_parent = *comm == parent && c == parent_obj;
    if ((rc = PMPI_Comm_free(comm)) != MPI_SUCCESS)
        return rc;
    if (was_parent)
        parent = MPI_COMM_NULL;
    return MPI_SUCCESS;
}
