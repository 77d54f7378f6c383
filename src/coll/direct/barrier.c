/*
 * direct/barrier.c -- barrier on the shared area: one fetch-add per rank on the
 * arrival counter; the last arrival releases everyone with one futex wake
 * (early arrivals spin only when the ranks have a core each).
 */
#include <mpi.h>
#ifdef CM_IN_COREMPI  /* corempi only: the host-MPI harness compiles every src/coll file */
#include "coll/direct/direct.h"
#include "core/state.h"

/* As the allreduce's shortcut (direct/allreduce.c; algorithms.def, CM_SHORTCUT
 * barrier meet): once a barrier ran here and the area is a 2-rank one with
 * flag syncs, the front end goes straight to the meeting line: ~100
 * instructions a barrier instead of ~240.  With shared caches the line's
 * hand-over hides the difference (0.083 against 0.084 us, medians of 6
 * alternated runs); it shows when the line crosses between caches (0.209
 * against 0.228). */
int cm_coll_barrier_meet_applies(MPI_Comm cc, const struct cm_coll_query *q)
{
    (void)q;
    struct cm_direct *s = cm_direct_peek(cc);
    if (!(s && s->meet && cm_direct_flag_syncs(s) && !cm_g.coll_check))  /* COREMPI_CHECK: every call checked */
        return 0;
    s->barrier_shortcut = 1;
    return 1;
}

int cm_coll_barrier_meet(MPI_Comm comm)
{
    struct cm_direct *s = cm_direct_peek(comm);
    if (!s || !s->barrier_shortcut)
        return CM_COLL_NO_SHORTCUT;
    if (__builtin_expect(cm_direct_meet_sync(s, (uint64_t)cm_direct_word_of(CM_COLL_BARRIER, 0, -1, MPI_OP_NULL) << 32),
                         0) && cm_direct_mm.on)
        return cm_coll_mismatch_raise(comm, "MPI_Barrier");
    return MPI_SUCCESS;
}

int cm_coll_barrier_shm(MPI_Comm comm)
{
    struct cm_direct *s = cm_direct_get(comm, "MPI_Barrier");
    if (!s)
        return CM_COLL_VIA(barrier, dissemination)(comm);
    cm_direct_sync(s, NULL, NULL);
    return MPI_SUCCESS;
}
#endif
