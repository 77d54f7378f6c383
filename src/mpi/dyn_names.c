/*
 * dyn_names.c -- MPI_Publish_name, MPI_Lookup_name, MPI_Unpublish_name.
 *
 * The name service is a table in the segment (shm/dyn.h), so it spans the
 * job: its first ranks and every process they spawned.  Entries are guarded
 * by a spin lock held only to copy a few hundred bytes.  A service name is
 * published once at a time: publishing it again is MPI_ERR_SERVICE, as is
 * unpublishing one that is not published; an unknown name looked up is
 * MPI_ERR_NAME.
 *
 * Across jobs: a published name is also written to the user's name
 * directory (shm/names_dir.h), where another job's MPI_Lookup_name finds
 * it when its own table does not have it.  A name that another running job
 * has published is MPI_ERR_SERVICE; the file goes with MPI_Unpublish_name,
 * or with mpirun at the job's end, or (a job killed with its mpirun) at
 * the first lookup that finds its job gone.
 */
#include "core/error.h"
#include "core/state.h"
#include "shm/dyn.h"
#include "shm/names_dir.h"
#include "fe_proc.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <string.h>

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

static long job_id(void)
{
    return cm_g.hdr->launcher_pid > 0 ? (long)cm_g.hdr->launcher_pid : (long)getpid();
}

static int job_alive(long job) { return kill((pid_t)job, 0) == 0 || errno != ESRCH; }

/* The directory's file for service; 0 with it read (job, port), -1 when
 * there is no directory or no such service there. */
static int dir_find(const char *service, char *path, size_t len, long *job, char *port)
{
    char dir[512], svc[CM_NAME_SERVICE + 2];
    if (cm_names_dir(dir, sizeof dir, 0) != 0)
        return -1;
    cm_names_path(path, len, dir, service);
    if (cm_names_read(path, job, svc, sizeof svc, port, CM_NAME_PORT) != 0 || strcmp(svc, service) != 0)
        return -1;
    return 0;
}

/* Write service's file for this job; 0, or the pid of the other running
 * job that has it (the name stays its). Without a usable directory the
 * name stays within the job (0). */
static long dir_publish(const char *service, const char *port)
{
    char dir[512], path[1024], tmp[1100], other[CM_NAME_PORT];
    if (cm_names_dir(dir, sizeof dir, 1) != 0)
        return 0;
    cm_names_path(path, sizeof path, dir, service);
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f)
        return 0;
    int ok = fprintf(f, "%ld\n%s\n%s\n", job_id(), service, port) > 0;
    ok &= fclose(f) == 0;
    long job = 0;
    for (int tries = 0; ok && tries < 2; tries++) {
        if (link(tmp, path) == 0)
            break;
        if (errno != EEXIST)
            break;
        /* Someone's file: another running job's keeps the name. */
        if (dir_find(service, path, sizeof path, &job, other) == 0 && job != job_id() && job_alive(job))
            break;
        job = 0;
        unlink(path);   /* stale (or this job's, or another service's hash): replace */
    }
    unlink(tmp);
    return job;
}

static void dir_unpublish(const char *service, const char *port)
{
    char path[1024], p[CM_NAME_PORT];
    long job;
    if (dir_find(service, path, sizeof path, &job, p) == 0 && job == job_id() && !strcmp(p, port))
        unlink(path);
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
    if (!add) {
        dir_unpublish(service, port);
        return MPI_SUCCESS;
    }
    long other = dir_publish(service, port);
    if (other) {
        a = lock_names();
        slot->used = 0;
        unlock_names(a);
        return cm_error(MPI_COMM_WORLD, MPI_ERR_SERVICE, call,
                        "service '%s' is already published by another mpirun job (pid %ld)", service, other);
    }
    return MPI_SUCCESS;
}

int cm_Publish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    (void)info;
    return change("MPI_Publish_name", service_name, port_name, 1);
}

int cm_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    (void)info;
    return change("MPI_Unpublish_name", service_name, port_name, 0);
}

int cm_Lookup_name(const char *service_name, MPI_Info info, char *port_name)
{
    static const char call[] = "MPI_Lookup_name";
    (void)info;
    int rc = check_args(call, service_name, NULL, 0);
    if (rc)
        return rc;
    CM_ARG_NOT_NULL(MPI_COMM_WORLD, port_name, call);
    struct cm_dyn_area *a = lock_names();
    struct cm_name_entry *e = find(a, service_name);
    if (e)
        memcpy(port_name, e->port, CM_NAME_PORT);
    unlock_names(a);
    char path[1024], found[CM_NAME_PORT];
    long job;
    if (!e && dir_find(service_name, path, sizeof path, &job, found) == 0) {
        if (job_alive(job)) {
            memcpy(port_name, found, CM_NAME_PORT);
            return MPI_SUCCESS;
        }
        unlink(path);   /* its job was killed before its mpirun could remove it */
    }
    if (!e)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_NAME, call, "service '%s' is not published", service_name);
    return MPI_SUCCESS;
}
