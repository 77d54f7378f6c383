/*
 * dyn_join.c -- MPI_Comm_join: two processes connected by a socket make an
 * intercommunicator of the two.
 *
 * Each writes "<job> <slot>" (a fixed 32-byte record) on the socket and
 * reads the other's; they then bridge over the channel (mpi/dyn.h) with
 * MPI_COMM_SELF as each side's group.  Two processes of different mpirun
 * jobs connect through a port instead (mpi/dyn_remote.c): the one whose
 * (job, slot) is lower opens it, writes its name on the socket and
 * accepts, the other reads it and connects.  The socket is only read and
 * written, never closed.
 */
#include "mpi/dyn.h"
#include "core/error.h"
#include "core/state.h"
#include "fe_proc.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define RECORD 32

/* Move all len bytes (write if out, else read); 0 or an errno value (EPIPE for an early end). */
static int move_all(int fd, char *buf, size_t len, int out)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = out ? write(fd, buf + done, len - done) : read(fd, buf + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? errno : EPIPE;
        done += (size_t)n;
    }
    return 0;
}

/* The two sides are in different jobs: a port, opened by `opener`. */
static int join_jobs(int fd, int opener, MPI_Comm *intercomm)
{
    static const char call[] = "MPI_Comm_join";
    char port[MPI_MAX_PORT_NAME];
    memset(port, 0, sizeof port);
    int rc;
    if (opener) {
        if ((rc = PMPI_Open_port(MPI_INFO_NULL, port)) != MPI_SUCCESS)
            return rc;
        int err = move_all(fd, port, sizeof port, 1);
        rc = err ? cm_error(MPI_COMM_SELF, MPI_ERR_ARG, call, "fd %d: %s", fd, strerror(err))
                 : PMPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, intercomm);
        PMPI_Close_port(port);
        return rc;
    }
    int err = move_all(fd, port, sizeof port, 0);
    if (err)
        return cm_error(MPI_COMM_SELF, MPI_ERR_ARG, call, "fd %d: %s", fd,
                        err == EPIPE ? "the other side closed the connection" : strerror(err));
    port[sizeof port - 1] = '\0';
    return PMPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, intercomm);
}

int cm_Comm_join(int fd, MPI_Comm *intercomm)
{
    CM_CALL_INITIALIZED("MPI_Comm_join");
    CM_ARG_NOT_NULL(MPI_COMM_SELF, intercomm, call);
    *intercomm = MPI_COMM_NULL;
    if (fd < 0)
        return cm_error(MPI_COMM_SELF, MPI_ERR_ARG, call, "fd is %d (not an open socket)", fd);
    long job = cm_g.hdr->launcher_pid > 0 ? (long)cm_g.hdr->launcher_pid : (long)getpid();
    char mine[RECORD], theirs[RECORD];
    memset(mine, 0, sizeof mine);
    snprintf(mine, sizeof mine, "%ld %d", job, cm_g.rank);
    int err = move_all(fd, mine, sizeof mine, 1);
    if (!err)
        err = move_all(fd, theirs, sizeof theirs, 0);
    if (err)
        return cm_error(MPI_COMM_SELF, MPI_ERR_ARG, call, "fd %d: %s", fd,
                        err == EPIPE ? "the other side closed the connection" : strerror(err));
    long other_job;
    int other_slot;
    theirs[RECORD - 1] = '\0';
    if (sscanf(theirs, "%ld %d", &other_job, &other_slot) != 2)
        return cm_error(MPI_COMM_SELF, MPI_ERR_ARG, call, "fd %d: the other side did not call MPI_Comm_join", fd);
    if (other_job != job)
        return join_jobs(fd, job < other_job, intercomm);
    if (other_slot < 0 || other_slot >= cm_slots_used())
        return cm_error(MPI_COMM_SELF, MPI_ERR_ARG, call, "fd %d: the other side's record names no process", fd);
    if (other_slot == cm_g.rank)
        return cm_error(MPI_COMM_SELF, MPI_ERR_ARG, call, "fd %d leads back to this process", fd);
    struct cm_comm *self = cm_comm_lookup(MPI_COMM_SELF, NULL);
    return cm_dyn_bridge(self, 0, other_slot, CM_TAG_DYN_JOIN, call, intercomm);
}
