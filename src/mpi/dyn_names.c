/*
 * dyn_names.c -- MPI_Publish_name, MPI_Lookup_name, MPI_Unpublish_name.
 *
 * The name service is a table in the segment (shm/dyn.h), so it spans the
 * job: its first ranks and every process they spawned.  Entries are guarded
 * by a spin lock held only to copy a few hundred bytes.  A service name is
 * published once at a time: publishing it again is MPI_ERR_SERVICE, as is
 * unpublishing one that is not published; an unknown name looked up is
 * MPI_ERR_NAME.
 */
#include "core/error.h"
#include "core/state.h"
#include "shm/dyn.h"

#include <sched.h>
#include <string.h>

#pragma weak MPI_Publish_name = PMPI_Publish_name
#pragma weak MPI_Lookup_name = PMPI_Lookup_name
#pragma weak MPI_Unpublish_name = PMPI_Unpublish_name

static struct cm_dyn_area *lock_names(void)
{
    struct cm_dyn_area *a = cm_seg_dyn(cm_g.seg);
    uint32_t expected = 0;
    while (!atomic_compare_exchange_weak_explicit(&a->names_lock, &expected, 1, memory_order_acquire,
                                                  memory_order_relaxed)) {
        expected = 0;
        sched_yield();
    }
    return a;
}

static void unlock_names(struct cm_dyn_area *a)
{
    atomic_store_explicit(&a->names_lock, 0, memory_order_release);
}

static struct cm_name_entry *find(struct cm_dyn_area *a, const char *service)
{
    for (int i = 0; i < CM_NAMES_MAX; i++)
        if (a->names[i].used && !strcmp(a->names[i].service, service))
            return &a->names[i];
    return NULL;
}

/* 0 or an error class, reported as from call. */
static int check_args(const char *call, const char *service, const char *port, int need_port)
{
    int rc = cm_check_initialized(call);
    if (rc)
        return rc;
    if (!service || !*service)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "service_name is %s", service ? "empty" : "NULL");
    if (strlen(service) >= CM_NAME_SERVICE)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "service_name is %zu characters long (at most %d)",
                        strlen(service), CM_NAME_SERVICE - 1);
    if (need_port && !port)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "port_name is NULL");
    if (need_port && strlen(port) >= CM_NAME_PORT)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "port_name is %zu characters long (at most %d)",
                        strlen(port), CM_NAME_PORT - 1);
    return MPI_SUCCESS;
}

/* Publish (add) or unpublish a service: the table changes under its lock. */
static int change(const char *call, const char *service, const char *port, int add)
{
    int rc = check_args(call, service, port, 1);
    if (rc)
        return rc;
    struct cm_dyn_area *a = lock_names();
    struct cm_name_entry *e = find(a, service), *slot = NULL;
    const char *why = NULL;
    if (add && e)
        why = "is already published";
    else if (!add && !e)
        why = "is not published";
    else if (!add && strcmp(e->port, port))
        why = "is published with another port";
    else if (!add)
        e->used = 0;
    for (int i = 0; add && !why && i < CM_NAMES_MAX && !slot; i++)
        if (!a->names[i].used)
            slot = &a->names[i];
    if (slot) {
        strcpy(slot->service, service);
        strcpy(slot->port, port);
        slot->used = 1;
    }
    unlock_names(a);
    if (why)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_SERVICE, call, "service '%s' %s", service, why);
    if (add && !slot)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, call, "the job's name table is full (%d names)",
                        CM_NAMES_MAX);
    return MPI_SUCCESS;
}

int PMPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    CM_ENTER(Publish_name);
    (void)info;
    return change("MPI_Publish_name", service_name, port_name, 1);
}

int PMPI_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    CM_ENTER(Unpublish_name);
    (void)info;
    return change("MPI_Unpublish_name", service_name, port_name, 0);
}

int PMPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name)
{
    static const char call[] = "MPI_Lookup_name";
    CM_ENTER(Lookup_name);
    (void)info;
    int rc = check_args(call, service_name, NULL, 0);
    if (rc)
        return rc;
    if (!port_name)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "port_name is NULL");
    struct cm_dyn_area *a = lock_names();
    struct cm_name_entry *e = find(a, service_name);
    if (e)
        memcpy(port_name, e->port, CM_NAME_PORT);
    unlock_names(a);
    if (!e)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_NAME, call, "service '%s' is not published", service_name);
    return MPI_SUCCESS;
}
