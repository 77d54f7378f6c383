/*
 * coll/coll.h for the wing: what the engine's files take from the
 * collectives' registry -- the collective ids, the algorithm signatures,
 * the query, and CM_COLL_VIA, which here names the host's own collective
 * (wing/via.c): where the engine would fall back to a point-to-point
 * algorithm of corempi's, the wing falls back to the host.
 */
#ifndef CM_COLL_COLL_H
#define CM_COLL_COLL_H

#include <stddef.h>
#include <stdlib.h>
#include <mpi.h>
#include "core/comm.h"
#include "core/error.h"
#include "core/state.h"

#define CM_DIRECT_NBC_OFF 1   /* no nonblocking engine in the wing (yet) */

typedef int cm_barrier_sig(MPI_Comm comm);
typedef cm_barrier_sig *cm_barrier_fn;
typedef int cm_bcast_sig(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm);
typedef cm_bcast_sig *cm_bcast_fn;
typedef int cm_reduce_sig(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                          MPI_Comm comm);
typedef cm_reduce_sig *cm_reduce_fn;
typedef int cm_allreduce_sig(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm);
typedef cm_allreduce_sig *cm_allreduce_fn;
typedef int cm_gather_sig(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                          MPI_Datatype rtype, int root, MPI_Comm comm);
typedef cm_gather_sig *cm_gather_fn;
typedef int cm_allgather_sig(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                             MPI_Datatype rtype, MPI_Comm comm);
typedef cm_allgather_sig *cm_allgather_fn;
typedef cm_allgather_sig cm_alltoall_sig;
typedef cm_alltoall_sig *cm_alltoall_fn;

enum cm_coll_id {
#define CM_COLL(coll, COLL) CM_COLL_##COLL,
#include "coll/algorithms.def"
    CM_COLL_NUM
};

struct cm_coll_query {
    int size;
    int count;
    size_t bytes;
    int commutative;
    int contiguous;
};

/* The host's collective in the engine's signature (wing/via.c). */
int cm_wing_via_barrier(MPI_Comm comm);
int cm_wing_via_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm);
int cm_wing_via_reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm);
int cm_wing_via_allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm);
cm_allgather_sig cm_wing_via_allgather, cm_wing_via_alltoall;
#define CM_COLL_VIA(coll, name) cm_wing_via_##coll
#define CM_COLL_NO_SHORTCUT (-1)

/* The engine's entries the wing calls (direct/<coll>.c). */
int cm_coll_barrier_shm(MPI_Comm comm);
int cm_coll_barrier_meet(MPI_Comm comm);
int cm_coll_barrier_meet_applies(MPI_Comm cc, const struct cm_coll_query *q);
int cm_coll_bcast_shm(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm);
int cm_coll_reduce_shm(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm);
int cm_coll_allreduce_shm(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm);
int cm_coll_allreduce_meet(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm);
int cm_coll_allreduce_meet_applies(MPI_Comm cc, const struct cm_coll_query *q);
cm_allgather_sig cm_coll_allgather_shm, cm_coll_alltoall_shm;

struct cm_dt {
    MPI_Aint lb, extent, true_lb, true_extent;
    int size;
};
void cm_coll_dt(MPI_Datatype dt, struct cm_dt *d);
int cm_coll_copy(const void *src, int scount, MPI_Datatype stype, void *dst, int rcount, MPI_Datatype rtype,
                 MPI_Comm comm);
#endif
