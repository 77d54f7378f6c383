/*
 * info_comm.c -- communicator hints: MPI_Comm_set_info / MPI_Comm_get_info.
 *
 * corempi acts on no hint yet; it keeps a copy of what was set (cm_comm.info)
 * so that Comm_get_info returns it (MPI 4.0 allows returning all or only the
 * hints used).
 */
#include "core/info.h"
#include "core/comm.h"
#include "core/error.h"
#include "core/state.h"
#include "fe_comm.h"

int cm_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    CM_CALL_LOOKUP(struct cm_comm, c, "MPI_Comm_set_info", cm_comm_user_or_error, comm);
    MPI_Info copy;
    if (info == MPI_INFO_NULL)
        return cm_error(comm, MPI_ERR_INFO, call, "info is MPI_INFO_NULL");
    if ((rc = cm_info_copy(info, &copy)) == MPI_ERR_INFO)
        return cm_error(comm, MPI_ERR_INFO, call, "invalid info handle %ld", (long)(intptr_t)info);
    if (rc)
        return cm_error(comm, rc, call, "out of memory");
    cm_info_release(c->info);
    c->info = copy;
    return MPI_SUCCESS;
}

int cm_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    CM_CALL_LOOKUP(struct cm_comm, c, "MPI_Comm_get_info", cm_comm_user_or_error, comm);
    CM_ARG_NOT_NULL(comm, info_used, call);
    if ((rc = cm_info_copy(c->info, info_used)))
        return cm_error(comm, rc, call, rc == MPI_ERR_NO_MEM ? "out of memory" : "the stored hints are invalid");
    return MPI_SUCCESS;
}
