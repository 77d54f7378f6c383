/*
 * dyn_port.c -- MPI_Open_port, MPI_Close_port, MPI_Comm_accept,
 * MPI_Comm_connect between processes of one mpirun job (its first ranks and
 * everything they spawned) and between two jobs of this user.
 *
 * A port name is "corempi-port:<job>:<slot>:<number>:<fd>": the job is
 * mpirun's pid (a singleton's own pid), slot the process that opened it and
 * must accept on it, number a job-wide counter (shm/dyn.h port_seq) whose
 * open/closed state lives in the segment, so that connecting to a closed
 * port fails instead of waiting, fd the segment's descriptor in mpirun
 * (-1 for a singleton), by which another job maps it.  Within a job the
 * connecting root first sends its slot to the port's owner (tag
 * CM_TAG_DYN_KNOCK minus number); the accepting root takes the first knock
 * from anyone, and both groups then bridge (mpi/dyn.h) with tag
 * CM_TAG_DYN_PORT minus number.  A port of another job goes through the
 * knock in that job's segment and a bridge (mpi/dyn_remote.c).
 */
#include "mpi/dyn.h"
#include "core/error.h"
#include "core/state.h"
#include "shm/dyn.h"
#include "fe_proc.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static long job_id(void)
{
    return cm_g.hdr->launcher_pid > 0 ? (long)cm_g.hdr->launcher_pid : (long)getpid();
}

struct port {
    long job;
    int slot;
    unsigned number;
    int seg_fd;
    int remote;       /* another job's */
};

/* 0, or an error class with why filled in. */
static int parse_port(const char *name, struct port *p, char *why, size_t len)
{
    char tail;
    if (!name) {
        snprintf(why, len, "port_name is NULL");
        return MPI_ERR_ARG;
    }
    if (sscanf(name, "corempi-port:%ld:%d:%u:%d%c", &p->job, &p->slot, &p->number, &p->seg_fd, &tail) != 4) {
        snprintf(why, len, "'%.200s' is not a port name of corempi (MPI_Open_port makes them)", name);
        return MPI_ERR_PORT;
    }
    p->remote = p->job != job_id();
    if (p->remote) {
        if (p->job <= 0 || p->seg_fd < 0) {
            snprintf(why, len, "port '%.200s' belongs to a process started without mpirun: another job cannot "
                               "connect to it", name);
            return MPI_ERR_PORT;
        }
        return MPI_SUCCESS;   /* the rest is checked in that job's segment (dyn_remote.c) */
    }
    struct cm_dyn_area *a = cm_seg_dyn(cm_g.seg);
    if (p->number == 0 || p->number >= CM_PORTS_MAX || p->slot < 0 || p->slot >= cm_slots_used() ||
        !atomic_load_explicit(&a->port_open[p->number], memory_order_acquire)) {
        snprintf(why, len, "port '%.200s' is not open", name);
        return MPI_ERR_PORT;
    }
    return MPI_SUCCESS;
}

int cm_Open_port(MPI_Info info, char *port_name)
{
    static const char call[] = "MPI_Open_port";
    (void)info;
    int rc = cm_check_initialized(call);
    if (rc)
        return rc;
    CM_ARG_NOT_NULL(MPI_COMM_WORLD, port_name, call);
    struct cm_dyn_area *a = cm_seg_dyn(cm_g.seg);
    unsigned n = atomic_fetch_add_explicit(&a->port_seq, 1, memory_order_relaxed) + 1;
    if (n >= CM_PORTS_MAX)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, call, "the job has opened its %d ports", CM_PORTS_MAX - 1);
    atomic_store_explicit(&a->port_open[n], 1, memory_order_release);
    snprintf(port_name, MPI_MAX_PORT_NAME, "corempi-port:%ld:%d:%u:%d", job_id(), cm_g.rank, n, cm_g.seg_fd_num);
    return MPI_SUCCESS;
}

int cm_Close_port(const char *port_name)
{
    CM_CALL_INITIALIZED("MPI_Close_port");
    struct port p;
    char why[400];
    if ((rc = parse_port(port_name, &p, why, sizeof why)) != MPI_SUCCESS)
        return cm_error(MPI_COMM_WORLD, rc, call, "%s", why);
    if (p.remote || p.slot != cm_g.rank)
        return cm_error(MPI_COMM_WORLD, MPI_ERR_PORT, call, "port '%s' was opened by another process", port_name);
    atomic_store_explicit(&cm_seg_dyn(cm_g.seg)->port_open[p.number], 0, memory_order_release);
    return MPI_SUCCESS;
}

/* What the root found, for every member alike. */
struct verdict {
    int err_class;
    int peer_slot;       /* -1: the other group is another job's (link) */
    unsigned number;
    struct cm_dyn_link link;
    char why[400];
};

static int meet(const char *call, const char *port_name, int root, MPI_Comm comm, MPI_Comm *newcomm, int accept)
{
    struct cm_comm *c;
    int rc = cm_dyn_check_group(call, comm, root, newcomm, "newcomm", &c);
    if (rc)
        return rc;
    struct verdict v;
    memset(&v, 0, sizeof v);
    if (c->rank == root) {
        struct port p;
        v.err_class = parse_port(port_name, &p, v.why, sizeof v.why);
        if (!v.err_class && accept && (p.remote || p.slot != cm_g.rank)) {
            v.err_class = MPI_ERR_PORT;
            snprintf(v.why, sizeof v.why, "port '%.200s' was opened by another process (slot %d): accept where it "
                                          "was opened", port_name, p.slot);
        }
        v.number = p.number;
        if (!v.err_class && accept) {
            v.err_class = cm_dyn_remote_await(p.number, CM_TAG_DYN_KNOCK - (int)p.number, c, root, &v.peer_slot,
                                              &v.link, v.why, sizeof v.why);
        } else if (!v.err_class && p.remote) {
            v.peer_slot = -1;
            v.err_class = cm_dyn_remote_knock(port_name, p.job, p.seg_fd, p.slot, p.number, c, root, &v.link,
                                              v.why, sizeof v.why);
        } else if (!v.err_class) {
            int me = cm_g.rank;
            v.peer_slot = p.slot;
            cm_dyn_send(&me, sizeof me, p.slot, CM_TAG_DYN_KNOCK - (int)p.number);
        }
    }
    if ((rc = PMPI_Bcast(&v, (int)sizeof v, MPI_BYTE, root, comm)) != MPI_SUCCESS)
        return rc;
    if (v.err_class)
        return cm_error(comm, v.err_class, call, "%s", v.why);
    if (v.peer_slot < 0)
        return cm_dyn_remote_join(c, root, &v.link, CM_TAG_DYN_PORT - (int)v.number, call, newcomm);
    return cm_dyn_bridge(c, root, v.peer_slot, CM_TAG_DYN_PORT - (int)v.number, call, newcomm);
}

int cm_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm)
{
    (void)info;
    return meet("MPI_Comm_accept", port_name, root, comm, newcomm, 1);
}

int cm_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm)
{
    (void)info;
    return meet("MPI_Comm_connect", port_name, root, comm, newcomm, 0);
}
