/*
 * shm_barrier.c -- barrier on the shared area: one fetch-add per rank on the
 * arrival counter; the last arrival releases everyone with one futex wake
 * (early arrivals spin only when the ranks have a core each).
 */
#include <mpi.h>
#ifdef COREMPI  /* corempi only: the host-MPI harness compiles every src/coll file */
#include "coll/shm.h"

int cm_coll_barrier_shm(MPI_Comm comm)
{
    struct cm_shm *s = cm_shm_get(comm, "MPI_Barrier");
    if (!s)
        return cm_coll_barrier_dissemination(comm);
    cm_shm_sync(s, NULL, NULL);
    return MPI_SUCCESS;
}
#endif
