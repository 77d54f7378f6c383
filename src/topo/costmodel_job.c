/* costmodel_job.c -- the job's cost model, for the library's topology
 * constructors (mpi/topo_map.c).  The machine is loaded again here, with
 * its caches: domain.h's copy leaves them out to keep MPI_Init cheap, and
 * only a reorder pays for this one. */
#include "topo/costmodel.h"
#include "topo/domain.h"

static struct cm_machine machine;
static struct cm_cost_model model;
static int state; /* 0 not tried, 1 built, -1 unavailable */

const struct cm_cost_model *cm_topo_cost_model(void)
{
    if (state == 0) {
        char err[256];
        state = -1;
        if (cm_machine_load_caches(&machine, cm_topo_machine_spec_of_job(), err, sizeof err) == 0) {
            if (cm_cost_model_build(&model, &machine) == 0) {
                cm_cost_cache_apply(&model, &machine);
                state = 1;
            }
            cm_machine_free(&machine); /* the model keeps what it needs */
        }
    }
    return state > 0 ? &model : NULL;
}
