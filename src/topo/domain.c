/* domain.c -- the machine loaded once per process, as levels and domains (domain.h). */
#include "topo/domain.h"
#include "topo/machine.h"

#include <stdlib.h>

static struct cm_machine machine;
static int machine_state; /* 0 not tried, 1 loaded, -1 unavailable */
static char machine_error[256];
static const char *machine_spec;

void cm_topo_machine_spec(const char *topology)
{
    machine_spec = topology;
}

const char *cm_topo_machine_spec_of_job(void)
{
    return machine_spec;
}

static const hwloc_obj_type_t level_type[CM_TOPO_LEVELS] = {
    [CM_TOPO_PACKAGE] = HWLOC_OBJ_PACKAGE, [CM_TOPO_NUMA] = HWLOC_OBJ_NUMANODE, [CM_TOPO_L3] = HWLOC_OBJ_L3CACHE,
};

int cm_topo_machine_ready(void)
{
    if (machine_state == 0)
        machine_state =
            cm_machine_load(&machine, machine_spec, machine_error, sizeof machine_error) == 0 ? 1 : -1;
    return machine_state > 0 ? 0 : -1;
}

const char *cm_topo_machine_error(void)
{
    return machine_state < 0 ? machine_error : "";
}

struct cm_machine *cm_topo_machine(void)
{
    return cm_topo_machine_ready() == 0 ? &machine : NULL;
}

int cm_topo_domain_of_core(enum cm_topo_level level, int core)
{
    if (machine_state <= 0 || core < 0 || (unsigned)level >= CM_TOPO_LEVELS)
        return -1;
    hwloc_obj_type_t type = level_type[level];
    hwloc_obj_t o = hwloc_get_obj_by_type(machine.topo, HWLOC_OBJ_CORE, (unsigned)core);
    for (; o; o = o->parent) {
        if (o->type == type)
            return (int)o->logical_index;
        /* NUMA nodes hang off the tree as memory children, not as parents. */
        if (type == HWLOC_OBJ_NUMANODE && o->memory_first_child && o->memory_first_child->type == type)
            return (int)o->memory_first_child->logical_index;
    }
    return -1;
}
