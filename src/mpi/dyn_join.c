/*
 * dyn_join.c -- MPI_Comm_join: two processes connected by a socket make an
 * intercommunicator of the two.
 *
 * Each writes "<job> <slot>" (a fixed 32-byte record) on the socket and
 * reads the other's; they then bridge over the channel (mpi/dyn.h) with
 * MPI_COMM_SELF as each side's group.  Both must belong to the same mpirun
 * job (see dyn_port.c); the socket is only read and written, never closed.
 */
#include "mpi/dyn.h"
#include "core/error.h"
#include "core/state.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#pragma weak MPI_Comm_join = PMPI_Comm_join

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

int PMPI_Comm_join(int fd, MPI_Comm *intercomm)
{
    static const char call[] = "MPI_Comm_join";
    CM_ENTER(Comm_join);
    int rc = cm_check_initialized(call);
    if (rc)
        return rc;
    if (!intercomm)
        return cm_error(MPI_COMM_SELF, MPI_ERR_ARG, call, "intercomm is NULL");
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
    if (other_job != job || other_slot < 0 || other_slot >= cm_slots_used())
        return cm_error(MPI_COMM_SELF, MPI_ERR_PORT, call,
                        "the other side belongs to another mpirun job: corempi joins only the processes of one job");
    if (other_slot == cm_g.rank)
        return cm_error(MPI_COMM_SELF, MPI_ERR_ARG, call, "fd %d leads back to this process", fd);
    struct cm_comm *self = cm_comm_lookup(MPI_COMM_SELF, NULL);
    return cm_dyn_bridge(self, 0, other_slot, CM_TAG_DYN_JOIN, call, intercomm);
}
