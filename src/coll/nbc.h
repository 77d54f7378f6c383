/*
 * nbc.h -- schedules for the nonblocking collectives (nbc.c) and the
 * schedule builders (nbc_build.c).
 */
#ifndef CM_COLL_NBC_H
#define CM_COLL_NBC_H

#include "coll/coll.h"

struct cm_request;

struct cm_nbc;

struct cm_nbc *cm_nbc_new(MPI_Comm collcomm);
/* Sends and receives added from now on go over collcomm (a collective
 * twin) instead of the schedule's own: an intercommunicator's schedule
 * mixes its two groups' traffic with its local group's (coll/inter).
 * The tag stays the schedule's. */
void cm_nbc_use(struct cm_nbc *s, MPI_Comm collcomm);
int cm_nbc_send(struct cm_nbc *s, const void *buf, int count, MPI_Datatype dt, int peer);
int cm_nbc_recv(struct cm_nbc *s, void *buf, int count, MPI_Datatype dt, int peer);
/* inout = in op inout, after the round's messages. */
int cm_nbc_reduce(struct cm_nbc *s, const void *in, void *inout, int count, MPI_Datatype dt, MPI_Op op);
int cm_nbc_copy(struct cm_nbc *s, const void *src, int scount, MPI_Datatype stype, void *dst, int rcount,
                MPI_Datatype rtype);
/* Close the current round. */
int cm_nbc_round(struct cm_nbc *s);
/* Scratch memory freed with the schedule (at most 4 per schedule). */
void *cm_nbc_scratch(struct cm_nbc *s, MPI_Datatype dt, int count);
#ifdef CM_IN_COREMPI
/* The call's argument word (coll/direct/direct.h, cm_direct_nbc_args), from
 * a front end that made one, before cm_nbc_start: its tags carry the word
 * and its receives compare what they get (nbc.c's header). */
struct cm_direct_nbc_args;
void cm_nbc_word(struct cm_nbc *s, const struct cm_direct_nbc_args *args);
/* Each message of s carries the class of its own data and each receive
 * compares it with the class of what it takes (coll/direct/direct.h,
 * cm_direct_word_class): the two ends of a message name their own types
 * (an intercommunicator's groups; alltoallv/w's blocks, set by cm_nbc_word). */
void cm_nbc_classes(struct cm_nbc *s);
/* The word a front end left in cm_direct_nbc_next (coll/api.h,
 * api_nbc_word) goes on s (NULL: dropped), and is cleared. */
void cm_nbc_take_word(struct cm_nbc *s);
#else
#define cm_nbc_take_word(s) ((void)(s))
#endif
/* Hand the schedule to a generic request (which owns it from then on). */
int cm_nbc_start(struct cm_nbc *s, MPI_Request *request);
void cm_nbc_free(struct cm_nbc *s);
/* 1 while a schedule of this process is started and not complete (on any
 * communicator): the schedules' tags may then hold messages of rounds still
 * to come (coll/leftover.c looks at them only when this is 0). */
int cm_nbc_any_live(void);

/* Builders: append the collective's rounds to s (comm: the collective communicator). */
int cm_nbc_build_barrier(struct cm_nbc *s, MPI_Comm comm);
int cm_nbc_build_bcast(struct cm_nbc *s, void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm);
int cm_nbc_build_reduce(struct cm_nbc *s, const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                        MPI_Op op, int root, MPI_Comm comm);
int cm_nbc_build_gather(struct cm_nbc *s, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                        int rcount, MPI_Datatype rtype, int root, MPI_Comm comm);
int cm_nbc_build_scatter(struct cm_nbc *s, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                         int rcount, MPI_Datatype rtype, int root, MPI_Comm comm);
int cm_nbc_build_allgather(struct cm_nbc *s, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                           int rcount, MPI_Datatype rtype, MPI_Comm comm);
int cm_nbc_build_alltoall(struct cm_nbc *s, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                          int rcount, MPI_Datatype rtype, MPI_Comm comm);

/* nbc_build_v.c.  Where the blocks of a v buffer are: counts[i] elements at
 * element displs[i]; counts NULL: the regular form, count elements at i*count
 * (so Igather and Igatherv share one builder). */
struct cm_nbc_blocks {
    const int *counts, *displs;
    int count;
};
static inline int cm_nbc_bcount(const struct cm_nbc_blocks *b, int i)
{
    return b->counts ? b->counts[i] : b->count;
}
static inline MPI_Aint cm_nbc_bdispl(const struct cm_nbc_blocks *b, int i)
{
    return b->counts ? b->displs[i] : (MPI_Aint)i * b->count;
}
int cm_nbc_build_gatherv(struct cm_nbc *s, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                         const struct cm_nbc_blocks *rb, MPI_Datatype rtype, int root, MPI_Comm comm);
int cm_nbc_build_scatterv(struct cm_nbc *s, const void *sbuf, const struct cm_nbc_blocks *sb, MPI_Datatype stype,
                          void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm);
int cm_nbc_build_allgatherv(struct cm_nbc *s, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                            const struct cm_nbc_blocks *rb, MPI_Datatype rtype, MPI_Comm comm);
int cm_nbc_build_alltoallv(struct cm_nbc *s, const void *sbuf, const struct cm_nbc_blocks *sb,
                           MPI_Datatype stype, void *rbuf, const struct cm_nbc_blocks *rb, MPI_Datatype rtype,
                           MPI_Comm comm);
/* displacements in bytes, one type per peer */
int cm_nbc_build_alltoallw(struct cm_nbc *s, const void *sbuf, const int *scounts, const int *sdispls,
                           const MPI_Datatype *stypes, void *rbuf, const int *rcounts, const int *rdispls,
                           const MPI_Datatype *rtypes, MPI_Comm comm);
/* sbuf == rbuf: in place */
int cm_nbc_build_scan(struct cm_nbc *s, const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                      int exclusive, MPI_Comm comm);
int cm_nbc_build_reduce_scatter(struct cm_nbc *s, const void *sbuf, void *rbuf, const int *rcounts,
                                MPI_Datatype dt, MPI_Op op, MPI_Comm comm);

/* Persistent collectives (coll/persist.c).  An MPI_<coll>_init runs the
 * nonblocking front end of its collective with cm_coll_capture.on set: the
 * front end checks the arguments under the _init's name (CM_COLL_CALL) and
 * picks its path exactly as the nonblocking call would, and where that path
 * would start its plan (cm_nbc_start, the direct engine's queue, the
 * neighbourhood exchange) it hands the plan to cm_coll_keep instead and sets
 * *request to MPI_REQUEST_NULL.  MPI_Start then re-arms the kept plan
 * (begin) and drives it like the nonblocking request (poll, block), never
 * choosing or checking again.  Invariant: on only between
 * cm_coll_persist_begin and cm_coll_persist_end, and at most one plan kept
 * in between. */
struct cm_coll_plan {
    int on;
    const char *call;
    void *plan;
    int (*begin)(void *plan);      /* MPI_Start: arm; waits for other ranks only through an
                                    * older schedule that holds its tag (nbc.c, claim) */
    int (*poll)(void *plan);       /* 1: this start is complete */
    void (*block)(void *plan);     /* may be NULL: returns once poll would say 1 */
    void (*destroy)(void *plan);
    int no_first_poll;             /* Start need not poll right after begin */
    /* Optional: the whole of MPI_Start for this plan (the request's start
     * hook, instead of cm_coll_plan_start around begin), for a plan whose
     * Start is its hot path.  It may hand a case back to cm_coll_plan_start. */
    int (*start)(struct cm_request *r, const char *call);
    /* Optional (argument agreement, coll/direct/direct.h): coll/persist.c
     * stores the persistent request in *req; a start that finds the ranks'
     * arguments different clears its quick_finish, so that Wait/Test take
     * the full finish, whose query calls report (which raises the error and
     * clears the plan's record for the next start). */
    struct cm_request **req;
    int (*report)(void *plan);
};
extern CM_THREAD_LOCAL struct cm_coll_plan cm_coll_capture;
#define CM_COLL_CALL(name) (cm_coll_capture.on ? cm_coll_capture.call : (name))
int cm_coll_keep(void *plan, int (*begin)(void *), int (*poll)(void *), void (*block)(void *),
                 void (*destroy)(void *), MPI_Request *request);
/* Around the nonblocking front end in an _init (coll/persist.c): begin checks
 * the request pointer and info; end makes the persistent request. */
int cm_coll_persist_begin(const char *call, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int cm_coll_persist_end(int rc, MPI_Request inner, MPI_Comm comm, MPI_Request *request);
/* The generic MPI_Start of a kept plan: begin, then complete or listed for
 * progress. */
int cm_coll_plan_start(struct cm_request *r, const char *call);
/* The body of an _init after its API_ENTER (or CM_OUTER): icall is the nonblocking front
 * end's call with &inner as its request (comm, info, request: the _init's). */
#define CM_PERSIST(name, icall)                                                         \
    do {                                                                                \
        MPI_Request inner = MPI_REQUEST_NULL;                                           \
        int rc_ = cm_coll_persist_begin("MPI_" #name, comm, info, request);             \
        if (rc_)                                                                        \
            return rc_;                                                                 \
        rc_ = icall;                                                                    \
        return cm_coll_persist_end(rc_, inner, comm, request);                          \
    } while (0)

#endif
