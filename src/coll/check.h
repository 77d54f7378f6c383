/*
 * check.h -- COREMPI_CHECK=1: before every blocking collective the ranks
 * exchange what each will send to and expect from every other (bytes and a
 * hash of the type signature), the collective, the root and the op, over
 * point-to-point on the collective context, and all of them raise the same
 * error when anything disagrees, before any data moves.  Off by default
 * (docs/collectives.md, "Mismatched arguments": the default check rides in
 * the shared-memory syncs, check.c costs a round of messages per call).
 */
#ifndef CM_COLL_CHECK_H
#define CM_COLL_CHECK_H

#include "coll/coll.h"

/* The arguments of one call, as the front end has them (unused ones 0/NULL).
 * sbuf / rbuf only matter for MPI_IN_PLACE. */
struct cm_check_call {
    enum cm_coll_id coll;
    int root;                    /* -1: not rooted */
    MPI_Op op;                   /* MPI_OP_NULL: no reduction */
    const void *sbuf, *rbuf;
    int scount, rcount;
    const int *scounts, *rcounts;
    MPI_Datatype stype, rtype;
    const MPI_Datatype *stypes, *rtypes;
};

/* 0 when every rank called the same collective with matching arguments;
 * else the error, raised through comm's handler on every rank. */
int cm_coll_check(MPI_Comm comm, const char *call, const struct cm_check_call *c);

/* "MPI_Bcast" for CM_COLL_BCAST, for messages. */
const char *cm_coll_call_name(long long id);

#endif
