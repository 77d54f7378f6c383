/*
 * intercomm.h -- what the intercommunicator files of mpi/ share: the
 * two-group agreement (intercomm_agree.c) and the constructor
 * (intercomm.c).
 *
 * Invariants of an intercommunicator (struct cm_comm, core/comm.h):
 *   - its two groups are disjoint; size/rank/world_of/comm_of are the local
 *     group, remote_* the remote group, peer_* alias remote_*;
 *   - its context pair (ctx, ctx + 1) is free in every member of both
 *     groups, so a message on it can only come from the remote group;
 *   - local is an intracommunicator of the local group on a second pair,
 *     also agreed by both groups (each group uses it among its own members
 *     only, so the two groups' local communicators may share the pair);
 *   - every member of both groups took the two pairs in the same order from
 *     the same union of bitmaps (cm_inter_agree), hence the same pairs.
 */
#ifndef CM_MPI_INTERCOMM_H
#define CM_MPI_INTERCOMM_H

#include <stddef.h>
#include <stdint.h>
#include "core/comm.h"

/* Internal tags (negative; -11/-12 are comm_create.c's, -1000.. idup's):
 * Intercomm_create's group traffic, operations on an intercommunicator
 * (both groups' traffic), and the two ranges that user tags and string tags
 * map to (mpi/intercomm.c). */
#define CM_TAG_INTER_CREATE (-13)
#define CM_TAG_INTER_OPS (-14)

/* A group inside a parent communicator: members[i] is group rank i's rank in
 * parent; me is this process's group rank.  Its messages travel on parent's
 * collective context with tag (negative, internal). */
struct cm_sub {
    struct cm_comm *parent;
    const int *members;
    int n, me, tag;
};

/* The standard's agreement between two groups: the members OR their context
 * bitmaps together within each group; each group's leader (group rank
 * `leader`) swaps its group's union and `mine` (mine_bytes) with the other
 * leader, rank chan_peer of chan (over chan's collective context, tag
 * chan_tag); the leader hands the other group's payload (up to theirs_max
 * bytes, every member passes the same theirs_max) and the union of both
 * groups to its group.  Then every member takes nctx pairs, the lowest free
 * first, into ctx[].  mine is significant at the leader only.  Blocking. */
int cm_inter_agree(const struct cm_sub *g, int leader, struct cm_comm *chan, int chan_peer, int chan_tag,
                   const void *mine, size_t mine_bytes, void *theirs, size_t theirs_max, uint16_t *ctx, int nctx);

/* The intercommunicator of local (world ranks, my rank in it) and remote on
 * agreed pairs ctx[0] (itself) and ctx[1] (its hidden local communicator),
 * error handler errh.  0 or an error class (the pairs are freed then). */
int cm_inter_new(const int *local, int nlocal, int myrank, const int *remote, int nremote, const uint16_t *ctx,
                 MPI_Errhandler errh, MPI_Comm *out);

/* The payload the leaders swap: the group's size and world ranks, in
 * cm_g.size + 1 ints (*bytes); NULL when out of memory. */
int *cm_inter_payload(const int *world, int n, size_t *bytes);
/* Both groups know each other (theirs: the other group's payload): check
 * they are disjoint and make the intercommunicator; errors through errcomm. */
int cm_inter_build(const char *call, MPI_Comm errcomm, const int *local, int nlocal, int myrank, const int *theirs,
                   const uint16_t *ctx, MPI_Errhandler errh, MPI_Comm *out);

/* The agreement over an existing intercommunicator (its hidden local
 * communicator and the two groups' rank 0 as leaders). */
int cm_inter_agree_on(struct cm_comm *ic, const void *mine, size_t mine_bytes, void *theirs, size_t theirs_max,
                      uint16_t *ctx, int nctx);

#endif
