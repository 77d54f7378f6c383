/*
 * group.h -- process groups: ordered lists of world ranks.
 */
#ifndef CM_CORE_GROUP_H
#define CM_CORE_GROUP_H

#include "mpi.h"

struct cm_group {
    int size;
    int *world;    /* group rank -> world rank */
    int refcount;
    int session;   /* index of the session it derives from (mpi/session.c), 0: none */
};

struct cm_group *cm_group_lookup(MPI_Group h);
/* Make a group handle from a list of world ranks (copied). */
int cm_group_make(const int *world, int n, MPI_Group *out);
/* A group made from others derives from their session (MPI-4.1 §11.3:
 * "derived from a session"); no effect on MPI_GROUP_EMPTY. */
void cm_group_set_session(MPI_Group h, int session);
/* Rank of a world rank in a group, or MPI_UNDEFINED. */
int cm_group_rank_of(const struct cm_group *g, int world_rank);
void cm_group_finalize(void);

#endif
