/*
 * abi_print.c -- print what an mpi.h says about every name of the standard ABI.
 *
 * Built twice: as abi_print_forum against the MPI Forum's header alone and as
 * abi_print_corempi against corempi's include/mpi.h; abi_names.h (one per
 * build, in its own directory) is the list gen_abi.cmake extracted from the Forum's header (for corempi, with the
 * names its header lacks marked missing).  Each line is "NAME=value (type)",
 * the value read from the compiled constant, never written here, so the test
 * abi.values (abi_compare.cmake) diffs the two outputs and the standard's
 * values live in one place: the Forum's header.  Needs no MPI library.
 */
#include "mpi.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The types a constant of the standard has.  Only one of each set of
 * compatible types may appear: MPI_Copy_function* is MPI_Comm_copy_attr_function*
 * to C, MPI_Offset and MPI_Aint are long on LP64. */
#define CM_TYPE_NAME(x) _Generic((x),                                                          \
    int: "int", unsigned: "unsigned", long: "long", long long: "long long",                      \
    void *: "void *", char **: "char **", char ***: "char ***", int *: "int *",                  \
    MPI_Status *: "MPI_Status *", MPI_Op: "MPI_Op", MPI_Comm: "MPI_Comm", MPI_Group: "MPI_Group", \
    MPI_Win: "MPI_Win", MPI_File: "MPI_File", MPI_Session: "MPI_Session",                        \
    MPI_Message: "MPI_Message", MPI_Info: "MPI_Info", MPI_Errhandler: "MPI_Errhandler",           \
    MPI_Request: "MPI_Request", MPI_Datatype: "MPI_Datatype", MPI_T_enum: "MPI_T_enum",           \
    MPI_T_cvar_handle: "MPI_T_cvar_handle", MPI_T_pvar_handle: "MPI_T_pvar_handle",             \
    MPI_T_pvar_session: "MPI_T_pvar_session",                                                    \
    MPI_Comm_copy_attr_function *: "MPI_Comm_copy_attr_function *",                             \
    MPI_Comm_delete_attr_function *: "MPI_Comm_delete_attr_function *",                         \
    MPI_Type_copy_attr_function *: "MPI_Type_copy_attr_function *",                             \
    MPI_Type_delete_attr_function *: "MPI_Type_delete_attr_function *",                         \
    MPI_Win_copy_attr_function *: "MPI_Win_copy_attr_function *",                               \
    MPI_Win_delete_attr_function *: "MPI_Win_delete_attr_function *",                           \
    MPI_Datarep_conversion_function *: "MPI_Datarep_conversion_function *",                     \
    MPI_Datarep_conversion_function_c *: "MPI_Datarep_conversion_function_c *",                 \
    default: "another type")

/* Handles and callback constants are pointers: their integer value is what
 * the ABI fixes (GCC and Clang convert function pointers too). */
#define CM_ABI_NAME(n) \
    printf("%s=%lld (%s)\n", #n, (long long)(intptr_t)(n), CM_TYPE_NAME(n));
#define CM_ABI_MISSING(n) printf("%s=missing\n", #n);
/* A handle type: which struct it points to (C++ sees the tag) and its size. */
#define CM_ABI_TYPE(T, tag) \
    printf("%s=%s (%zu bytes)\n", #T, _Generic((T)0, struct tag *: "struct " #tag " *", default: "another type"), sizeof(T));
#define CM_SCALAR(T) printf("%s=%zu bytes, %s\n", #T, sizeof(T), (T)-1 < 0 ? "signed" : "unsigned");
#define CM_FIELD(m) printf("offsetof(MPI_Status, %s)=%zu\n", #m, offsetof(MPI_Status, m));

int main(void)
{
    CM_SCALAR(MPI_Aint)
    CM_SCALAR(MPI_Offset)
    CM_SCALAR(MPI_Count)
    printf("MPI_Status=%zu bytes\n", sizeof(MPI_Status));
    CM_FIELD(MPI_SOURCE)
    CM_FIELD(MPI_TAG)
    CM_FIELD(MPI_ERROR)
    CM_FIELD(MPI_internal)
#include "abi_names.h"
    return 0;
}
