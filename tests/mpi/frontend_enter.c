/*
 * frontend_enter.c -- what the enter/exit template of the generated front
 * ends (src/core/frontend.h, docs/spec.md "Front ends") does, seen from
 * outside.  Each mode ends the job the way its test expects (expect_fail.sh
 * reads mpirun's report):
 *
 *   record    MPI_Type_contiguous, then exit without MPI_Finalize: the report
 *             names it as the last MPI call (the datatype front ends recorded
 *             nothing before they were generated).
 *   record_c  the same for MPI_Type_size_c, a _c form that was an alias of
 *             MPI_Type_size_x.
 *   name_c    MPI_Get_elements_c on MPI_DATATYPE_NULL under
 *             MPI_ERRORS_ARE_FATAL: the error names MPI_Get_elements_c, the
 *             call the program made, not the body it shares with
 *             MPI_Get_elements_x.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "record")) {
        MPI_Datatype t;
        MPI_Type_contiguous(2, MPI_INT, &t);
        exit(0);
    }
    if (!strcmp(mode, "record_c")) {
        MPI_Count n;
        MPI_Type_size_c(MPI_INT, &n);
        exit(0);
    }
    if (!strcmp(mode, "name_c")) {
        MPI_Status st;
        MPI_Count n;
        memset(&st, 0, sizeof st);
        MPI_Get_elements_c(&st, MPI_DATATYPE_NULL, &n);
        printf("frontend_enter: MPI_Get_elements_c returned on an invalid datatype\n");
        return 1;
    }
    fprintf(stderr, "usage: frontend_enter record|record_c|name_c\n");
    MPI_Finalize();
    return 2;
}
