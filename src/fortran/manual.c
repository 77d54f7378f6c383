/* manual.c -- the Fortran bindings whose Fortran signature is not the C one
 * (spec/gen_fortran.py MANUAL): MPI_INIT has no argc/argv, MPI_PCONTROL no
 * varargs, MPI_INFO_CREATE_ENV no argument list. */
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

#define CMF_NAMES_F08(n, N) CMF_NAMES(n, N) CMF_ALIAS_HIDDEN(mpi_##n##_, cmf08_##n##_)
CMF_NAMES_F08(init, INIT)
CMF_NAMES_F08(init_thread, INIT_THREAD)
CMF_NAMES_F08(info_create_env, INFO_CREATE_ENV)
CMF_NAMES_F08(pcontrol, PCONTROL)
