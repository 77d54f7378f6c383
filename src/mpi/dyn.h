/*
 * dyn.h -- what the dynamic-process files of mpi/ share (docs/spawn.md).
 *
 * Every process of the segment, whatever job it belongs to, has the same
 * hidden "channel" communicator: all slots, rank = slot, on context pair
 * CM_CTX_DYN which core/context.c keeps out of every agreement.  Two groups
 * that know nothing of each other but one leader's slot (spawn, ports,
 * join) meet there: their leaders run cm_inter_agree over it, each group
 * within itself over its own communicator.  Tags on the channel tell the
 * meetings apart: one range per kind, offset by something both sides know
 * (the children's first slot, the port's number).
 */
#ifndef CM_MPI_DYN_H
#define CM_MPI_DYN_H

#include "core/comm.h"

#include <stddef.h>
#include <stdint.h>

#define CM_CTX_DYN CM_CTX_CHANNEL
/* A group's own traffic while it bridges (its communicator's collective context). */
#define CM_TAG_DYN_GROUP (-15)
/* Leaders on the channel. */
#define CM_TAG_DYN_SPAWN (-(1 << 24))      /* minus the children's first slot */
#define CM_TAG_DYN_KNOCK (-(2 << 24))      /* minus the port's number: connect's first word */
#define CM_TAG_DYN_PORT  (-(3 << 24))      /* minus the port's number: the agreement */
#define CM_TAG_DYN_JOIN  (-(4 << 24))

/* The channel (made on first use); NULL when out of memory. */
struct cm_comm *cm_dyn_chan(void);

/* Collective over intracommunicator comm: the intercommunicator between
 * comm's group (leader: rank root) and the group whose leader is slot
 * peer_slot (significant at root only), the leaders meeting on the channel
 * with tag.  Errors are reported through comm as from call. */
int cm_dyn_bridge(struct cm_comm *comm, int root, int peer_slot, int tag, const char *call, MPI_Comm *out);

/* The checks every collective call of a group that meets another one makes
 * (spawn, accept, connect): comm a valid intracommunicator, root a rank of
 * it, out (named outname) not NULL, then *out = MPI_COMM_NULL.  0 with *c
 * set, or the error class reported. */
int cm_dyn_check_group(const char *call, MPI_Comm comm, int root, MPI_Comm *out, const char *outname,
                       struct cm_comm **c);

/* Blocking point-to-point on the channel: send `bytes` to slot `to`; or
 * receive up to `bytes` from slot `from` (MPI_ANY_SOURCE allowed) and
 * return the sender's slot. */
void cm_dyn_send(const void *buf, size_t bytes, int to, int tag);
int cm_dyn_recv(void *buf, size_t bytes, int from, int tag);

/* A connection between groups of two mpirun jobs (mpi/dyn_remote.c): what
 * a root learns in the handshake and hands to its group. */
struct cm_dyn_link {
    int32_t side;                 /* 0: the accepting group, 1: the connecting one */
    int32_t job, seg_fd;          /* the other job: its mpirun's pid, its segment's fd there */
    int32_t bridge_pid, bridge_fd;  /* /proc/<pid>/fd/<fd> is the bridge (shm/bridge.h) */
    int32_t n, root;              /* the other group's size and root */
    int32_t vbase;                /* its processes are world ranks vbase .. vbase + n - 1 */
};
/* Connecting root: knock on port `number` of job `job` (its segment is fd
 * seg_fd in mpirun), owned by slot owner_slot there; 0 with *l filled, or
 * an error class with why. */
int cm_dyn_remote_knock(const char *port, long job, int seg_fd, int owner_slot, unsigned number,
                        const struct cm_comm *c, int root, struct cm_dyn_link *l, char *why, size_t len);
/* Accepting root: wait for a knock of this job (tag knock_tag on the
 * channel: *peer_slot set) or of another job (*peer_slot = -1, *l filled). */
int cm_dyn_remote_await(unsigned number, int knock_tag, const struct cm_comm *c, int root, int *peer_slot,
                        struct cm_dyn_link *l, char *why, size_t len);
/* Every member, after its root's handshake: attach to the bridge, agree
 * with the other group (tag on the channel), *out the intercommunicator. */
int cm_dyn_remote_join(struct cm_comm *c, int root, const struct cm_dyn_link *l, int tag, const char *call,
                       MPI_Comm *out);

/* In a process started by MPI_Comm_spawn, at MPI_Init: meet the parents
 * (collective over MPI_COMM_WORLD).  Nothing otherwise. */
int cm_dyn_init_parent(void);

#endif
