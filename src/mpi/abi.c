/*
 * abi.c -- the MPI-5.0 ABI chapter's own calls: MPI_Abi_get_version,
 * MPI_Abi_get_info and the MPI_<Handle>_toint / _fromint conversions: the
 * impls of their generated front ends (spec/abi.api); the Fortran ones are
 * in abi_fortran.c.
 *
 * Invariant the conversions rely on (docs/abi.md section 2): a handle's
 * value fits in a non-negative int -- today's handles are small table
 * indices, and after the switch created handles are kind << 24 | index and
 * predefined ones below 4096 -- so toint/fromint are casts, lossless both
 * ways, with no table.  fromint does not validate: the call that uses the
 * handle does, and names it.
 */
#include "core/state.h"
#include "core/error.h"

#include <stdint.h>
#include <stdio.h>
#include "fe_abi.h"

/* The version of the standard ABI this library implements (MPI-5.0: 1.0).
 * The public header gets MPI_ABI_VERSION with the header switch. */
#define CM_ABI_MAJOR 1
#define CM_ABI_MINOR 0

int cm_Abi_get_version(int *abi_major, int *abi_minor)
{
    static const char call[] = "MPI_Abi_get_version";
    if (!abi_major || !abi_minor)
        return cm_error(MPI_COMM_SELF, MPI_ERR_ARG, call, "%s pointer is NULL",
                        !abi_major ? "abi_major" : "abi_minor");
    *abi_major = CM_ABI_MAJOR;
    *abi_minor = CM_ABI_MINOR;
    return MPI_SUCCESS;
}

/* A new info object the caller frees: the sizes of the integer types, the
 * keys Open MPI's libmpi_abi answers too, so a binding can ask either. */
int cm_Abi_get_info(MPI_Info *info)
{
    static const char call[] = "MPI_Abi_get_info";
    if (!info)
        return cm_error(MPI_COMM_SELF, MPI_ERR_ARG, call, "info pointer is NULL");
    static const struct { const char *key; size_t size; } keys[] = {
        { "mpi_aint_size", sizeof(MPI_Aint) },
        { "mpi_count_size", sizeof(MPI_Count) },
        { "mpi_offset_size", sizeof(MPI_Offset) },
    };
    MPI_Info in;
    int rc = PMPI_Info_create(&in);
    for (size_t i = 0; rc == MPI_SUCCESS && i < sizeof keys / sizeof keys[0]; i++) {
        char v[24];
        snprintf(v, sizeof v, "%zu", keys[i].size);
        rc = PMPI_Info_set(in, keys[i].key, v);
    }
    if (rc != MPI_SUCCESS)
        return rc;
    *info = in;
    return MPI_SUCCESS;
}

/* One pair per handle type: value to int and back (see the invariant). */
#define CM_ABI_TOINT(Name, Type, arg)               \
    int cm_##Name##_toint(Type arg)                 \
    {                                               \
        return (int)(intptr_t)arg;                  \
    }                                               \
    Type cm_##Name##_fromint(int arg)               \
    {                                               \
        return (Type)(intptr_t)arg;                 \
    }

CM_ABI_TOINT(Comm, MPI_Comm, comm)
CM_ABI_TOINT(Errhandler, MPI_Errhandler, errhandler)
CM_ABI_TOINT(Group, MPI_Group, group)
CM_ABI_TOINT(Info, MPI_Info, info)
CM_ABI_TOINT(Message, MPI_Message, message)
CM_ABI_TOINT(Op, MPI_Op, op)
CM_ABI_TOINT(Request, MPI_Request, request)
CM_ABI_TOINT(Type, MPI_Datatype, datatype)
CM_ABI_TOINT(Session, MPI_Session, session)
/* Windows (src/osc, core/handle.h kind CM_H_WIN) and files (src/io, kind
 * CM_H_FILE) convert like every other handle. */
CM_ABI_TOINT(Win, MPI_Win, win)
CM_ABI_TOINT(File, MPI_File, file)
