/* place.c -- which core each rank gets, and whether hwloc is needed at all.
 *
 * hwloc costs about a millisecond once its plugins are kept out, but nothing
 * is cheaper than not loading it: when ranks outnumber the PUs mpirun may use
 * and no binding was asked for, placement is skipped entirely.
 *
 * --map-by ppr:N:X fills object after object of kind X with N ranks each (on
 * its cores in order, wrapping); --bind-to X then binds every rank to the
 * whole of the X that holds its core. */
#include "launch/launch.h"
#include "topo/mapper.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int want_real_machine(const struct cm_launch_opts *o, int pus)
{
    if (o->bind == CM_BIND_CORE || o->bind == CM_BIND_OBJECT || o->ppr || o->nranks == 0 || o->map_auto)
        return 1;
    if (o->bind == CM_BIND_NONE)
        return 0;
    return o->nranks <= pus; /* default binding is possible only then */
}

/* Each rank's set is the whole of the object around its core. */
static int bind_to_objects(struct cm_job *job, const struct cm_launch_opts *o)
{
    struct cm_launch_objs objs;
    int rc = cm_launch_objects(job, o->topology, o->bind_obj, &objs);
    if (rc != 0)
        return rc;
    job->bind_set = calloc((size_t)job->nranks, sizeof *job->bind_set);
    job->bind_name = calloc((size_t)job->nranks, sizeof *job->bind_name);
    for (int r = 0; job->bind_set && job->bind_name && r < job->nranks; r++) {
        int i = cm_launch_object_of_core(job, &objs, job->core_of_rank[r]);
        job->bind_set[r] = hwloc_bitmap_dup(i >= 0 ? objs.sets[i] : job->machine.core_sets[job->core_of_rank[r]]);
        if (i >= 0 && asprintf(&job->bind_name[r], "%s %d", cm_launch_obj_name(o->bind_obj), objs.index[i]) < 0)
            job->bind_name[r] = NULL;
    }
    cm_launch_objects_free(&objs);
    if (!job->bind_set || !job->bind_name) {
        fprintf(stderr, "mpirun: out of memory\n");
        return 1;
    }
    return 0;
}

static int place_ranks(struct cm_job *job, const struct cm_launch_opts *o, const struct cm_comm_pattern *pattern);

/* --map-by auto:FILE's matrix must have the job's rank count (or give it). */
static int auto_pattern(const struct cm_launch_opts *o, struct cm_comm_pattern *p)
{
    if (o->ppr) {
        fprintf(stderr, "mpirun: --map-by auto and ppr:N:X cannot be combined\n");
        return 2;
    }
    int rc = cm_launch_auto_read(o->map_auto, p);
    if (rc == 0 && o->nranks && o->nranks != p->n) {
        fprintf(stderr, "mpirun: --map-by auto:%s: the matrix is for %d rank%s but -n %d was asked for; record the "
                        "program at -n %d (or give the CSV a '# ranks %d' line)\n",
                o->map_auto, p->n, p->n == 1 ? "" : "s", o->nranks, o->nranks, o->nranks);
        cm_pattern_free(p);
        return 2;
    }
    return rc;
}

int cm_launch_place(struct cm_job *job, const struct cm_launch_opts *o)
{
    struct cm_comm_pattern pattern = {0};
    int arc = o->map_auto ? auto_pattern(o, &pattern) : 0;
    if (arc != 0)
        return arc;
    int rc = place_ranks(job, o, o->map_auto ? &pattern : NULL);
    cm_pattern_free(&pattern);
    return rc;
}

static int place_ranks(struct cm_job *job, const struct cm_launch_opts *o, const struct cm_comm_pattern *pattern)
{
    char err[256];
    int (*load)(struct cm_machine *, const char *, char *, size_t) = pattern ? cm_machine_load_caches : cm_machine_load;
    int pus = cm_affinity_pu_count();
    int ncores_here = pus; /* refined below when hwloc sees the real machine */

    if (o->topology && *o->topology) {
        if (load(&job->machine, o->topology, err, sizeof err) != 0) {
            fprintf(stderr, "mpirun: %s\n", err);
            return 2;
        }
        job->have_machine = 1;
        fprintf(stderr, "mpirun: note: topology '%s' describes another machine (%d cores): "
                        "ranks are placed on it but not bound\n", o->topology, job->machine.ncores);
    } else if (want_real_machine(o, pus)) {
        if (load(&job->machine, NULL, err, sizeof err) != 0) {
            fprintf(stderr, "mpirun: cannot read the machine's topology: %s; ranks are not bound\n", err);
        } else {
            job->have_machine = 1;
            ncores_here = job->machine.ncores;
        }
    }
    if (cm_launch_cfg.verbose && job->have_machine)
        fprintf(stderr, "mpirun: hwloc topology loaded in %.3f ms (%d usable cores)\n",
                job->machine.load_ms, job->machine.ncores);

    struct cm_launch_objs ppr = {0};
    int rc;
    if (pattern && !job->have_machine) {
        fprintf(stderr, "mpirun: --map-by auto needs the machine's topology\n");
        return 2;
    }
    if (o->ppr && !job->have_machine) {
        fprintf(stderr, "mpirun: --map-by ppr:%d:%s needs the machine's topology\n", o->ppr,
                cm_launch_obj_name(o->ppr_obj));
        return 2;
    }
    if (o->ppr && (rc = cm_launch_objects(job, o->topology, o->ppr_obj, &ppr)) != 0)
        return rc;
    if (pattern && o->nranks == 0)
        job->nranks = pattern->n;
    else if (o->nranks == 0) /* like Open MPI: one rank per usable core, or N per object */
        job->nranks = o->ppr ? o->ppr * ppr.n : job->have_machine ? job->machine.ncores : pus;
    else
        job->nranks = o->nranks;
    if (o->ppr && job->nranks > o->ppr * ppr.n) {
        fprintf(stderr, "mpirun: --map-by ppr:%d:%s places at most %d ranks on %d %s%s, and %d were asked for\n",
                o->ppr, cm_launch_obj_name(o->ppr_obj), o->ppr * ppr.n, ppr.n, cm_launch_obj_name(o->ppr_obj),
                ppr.n == 1 ? "" : "s", job->nranks);
        cm_launch_objects_free(&ppr);
        return 2;
    }
    job->ncores_here = ncores_here;
    /* The universe: room for MPI_Comm_spawn.  By default generous, as
     * corempi oversubscribes gracefully: at least CM_UNIVERSE_DEFAULT slots
     * (the most that keep every ring at its full 256 KiB: shm/segment.c),
     * more with more cores or ranks (docs/spawn.md). */
    if (o->universe && o->universe < job->nranks) {
        fprintf(stderr, "mpirun: --universe-size %d is less than the %d ranks asked for\n", o->universe, job->nranks);
        cm_launch_objects_free(&ppr);
        return 2;
    }
    job->nslots = o->universe ? o->universe : ncores_here > job->nranks ? ncores_here : job->nranks;
    if (!o->universe && job->nslots < CM_UNIVERSE_DEFAULT)
        job->nslots = CM_UNIVERSE_DEFAULT;

    job->core_of_rank = malloc((size_t)job->nranks * sizeof *job->core_of_rank);
    job->pids = calloc((size_t)job->nslots, sizeof *job->pids);
    job->status = calloc((size_t)job->nslots, sizeof *job->status);
    job->world_first = calloc((size_t)job->nslots, sizeof *job->world_first);
    if (!job->core_of_rank || !job->pids || !job->status || !job->world_first) {
        fprintf(stderr, "mpirun: out of memory\n");
        cm_launch_objects_free(&ppr);
        return 1;
    }

    int place = 0;
    if (job->have_machine) {
        if (job->machine.foreign)
            place = o->bind != CM_BIND_NONE;
        else if (o->bind == CM_BIND_CORE || o->bind == CM_BIND_OBJECT)
            place = 1;
        else if (o->ppr)
            place = o->bind != CM_BIND_NONE;
        else if (o->bind == CM_BIND_DEFAULT)
            place = job->nranks <= job->machine.ncores;
    }
    job->bind = place && !job->machine.foreign;
    int nslots = job->have_machine ? job->machine.ncores : 1;
    if (nslots > job->nranks)
        nslots = job->nranks; /* a permutation of the first N cores: compact */
    for (int r = 0; r < job->nranks; r++)
        job->core_of_rank[r] = !place ? -1
                               : o->ppr ? cm_launch_core_in_object(job, &ppr, r / o->ppr, r % o->ppr)
                                        : cm_map_slot(o->map, r, nslots);
    cm_launch_objects_free(&ppr);
    if (place && pattern && (rc = cm_launch_auto_place(job, pattern)) != 0)
        return rc;
    if (!place && pattern && asprintf(&job->auto_note, "mpirun: --map-by auto: the ranks are not placed (%s), so "
                                      "there is no placement to choose\n", o->bind == CM_BIND_NONE ? "--bind-to none"
                                      : "more ranks than cores; --bind-to core places them round-robin") < 0)
        job->auto_note = NULL;
    return place && o->bind == CM_BIND_OBJECT ? bind_to_objects(job, o) : 0;
}

void cm_launch_unplace(struct cm_job *job)
{
    for (int r = 0; r < job->nranks; r++) {
        if (job->bind_set && job->bind_set[r])
            hwloc_bitmap_free(job->bind_set[r]);
        if (job->bind_name)
            free(job->bind_name[r]);
    }
    free(job->bind_set);
    free(job->bind_name);
    free(job->auto_note);
    job->auto_note = NULL;
    job->bind_set = NULL;
    job->bind_name = NULL;
    free(job->core_of_rank);
    free(job->pids);
    free(job->world_first);
    free(job->status);
    job->core_of_rank = NULL;
    job->pids = NULL;
    job->world_first = NULL;
    job->status = NULL;
    cm_machine_free(&job->machine); /* a zeroed machine (never loaded) is fine */
    job->have_machine = 0;
}
