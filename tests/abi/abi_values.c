/*
 * abi_values.c -- does corempi's mpi.h carry the MPI-5.0 standard ABI?
 *
 * Checks, against the values of the MPI-5.0 report's chapter "Application
 * Binary Interface" (tables in abi_values.def, the reference header
 * mpi-forum/mpi-abi-stubs mpi.h): every predefined handle (value and
 * pointer size), every integer and address constant, the sizes of MPI_Aint,
 * MPI_Offset, MPI_Count and of every handle type, and MPI_Status as 8 ints
 * with MPI_SOURCE, MPI_TAG, MPI_ERROR first.  Prints one line per mismatch
 * and exits 1 if there is any; needs no MPI_Init (compile-time facts only).
 */
#include "mpi.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

static int bad, checked;

static void cm_check_handle(const char *name, intptr_t value, size_t size, intptr_t want)
{
    checked++;
    if (value != want || size != sizeof(void *)) {
        printf("abi: %s is 0x%lx (%zu bytes), the standard says 0x%lx (%zu bytes)\n", name,
               (long)value, size, (long)want, sizeof(void *));
        bad++;
    }
}

static void cm_check_int(const char *name, long long value, long long want)
{
    checked++;
    if (value != want) {
        printf("abi: %s is %lld, the standard says %lld\n", name, value, want);
        bad++;
    }
}

static void cm_check_ptr(const char *name, intptr_t value, intptr_t want)
{
    checked++;
    if (value != want) {
        printf("abi: %s is (pointer)%ld, the standard says (pointer)%ld\n", name, (long)value, (long)want);
        bad++;
    }
}

static __attribute__((unused)) void cm_missing(const char *name)
{
    checked++;
    printf("abi: %s is not defined (as a macro) by mpi.h\n", name);
    bad++;
}

#define CM_SIZE(T, want) cm_check_int("sizeof(" #T ")", (long long)sizeof(T), (long long)(want))
#define CM_OFFSET(m, want) cm_check_int("offsetof(MPI_Status, " #m ")", (long long)offsetof(MPI_Status, m), want)

static void check_types(void)
{
    CM_SIZE(MPI_Aint, sizeof(intptr_t));
    CM_SIZE(MPI_Offset, 8);
    CM_SIZE(MPI_Count, 8);
    CM_SIZE(MPI_Comm, sizeof(void *));
    CM_SIZE(MPI_Group, sizeof(void *));
    CM_SIZE(MPI_Datatype, sizeof(void *));
    CM_SIZE(MPI_Op, sizeof(void *));
    CM_SIZE(MPI_Request, sizeof(void *));
    CM_SIZE(MPI_Errhandler, sizeof(void *));
    CM_SIZE(MPI_Info, sizeof(void *));
    CM_SIZE(MPI_Message, sizeof(void *));
    /* MPI_Status: exactly 8 ints, the public fields first. */
    CM_SIZE(MPI_Status, 8 * sizeof(int));
    CM_OFFSET(MPI_SOURCE, 0);
    CM_OFFSET(MPI_TAG, sizeof(int));
    CM_OFFSET(MPI_ERROR, 2 * sizeof(int));
#ifdef MPI_ABI_VERSION
    /* Names only the switched header has; MPI_ABI_VERSION is checked below. */
    CM_OFFSET(MPI_internal, 3 * sizeof(int));
    cm_check_int("sizeof(MPI_Status.MPI_internal)", (long long)sizeof(((MPI_Status *)0)->MPI_internal),
                 5 * sizeof(int));
    cm_check_int("MPI_Comm is a pointer to struct MPI_ABI_Comm",
                 _Generic((MPI_Comm)0, struct MPI_ABI_Comm *: 1, default: 0), 1);
    cm_check_int("MPI_Datatype is a pointer to struct MPI_ABI_Datatype",
                 _Generic((MPI_Datatype)0, struct MPI_ABI_Datatype *: 1, default: 0), 1);
#endif
}

int main(void)
{
    check_types();
#include "abi_values_checks.h"
    printf("abi: %d of %d checks against the MPI-5.0 standard ABI fail\n", bad, checked);
    return bad ? 1 : 0;
}
