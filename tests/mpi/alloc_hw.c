/*
 * alloc_hw.c -- MPI_Alloc_mem / MPI_Free_mem and MPI_Get_hw_resource_info.
 *
 * Memory: blocks of 0, 1 and 1 MiB bytes, 64-byte aligned, writable, usable
 * as a send and receive buffer; a negative size, a NULL baseptr and a bad
 * info handle refused with their classes.
 * Hardware info: mpi_hw_resource_type is set; with --packages (run on a
 * synthetic two-package machine) every rank bound to a core reports its core
 * and package, ranks with the same corempi_package are exactly the members
 * of Comm_split_type's "Package" communicator, and the cores are distinct.
 */
#include <mpi.h>
#include "check.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static void memory(void)
{
    static const MPI_Aint sizes[] = { 0, 1, 1 << 20 };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        char *p = NULL;
        CHECK_MPI(MPI_Alloc_mem(sizes[i], MPI_INFO_NULL, &p));
        CHECK(p && (uintptr_t)p % 64 == 0, "Alloc_mem(%ld) gave %p", (long)sizes[i], (void *)p);
        if (sizes[i])
            memset(p, 0x5a, (size_t)sizes[i]);
        CHECK_MPI(MPI_Free_mem(p));
    }
    /* As a message buffer, with an info argument. */
    MPI_Info info;
    CHECK_MPI(MPI_Info_create(&info));
    CHECK_MPI(MPI_Info_set(info, "mpi_minimum_memory_alignment", "64"));
    int *buf;
    CHECK_MPI(MPI_Alloc_mem(1000 * sizeof(int), info, &buf));
    for (int i = 0; i < 1000; i++)
        buf[i] = rank * 1000 + i;
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    CHECK_MPI(MPI_Sendrecv_replace(buf, 1000, MPI_INT, next, 7, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int i = 0; i < 1000; i++)
        CHECK(buf[i] == prev * 1000 + i, "element %d: %d from rank %d", i, buf[i], prev);
    CHECK_MPI(MPI_Free_mem(buf));
    CHECK_MPI(MPI_Info_free(&info));

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    void *q = NULL;
    int cls, rc = MPI_Alloc_mem(-1, MPI_INFO_NULL, &q);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_SIZE, "Alloc_mem(-1): class %d", cls);
    rc = MPI_Alloc_mem(8, MPI_INFO_NULL, NULL);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG, "Alloc_mem with baseptr NULL: class %d", cls);
    rc = MPI_Alloc_mem(8, (MPI_Info)(intptr_t)0x7654321, &q);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_INFO, "Alloc_mem with a bad info: class %d", cls);
    rc = MPI_Get_hw_resource_info(NULL);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG, "Get_hw_resource_info(NULL): class %d", cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static int get_int(MPI_Info info, const char *key)
{
    char v[MPI_MAX_INFO_VAL + 1];
    int buflen = sizeof v, flag = 0;
    CHECK_MPI(MPI_Info_get_string(info, key, &buflen, v, &flag));
    return flag ? atoi(v) : -1;
}

static void hardware(int packages)
{
    MPI_Info hw;
    CHECK_MPI(MPI_Get_hw_resource_info(&hw));
    char type[MPI_MAX_INFO_VAL + 1];
    int buflen = sizeof type, flag = 0;
    CHECK_MPI(MPI_Info_get_string(hw, "mpi_hw_resource_type", &buflen, type, &flag));
    CHECK(flag && (!strcmp(type, "Core") || !strcmp(type, "Machine")), "mpi_hw_resource_type: %s",
          flag ? type : "(unset)");
    if (packages) {
        CHECK(!strcmp(type, "Core"), "bound rank reports %s", type);
        int core = get_int(hw, "corempi_core"), pkg = get_int(hw, "corempi_package");
        CHECK(core >= 0 && pkg >= 0, "core %d package %d", core, pkg);
        int *cores = malloc((size_t)size * sizeof *cores);
        CHECK_MPI(MPI_Allgather(&core, 1, MPI_INT, cores, 1, MPI_INT, MPI_COMM_WORLD));
        for (int i = 0; i < size; i++)
            CHECK(i == rank || cores[i] != core, "ranks %d and %d both on core %d", i, rank, core);
        free(cores);
        MPI_Info want;
        MPI_Comm pc, same;
        CHECK_MPI(MPI_Info_create(&want));
        CHECK_MPI(MPI_Info_set(want, "mpi_hw_resource_type", "Package"));
        CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, want, &pc));
        CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, pkg, 0, &same));
        int result;
        CHECK_MPI(MPI_Comm_compare(pc, same, &result));
        CHECK(result == MPI_CONGRUENT, "ranks by corempi_package differ from the Package split (%d)", result);
        MPI_Comm_free(&pc);
        MPI_Comm_free(&same);
        MPI_Info_free(&want);
    }
    CHECK_MPI(MPI_Info_free(&hw));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    memory();
    hardware(argc > 1 && !strcmp(argv[1], "--packages"));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("alloc_hw: ok at %d ranks\n", size);
    MPI_Finalize();
    return 0;
}
