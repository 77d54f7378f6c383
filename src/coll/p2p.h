/*
 * p2p.h -- the point-to-point calls of the collective algorithms.
 *
 * The algorithms call cm_coll_send, cm_coll_recv, ... with the arguments of
 * the PMPI_ functions of the same names.  In corempi these are p2p's
 * internal entry (p2p/coll_entry.h): no user argument checks, no entry
 * bookkeeping, and the flags of the collective running now.  Over another
 * MPI (the host-MPI harness, tests/coll/validate_host_mpi.sh) they are the
 * PMPI_ functions themselves.
 *
 * The flags are recorded once per collective by its impl (API_ENTER,
 * coll/api.h): the outermost collective's call id, so that a rank asleep in
 * a nested collective (an allreduce's reduce) is reported in the one the
 * user called, and CM_P2P_BULK for the collectives that only move data.
 * Invariant: cm_coll_p2p_flags is 0 outside a collective's front end, so a
 * nonblocking collective's schedule, progressed from the user's MPI_Wait,
 * sends as plain point-to-point.
 */
#ifndef CM_COLL_P2P_H
#define CM_COLL_P2P_H

#include <mpi.h>

#ifdef CM_IN_COREMPI
#include "p2p/coll_entry.h"
#include "core/state.h"

extern CM_THREAD_LOCAL unsigned cm_coll_p2p_flags;
/* The argument word on a blocking collective's messages (p2p/coll_entry.h,
 * "the argument word"), shifted into place: the low bits of the call's word
 * (coll/direct/direct.h, "argument agreement"), set by the blocking front
 * ends (coll/api.h api_word) and 0 outside them.  A rank that has seen a
 * mismatch in the call sends CM_COLL_TAG_POISON instead (coll/mismatch.c),
 * so that ranks further down the algorithm's data flow, which only get its
 * partial results, learn of it too. */
extern CM_THREAD_LOCAL uint32_t cm_coll_tag_word;
#define CM_COLL_TAG_POISON (31u << CM_P2P_TAG_BASE_BITS)   /* the collective field: no collective */

/* The tag on the wire: a blocking algorithm's tag (below CM_TAG_CHECK,
 * coll.h) carries the word.  The nonblocking schedules' tags (from
 * CM_TAG_NBC_BASE) never do: a schedule's rounds run both inside its front
 * end and later from MPI_Wait, and a receive posted without a word matches
 * only its exact tag.  The argument check's exchange (CM_TAG_CHECK)
 * compares everything itself. */
#define CM_COLL_TAG_PLAIN 20   /* coll.h: CM_TAG_CHECK */
static inline int cm_coll_wire_tag(int tag)
{
    if ((unsigned)tag - 1u < CM_COLL_TAG_PLAIN - 1u)
        return tag | (int)cm_coll_tag_word;
    return tag;
}

/* Alltoallv and alltoallw point to point: the two ends of a block name
 * their own types for it, so its tags carry the block's signature class
 * (direct.h, cm_direct_word_class): the send's the class of what it sends,
 * the receive's the class of what it takes, which the call's word takes too
 * for the receive's comparison (mismatch.c).  tag is the algorithm's; the
 * tags returned are on the wire already (cm_coll_wire_tag leaves them). */
void cm_coll_block_tags(int tag, MPI_Datatype stype, int scount, MPI_Datatype rtype, int rcount, int *stag,
                        int *rtag);

/* The data-movement collectives: nothing reads the received bytes right
 * after they arrive, so large messages take the split copy sooner (see
 * p2p/rndv.c for the measurements).  Reductions combine what they receive
 * at once and stay streamed. */
static inline unsigned cm_coll_p2p_flags_of(enum cm_call_id id)
{
    switch (id) {
    case CM_CALL_Bcast: case CM_CALL_Gather: case CM_CALL_Gatherv: case CM_CALL_Scatter:
    case CM_CALL_Scatterv: case CM_CALL_Allgather: case CM_CALL_Allgatherv: case CM_CALL_Alltoall:
    case CM_CALL_Alltoallv: case CM_CALL_Alltoallw:
        return (unsigned)id | CM_P2P_BULK;
    default:
        return (unsigned)id;
    }
}

/* A collective's front end begins: the outermost one sets the flags.
 * Returns what to restore when it ends (cm_coll_p2p_leave). */
static inline unsigned cm_coll_p2p_enter(enum cm_call_id id)
{
    unsigned prev = cm_coll_p2p_flags;
    if (!prev)
        cm_coll_p2p_flags = cm_coll_p2p_flags_of(id);
    return prev;
}
static inline void cm_coll_p2p_leave(unsigned *prev) { cm_coll_p2p_flags = *prev; }

static inline int cm_coll_send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    return cm_p2p_send(buf, count, dt, dest, cm_coll_wire_tag(tag), comm, cm_coll_p2p_flags);
}
static inline int cm_coll_recv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                               MPI_Status *status)
{
    return cm_p2p_recv(buf, count, dt, source, cm_coll_wire_tag(tag), comm, status, cm_coll_p2p_flags);
}
static inline int cm_coll_sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag,
                                   void *rbuf, int rcount, MPI_Datatype rtype, int source, int rtag,
                                   MPI_Comm comm, MPI_Status *status)
{
    return cm_p2p_sendrecv(sbuf, scount, stype, dest, cm_coll_wire_tag(stag), rbuf, rcount, rtype, source,
                           cm_coll_wire_tag(rtag), comm, status, cm_coll_p2p_flags);
}
static inline int cm_coll_isend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                                MPI_Request *request)
{
    return cm_p2p_isend(buf, count, dt, dest, cm_coll_wire_tag(tag), comm, request, cm_coll_p2p_flags);
}
static inline int cm_coll_irecv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                                MPI_Request *request)
{
    return cm_p2p_irecv(buf, count, dt, source, cm_coll_wire_tag(tag), comm, request, cm_coll_p2p_flags);
}
static inline int cm_coll_wait(MPI_Request *request, MPI_Status *status)
{
    return cm_p2p_wait(request, status, cm_coll_p2p_flags);
}
static inline int cm_coll_waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    return cm_p2p_waitall(count, requests, statuses, cm_coll_p2p_flags);
}
static inline int cm_coll_testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[])
{
    return cm_p2p_testall(count, requests, flag, statuses, cm_coll_p2p_flags);
}
static inline int cm_coll_testall_got(int count, MPI_Request requests[], int *flag, struct cm_p2p_got got[])
{
    return cm_p2p_testall_got(count, requests, flag, got, cm_coll_p2p_flags);
}
#else
#define cm_coll_send PMPI_Send
#define cm_coll_recv PMPI_Recv
#define cm_coll_sendrecv PMPI_Sendrecv
#define cm_coll_isend PMPI_Isend
#define cm_coll_irecv PMPI_Irecv
#define cm_coll_wait PMPI_Wait
#define cm_coll_waitall PMPI_Waitall
#define cm_coll_testall PMPI_Testall
#define cm_coll_block_tags(tag, st, sc, rt, rc, stag, rtag) ((void)(st), (void)(sc), (void)(rt), (void)(rc), *(stag) = *(rtag) = (tag))
#endif

#endif
