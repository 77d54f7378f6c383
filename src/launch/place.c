/* place.c -- which core each rank gets, and whether hwloc is needed at all.
 *
 * hwloc costs about a millisecond once its plugins are kept out, but nothing
 * is cheaper than not loading it: when ranks outnumber the PUs mpirun may use
 * and no binding was asked for, placement is skipped entirely. */
#include "launch/launch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int want_real_machine(const struct cm_launch_opts *o, int pus)
{
    if (o->bind == CM_BIND_CORE || o->nranks == 0)
        return 1;
    if (o->bind == CM_BIND_NONE)
        return 0;
    return o->nranks <= pus; /* default binding is possible only then */
}

int cm_launch_place(struct cm_job *job, const struct cm_launch_opts *o)
{
    char err[256];
    int pus = cm_affinity_pu_count();
    int ncores_here = pus; /* refined below when hwloc sees the real machine */

    if (o->topology && *o->topology) {
        if (cm_machine_load(&job->machine, o->topology, err, sizeof err) != 0) {
            fprintf(stderr, "mpirun: %s\n", err);
            return 2;
        }
        job->have_machine = 1;
        fprintf(stderr, "mpirun: note: topology '%s' describes another machine (%d cores): "
                        "ranks are placed on it but not bound\n", o->topology, job->machine.ncores);
    } else if (want_real_machine(o, pus)) {
        if (cm_machine_load(&job->machine, NULL, err, sizeof err) != 0) {
            fprintf(stderr, "mpirun: cannot read the machine's topology: %s; ranks are not bound\n", err);
        } else {
            job->have_machine = 1;
            ncores_here = job->machine.ncores;
        }
    }
    if (getenv("COREMPI_LAUNCH_VERBOSE") && job->have_machine)
        fprintf(stderr, "mpirun: hwloc topology loaded in %.3f ms (%d usable cores)\n",
                job->machine.load_ms, job->machine.ncores);

    if (o->nranks == 0) /* like Open MPI: one rank per usable core */
        job->nranks = job->have_machine ? job->machine.ncores : pus;
    else
        job->nranks = o->nranks;
    job->ncores_here = ncores_here;

    job->core_of_rank = malloc((size_t)job->nranks * sizeof *job->core_of_rank);
    job->pids = calloc((size_t)job->nranks, sizeof *job->pids);
    job->status = calloc((size_t)job->nranks, sizeof *job->status);
    if (!job->core_of_rank || !job->pids || !job->status) {
        fprintf(stderr, "mpirun: out of memory\n");
        return 1;
    }

    int place = 0;
    if (job->have_machine) {
        if (job->machine.foreign)
            place = o->bind != CM_BIND_NONE;
        else if (o->bind == CM_BIND_CORE)
            place = 1;
        else if (o->bind == CM_BIND_DEFAULT)
            place = job->nranks <= job->machine.ncores;
    }
    job->bind = place && !job->machine.foreign;
    int nslots = job->have_machine ? job->machine.ncores : 1;
    if (nslots > job->nranks)
        nslots = job->nranks; /* a permutation of the first N cores: compact */
    for (int r = 0; r < job->nranks; r++)
        job->core_of_rank[r] = place ? cm_map_slot(o->map, r, nslots) : -1;
    return 0;
}

void cm_launch_unplace(struct cm_job *job)
{
    free(job->core_of_rank);
    free(job->pids);
    free(job->status);
    job->core_of_rank = NULL;
    job->pids = NULL;
    job->status = NULL;
    cm_machine_free(&job->machine); /* a zeroed machine (never loaded) is fine */
    job->have_machine = 0;
}
