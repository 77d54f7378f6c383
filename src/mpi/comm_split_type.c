/*
 * comm_split_type.c -- MPI_Comm_split_type: by shared memory (everyone, on one
 * node) and by hardware resource (hwloc levels: "NUMANode", "L3Cache",
 * "Package", "Core", ...).
 *
 * MPI_COMM_TYPE_RESOURCE_GUIDED splits by the process set named in the info
 * key mpi_pset_name, or else as HW_GUIDED by mpi_hw_resource_type.
 *
 * A rank's place is the core mpirun put it on (its control block's
 * bound_core, an hwloc logical core index); a rank that was not placed counts
 * as being on core (rank mod cores).  The machine is the one mpirun saw: the
 * real one, or the synthetic/XML topology in COREMPI_TOPOLOGY, so that
 * big-node splits can be tested on a small machine.
 *
 * An intercommunicator is split like MPI_Comm_split splits one (MPI-4.1
 * §7.4.2 does not restrict Comm_split_type to intracommunicators, and the
 * type stands for Comm_split's color): the processes of the local group of
 * one type and the processes of the remote group of the same type form a
 * new intercommunicator; a type with no process on the other side gives
 * MPI_COMM_NULL.  The type is the shared-memory node (one here: everyone),
 * the hardware domain of the info key's level, or for HW_UNGUIDED the
 * domain of the largest level that splits the local group, each side
 * choosing its level for itself; domains of different levels never pair.
 */
#include "core/comm.h"
#include "core/state.h"
#include "core/error.h"
#include "topo/domain.h"
#include "topo/machine.h"
#include "fe_comm.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#pragma weak PMPI_Info_get

/* The machine of topo/domain.c, loaded once for every layer that asks. */
static struct cm_machine *get_machine(void)
{
    static int reported;
    struct cm_machine *m = cm_topo_machine();
    if (!m && cm_g.verbose && !reported++)
        fprintf(stderr, "corempi: rank %d: cannot load the topology: %s\n", cm_g.rank, cm_topo_machine_error());
    return m;
}

/* This rank's core object. */
static hwloc_obj_t my_core(struct cm_machine *m)
{
    int idx = cm_g.self_ctl->bound_core;
    hwloc_obj_t core = idx >= 0 ? hwloc_get_obj_by_type(m->topo, HWLOC_OBJ_CORE, (unsigned)idx) : NULL;
    if (!core && m->ncores > 0)
        core = m->cores[cm_g.rank % m->ncores];
    return core;
}

/* Index of the object of `type` (and cache depth) above this rank, or -1. */
static int color_at(struct cm_machine *m, hwloc_obj_type_t type, int cache_depth)
{
    hwloc_obj_t o = my_core(m);
    for (; o; o = o->parent) {
        if (o->type == type && (!hwloc_obj_type_is_cache(type) || (int)o->attr->cache.depth == cache_depth))
            return (int)o->logical_index;
        /* NUMA nodes hang off the tree as memory children of their parent. */
        if (type == HWLOC_OBJ_NUMANODE && o->memory_arity) {
            hwloc_obj_t numa = o->memory_first_child;
            if (numa && numa->type == HWLOC_OBJ_NUMANODE)
                return (int)numa->logical_index;
        }
    }
    return -1;
}

static int parse_resource(const char *s, hwloc_obj_type_t *type, int *depth)
{
    union hwloc_obj_attr_u attr;
    *depth = 0;
    if (!strcasecmp(s, "mpi_shared_memory")) {
        *type = HWLOC_OBJ_MACHINE;
        return 0;
    }
    /* hwloc's parser takes any prefix of its names ("no_such" reads as
     * NUMANode): accept only a whole name, its "socket"/"numa" aliases, or
     * the short cache forms "l3". */
    if (hwloc_type_sscanf(s, type, &attr, sizeof attr) != 0)
        return -1;
    int cache_short = (s[0] == 'l' || s[0] == 'L') && s[1] >= '1' && s[1] <= '5' && !s[2];
    if (strcasecmp(s, hwloc_obj_type_string(*type)) && strcasecmp(s, "socket") && strcasecmp(s, "numa") &&
        !cache_short)
        return -1;
    if (hwloc_obj_type_is_cache(*type))
        *depth = (int)attr.cache.depth;
    return 0;
}

/* Levels tried by HW_UNGUIDED, from the largest down. */
static const char *const unguided_levels[] = { "Package", "NUMANode", "L3Cache", "L2Cache", "Core" };

static int set_resource_info(MPI_Comm comm, const char *key, const char *resource)
{
    MPI_Info info;
    int rc = PMPI_Info_create(&info);
    if (rc == MPI_SUCCESS) {
        rc = PMPI_Info_set(info, key, resource);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Comm_set_info(comm, info);
        PMPI_Info_free(&info);
    }
    return rc;
}

/* MPI_COMM_TYPE_RESOURCE_GUIDED with the info key mpi_pset_name (MPI-4.1
 * §7.4.2): 0 when the key is absent (the hardware key is tried then);
 * else 1, and *color groups the processes of the named set: "mpi://WORLD"
 * all of them, "mpi://SELF" each alone (session.c's two sets; names compare
 * without regard to case), any other name none (MPI_COMM_NULL).  rank: this
 * process's rank in the (local group of the) communicator split. */
static int pset_named(MPI_Info info, char *value, int rank, int *color)
{
    int flag = 0;
    if (info == MPI_INFO_NULL || !PMPI_Info_get ||
        PMPI_Info_get(info, "mpi_pset_name", MPI_MAX_INFO_VAL, value, &flag) || !flag)
        return 0;
    *color = !strcasecmp(value, "mpi://WORLD") ? 0 : !strcasecmp(value, "mpi://SELF") ? 1 + rank : MPI_UNDEFINED;
    return 1;
}

int cm_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    const char *resource = NULL; /* the level the split was made at, for the info key */
    const char *key_name = "mpi_hw_resource_type";
    char value[MPI_MAX_INFO_VAL + 1] = "";
    struct cm_comm *c = cm_comm_lookup(comm, NULL);
    if (!c)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_COMM, "MPI_Comm_split_type", "invalid communicator %ld", (long)(intptr_t)comm);
    /* The ranks that agree on HW_UNGUIDED's level: the local group. */
    MPI_Comm group = cm_comm_is_inter(c) ? c->local->handle : comm;
    int color = MPI_UNDEFINED;
    if (split_type == MPI_UNDEFINED) {
        color = MPI_UNDEFINED;
    } else if (split_type == MPI_COMM_TYPE_SHARED) {
        color = 0; /* one node: every rank shares memory with every other */
    } else if (split_type == MPI_COMM_TYPE_RESOURCE_GUIDED && pset_named(info, value, c->rank, &color)) {
        key_name = "mpi_pset_name";
        resource = color == MPI_UNDEFINED ? NULL : value;
    } else if (split_type == MPI_COMM_TYPE_HW_GUIDED || split_type == MPI_COMM_TYPE_RESOURCE_GUIDED) {
        int flag = 0;
        if (info != MPI_INFO_NULL && PMPI_Info_get)
            PMPI_Info_get(info, "mpi_hw_resource_type", MPI_MAX_INFO_VAL, value, &flag);
        hwloc_obj_type_t type;
        int depth;
        struct cm_machine *m = get_machine();
        /* Unknown resource names give MPI_COMM_NULL (MPI 4.0 §7.4.2). */
        if (flag && m && parse_resource(value, &type, &depth) == 0)
            color = type == HWLOC_OBJ_MACHINE ? 0 : color_at(m, type, depth);
        if (color < 0)
            color = MPI_UNDEFINED;
        else
            resource = value;
    } else if (split_type == MPI_COMM_TYPE_HW_UNGUIDED) {
        /* The largest level that splits this communicator into smaller parts:
         * every rank must choose the same level, so try levels in order and
         * agree on each with an allreduce of (min, max) colors. */
        struct cm_machine *m = get_machine();
        for (size_t l = 0; m && l < sizeof unguided_levels / sizeof *unguided_levels; l++) {
            hwloc_obj_type_t type;
            int depth;
            if (parse_resource(unguided_levels[l], &type, &depth))
                continue;
            int col = color_at(m, type, depth), mm[2] = { col, -col }, agg[2];
            PMPI_Allreduce(mm, agg, 2, MPI_INT, MPI_MIN, group);
            if (agg[0] >= 0 && agg[0] != -agg[1]) {
                /* Domains are far below 2^20: the level in the high bits. */
                color = (int)l << 20 | col;
                resource = unguided_levels[l];
                break;
            }
        }
    } else {
        return cm_error(comm, MPI_ERR_ARG, "MPI_Comm_split_type", "invalid split_type %d", split_type);
    }
    int rc = PMPI_Comm_split(comm, color, key, newcomm);
    /* MPI-4.1 §7.4.2: the new communicator tells which resource it is. */
    if (rc == MPI_SUCCESS && resource && *newcomm != MPI_COMM_NULL)
        rc = set_resource_info(*newcomm, key_name, resource);
    /* ... and for HW_UNGUIDED so does the caller's info (an INOUT argument
     * there): the level it was split at */
    if (rc == MPI_SUCCESS && split_type == MPI_COMM_TYPE_HW_UNGUIDED && resource && *newcomm != MPI_COMM_NULL &&
        info != MPI_INFO_NULL)
        rc = PMPI_Info_set(info, "mpi_hw_resource_type", resource);
    return rc;
}
