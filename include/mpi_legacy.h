/*
 * mpi_legacy.h -- the old names that existing codes still call, opt-in.
 *
 * Declared only when the program defines COREMPI_LEGACY_NAMES before
 * including <mpi.h> (e.g. `mpicc -DCOREMPI_LEGACY_NAMES`), so that the
 * standard header stays exactly the standard's (and the MPI-5.0 ABI's):
 * the MPI-1 names removed in MPI-3.0 (MPI_Address, MPI_Type_extent,
 * MPI_Type_lb, MPI_Type_ub, MPI_Type_hvector, MPI_Type_hindexed,
 * MPI_Type_struct, MPI_Errhandler_create/set/get, MPI_Handler_function).
 * The attribute calls deprecated since MPI-2.0 (MPI_Attr_*, MPI_Keyval_*,
 * MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, MPI_DUP_FN) are still the
 * standard's, in its ABI header too: mpi.h declares them.
 * Each is its MPI-2 replacement under the old name (src/mpi/legacy.c), so an
 * error names the replacement ("MPI_Comm_set_attr" for MPI_Attr_put).  The
 * arrays are const as the replacements' are (the C prototypes come from the
 * spec, spec/removed.api; a caller passing int * is unaffected).
 * MPI_LB and MPI_UB (the removed bound markers) are not provided: use
 * MPI_Type_create_resized.
 */
#ifndef COREMPI_MPI_LEGACY_H
#define COREMPI_MPI_LEGACY_H

#ifdef __cplusplus
extern "C" {
#endif

typedef MPI_Comm_errhandler_function MPI_Handler_function;

#if defined(__GNUC__)
#define COREMPI_LEGACY_VISIBLE __attribute__((visibility("default")))
#else
#define COREMPI_LEGACY_VISIBLE
#endif
#define COREMPI_LEGACY_FN(ret, name, args) \
    COREMPI_LEGACY_VISIBLE ret MPI_##name args; COREMPI_LEGACY_VISIBLE ret PMPI_##name args;
COREMPI_LEGACY_FN(int, Address, (void *location, MPI_Aint *address))
COREMPI_LEGACY_FN(int, Type_extent, (MPI_Datatype datatype, MPI_Aint *extent))
COREMPI_LEGACY_FN(int, Type_lb, (MPI_Datatype datatype, MPI_Aint *displacement))
COREMPI_LEGACY_FN(int, Type_ub, (MPI_Datatype datatype, MPI_Aint *displacement))
COREMPI_LEGACY_FN(int, Type_hvector, (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                                      MPI_Datatype *newtype))
COREMPI_LEGACY_FN(int, Type_hindexed, (int count, const int array_of_blocklengths[],
                                       const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                       MPI_Datatype *newtype))
COREMPI_LEGACY_FN(int, Type_struct, (int count, const int array_of_blocklengths[],
                                     const MPI_Aint array_of_displacements[], const MPI_Datatype array_of_types[],
                                     MPI_Datatype *newtype))
COREMPI_LEGACY_FN(int, Errhandler_create, (MPI_Handler_function *function, MPI_Errhandler *errhandler))
COREMPI_LEGACY_FN(int, Errhandler_set, (MPI_Comm comm, MPI_Errhandler errhandler))
COREMPI_LEGACY_FN(int, Errhandler_get, (MPI_Comm comm, MPI_Errhandler *errhandler))
#undef COREMPI_LEGACY_FN
#undef COREMPI_LEGACY_VISIBLE

#ifdef __cplusplus
}
#endif
#endif /* COREMPI_MPI_LEGACY_H */
