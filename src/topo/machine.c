/* machine.c -- loads the usable cores with hwloc, binds, and names cores. */
#include "topo/machine.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int cm_affinity_pu_count(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 1;
    int n = CPU_COUNT(&set);
    return n > 0 ? n : 1;
}

/* hwloc reads HWLOC_PLUGINS_PATH in hwloc_topology_init: point it nowhere
 * for that call only, unless the user chose plugins on purpose. */
static int init_without_plugins(hwloc_topology_t *topo)
{
    const char *user = getenv("HWLOC_PLUGINS_PATH");
    if (user)
        return hwloc_topology_init(topo);
    setenv("HWLOC_PLUGINS_PATH", "/nonexistent/corempi-no-hwloc-plugins", 1);
    int rc = hwloc_topology_init(topo);
    unsetenv("HWLOC_PLUGINS_PATH");
    return rc;
}

static void keep_only_cpu_structure(hwloc_topology_t topo, int caches)
{
    hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
    hwloc_topology_set_cache_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
    hwloc_topology_set_icache_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
    hwloc_topology_set_type_filter(topo, HWLOC_OBJ_MISC, HWLOC_TYPE_FILTER_KEEP_NONE);
    hwloc_topology_set_type_filter(topo, HWLOC_OBJ_GROUP, HWLOC_TYPE_FILTER_KEEP_NONE);
    if (caches) { /* the cost model's levels (costmodel.h): L2, L3 groups, and the
                   * groups that hold NUMA nodes with no package around them */
        hwloc_topology_set_type_filter(topo, HWLOC_OBJ_L2CACHE, HWLOC_TYPE_FILTER_KEEP_ALL);
        hwloc_topology_set_type_filter(topo, HWLOC_OBJ_L3CACHE, HWLOC_TYPE_FILTER_KEEP_ALL);
        hwloc_topology_set_type_filter(topo, HWLOC_OBJ_GROUP, HWLOC_TYPE_FILTER_KEEP_STRUCTURE);
    }
}

static int select_usable_cores(struct cm_machine *m, char *err, size_t errlen)
{
    hwloc_topology_t topo = m->topo;
    hwloc_cpuset_t allowed = hwloc_bitmap_alloc();
    if (m->foreign || hwloc_get_cpubind(topo, allowed, HWLOC_CPUBIND_PROCESS) != 0)
        hwloc_bitmap_copy(allowed, hwloc_topology_get_allowed_cpuset(topo));
    else
        hwloc_bitmap_and(allowed, allowed, hwloc_topology_get_allowed_cpuset(topo));

    /* Machines where hwloc finds no core objects still have PUs. */
    hwloc_obj_type_t type = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
    int total = hwloc_get_nbobjs_by_type(topo, type);
    m->cores = calloc((size_t)total + 1, sizeof *m->cores);
    m->core_sets = calloc((size_t)total + 1, sizeof *m->core_sets);
    if (!m->cores || !m->core_sets) {
        hwloc_bitmap_free(allowed);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int i = 0; i < total; i++) {
        hwloc_obj_t core = hwloc_get_obj_by_type(topo, type, (unsigned)i);
        if (!core->cpuset || !hwloc_bitmap_intersects(core->cpuset, allowed))
            continue;
        hwloc_cpuset_t set = hwloc_bitmap_alloc();
        hwloc_bitmap_and(set, core->cpuset, allowed);
        m->cores[m->ncores] = core;
        m->core_sets[m->ncores] = set;
        m->ncores++;
    }
    hwloc_bitmap_free(allowed);
    if (m->ncores == 0) {
        snprintf(err, errlen, "no usable core in the topology");
        return -1;
    }
    return 0;
}

static int machine_load(struct cm_machine *m, const char *spec, int caches, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    if (init_without_plugins(&m->topo) != 0) {
        snprintf(err, errlen, "hwloc_topology_init failed");
        return -1;
    }
    keep_only_cpu_structure(m->topo, caches);
    if (spec && *spec) {
        struct stat st;
        int rc;
        m->foreign = 1;
        if (stat(spec, &st) == 0)
            rc = hwloc_topology_set_xml(m->topo, spec);
        else
            rc = hwloc_topology_set_synthetic(m->topo, spec);
        if (rc != 0) {
            snprintf(err, errlen, "cannot use topology '%s': neither a readable hwloc XML file nor a valid synthetic description", spec);
            hwloc_topology_destroy(m->topo);
            m->topo = NULL;
            return -1;
        }
    }
    double t0 = now_ms();
    if (hwloc_topology_load(m->topo) != 0) {
        snprintf(err, errlen, "hwloc_topology_load failed: %s", strerror(errno));
        hwloc_topology_destroy(m->topo);
        m->topo = NULL;
        return -1;
    }
    m->load_ms = now_ms() - t0;
    if (select_usable_cores(m, err, errlen) != 0) {
        cm_machine_free(m);
        return -1;
    }
    return 0;
}

int cm_machine_load(struct cm_machine *m, const char *spec, char *err, size_t errlen)
{
    return machine_load(m, spec, 0, err, errlen);
}

int cm_machine_load_caches(struct cm_machine *m, const char *spec, char *err, size_t errlen)
{
    return machine_load(m, spec, 1, err, errlen);
}

void cm_machine_free(struct cm_machine *m)
{
    if (m->core_sets)
        for (int i = 0; i < m->ncores; i++)
            hwloc_bitmap_free(m->core_sets[i]);
    free(m->core_sets);
    free(m->cores);
    if (m->topo)
        hwloc_topology_destroy(m->topo);
    memset(m, 0, sizeof *m);
}

int cm_machine_bind_self(const struct cm_machine *m, int core)
{
    if (m->foreign || core < 0 || core >= m->ncores) {
        errno = EINVAL;
        return -1;
    }
    return hwloc_set_cpubind(m->topo, m->core_sets[core], HWLOC_CPUBIND_PROCESS);
}

static hwloc_obj_t package_of(hwloc_obj_t obj)
{
    while (obj && obj->type != HWLOC_OBJ_PACKAGE)
        obj = obj->parent;
    return obj;
}

void cm_machine_core_name(const struct cm_machine *m, int core, char *buf, size_t len)
{
    hwloc_obj_t obj = m->cores[core];
    hwloc_obj_t pkg = package_of(obj);
    char pus[64];
    hwloc_bitmap_list_snprintf(pus, sizeof pus, m->core_sets[core]);
    if (pkg)
        snprintf(buf, len, "package %u[core %u[hwt %s]]", pkg->logical_index, obj->logical_index, pus);
    else
        snprintf(buf, len, "core %u[hwt %s]", obj->logical_index, pus);
}

void cm_machine_core_map(const struct cm_machine *m, int core, char *buf, size_t len)
{
    size_t at = 0;
    hwloc_obj_t prev_pkg = NULL;
    if (len == 0)
        return;
    for (int c = 0; c < m->ncores && at + 4 < len; c++) {
        hwloc_obj_t pkg = package_of(m->cores[c]);
        if (c == 0 || pkg != prev_pkg) {
            if (c > 0)
                buf[at++] = ']';
            buf[at++] = '[';
        } else {
            buf[at++] = '/';
        }
        prev_pkg = pkg;
        int npu = hwloc_bitmap_weight(m->core_sets[c]);
        for (int p = 0; p < npu && at + 3 < len; p++)
            buf[at++] = c == core ? 'B' : '.';
    }
    if (at + 1 < len)
        buf[at++] = ']';
    buf[at] = '\0';
}
