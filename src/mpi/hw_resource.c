/*
 * hw_resource.c -- MPI_Get_hw_resource_info (MPI-4.1): what of the machine
 * this process is restricted to, as an info object the caller frees.
 *
 * Keys (values are strings, as every info value):
 *   mpi_hw_resource_type   the smallest hardware object holding the process:
 *                          "Core" when mpirun bound it to one, else "Machine"
 *                          (the same hwloc type names Comm_split_type takes);
 *   corempi_core           the hwloc logical index of that core;
 *   corempi_package, corempi_numa, corempi_l3cache
 *                          the index of the domain of that level holding it
 *                          (absent where the machine has no such level).
 * A process that was not bound (mpirun --bind-to none, or a singleton) gets
 * only mpi_hw_resource_type = Machine.
 */
#include "core/error.h"
#include "core/state.h"
#include "shm/segment.h"
#include "topo/domain.h"
#include "fe_env.h"

#include <stdio.h>
#include <stdlib.h>

static int set_index(MPI_Info info, const char *key, int value)
{
    char text[16];
    snprintf(text, sizeof text, "%d", value);
    return PMPI_Info_set(info, key, text);
}

int cm_Get_hw_resource_info(MPI_Info *hw_info)
{
    CM_CALL_INITIALIZED("MPI_Get_hw_resource_info");
    CM_ARG_NOT_NULL(MPI_COMM_WORLD, hw_info, call);
    MPI_Info info;
    if ((rc = PMPI_Info_create(&info)) != MPI_SUCCESS)
        return rc;
    int core = cm_g.self_ctl ? cm_g.self_ctl->bound_core : -1;
    rc = PMPI_Info_set(info, "mpi_hw_resource_type", core >= 0 ? "Core" : "Machine");
    if (core >= 0 && rc == MPI_SUCCESS) {
        rc = set_index(info, "corempi_core", core);
        static const struct { enum cm_topo_level level; const char *key; } levels[] = {
            { CM_TOPO_PACKAGE, "corempi_package" }, { CM_TOPO_NUMA, "corempi_numa" }, { CM_TOPO_L3, "corempi_l3cache" },
        };
        int machine = cm_topo_machine_ready() == 0;
        for (size_t i = 0; machine && rc == MPI_SUCCESS && i < sizeof levels / sizeof levels[0]; i++) {
            int d = cm_topo_domain_of_core(levels[i].level, core);
            if (d >= 0)
                rc = set_index(info, levels[i].key, d);
        }
    }
    if (rc != MPI_SUCCESS) {
        PMPI_Info_free(&info);
        return rc;
    }
    *hw_info = info;
    return MPI_SUCCESS;
}
