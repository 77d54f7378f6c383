/*
 * level.c -- the group size of the hybrid algorithms (coll.h,
 * cm_coll_level_size).  Its own file, not the selector's: the algorithms
 * that ask for it are below the selector, which must not be below them
 * (tests/tools/coll_circle.py).
 */
#include "coll/coll.h"
#include "coll/hier.h"

int cm_coll_level_size(MPI_Comm comm, int comm_size)
{
    size_t level = cm_config_size(COREMPI_COLL_LEVEL, 0);   /* read from the table: no cache here */
    if (level >= 2)
        return cm_pof2_floor(level > 65536 ? 65536 : (int)level);
    /* The machine's top level when the ranks fill it in equal blocks (two
     * packages of 8 cores: groups of 8, so only leaders cross); otherwise the
     * seeds' best hybrid at 16 ranks (hybrid-3-4): groups of a quarter. */
    int g = cm_coll_hier_group_size(comm);
    if (g < 2)
        g = cm_pof2_floor(comm_size) / 4;
    return g < 2 ? 2 : g;
}
