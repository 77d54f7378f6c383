/* manual.c -- the Fortran bindings whose Fortran signature is not the C one
 * (spec/gen_fortran.py MANUAL): MPI_INIT has no argc/argv, MPI_PCONTROL no
 * varargs, MPI_INFO_CREATE_ENV no argument list; and MPI_STATUS_F2F08 /
 * MPI_STATUS_F082F (MPI-4.1 19.3.5), Fortran procedures with no C function
 * behind them: both statuses are MPI_Status's 8 integers. */
#include "fbind_util.h"

void mpi_init_(MPI_Fint *ierror) { *ierror = MPI_Init(NULL, NULL); }
void pmpi_init_(MPI_Fint *ierror) { *ierror = PMPI_Init(NULL, NULL); }

void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror)
{
    *ierror = MPI_Init_thread(NULL, NULL, *required, provided);
}
void pmpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror)
{
    *ierror = PMPI_Init_thread(NULL, NULL, *required, provided);
}

void mpi_info_create_env_(MPI_Fint *info, MPI_Fint *ierror)
{
    MPI_Info c = MPI_INFO_NULL;
    *ierror = MPI_Info_create_env(0, NULL, &c);
    *info = PMPI_Info_toint(c);
}
void pmpi_info_create_env_(MPI_Fint *info, MPI_Fint *ierror)
{
    MPI_Info c = MPI_INFO_NULL;
    *ierror = PMPI_Info_create_env(0, NULL, &c);
    *info = PMPI_Info_toint(c);
}

void mpi_pcontrol_(MPI_Fint *level) { MPI_Pcontrol(*level); }
void pmpi_pcontrol_(MPI_Fint *level) { PMPI_Pcontrol(*level); }

/* mpi.h's MPI_Status_f2f08/f082f: MPI_ERR_ARG for an ignore sentinel */
void mpi_status_f2f08_(const MPI_Fint *f_status, MPI_Fint *f08_status, MPI_Fint *ierror)
{
    *ierror = MPI_Status_f2f08(f_status, f08_status);
}
void mpi_status_f082f_(const MPI_Fint *f08_status, MPI_Fint *f_status, MPI_Fint *ierror)
{
    *ierror = MPI_Status_f082f(f08_status, f_status);
}
/* no PMPI_ function to call: the profiling names are the same code */
void pmpi_status_f2f08_(const MPI_Fint *f_status, MPI_Fint *f08_status, MPI_Fint *ierror)
    __attribute__((alias("mpi_status_f2f08_")));
void pmpi_status_f082f_(const MPI_Fint *f08_status, MPI_Fint *f_status, MPI_Fint *ierror)
    __attribute__((alias("mpi_status_f082f_")));

#define CMF_NAMES_F08(n, N) CMF_NAMES(n, N) CMF_ALIAS_HIDDEN(mpi_##n##_, cmf08_##n##_)
CMF_NAMES_F08(init, INIT)
CMF_NAMES_F08(init_thread, INIT_THREAD)
CMF_NAMES_F08(info_create_env, INFO_CREATE_ENV)
CMF_NAMES_F08(pcontrol, PCONTROL)
CMF_NAMES_F08(status_f2f08, STATUS_F2F08)
CMF_NAMES_F08(status_f082f, STATUS_F082F)
