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

/* The Fortran MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE as C sees them
 * (19.3.5): fs, fss from use mpi; other is a status of the program's.
 * Returns 0 when MPI_F_STATUS(ES)_IGNORE name them, and converting them (or
 * MPI_F08_STATUS(ES)_IGNORE) is MPI_ERR_ARG and leaves both sides as they
 * were. */
int cm_c_status_ignore_(MPI_Fint *fs, MPI_Fint *fss, MPI_Fint *other)
{
    int bad = 0;
    MPI_Status c = { 0 };
    c.MPI_SOURCE = 77;
    if (fs != MPI_F_STATUS_IGNORE || fss != MPI_F_STATUSES_IGNORE)
        bad |= 1;
    if (other == MPI_F_STATUS_IGNORE || other == MPI_F_STATUSES_IGNORE || MPI_F_STATUS_IGNORE == NULL ||
        (MPI_Fint *)MPI_F08_STATUSES_IGNORE != MPI_F_STATUSES_IGNORE)
        bad |= 2;
    if (MPI_Status_f2c(MPI_F_STATUS_IGNORE, &c) != MPI_ERR_ARG || MPI_Status_f2c(MPI_F_STATUSES_IGNORE, &c) != MPI_ERR_ARG ||
        MPI_Status_f082c(MPI_F08_STATUS_IGNORE, &c) != MPI_ERR_ARG || c.MPI_SOURCE != 77)
        bad |= 4;
    if (MPI_Status_c2f(&c, MPI_F_STATUS_IGNORE) != MPI_ERR_ARG || MPI_Status_c2f(&c, MPI_F_STATUSES_IGNORE) != MPI_ERR_ARG ||
        MPI_Status_c2f08(&c, MPI_F08_STATUSES_IGNORE) != MPI_ERR_ARG || fs[MPI_F_SOURCE] == 77 || fss[MPI_F_SOURCE] == 77)
        bad |= 8;
    if (MPI_Status_f2c(other, &c) != MPI_SUCCESS || MPI_Status_c2f(&c, other) != MPI_SUCCESS)
        bad |= 16;
    return bad;
}

/* mpi_f08's MPI_STATUS_IGNORE (f08s) and MPI_STATUSES_IGNORE (f08ss): 0 when
 * MPI_F08_STATUS(ES)_IGNORE name them. */
int cm_c_f08_ignore_(MPI_F08_status *f08s, MPI_F08_status *f08ss)
{
    return (f08s != MPI_F08_STATUS_IGNORE) | (f08ss != MPI_F08_STATUSES_IGNORE) << 1;
}
