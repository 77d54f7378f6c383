/*
 * comm_from_group.h -- agreeing on a context id among the members of a
 * group without a parent communicator (Comm_create_from_group; made to be
 * reused by Intercomm_create_from_groups).
 */
#ifndef CM_MPI_COMM_FROM_GROUP_H
#define CM_MPI_COMM_FROM_GROUP_H

#include <stdint.h>
#include "core/group.h"

/* The internal (negative) tag of a string tag's channel: equal string tags
 * give equal tags, in a range no other internal exchange uses. */
int cm_stringtag_channel(const char *stringtag);

/* A context id free in every member of g; collective over g's members only,
 * all calling with the same stringtag (myrank: this process's rank in g). */
int cm_group_agree_context(const struct cm_group *g, int myrank, const char *stringtag, uint16_t *ctx);

#endif
