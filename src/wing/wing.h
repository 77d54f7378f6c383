/*
 * wing.h -- corempi's shared-memory collective engine inside another MPI's
 * processes (docs/wing.md).  The library is built with the host's mpicc
 * only; <mpi.h> is the host's, every handle below is the host's.
 */
#ifndef CM_WING_WING_H
#define CM_WING_WING_H

#include <mpi.h>
#include "coll/direct/direct.h"

/* Set up at MPI_Init (wing/node.c): the node's ranks and their shared
 * segment; 0 when the wing serves nothing in this job. */
void cm_wing_start(int thread_level);
void cm_wing_stop(void);
extern int cm_wing_on;
/* Every node of the job serves (the hierarchical paths may run), and this
 * rank's node: the world rank of its first member. */
extern int cm_wing_hier_on, cm_wing_node_id;

/* The engine's view of comm's area, set up on first use (wing/area.c); NULL
 * when the wing does not serve comm (an intercommunicator, members on
 * other nodes, no room), which every member learns alike. */
struct cm_direct *cm_wing_area(MPI_Comm comm, const char *call);

/* A communicator across nodes (wing/hier.c): its ranks on this node, one
 * leader per node, and where each comm rank is in them.  NULL when comm is
 * not one (or the wing is off somewhere in the job). */
struct cm_wing_hier {
    MPI_Comm local, leaders;    /* leaders: MPI_COMM_NULL off the leaders */
    int n, rank;                /* comm's */
    int node;                   /* this rank's node: its leader's rank in leaders */
    int ordered;                /* every node's ranks are one run of comm's ranks */
    int *leader_of, *local_of;  /* comm rank -> its node's number, its rank in local */
};
struct cm_wing_hier *cm_wing_hier(MPI_Comm comm);
void cm_wing_hier_free(void);
int cm_wing_hier_barrier(struct cm_wing_hier *h);
int cm_wing_hier_bcast(void *buf, int count, MPI_Datatype dt, int root, struct cm_wing_hier *h);
int cm_wing_hier_reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                        struct cm_wing_hier *h);
int cm_wing_hier_allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                           struct cm_wing_hier *h);

/* The wing's collectives (wing/front.c), which the hierarchical paths call
 * on a node's part of a communicator. */
int cm_wing_barrier(MPI_Comm comm);
int cm_wing_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm);
int cm_wing_reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm);
int cm_wing_allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm);

/* The node's segment: units of CM_WING_UNIT bytes, taken and given back
 * under its lock; -1: none free. */
#define CM_WING_UNIT (64u * 1024u)
long cm_wing_take(size_t bytes);
void cm_wing_give(long off, size_t bytes);
char *cm_wing_base(void);
int cm_wing_node_rank(MPI_Comm comm, int rank);   /* rank's number on this node, -1 elsewhere */

size_t cm_wing_slot_bytes(void);

/* COREMPI_VERBOSE=1: the host serves call (and why), said once per call and reason. */
void cm_wing_declined(const char *call, const char *why);
void cm_wing_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A type the engine's reductions take: no holes. */
static inline int cm_wing_contiguous(const struct cm_datatype *t)
{
    return t && (MPI_Aint)t->size == t->extent && (MPI_Aint)t->size == t->true_extent;
}

#endif
