/*
 * legacy.c -- the old names of include/mpi_legacy.h whose replacement takes
 * other arguments: MPI_Type_extent, MPI_Type_lb and MPI_Type_ub, each a
 * call of MPI_Type_get_extent.  The others are their MPI-2 replacements
 * under the old name with the same arguments: their generated front ends
 * (spec/removed.api, spec/deprecated.api: impl=PMPI_<replacement>) call the
 * replacement's front end directly.
 *
 * They are exported whether or not a program declares them (the header is
 * opt-in, the library is one), so a binary built elsewhere against them
 * links.  Their front ends record nothing (flag norecord) and these bodies
 * call the PMPI_ replacement: a profiler sees the old call only if it wraps
 * the old name itself, never the replacement twice, and an error names the
 * replacement.
 */
#define COREMPI_LEGACY_NAMES
#include <mpi.h>
#include "fe_removed.h"

int cm_Type_extent(MPI_Datatype datatype, MPI_Aint *extent)
{
    MPI_Aint lb;
    return PMPI_Type_get_extent(datatype, &lb, extent);
}

int cm_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement)
{
    MPI_Aint extent;
    return PMPI_Type_get_extent(datatype, displacement, &extent);
}

/* MPI-1's upper bound: lb + extent (the extent includes any padding). */
int cm_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement)
{
    MPI_Aint lb, extent;
    int rc = PMPI_Type_get_extent(datatype, &lb, &extent);
    if (rc == MPI_SUCCESS)
        *displacement = lb + extent;
    return rc;
}
