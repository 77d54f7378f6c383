/*
 * leftover.c -- messages of a collective that no call received,
 * found when a rank frees the communicator or finalizes (issue 32 item 2).
 *
 * Why they mean a mismatch: a blocking collective returns only once every
 * receive of this rank's part of it has completed, and in a correct program
 * every message a rank is sent in a collective is one of those receives.  So
 * when this rank frees a communicator (after its last call on it), nothing
 * sent to it by a blocking algorithm on the collective context may still be
 * waiting: a message there was sent by a rank whose arguments differed (a
 * broadcast whose ranks name different roots on the point-to-point
 * algorithms: each root's messages reach ranks that took the other root,
 * and every call returns success).  The same holds for the nonblocking and
 * persistent schedules once this process has none started and incomplete
 * (cm_nbc_any_live): their tags are looked at only then, since
 * MPI_Comm_free may be called with requests pending, whose peers' messages
 * of later rounds may be on their way (an MPI_Ibcast whose ranks name two
 * roots: no rank need receive from the wrong one, each returns success).
 * Messages that may legitimately be waiting have other tags and are not
 * looked at: the area's set-up (CM_TAG_AREA), the communicator calls'
 * negative tags.  A call whose mismatch was raised already (mismatch.c) may
 * have left messages: known, not reported twice.  A message still in
 * flight when this rank looks is not seen (docs/collectives.md).
 */
#include <mpi.h>
#ifdef CM_IN_COREMPI  /* corempi only: the host-MPI harness compiles every src/coll file */
#include "coll/check.h"
#include "coll/direct/direct.h"
#include "coll/nbc.h"
#include "coll/percomm.h"
#include "core/comm.h"
#include "core/error.h"
#include "core/state.h"
#include "p2p/p2p.h"

#include <stdio.h>

int cm_coll_leftovers(MPI_Comm comm, const char *call, int to_stderr)
{
    struct cm_comm *c = cm_comm_lookup(comm, NULL);
    struct cm_coll_state *st = c && !cm_comm_is_inter(c) ? cm_coll_state_of(cm_coll_comm(comm), 0) : NULL;
    int src_world, tag;
    if (!st || st->mismatched || !cm_unexp_find_worded(st->ctx, CM_TAG_AREA, !cm_nbc_any_live(), &src_world, &tag))
        return MPI_SUCCESS;
    st->mismatched = 1;     /* one line per communicator */
    int src = src_world >= 0 && src_world < cm_g.size ? c->comm_of[src_world] : -1;
    unsigned base = (unsigned)tag & CM_P2P_TAG_BASE_MASK;
    unsigned coll = base >= CM_P2P_TAG_NBC_FIRST ? cm_direct_word_coll(((unsigned)tag >> CM_P2P_TAG_BASE_BITS) & 31u)
                                                 : cm_direct_tag_coll((int)base, CM_COLL_NUM);
    const char *name = coll < CM_COLL_NUM ? cm_coll_call_name((long long)coll) : "a collective";
    char line[512];     /* the text below plus a name of MPI_MAX_OBJECT_NAME */
    snprintf(line, sizeof line,
             "a message rank %d sent in %s%s on communicator %s%s%#lx was never received here: the ranks' arguments "
             "of that call differed (a root, or more messages than this rank took)",
             src, base >= CM_P2P_TAG_NBC_FIRST ? "a nonblocking or persistent " : "", name, c->name[0] ? c->name : "",
             c->name[0] ? " " : "", (unsigned long)(uintptr_t)comm);
    int rc = cm_error(comm, MPI_ERR_ARG, call, "%s", line);
    if (to_stderr)      /* the handler returned: the line is not out yet */
        fprintf(stderr, "corempi: %s on rank %d: %s\n", call, c->rank, line);
    return rc;
}

int cm_coll_leftovers_all(const char *call)
{
    int first = MPI_SUCCESS;
    for (int i = 1; i < cm_comm_table_len; i++) {
        struct cm_comm *c = cm_comm_table[i];
        if (!c)
            continue;
        int rc = cm_coll_leftovers(c->handle, call, 1);
        if (rc && first == MPI_SUCCESS)
            first = rc;
    }
    return first;
}
#endif
