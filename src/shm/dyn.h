/*
 * dyn.h -- the dynamic-process area of the segment (docs/spawn.md).
 *
 * The segment has one slot per process of the universe (mpirun
 * --universe-size); slots [0, slots_used) are or were in use, the rest are
 * free for MPI_Comm_spawn.  A slot is never reused while the job runs (its
 * rings may still hold a dead process's state).
 *
 * Spawn protocol (one request at a time, under spawn_lock):
 *   1. the parents' root takes spawn_lock (compare-and-swap 0 -> slot + 1),
 *      writes the request (data, ncmds, total), sets state POSTED and sends
 *      SIGUSR1 to mpirun (header launcher_pid);
 *   2. mpirun's watch loop checks the commands, takes `total` free slots,
 *      forks and execs the children, writes the answer (first_slot, err,
 *      errcodes, msg) and sets state DONE, after raising slots_used;
 *   3. the root reads the answer, sets state IDLE, releases spawn_lock.
 * A request is all or nothing: when anything fails, no child is left and
 * the slots are given back.
 *
 * Request data: for each command, NUL-terminated strings: maxprocs (decimal),
 * argc (decimal), wdir ("" = none), command, then argc arguments.
 *
 * Name table (MPI_Publish_name): entries guarded by names_lock (a short
 * spin lock); used != 0 marks a live entry.
 */
#ifndef CM_SHM_DYN_H
#define CM_SHM_DYN_H

#include <stdint.h>
#include <stdatomic.h>
#include "shm/segment.h"

#define CM_ENV_SLOT_BASE "COREMPI_SLOT_BASE" /* slot of MPI_COMM_WORLD rank 0 (default 0) */
#define CM_ENV_PARENT    "COREMPI_PARENT"    /* spawned: the parents' root slot */

#define CM_SPAWN_DATA     16384
#define CM_SPAWN_MAXPROCS 1024
#define CM_SPAWN_MSG      512
#define CM_NAMES_MAX      64
#define CM_NAME_SERVICE   256
#define CM_NAME_PORT      256
#define CM_PORTS_MAX      4096

/* A connection from another job to port `number` (mpi/dyn_remote.c).  The
 * word holds the state and the pid of the connecting root that claimed it
 * (cm_knock_word), so that a claim whose process died can be taken over
 * instead of blocking the port for good:
 *   FREE -> CLAIMED   the connecting root (compare-and-swap from 0, or from
 *                     any word whose claimer is dead), fills in who it is,
 *                     then -> KNOCKED and rings the owner;
 *   KNOCKED -> SERVING  the accepting root takes it (compare-and-swap);
 *   SERVING -> ANSWERED  it made the bridge (or failed: err), rings the
 *                     connecting root;
 *   ANSWERED -> FREE  the connecting root, once it has mapped the bridge.
 * A connecting root that gives up (port closed) takes KNOCKED back to FREE
 * by compare-and-swap; if the owner took it first, it goes on.  The owner
 * answers by compare-and-swap too: if the claim was taken over meanwhile,
 * its accept fails instead of answering the wrong process. */
enum cm_knock_state { CM_KNOCK_FREE = 0, CM_KNOCK_CLAIMED, CM_KNOCK_KNOCKED, CM_KNOCK_SERVING, CM_KNOCK_ANSWERED };
static inline uint64_t cm_knock_word(int32_t claimer, uint32_t state)
{
    return state == CM_KNOCK_FREE ? 0 : ((uint64_t)(uint32_t)claimer << 8) | state;
}
static inline uint32_t cm_knock_state(uint64_t w) { return (uint32_t)(w & 0xff); }
static inline int32_t cm_knock_claimer(uint64_t w) { return (int32_t)(uint32_t)(w >> 8); }

struct cm_dyn_knock {
    _Alignas(CM_CACHELINE) _Atomic uint64_t word;    /* cm_knock_word(claimer pid, state) */
    int32_t job, seg_fd;      /* connecting side: its mpirun's pid and segment fd there */
    int32_t slot, pid;        /* its root's slot and pid */
    int32_t n, root;          /* its group's size, the root's rank in it */
    int32_t bridge_pid, bridge_fd;  /* answer: /proc/<pid>/fd/<fd> is the bridge */
    int32_t acc_root, err;    /* answer: the accepting root's group rank; 0 or an error class */
};

enum cm_spawn_state { CM_SPAWN_IDLE = 0, CM_SPAWN_POSTED = 1, CM_SPAWN_DONE = 2 };

struct cm_name_entry {
    uint32_t used;
    char service[CM_NAME_SERVICE];
    char port[CM_NAME_PORT];
};

struct cm_dyn_area {
    _Alignas(CM_CACHELINE) _Atomic uint32_t spawn_lock;  /* 0 free, else holder's slot + 1 */
    _Alignas(CM_CACHELINE) _Atomic uint32_t state;       /* enum cm_spawn_state */
    int32_t requester;                                  /* the root's slot */
    int32_t ncmds;
    int32_t total;                                      /* sum of maxprocs */
    int32_t first_slot;                                 /* answer: the children's slots */
    int32_t err;                                        /* answer: 0 or an errno value */
    uint32_t data_len;
    int32_t errcodes[CM_SPAWN_MAXPROCS];                /* answer: errno per child (0 = started) */
    char msg[CM_SPAWN_MSG];                             /* answer: why it failed */
    char data[CM_SPAWN_DATA];
    _Alignas(CM_CACHELINE) _Atomic uint32_t names_lock;
    _Atomic uint32_t port_seq;                          /* Open_port's numbers, job-wide */
    _Atomic uint8_t port_open[CM_PORTS_MAX];            /* by number: 1 between Open_port and Close_port */
    struct cm_name_entry names[CM_NAMES_MAX];
    /* Remote ids handed out to connections with other jobs (core/remote.h). */
    _Alignas(CM_CACHELINE) _Atomic uint32_t remote_seq;
    struct cm_dyn_knock knock[CM_PORTS_MAX];            /* by port number */
};

static inline struct cm_dyn_area *cm_seg_dyn(void *base)
{
    const struct cm_seg_header *h = (const struct cm_seg_header *)base;
    return (struct cm_dyn_area *)((char *)base + h->dyn_off);
}

#endif
