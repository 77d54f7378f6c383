/*
 * percomm.h -- the collective layer's state of one communicator, and what
 * the direct engine (coll/direct/) may know of a communicator.
 *
 * struct cm_coll_state is the only struct behind struct cm_comm.coll: glue.c
 * creates it on first use and core frees it with the communicator through
 * cm_comm.coll_free.  (Before, glue.c and the engine each hung a struct of
 * their own there and told them apart by the free function.)
 *
 * The engine reaches communicators only through this header: a struct
 * cm_coll_members (size, rank, job ranks, a stable index) and a place for
 * its per-communicator state (cm_coll_state.direct).  Over another MPI's
 * processes an implementation of these two functions is what it needs.
 * corempi only (the host-MPI harness does not compile the engine).
 */
#ifndef CM_COLL_PERCOMM_H
#define CM_COLL_PERCOMM_H

#include <mpi.h>

struct cm_direct;
struct cm_nbc_slots;
/* Drop a reference to a communicator's schedule tags (coll/nbc.c). */
void cm_nbc_slots_drop(struct cm_nbc_slots *t);

struct cm_coll_state {
    unsigned nbc_seq;           /* nonblocking collectives started (cm_coll_nbc_seq) */
    struct cm_nbc_slots *nbc_slots;   /* the schedules' tags held (coll/nbc.c); NULL until one starts */
    struct cm_direct *direct;   /* the engine's view of its area; NULL until attached */
    int direct_failed;          /* > 0: no area could be had, calls since then */
    uint16_t ctx;               /* the collective context (freed with the state) */
    int mismatched;             /* a call on it raised a mismatch (mismatch.c): its
                                 * left-over messages are known, and not reported again */
};

/* Messages a blocking collective's algorithm sent to this rank on comm's
 * collective context that no call received (coll/leftover.c): in a correct
 * program there are none when this rank frees comm or finalizes (each of its
 * completed calls received all it was sent; the schedules' messages, which
 * may be in flight, have other tags).  Raise the first one on comm as call's
 * error (MPI_ERR_ARG), unless a mismatch was raised on comm already; to_stderr:
 * print the line even when the handler returns (MPI_Finalize).  0 if none. */
int cm_coll_leftovers(MPI_Comm comm, const char *call, int to_stderr);
/* At MPI_Init (and a first MPI_Session_init): the hooks point-to-point calls
 * into this layer through (p2p/coll_entry.h, p2p.h), stored before any
 * thread may run a collective, so that no first collective stores them
 * while another thread's reads them (MPI_THREAD_MULTIPLE). */
void cm_coll_start(void);
/* The same for every communicator still alive (MPI_Finalize): the first error. */
int cm_coll_leftovers_all(const char *call);

/* The state of collective communicator cc (created when `create`); NULL
 * when cc is not a communicator, or none exists yet and !create. */
struct cm_coll_state *cm_coll_state_of(MPI_Comm cc, int create);

/* What the engine needs to know of a communicator's members. */
struct cm_coll_members {
    int size, rank;
    const int *world_of;        /* comm rank -> job rank (segment control blocks);
                                   lives as long as the communicator */
    int index;                  /* stable while the communicator lives, unique among live ones */
};

/* 0 and *m filled, or 1 when cc is not a communicator. */
int cm_coll_members(MPI_Comm cc, struct cm_coll_members *m);

#endif
