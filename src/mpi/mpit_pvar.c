/*
 * mpit_pvar.c -- performance variables: what they are and where their
 * values come from.  Sessions and handles are mpit_session.c's.
 *
 * Every value is a counter the library keeps anyway, read through its
 * layer's function (p2p.h, coll.h): this file adds nothing to a fast path.
 *   - traffic: messages and bytes sent, per level of the hierarchy and per
 *     destination (p2p/counters.c).  Counting is off until a tool allocates
 *     a handle for one of these after MPI_Init (or one is read after it):
 *     MPI_T then installs coll/hier.c's level table, or a flat one (every
 *     destination at level 0) when the machine has no level to split on.
 *     From then on each message costs two more increments, which it costs
 *     today with COREMPI_VERBOSE too.  Messages to oneself and the
 *     protocol's control messages do not count.
 *   - the unexpected queue: length now (LEVEL) and most ever (HIGHWATERMARK,
 *     since the process started) (p2p/match.c).
 *   - one-sided operations sent as active messages (osc/am.c), and the
 *     Win_create targets on Alloc_mem memory mapped directly (osc/create.c).
 *   - per collective, the algorithm the selector chose last (STATE, an
 *     enumeration of that collective's algorithms; coll/select.c's cache).
 *   - objects alive: derived datatypes and user ops (core's tables, scanned
 *     when read), so a leak per call shows as growth.
 *   - whether wakers skip their fence now (shm/wait.h's job-wide count).
 *   - MPI-IO: bytes read and written by the data access calls, time in
 *     them and in MPI_File_sync (core/io_stats.h, added to by src/io).
 */
#include "mpi/mpit.h"
#include "core/state.h"
#include "core/comm.h"
#include "core/datatype.h"
#include "core/op.h"
#include "core/io_stats.h"
#include "p2p/p2p.h"
#include "coll/coll.h"
#include "coll/hier.h"
#include "osc/osc.h"
#include "shm/wait.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum what { MSGS_SAME, MSGS_ACROSS, BYTES_SAME, BYTES_ACROSS, PEER_MSGS, PEER_BYTES, UNEXP_NOW, UNEXP_MOST, ALGO,
            OSC_AM, OSC_DIRECT, DT_LIVE, OP_LIVE, FENCE_FREE, IO_READ, IO_WRITTEN, IO_TIME };

static const struct cm_mpit_pvar fixed[] = {
    {"p2p_msgs_same_level", "messages sent to ranks in this rank's domain at the top level of the hierarchy "
     "(every message when the machine has one domain)",
     MPI_T_PVAR_CLASS_COUNTER, MPI_T_BIND_NO_OBJECT, 1, 0, CM_CAT_P2P, MSGS_SAME, 0},
    {"p2p_msgs_across_level", "messages sent to ranks in another domain at the top level of the hierarchy",
     MPI_T_PVAR_CLASS_COUNTER, MPI_T_BIND_NO_OBJECT, 1, 0, CM_CAT_P2P, MSGS_ACROSS, 0},
    {"p2p_bytes_same_level", "bytes sent to ranks in this rank's domain at the top level of the hierarchy",
     MPI_T_PVAR_CLASS_COUNTER, MPI_T_BIND_NO_OBJECT, 1, 0, CM_CAT_P2P, BYTES_SAME, 0},
    {"p2p_bytes_across_level", "bytes sent to ranks in another domain at the top level of the hierarchy",
     MPI_T_PVAR_CLASS_COUNTER, MPI_T_BIND_NO_OBJECT, 1, 0, CM_CAT_P2P, BYTES_ACROSS, 0},
    {"p2p_peer_msgs", "messages sent to each rank of the communicator (one entry per rank; "
     "counts between MPI_T_pvar_start and _stop)",
     MPI_T_PVAR_CLASS_COUNTER, MPI_T_BIND_MPI_COMM, 0, 0, CM_CAT_P2P, PEER_MSGS, 0},
    {"p2p_peer_bytes", "bytes sent to each rank of the communicator (one entry per rank; "
     "counts between MPI_T_pvar_start and _stop)",
     MPI_T_PVAR_CLASS_COUNTER, MPI_T_BIND_MPI_COMM, 0, 0, CM_CAT_P2P, PEER_BYTES, 0},
    {"p2p_unexpected_length", "messages arrived and not yet matched by a receive (the unexpected queue)",
     MPI_T_PVAR_CLASS_LEVEL, MPI_T_BIND_NO_OBJECT, 1, 1, CM_CAT_P2P, UNEXP_NOW, 0},
    {"p2p_unexpected_max", "the most messages the unexpected queue ever held",
     MPI_T_PVAR_CLASS_HIGHWATERMARK, MPI_T_BIND_NO_OBJECT, 1, 1, CM_CAT_P2P, UNEXP_MOST, 0},
    {"osc_am_ops", "one-sided operations this process sent as messages through the point-to-point rings, "
     "applied by the target (windows on user memory without single copy; docs/osc.md)",
     MPI_T_PVAR_CLASS_COUNTER, MPI_T_BIND_NO_OBJECT, 1, 1, CM_CAT_P2P, OSC_AM, 0},
    {"osc_direct_targets", "MPI_Win_create targets whose memory (from MPI_Alloc_mem) this process maps and "
     "reaches with its own loads and stores, counted at each window's creation (docs/osc.md)",
     MPI_T_PVAR_CLASS_COUNTER, MPI_T_BIND_NO_OBJECT, 1, 1, CM_CAT_P2P, OSC_DIRECT, 0},
    /* objects alive now: not yet freed, or freed by the user and still held by a pending operation */
    {"objects_datatypes_live", "derived datatypes alive now, freed ones still held included (a leak grows it)",
     MPI_T_PVAR_CLASS_LEVEL, MPI_T_BIND_NO_OBJECT, 1, 1, CM_CAT_PROF, DT_LIVE, 0},
    {"objects_ops_live", "user-defined reduction operations alive now, freed ones still held included",
     MPI_T_PVAR_CLASS_LEVEL, MPI_T_BIND_NO_OBJECT, 1, 1, CM_CAT_PROF, OP_LIVE, 0},
    {"shm_fence_free", "1 while every process of this job's segment, spawned ones included, runs membarrier "
     "before it sleeps, so wakers skip their memory fence (with more ranks than cores only on the "
     "collectives' FIFO words); 0 while they fence (shm/wait.h)",
     MPI_T_PVAR_CLASS_LEVEL, MPI_T_BIND_NO_OBJECT, 1, 1, CM_CAT_P2P, FENCE_FREE, 0},
    /* MPI-IO: counters of the whole process, all files; non-continuous, so a
     * tool counts between start and stop (a rank's own I/O) */
    {"io_bytes_read", "bytes read by this process's MPI-IO data access calls (what their statuses count)",
     MPI_T_PVAR_CLASS_COUNTER, MPI_T_BIND_NO_OBJECT, 0, 0, CM_CAT_IO, IO_READ, 0},
    {"io_bytes_written", "bytes written by this process's MPI-IO data access calls (what their statuses count)",
     MPI_T_PVAR_CLASS_COUNTER, MPI_T_BIND_NO_OBJECT, 0, 0, CM_CAT_IO, IO_WRITTEN, 0},
    {"io_time_ns", "nanoseconds spent in this process's MPI-IO data access calls and MPI_File_sync",
     MPI_T_PVAR_CLASS_TIMER, MPI_T_BIND_NO_OBJECT, 0, 0, CM_CAT_IO, IO_TIME, 0},
};
#define NFIXED ((int)(sizeof fixed / sizeof fixed[0]))

static const char *const coll_names[CM_COLL_NUM] = {
#define CM_COLL(coll, COLL) #coll,
#include "coll/algorithms.def"
};
static struct cm_mpit_pvar algo_vars[CM_COLL_NUM];
static char algo_names[CM_COLL_NUM][64];

int cm_mpit_pvar_count(void)
{
    return NFIXED + CM_COLL_NUM;
}

const struct cm_mpit_pvar *cm_mpit_pvar(int i)
{
    if (i < 0 || i >= cm_mpit_pvar_count())
        return NULL;
    if (i < NFIXED)
        return &fixed[i];
    int c = i - NFIXED;
    if (!algo_vars[c].name) {
        snprintf(algo_names[c], sizeof algo_names[c], "coll_algorithm_%s", coll_names[c]);
        algo_vars[c] = (struct cm_mpit_pvar){algo_names[c],
                                             "the algorithm chosen for the last blocking call of this "
                                             "collective (enumeration: none, then its algorithms)",
                                             MPI_T_PVAR_CLASS_STATE, MPI_T_BIND_NO_OBJECT, 1, 1, CM_CAT_COLL,
                                             ALGO, c};
    }
    return &algo_vars[c];
}

MPI_T_enum cm_mpit_pvar_enum(int i)
{
    const struct cm_mpit_pvar *v = cm_mpit_pvar(i);
    return v && v->what == ALGO ? cm_mpit_coll_enum(v->arg) : MPI_T_ENUM_NULL;
}

static int is_traffic(enum what w)
{
    return w <= PEER_BYTES;
}

/* Turn the traffic counters on, once MPI_Init has told us the world. */
static void counting_on(void)
{
    if (cm_p2p_dst_level || !cm_g.initialized || cm_g.finalized)
        return;
    if (cm_coll_hier_count_levels() != 0)
        cm_p2p_count_flat();
}

int cm_mpit_pvar_bind(int i, void *obj_handle, int **world_of, int *err)
{
    const struct cm_mpit_pvar *v = cm_mpit_pvar(i);
    *world_of = NULL;
    if (is_traffic((enum what)v->what))
        counting_on();
    if (v->bind == MPI_T_BIND_NO_OBJECT)
        return 1;
    /* Bound to a communicator: one entry per rank, fixed at allocation. */
    if (!obj_handle || !cm_g.initialized || cm_g.finalized) {
        *err = MPI_T_ERR_INVALID_HANDLE;
        return -1;
    }
    struct cm_comm *c = cm_comm_user_lookup(*(MPI_Comm *)obj_handle);
    if (!c) {
        *err = MPI_T_ERR_INVALID_HANDLE;
        return -1;
    }
    int *w = malloc((size_t)c->size * sizeof *w);
    if (!w) {
        *err = MPI_T_ERR_MEMORY;
        return -1;
    }
    memcpy(w, c->world_of, (size_t)c->size * sizeof *w);
    *world_of = w;
    return c->size;
}

uint64_t cm_mpit_pvar_value(int i, int world_rank)
{
    const struct cm_mpit_pvar *v = cm_mpit_pvar(i);
    uint64_t now, most;
    if (is_traffic((enum what)v->what))
        counting_on();
    switch ((enum what)v->what) {
    case MSGS_SAME: return cm_p2p_level_msgs[0];
    case MSGS_ACROSS: return cm_p2p_level_msgs[1];
    case BYTES_SAME: return cm_p2p_level_bytes[0];
    case BYTES_ACROSS: return cm_p2p_level_bytes[1];
    case PEER_MSGS: return cm_p2p_peer && world_rank < cm_g.size ? cm_p2p_peer[world_rank].msgs : 0;
    case PEER_BYTES: return cm_p2p_peer && world_rank < cm_g.size ? cm_p2p_peer[world_rank].bytes : 0;
    case UNEXP_NOW: cm_p2p_unexpected_stats(&now, &most); return now;
    case UNEXP_MOST: cm_p2p_unexpected_stats(&now, &most); return most;
    case ALGO: return (uint64_t)(int64_t)cm_coll_last_algo((enum cm_coll_id)v->arg);
    case OSC_AM: return cm_osc_am_ops;
    case OSC_DIRECT: return cm_osc_direct_targets;
    case DT_LIVE: return cm_dt_table ? (uint64_t)cm_dt_live_count() : 0;
    case OP_LIVE: return (uint64_t)cm_op_live_count();
    case FENCE_FREE: return (uint64_t)cm_wait_all_joined();
    case IO_READ: return __atomic_load_n(&cm_io_stats.bytes_read, __ATOMIC_RELAXED);
    case IO_WRITTEN: return __atomic_load_n(&cm_io_stats.bytes_written, __ATOMIC_RELAXED);
    case IO_TIME: return __atomic_load_n(&cm_io_stats.time_ns, __ATOMIC_RELAXED);
    }
    return 0;
}
