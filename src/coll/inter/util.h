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
};

/* One block of a transfer with one remote rank. */
struct cm_blk {
    const void *buf;
    int count;
    MPI_Datatype dt;
};

int cm_ic_get(MPI_Comm comm, const char *call, struct cm_ic *ic);
/* root: MPI_ROOT, MPI_PROC_NULL, or a remote rank. */
int cm_ic_root(const struct cm_ic *ic, int root);
/* Post a send of s[j] (s non-NULL) and a receive into r[j] (r non-NULL)
 * for every remote rank j; wait for all.  0 or the error of point-to-point. */
int cm_ic_swap(const struct cm_ic *ic, const struct cm_blk *s, const struct cm_blk *r);
/* Address of element `index` of a buffer of dt (index * extent bytes on). */
void *cm_ic_at(const void *buf, MPI_Datatype dt, long index);
/* MPI_IN_PLACE has no meaning on an intercommunicator. */
int cm_ic_no_in_place(const struct cm_ic *ic, const void *sbuf, const void *rbuf);
/* Raise a point-to-point failure inside the algorithm on the user's comm. */
int cm_ic_done(const struct cm_ic *ic, int rc);

#endif
