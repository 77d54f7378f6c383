/*
 * abi_fortran.c -- the MPI-5.0 ABI's Fortran calls: what a Fortran binding
 * (corempi's libmpifort, or another one built on the standard ABI) tells
 * the C library, and what anyone may read back.
 *   MPI_Abi_set_fortran_booleans / MPI_Abi_get_fortran_booleans: the bytes
 *     of .TRUE. and .FALSE. per LOGICAL size (1, 2, 4, 8, 16), stored as given.
 *   MPI_Abi_set_fortran_info / MPI_Abi_get_fortran_info: an info of the
 *     Fortran sizes ("mpi_logical_size", ...); set once (a second set is
 *     MPI_ERR_ABI: the first binding to say it is the one in use), get gives
 *     a duplicate the caller frees, or MPI_INFO_NULL when none was set.
 * All four may be called before MPI_Init and after MPI_Finalize (a binding
 * says these things when it is loaded), see core/error.c always_available.
 *
 * The predefined LOGICAL reductions (core/op_predefined.c) read any non-zero
 * value as true and write 1: gfortran's .TRUE., and odd, which is what
 * compilers that test the low bit (Intel's default) read as .TRUE. too; the
 * stored values do not change them.  Not thread-safe beyond what
 * MPI_THREAD_SERIALIZED asks.
 */
#include "core/state.h"
#include "core/error.h"
#include "fe_abi.h"

#include <string.h>


/* One slot per size 1, 2, 4, 8, 16 (index log2 of the size). */
enum { CM_FBOOL_SIZES = 5, CM_FBOOL_MAX = 16 };
static struct {
    int set;
    unsigned char t[CM_FBOOL_MAX], f[CM_FBOOL_MAX];
} fbool[CM_FBOOL_SIZES];
static MPI_Info fortran_info = MPI_INFO_NULL;

/* The slot of logical_size, or -1 when it is no power of two up to 16. */
static int fbool_slot(int size)
{
    for (int i = 0; i < CM_FBOOL_SIZES; i++)
        if (size == 1 << i)
            return i;
    return -1;
}

int cm_Abi_set_fortran_booleans(int logical_size, void *logical_true, void *logical_false)
{
    static const char call[] = "MPI_Abi_set_fortran_booleans";
    int i = fbool_slot(logical_size);
    if (i < 0)
        return cm_error(MPI_COMM_SELF, MPI_ERR_ARG, call,
                        "logical_size %d is not 1, 2, 4, 8 or 16 (bytes)", logical_size);
    if (!logical_true || !logical_false)
        return cm_error(MPI_COMM_SELF, MPI_ERR_ARG, call, "%s pointer is NULL",
                        !logical_true ? "logical_true" : "logical_false");
    if (!memcmp(logical_true, logical_false, (size_t)logical_size))
        return cm_error(MPI_COMM_SELF, MPI_ERR_ARG, call,
                        "logical_true and logical_false are the same %d bytes", logical_size);
    memcpy(fbool[i].t, logical_true, (size_t)logical_size);
    memcpy(fbool[i].f, logical_false, (size_t)logical_size);
    fbool[i].set = 1;
    return MPI_SUCCESS;
}

int cm_Abi_get_fortran_booleans(int logical_size, void *logical_true, void *logical_false, int *is_set)
{
    static const char call[] = "MPI_Abi_get_fortran_booleans";
    int i = fbool_slot(logical_size);
    if (i < 0)
        return cm_error(MPI_COMM_SELF, MPI_ERR_ARG, call,
                        "logical_size %d is not 1, 2, 4, 8 or 16 (bytes)", logical_size);
    if (!logical_true || !logical_false || !is_set)
        return cm_error(MPI_COMM_SELF, MPI_ERR_ARG, call, "%s pointer is NULL",
                        !logical_true ? "logical_true" : !logical_false ? "logical_false" : "is_set");
    *is_set = fbool[i].set;
    if (fbool[i].set) {
        memcpy(logical_true, fbool[i].t, (size_t)logical_size);
        memcpy(logical_false, fbool[i].f, (size_t)logical_size);
    }
    return MPI_SUCCESS;
}

int cm_Abi_set_fortran_info(MPI_Info info)
{
    static const char call[] = "MPI_Abi_set_fortran_info";
    if (info == MPI_INFO_NULL)
        return cm_error(MPI_COMM_SELF, MPI_ERR_INFO, call, "info is MPI_INFO_NULL");
    if (fortran_info != MPI_INFO_NULL)
        return cm_error(MPI_COMM_SELF, MPI_ERR_ABI, call,
                        "the Fortran ABI details were set already (by the Fortran binding in use)");
    MPI_Info copy;
    int rc = PMPI_Info_dup(info, &copy);
    if (rc != MPI_SUCCESS)
        return rc;
    fortran_info = copy;
    return MPI_SUCCESS;
}

int cm_Abi_get_fortran_info(MPI_Info *info)
{
    static const char call[] = "MPI_Abi_get_fortran_info";
    if (!info)
        return cm_error(MPI_COMM_SELF, MPI_ERR_ARG, call, "info pointer is NULL");
    if (fortran_info == MPI_INFO_NULL) {
        *info = MPI_INFO_NULL;
        return MPI_SUCCESS;
    }
    return PMPI_Info_dup(fortran_info, info);
}
