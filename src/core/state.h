/*
 * state.h -- the process-wide state of the library (one MPI process = one rank).
 */
#ifndef CM_CORE_STATE_H
#define CM_CORE_STATE_H

#include <stddef.h>
#include <pthread.h>
#include "mpi.h"
#include "shm/segment.h"
#include "cm_call_ids.h"
#include "core/config.h"
#include "core/thread.h"

struct cm_state {
    /* Inside the library a process is addressed by its slot in the segment
     * (shm/dyn.h): "world rank" in comm.h's world_of/comm_of and in p2p
     * means slot.  MPI_COMM_WORLD is slots world_first .. world_first +
     * world_size - 1; without MPI_Comm_spawn world_first is 0. */
    int rank;                      /* this process's slot */
    int size;                      /* world ranks: slots, then remote ids (core/remote.h) */
    int slots;                     /* slots in the segment (MPI_UNIVERSE_SIZE) */
    int seg_fd_num;                /* the segment's fd number in mpirun (-1: singleton) */
    int world_first;               /* slot of MPI_COMM_WORLD's rank 0 */
    int world_size;                /* MPI_COMM_WORLD's size */
    void *seg;                     /* the mapped shared segment */
    size_t seg_bytes;
    struct cm_seg_header *hdr;
    struct cm_rank_ctl *self_ctl;  /* this rank's control block */
    /* Where cm_enter records the call: &self_ctl->last_call; NULL before
     * MPI_Init and while COREMPI_CHECK's thread check is on, when a front
     * end that finds it NULL takes its checked twin (core/thread_check.h). */
    uint32_t *call_word;
    int initialized;
    int finalized;                 /* 1: after MPI_Finalize; CM_BETWEEN_SESSIONS: idle (mpi/init.c) */
    int singleton;                 /* started without mpirun */
    int thread_level;
    pthread_t main_thread;
    int oversubscribed;
    int cma_ok;                    /* process_vm_readv usable (COREMPI_SINGLE_COPY, probe) */
    size_t eager_max;              /* largest message sent eagerly (COREMPI_EAGER_MAX) */
    size_t frag_max;               /* fragment of a streamed message (COREMPI_FRAGMENT) */
    size_t stream_max;             /* rendezvous below this streams (COREMPI_STREAM_MAX) */
    size_t coll_stream_max;        /* the same inside data-movement collectives (COREMPI_COLL_STREAM_MAX) */
    unsigned verbose;              /* COREMPI_VERBOSE bits */
    int coll_check;                /* COREMPI_CHECK=1: collectives compare all arguments first (coll/check.c) */
};

/* cm_g.finalized while sessions only were used and all have ended: the
 * layers are still up for a later session (mpi/init.c). */
#define CM_BETWEEN_SESSIONS 2

#define CM_VERBOSE_P2P  0x1u
#define CM_VERBOSE_COLL 0x2u
#define CM_VERBOSE_INIT 0x4u

extern struct cm_state cm_g;

/* Slots [0, n) are or were in use: only their rings can hold messages.  A
 * shared word that changes only when mpirun spawns (shm/dyn.h). */
static inline int cm_slots_used(void)
{
    return (int)atomic_load_explicit(&cm_g.hdr->slots_used, memory_order_acquire);
}

/* A user function (a reduction op) may run inside a wait that announced
 * itself to mpirun's deadlock watch (a nonblocking reduction progressed by
 * MPI_Wait): while it runs the rank computes and is not blocked, however
 * long it takes.  begins returns what ends restores (a counted step). */
unsigned cm_user_code_begins(void);
void cm_user_code_ends(unsigned blocked);

/* Collective calls this rank is inside (they nest: allreduce may call
 * reduce); while non-zero, the p2p calls they make are not recorded. */
extern CM_THREAD_LOCAL unsigned cm_coll_depth;   /* per thread: calls nest per thread */

/* Record the MPI call this rank is in, for crash and deadlock reports.  A
 * point-to-point call made by a collective's algorithm leaves the
 * collective's name in place: "last MPI call: MPI_Allreduce", not MPI_Recv. */
static inline void cm_enter(enum cm_call_id id)
{
    uint32_t *w = cm_g.call_word;
    if (w && !cm_coll_depth)
        __atomic_store_n(w, (uint32_t)id, __ATOMIC_RELAXED);
}
#define CM_ENTER(name) cm_enter(CM_CALL_##name)

static inline void cm_leave_outer(unsigned *unused)
{
    (void)unused;
    cm_coll_depth--;
}
/* At the top of a collective's impl, whose generated front end recorded the
 * call (core/frontend.h): the MPI calls it makes inside record nothing.
 * Every return leaves it. */
#define CM_OUTER() unsigned cm_outer_ __attribute__((cleanup(cm_leave_outer), unused)) = cm_coll_depth++

/* The large-count binding running (its call id), 0 outside one.  A _c
 * binding calls its int twin: errors the twin raises under its own name are
 * reported under the _c name (core/error.c), and crash reports keep the _c
 * name as the last call (the twin's CM_ENTER records nothing inside). */
extern CM_THREAD_LOCAL unsigned cm_large_call;
static inline unsigned cm_enter_large(enum cm_call_id id)
{
    unsigned old = cm_large_call;
    cm_enter(id);
    cm_coll_depth++;
    cm_large_call = (unsigned)id;
    return old;
}
static inline void cm_leave_large(unsigned *old)
{
    cm_coll_depth--;
    cm_large_call = *old;
}
#define CM_ENTER_LARGE(name) \
    unsigned cm_large_ __attribute__((cleanup(cm_leave_large), unused)) = cm_enter_large(CM_CALL_##name)

/* MPI calls other than the few allowed before Init/after Finalize use this
 * (inline: it is on the path of every call, the tiniest collectives' too). */
int cm_check_initialized_fail(const char *call);
static inline int cm_check_initialized(const char *call)
{
    if (__builtin_expect(cm_g.initialized && !cm_g.finalized, 1))
        return MPI_SUCCESS;
    return cm_check_initialized_fail(call);
}
/* The start of an API call that needs MPI initialized: call (the name its
 * errors give) and rc; returns cm_check_initialized's error. */
#define CM_CALL_INITIALIZED(name)                   \
    static const char call[] = name;                \
    int rc = cm_check_initialized(call);            \
    if (rc)                                         \
        return rc

/* Name of a call id ("MPI_Send"), for messages. */
const char *cm_call_name(unsigned id);

/* Settings from the environment: core/config.h. */

/* Say on stderr, in one line, that variable name=value is not used as given:
 *   corempi: COREMPI_EAGER_MAX=abc is not a number (like 64, 16k or 2M); using 16384
 * (why: printf-style, after "name=value ").  Once per job: the first rank to
 * warn about a (name, value) prints it, the others stay quiet. */
void cm_env_warn(const char *name, const char *value, const char *why, ...) __attribute__((format(printf, 3, 4)));

#endif
