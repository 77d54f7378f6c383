/* c_interop.c -- the C half of f_interop.f90: C code called from Fortran
 * with Fortran handles and a Fortran status, converted with mpi.h's
 * MPI_<Handle>_f2c/c2f and MPI_Status_f2c/c2f (MPI-4.1 §19.3.4-5). */
#include <mpi.h>

/* The size of the Fortran communicator *fcomm, the count of *ftype items in
 * the Fortran status fstatus, and a dup of the communicator back to
 * Fortran in *fdup; returns 0 when every conversion agrees. */
int cm_c_interop_(const MPI_Fint *fcomm, const MPI_Fint *ftype, MPI_Fint *fstatus,
                  MPI_Fint *size, MPI_Fint *count, MPI_Fint *fdup)
{
    MPI_Comm comm = MPI_Comm_f2c(*fcomm);
    MPI_Datatype type = MPI_Type_f2c(*ftype);
    MPI_Status status;
    int bad = 0;
    if (MPI_Comm_size(comm, size) != MPI_SUCCESS)
        bad |= 1;
    if (MPI_Status_f2c(fstatus, &status) != MPI_SUCCESS || MPI_Get_count(&status, type, count) != MPI_SUCCESS)
        bad |= 2;
    status.MPI_TAG = 4242;      /* and back: Fortran sees the new tag */
    if (MPI_Status_c2f(&status, fstatus) != MPI_SUCCESS)
        bad |= 4;
    MPI_Comm dup;
    if (MPI_Comm_dup(comm, &dup) != MPI_SUCCESS)
        bad |= 8;
    *fdup = MPI_Comm_c2f(dup);
    if (MPI_Comm_c2f(MPI_COMM_WORLD) != MPI_Comm_toint(MPI_COMM_WORLD) || MPI_Type_f2c(MPI_Type_c2f(MPI_INT)) != MPI_INT)
        bad |= 16;
    return bad;
}
