/*
 * util.h -- what the intercommunicator collectives share (the files of coll/inter): the
 * checks of their intercommunicator forms and the exchange of blocks with
 * remote ranks.
 */
#ifndef CM_COLL_INTER_UTIL_H
#define CM_COLL_INTER_UTIL_H

#include "coll/api.h"
#include "coll/inter/inter.h"

/* The tag of every message between the groups: the collectives on one
 * intercommunicator are blocking and called in the same order everywhere,
 * and nothing else uses its collective context. */
#define CM_INTER_TAG 1

/* What a collective needs of its intercommunicator. */
struct cm_ic {
    MPI_Comm comm;   /* the user's handle: errors */
    MPI_Comm cc;     /* its collective twin: messages to remote ranks */
    MPI_Comm local;  /* the hidden intracommunicator of the local group */
    int rank, size, rsize;
    const char *call;
    struct cm_nbc *nbc;  /* nonblocking form: the steps go here instead of running */
};

/* One block of a transfer with one remote rank. */
struct cm_blk {
    const void *buf;
    int count;
    MPI_Datatype dt;
};

int cm_ic_get(MPI_Comm comm, const char *call, struct cm_ic *ic);
/* The nonblocking form's schedule: the op goes into its word (a
 * reduction's, after its checks; nothing for a blocking call). */
void cm_ic_op(const struct cm_ic *ic, MPI_Op op);
/* root: MPI_ROOT, MPI_PROC_NULL, or a remote rank. */
int cm_ic_root(const struct cm_ic *ic, int root);
/* A rooted call's start (cm_ic_get, cm_ic_root): 1 when the call is over
 * already, *rc its result (an error, or success for MPI_PROC_NULL, which
 * takes no part); else 0 with *rc 0. */
int cm_ic_rooted(MPI_Comm comm, const char *call, int root, struct cm_ic *ic, int *rc);
/* Post a send of s[j] (s non-NULL) and a receive into r[j] (r non-NULL)
 * for every remote rank j; wait for all.  0 or the error of point-to-point. */
int cm_ic_swap(const struct cm_ic *ic, const struct cm_blk *s, const struct cm_blk *r);
/* Address of element `index` of a buffer of dt (index * extent bytes on). */
void *cm_ic_at(const void *buf, MPI_Datatype dt, long index);
/* MPI_IN_PLACE has no meaning on an intercommunicator. */
int cm_ic_no_in_place(const struct cm_ic *ic, const void *sbuf, const void *rbuf);
/* The nonblocking forms run the blocking ones' code in "build" mode: the
 * I<coll> front end opens a schedule on the intercommunicator's
 * collective twin (cm_inter_nb_begin), the blocking function's body
 * appends its steps to it instead of running them (cm_ic_get picks the
 * schedule up, with the I-call's name for errors), and cm_inter_nb_end
 * starts it.  Invariant: the schedule is pending only between the two
 * (corempi runs one thread in MPI at a time). */

/* The steps of the algorithms, run now or appended to ic->nbc. */
int cm_ic_send(const struct cm_ic *ic, const void *buf, int count, MPI_Datatype dt, int peer);
int cm_ic_recv(const struct cm_ic *ic, void *buf, int count, MPI_Datatype dt, int peer);
int cm_ic_sendrecv(const struct cm_ic *ic, const void *sbuf, void *rbuf, int count, MPI_Datatype dt);
int cm_ic_copy(const struct cm_ic *ic, const void *src, void *dst, int count, MPI_Datatype dt);
int cm_ic_local_barrier(const struct cm_ic *ic);
int cm_ic_local_bcast(const struct cm_ic *ic, void *buf, int count, MPI_Datatype dt);
int cm_ic_local_reduce(const struct cm_ic *ic, const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op);
/* counts NULL: count per rank. */
int cm_ic_local_scatter(const struct cm_ic *ic, const void *sbuf, const int *counts, const int *displs, int count,
                        void *rbuf, MPI_Datatype dt);
/* A scratch buffer for count elements of dt; free *block with
 * cm_coll_tmp_free when done (NULL in the nonblocking form: the schedule
 * owns the buffer). */
void *cm_ic_tmp(const struct cm_ic *ic, MPI_Datatype dt, int count, void **block);

/* Raise a point-to-point failure inside the algorithm on the user's comm. */
int cm_ic_done(const struct cm_ic *ic, int rc);

#endif
