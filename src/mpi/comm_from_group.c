/*
 * comm_from_group.c -- MPI_Comm_create_from_group and the agreement it
 * needs (comm_from_group.h).
 *
 * There is no parent communicator, but every process of a corempi job maps
 * MPI_COMM_WORLD's segment, and the world communicator exists (as an object)
 * as soon as the process state is up, under sessions too.  So the members
 * agree on a context id over a hidden world-level channel: world's
 * collective context, with an internal tag derived from the string tag.
 * Internal tags are negative, so no user message and no collective
 * algorithm can match them; the channel's range (below CHANNEL_BASE) is
 * apart from comm_create.c's (-11, -12) and comm_idup.c's (-1000 ...).
 * Two concurrent creations over overlapping groups need different string
 * tags (the standard's rule); they then get different channels unless
 * their hashes collide (1 in 2^24).
 */
#include "core/comm.h"
#include "core/group.h"
#include "core/error.h"
#include "core/state.h"
#include "core/context.h"
#include "mpi/comm_create.h"
#include "mpi/comm_from_group.h"
#include "fe_proc.h"

#include <stdlib.h>
#include <string.h>

#define CHANNEL_BASE (-(1 << 24))
#define CHANNEL_SPAN (1 << 24)

int cm_stringtag_channel(const char *stringtag)
{
    uint32_t h = 2166136261u;   /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)stringtag; *p; p++)
        h = (h ^ *p) * 16777619u;
    return CHANNEL_BASE - (int)(h % CHANNEL_SPAN);
}

int cm_group_agree_context(const struct cm_group *g, int myrank, const char *stringtag, uint16_t *ctx)
{
    /* World ranks are world's comm ranks: the group's list is the member list. */
    struct cm_comm *world = cm_comm_lookup(MPI_COMM_WORLD, NULL);
    if (!world)
        return MPI_ERR_INTERN;
    return cm_comm_agree_context(world, g->world, g->size, myrank, cm_stringtag_channel(stringtag), ctx);
}

int cm_Comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info, MPI_Errhandler errhandler,
                              MPI_Comm *newcomm)
{
    CM_CALL_INITIALIZED("MPI_Comm_create_from_group");
    /* Errors go to the handler the new communicator would get (an invalid
     * one: errors are fatal). */
    MPI_Comm none = MPI_COMM_NULL;
    if (!cm_errh_valid(errhandler))
        return cm_error_on(MPI_ERRORS_ARE_FATAL, &none, MPI_ERR_ARG, call, "invalid error handler %ld",
                           (long)(intptr_t)errhandler);
    if (!newcomm)
        return cm_error_on(errhandler, &none, MPI_ERR_ARG, call, "newcomm is NULL");
    if (!stringtag)
        return cm_error_on(errhandler, &none, MPI_ERR_ARG, call, "stringtag is NULL");
    if (strlen(stringtag) >= MPI_MAX_STRINGTAG_LEN)
        return cm_error_on(errhandler, &none, MPI_ERR_ARG, call, "stringtag is longer than %d characters",
                           MPI_MAX_STRINGTAG_LEN - 1);
    struct cm_group *g = cm_group_lookup(group);
    if (!g)
        return cm_error_on(errhandler, &none, MPI_ERR_GROUP, call,
                           group == MPI_GROUP_NULL ? "group is MPI_GROUP_NULL%s" : "invalid group%s", "");
    /* Collective over the group's members only (MPI-4.1 §7.4.2): with
     * MPI_GROUP_EMPTY the call is local and gives MPI_COMM_NULL, and so,
     * as for MPI_Comm_create_group, for a process not in the group.  An
     * error there left the caller's variable as it was: a program that
     * reused it waited on its old communicator (tests/mpi/session_mod_group.c). */
    int myrank = cm_group_rank_of(g, cm_g.rank);
    if (myrank == MPI_UNDEFINED) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    (void)info;   /* no hint changes anything here */
    uint16_t ctx;
    if ((rc = cm_group_agree_context(g, myrank, stringtag, &ctx)))
        return cm_error_on(errhandler, &none, rc, call, "no free context id (too many communicators)");
    struct cm_comm *c = cm_comm_create_raw(g->world, g->size, myrank, ctx);
    if (!c) {
        cm_context_free(ctx);
        return cm_error_on(errhandler, &none, MPI_ERR_NO_MEM, call, "out of memory");
    }
    c->errh = errhandler;
    cm_errh_retain(errhandler);
    c->session = g->session;
    *newcomm = c->handle;
    return MPI_SUCCESS;
}
