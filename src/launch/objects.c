/* objects.c -- the cores, L3 caches, NUMA nodes and packages that
 * --map-by ppr:N:X and --bind-to X name, each as the set of usable cores
 * under it.
 *
 * topo/machine.c keeps caches out of the machine it loads (start-up cost),
 * so an L3 question loads the same description once more with L3 caches
 * kept; cpusets are OS indices and compare across the two loads.  Only a
 * job that asks pays for it. */
#include "launch/launch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const kind_names[] = {"core", "l3cache", "numa", "package"};
static const hwloc_obj_type_t kind_types[] = {HWLOC_OBJ_CORE, HWLOC_OBJ_L3CACHE, HWLOC_OBJ_NUMANODE,
                                              HWLOC_OBJ_PACKAGE};

const char *cm_launch_obj_name(enum cm_obj_kind kind)
{
    return kind_names[kind];
}

/* A second load that keeps L3 caches; the same spec as the machine's. */
static int load_with_l3(hwloc_topology_t *topo, const char *spec, char *err, size_t errlen)
{
    int own_path = getenv("HWLOC_PLUGINS_PATH") == NULL; /* no plugins: as fast as machine.c */
    if (own_path)
        setenv("HWLOC_PLUGINS_PATH", "/nonexistent/corempi-no-hwloc-plugins", 1);
    int rc = hwloc_topology_init(topo);
    if (own_path)
        unsetenv("HWLOC_PLUGINS_PATH");
    if (rc != 0) {
        snprintf(err, errlen, "hwloc_topology_init failed");
        return -1;
    }
    hwloc_topology_set_all_types_filter(*topo, HWLOC_TYPE_FILTER_KEEP_NONE);
    hwloc_topology_set_type_filter(*topo, HWLOC_OBJ_L3CACHE, HWLOC_TYPE_FILTER_KEEP_ALL);
    hwloc_topology_set_type_filter(*topo, HWLOC_OBJ_PACKAGE, HWLOC_TYPE_FILTER_KEEP_ALL);
    hwloc_topology_set_type_filter(*topo, HWLOC_OBJ_CORE, HWLOC_TYPE_FILTER_KEEP_ALL);
    if (spec && *spec)
        rc = access(spec, R_OK) == 0 ? hwloc_topology_set_xml(*topo, spec) : hwloc_topology_set_synthetic(*topo, spec);
    if (rc == 0)
        rc = hwloc_topology_load(*topo);
    if (rc != 0) {
        hwloc_topology_destroy(*topo);
        snprintf(err, errlen, "cannot load the topology again with its L3 caches");
        return -1;
    }
    return 0;
}

/* The usable cores' PUs: what every object's set is cut down to. */
static hwloc_bitmap_t usable_pus(const struct cm_machine *m)
{
    hwloc_bitmap_t all = hwloc_bitmap_alloc();
    for (int c = 0; c < m->ncores; c++)
        hwloc_bitmap_or(all, all, m->core_sets[c]);
    return all;
}

int cm_launch_objects(const struct cm_job *job, const char *spec, enum cm_obj_kind kind, struct cm_launch_objs *out)
{
    char err[200];
    memset(out, 0, sizeof *out);
    out->kind = kind;
    hwloc_topology_t topo = job->machine.topo, own = NULL;
    if (kind == CM_OBJ_L3CACHE) {
        if (load_with_l3(&own, job->machine.foreign ? spec : NULL, err, sizeof err) != 0) {
            fprintf(stderr, "mpirun: %s: %s\n", kind_names[kind], err);
            return 2;
        }
        topo = own;
    }
    hwloc_bitmap_t usable = usable_pus(&job->machine);
    int nobj = hwloc_get_nbobjs_by_type(topo, kind_types[kind]);
    out->sets = calloc((size_t)(nobj > 0 ? nobj : 1), sizeof *out->sets);
    out->index = calloc((size_t)(nobj > 0 ? nobj : 1), sizeof *out->index);
    for (int i = 0; out->sets && out->index && i < nobj; i++) {
        hwloc_obj_t obj = hwloc_get_obj_by_type(topo, kind_types[kind], (unsigned)i);
        if (!obj->cpuset || !hwloc_bitmap_intersects(obj->cpuset, usable))
            continue; /* none of its cores may be used */
        out->sets[out->n] = hwloc_bitmap_alloc();
        hwloc_bitmap_and(out->sets[out->n], obj->cpuset, usable);
        out->index[out->n++] = (int)obj->logical_index;
    }
    hwloc_bitmap_free(usable);
    if (own)
        hwloc_topology_destroy(own);
    if (!out->sets || !out->index) {
        fprintf(stderr, "mpirun: out of memory\n");
        return 1;
    }
    if (out->n == 0) {
        fprintf(stderr, "mpirun: the machine has no %s with a usable core (hwloc finds none): "
                        "use another object, or core\n", kind_names[kind]);
        return 2;
    }
    return 0;
}

void cm_launch_objects_free(struct cm_launch_objs *objs)
{
    for (int i = 0; i < objs->n; i++)
        hwloc_bitmap_free(objs->sets[i]);
    free(objs->sets);
    free(objs->index);
    memset(objs, 0, sizeof *objs);
}

int cm_launch_object_of_core(const struct cm_job *job, const struct cm_launch_objs *objs, int core)
{
    for (int i = 0; i < objs->n; i++)
        if (hwloc_bitmap_isincluded(job->machine.core_sets[core], objs->sets[i]))
            return i;
    return -1;
}

/* The k-th usable core inside object i, k wrapping over its cores. */
int cm_launch_core_in_object(const struct cm_job *job, const struct cm_launch_objs *objs, int i, int k)
{
    int count = 0;
    for (int c = 0; c < job->machine.ncores; c++)
        count += hwloc_bitmap_isincluded(job->machine.core_sets[c], objs->sets[i]);
    if (count == 0)
        return -1;
    k %= count;
    for (int c = 0; c < job->machine.ncores; c++)
        if (hwloc_bitmap_isincluded(job->machine.core_sets[c], objs->sets[i]) && k-- == 0)
            return c;
    return -1;
}

void cm_launch_set_map(const struct cm_machine *m, hwloc_const_cpuset_t set, char *buf, size_t len)
{
    /* Like cm_machine_core_map, but every core of set is marked. */
    size_t at = 0;
    hwloc_obj_t pkg_seen = NULL;
    for (int c = 0; c < m->ncores && at + 4 < len; c++) {
        hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(m->topo, HWLOC_OBJ_PACKAGE, m->cores[c]);
        buf[at++] = c == 0 ? '[' : pkg != pkg_seen ? ']' : '/';
        if (c > 0 && pkg != pkg_seen)
            buf[at++] = '[';
        pkg_seen = pkg;
        char mark = hwloc_bitmap_isincluded(m->core_sets[c], set) ? 'B' : '.';
        for (int p = hwloc_bitmap_weight(m->core_sets[c]); p > 0 && at + 3 < len; p--)
            buf[at++] = mark;
    }
    if (at + 1 < len)
        buf[at++] = ']';
    buf[at < len ? at : len - 1] = '\0';
}
