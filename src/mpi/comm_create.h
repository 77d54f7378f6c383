/* comm_create.h -- what comm_create.c shares with comm_idup.c. */
#ifndef CM_MPI_COMM_CREATE_H
#define CM_MPI_COMM_CREATE_H

#include <stdint.h>
#include "core/comm.h"

/* A duplicate of p on the agreed context ctx (already taken here): the new
 * communicator with p's error handler, topology, attributes (copy callbacks
 * run) and hints (or info's, when info is not MPI_INFO_NULL). */
int cm_comm_dup_finish(struct cm_comm *p, uint16_t ctx, MPI_Info info, MPI_Comm *newcomm, const char *call);

/* A context id free in every member: members[0..n) are parent ranks, me is
 * this process's index in members, tag an internal (negative) tag that no
 * concurrent agreement among the same processes uses. */
int cm_comm_agree_context(struct cm_comm *parent, const int *members, int n, int me, int tag, uint16_t *ctx);

#endif
